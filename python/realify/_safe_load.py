"""Load a .pt2 archive without running anything it carries.

torch.export.load unpickles with weights_only=False (pickled weights and constants, and the sample inputs where the
safe load fails), unpickles custom and opaque objects, dlopens AOTInductor libraries, hands each symbolic
expression of the program to sympy.sympify (an eval) and resolves each op name by getattr from `torch`, `math` or
`operator`, so `torch.os.system` is a valid target. A tampered archive is therefore code. realify reads the archive
with torch's own zip reader (the bytes torch would see), refuses what can only be code, turns every pickled member
into plain tensors with the weights_only unpickler and writes those back with torch.save (torch then unpickles
only pickles realify wrote), checks every symbolic expression against a small grammar, and after loading checks
that every graph calls an operator, never an arbitrary Python function.
"""

from __future__ import annotations

import io
import json
import math
import operator
import os
import re
from collections.abc import Iterator
from typing import Any

import torch

from ._threads import torch_lock
from .errors import ArtifactError, UnsafeArtifactError

__all__ = ["ArtifactError", "UnsafeArtifactError", "load_exported_program", "sanitized_archive"]


# Members torch.export.load reads as text or raw tensor bytes; anything else in data/ or models/ it may unpickle.
_TEXT = re.compile(r"(archive_format|archive_version|byteorder|\.data/.*|extra/.*|models/[^/]+\.json|"
                   r"data/(weights|constants)/[^/]+_config\.json)")
_CODE_DIRS = ("data/aotinductor/",)  # shared libraries and C++ sources: loading dlopens them
# A symbolic expression in a program: sizes and the functions torch's serializer writes, nothing callable beyond.
_SYM_FUNCS = frozenset({
    "FloorDiv", "ModularIndexing", "Where", "PythonMod", "Mod", "CleanDiv", "CeilToInt", "FloorToInt", "CeilDiv",
    "LShift", "RShift", "PowByNatural", "FloatPow", "FloatTrueDiv", "IntTrueDiv", "IsNonOverlappingAndDenseIndicator",
    "TruncToFloat", "ToFloat", "TruncToInt", "RoundToInt", "RoundDecimal", "Identity", "Max", "Min", "Abs", "Eq",
    "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "Piecewise", "floor", "ceiling", "sqrt", "True", "False", "oo",
    "Integer", "Rational", "Float", "BitwiseFn_bitwise_and", "BitwiseFn_bitwise_or", "BitwiseFn_bitwise_xor",
})
_SYMBOL = re.compile(r"[a-z]{1,4}\d+")
# How the serializer writes a size symbol: Symbol('s68', positive=True, integer=True)
_SYMBOL_CALL = re.compile(r"Symbol\('([a-z]{1,4}\d+)'(?:,\s*[a-z]+=(?:True|False))*\)")
_EXPR_CHARS = re.compile(r"[A-Za-z0-9_ +\-*/%(),<>=!&|~.]*")
_OPERATOR_FNS = frozenset(v for v in vars(operator).values() if callable(v)) | frozenset(
    v for v in vars(math).values() if callable(v))


def _fail(path: str, why: str) -> UnsafeArtifactError:
    return UnsafeArtifactError(f"{path}: {why}; realify loads only data (tensors, JSON), never code")


def _check_expr(path: str, text: str) -> None:
    text = _SYMBOL_CALL.sub(lambda m: m.group(1), text) if isinstance(text, str) else text
    if not isinstance(text, str) or not _EXPR_CHARS.fullmatch(text) or "__" in text:
        raise _fail(path, f"symbolic expression {str(text)[:60]!r} is not a size expression")
    for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        if word not in _SYM_FUNCS and not _SYMBOL.fullmatch(word) and not word.startswith("OpaqueUnaryFn_"):
            raise _fail(path, f"symbolic expression {text[:60]!r} names {word!r}")
    if re.search(r"[A-Za-z_)\]]\s*\.", text):  # attribute access; a dot stays only inside numbers
        raise _fail(path, f"symbolic expression {text[:60]!r} reads an attribute")


def _walk(x: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from _walk(v)


def _check_program_json(path: str, name: str, data: bytes) -> None:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as e:
        raise ArtifactError(f"{path}: member {name} is not valid JSON ({e})") from None
    for key, value in _walk(doc):
        if key == "expr_str":
            _check_expr(path, value)
        elif key == "range_constraints" and isinstance(value, dict):
            for sym in value:
                _check_expr(path, sym)


def _payloads(path: str, records: dict[str, bytes]) -> tuple[set[str], set[str]]:
    """Members the payload configs name as raw tensor bytes and as pickles."""
    raw: set[str] = set()
    pickled: set[str] = set()
    for name, data in records.items():
        m = re.fullmatch(r"data/(weights|constants)/[^/]+_config\.json", name)
        if not m:
            continue
        try:
            entries = json.loads(data).get("config", {})
        except (ValueError, UnicodeDecodeError, AttributeError) as e:
            raise ArtifactError(f"{path}: member {name} is not a payload config ({e})") from None
        for entry in entries.values() if isinstance(entries, dict) else ():
            file = entry.get("path_name") if isinstance(entry, dict) else None
            if not isinstance(file, str):
                raise ArtifactError(f"{path}: member {name} is not a payload config")
            if m.group(1) == "constants" and not file.startswith("tensor_"):  # custom or opaque objects: pickle
                raise _fail(path, f"constant {file} is a Python or TorchScript object")
            full = os.path.join("data", m.group(1), file)
            (pickled if entry.get("use_pickle") else raw).add(full)
            if not entry.get("use_pickle"):
                nbytes = _raw_nbytes(entry.get("tensor_meta"))
                if nbytes is not None and full in records and len(records[full]) != nbytes:
                    raise _fail(path, f"member {full} holds {len(records[full])} bytes where its tensor needs "
                                      f"{nbytes} (a tampered or damaged weight)")
    both = raw & pickled
    if both:
        raise _fail(path, f"member {sorted(both)[0]} is named both as raw bytes and as a pickle")
    return raw, pickled


def _raw_nbytes(meta: Any) -> int | None:
    """The bytes a raw tensor member must hold by its config (torch reads raw bytes unchecked when there are more);
    None where the config does not say (the load then checks what it can)."""
    try:
        from torch._export.serde.schema import ScalarType
        from torch._export.serde.serialize import _SERIALIZE_TO_TORCH_DTYPE

        dtype = _SERIALIZE_TO_TORCH_DTYPE[ScalarType(meta["dtype"])]
        sizes = [int(d["as_int"]) for d in meta["sizes"]]
        strides = [int(d["as_int"]) for d in meta["strides"]]
        offset = int(meta["storage_offset"]["as_int"])
    except Exception:  # symbolic sizes, another schema, a torch without these names
        return None
    if any(n == 0 for n in sizes):
        return None
    extent = offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides, strict=True))
    return extent * dtype.itemsize


def _plain(path: str, name: str, data: bytes) -> bytes:
    """A pickled member as tensors and plain containers, written again by torch.save."""
    try:
        obj = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as e:  # the safe unpickler refuses every global outside its allowlist
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()] or [type(e).__name__]
        why = next((ln for ln in lines if "Unsupported" in ln or "Unpickler error" in ln), lines[0])
        why = why.split(" by default. Please")[0].removeprefix("WeightsUnpickler error: ")
        raise _fail(path, f"member {name} holds objects other than tensors ({why[:160]})") from None
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def sanitized_archive(path: str) -> io.BytesIO:
    """The archive at `path` rebuilt so that torch.export.load can run nothing from it."""
    with open(path, "rb") as f:
        blob = f.read()
    try:
        reader = torch._C.PyTorchFileReader(io.BytesIO(blob))
        names = list(reader.get_all_records())
        records = {n: reader.get_record(n) for n in names}
    except Exception as e:  # miniz reports a damaged archive as RuntimeError with a C++ trace
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        why = first.split("zip archive: ", 1)[-1].split(". This is an internal miniz error")[0]
        raise ArtifactError(
            f"{path}: not a program saved by torch.export.save (not a zip archive: {why[:120]})") from None
    if len(set(names)) != len(names):
        raise _fail(path, "the archive names a member twice")
    for n in names:
        if n.startswith(_CODE_DIRS) or n.startswith("serialized_") or n.endswith(".so"):
            raise _fail(path, f"member {n} is compiled code or a legacy pickle format")
    raw, pickled = _payloads(path, records)
    out = io.BytesIO()
    writer = torch._C.PyTorchFileWriter(out)
    writer.set_min_version(6)
    written = set(writer.get_all_written_records())
    for n in names:
        data = records[n]
        if _TEXT.fullmatch(n) and n not in raw:
            try:
                data.decode()
            except UnicodeDecodeError:
                raise ArtifactError(f"{path}: member {n} is not UTF-8 text (a damaged archive)") from None
        if n.startswith("models/") and n.endswith(".json"):
            _check_program_json(path, n, data)
        elif n in pickled or (not _TEXT.fullmatch(n) and n not in raw):
            data = _plain(path, n, data)
        if n not in written:
            writer.write_record(n, data, len(data))
    writer.write_end_of_file()
    out.seek(0)
    return out


def _check_targets(path: str, gm: torch.fx.GraphModule) -> None:
    for mod in gm.modules():
        graph = getattr(mod, "graph", None)
        for node in graph.nodes if isinstance(graph, torch.fx.Graph) else ():
            if node.op in ("placeholder", "output", "get_attr"):
                continue
            t = node.target
            ok = node.op == "call_function" and (
                isinstance(t, (torch._ops.OpOverload, torch._ops.HigherOrderOperator))
                or t in _OPERATOR_FNS
                or (callable(t) and getattr(t, "__module__", "").startswith("torch") and t.__name__.startswith("sym_"))
            )
            if not ok:
                raise _fail(path, f"node {node.name} calls {t!r}, which is not an operator")


def load_exported_program(path: str | os.PathLike[str],
                          extra_files: dict[str, Any] | None = None) -> torch.export.ExportedProgram:
    """torch.export.load of `path`, refusing anything that would run code (UnsafeArtifactError)."""
    p = os.fspath(path)
    archive = sanitized_archive(p)
    try:
        with torch_lock():  # the deserializer keeps its state in a global
            ep = torch.export.load(archive, extra_files=extra_files)
    except Exception as e:  # torch raises many types on an archive it cannot read
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise ArtifactError(f"{p}: not a program saved by torch.export.save ({type(e).__name__}: "
                                  f"{first[:160]})") from None
    _check_targets(p, ep.graph_module)
    return ep
