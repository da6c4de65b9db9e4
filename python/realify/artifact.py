"""Self-describing lowered artifacts: save a lowered ExportedProgram as .pt2 or ONNX with its complex signature,
and load either back as a callable that takes and returns complex tensors.

The signature record is JSON. In a .pt2 written by realify.save it is the extra file `realify/signature.json`
(torch.export.save's `extra_files`); every program realify.lower returns also carries it in the custom metadata of
its first op node, which torch.export.save keeps, so a plain torch.export.save is self-describing too. In ONNX it is
the `metadata_props` entry `realify.signature`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch.utils import _pytree as pytree

from ._atomic import atomic_output
from ._lowering import LoweringReport
from ._safe_load import ArtifactError, load_exported_program
from ._signature import Boundary, Signature
from ._threads import torch_lock
from .errors import RealifyError
from .runtime import from_lowered, to_lowered

RECORD_FORMAT = "realify.signature/1"
PT2_EXTRA_FILE = "realify/signature.json"
ONNX_KEY = "realify.signature"
NODE_META_KEY = "realify.signature"  # in node.meta["custom"] of the lowered program's first op node
CONVENTION = (
    "a complex tensor of shape S crosses the lowered program as a real tensor of shape S+(2,) in "
    "torch.view_as_real layout: [..., 0] is the real part, [..., 1] the imaginary part"
)
_DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.complex32, torch.complex64, torch.complex128, torch.float16, torch.bfloat16, torch.float32, torch.float64,
)}


def _dtype_name(dt: torch.dtype) -> str:
    return str(dt).removeprefix("torch.")


def _boundary_record(b: Boundary) -> dict[str, Any]:
    record = {
        "position": b.position,
        "name": b.name,
        "complex_dtype": _dtype_name(b.complex_dtype),
        "real_dtype": _dtype_name(b.real_dtype),
    }
    if b.storage:  # read through its storage: the loader passes the real form of the whole storage
        record["storage"] = True
    return record


def _boundary_from(d: dict[str, Any]) -> Boundary:
    try:
        return Boundary(
            d["position"],
            str(d["name"]),
            _DTYPES[d["complex_dtype"]],
            _DTYPES[d["real_dtype"]],
            storage=bool(d.get("storage", False)),
        )
    except (KeyError, TypeError) as e:
        raise ValueError(f"malformed realify signature entry {d!r}") from e


def _spec_text(spec: Any) -> str | None:
    try:
        return pytree.treespec_dumps(spec)
    except Exception:  # a container pytree cannot serialise: outputs then come back flat
        return None


def signature_record(ep: torch.export.ExportedProgram) -> dict[str, Any]:
    """The JSON-ready record of a lowered program's complex signature (realify.lower's report on `ep`)."""
    from ._version import __version__

    report = ep.graph_module.meta.get("realify_report")
    if not isinstance(report, LoweringReport):
        raise ValueError("this ExportedProgram was not returned by realify.lower: it carries no complex signature")
    sig = report.signature
    return {
        "format": RECORD_FORMAT,
        "realify_version": __version__,
        "torch_version": torch.__version__.split("+")[0],
        "convention": CONVENTION,
        "inputs": [_boundary_record(b) for b in sig.inputs],
        "outputs": [_boundary_record(b) for b in sig.outputs],
        "params": [_boundary_record(b) for b in sig.consts],
        "in_spec": _spec_text(ep.call_spec.in_spec),
        "out_spec": _spec_text(ep.call_spec.out_spec),
    }


def attach_signature(ep: torch.export.ExportedProgram) -> None:
    """Store the record in the program itself, where torch.export.save/load keep it."""
    node = next((n for n in ep.graph.nodes if n.op == "call_function"), None)
    if node is not None:
        node.meta.setdefault("custom", {})[NODE_META_KEY] = json.dumps(signature_record(ep))


def _graph_record_text(ep: torch.export.ExportedProgram) -> str | None:
    for n in ep.graph.nodes:
        text = (n.meta.get("custom") or {}).get(NODE_META_KEY)
        if text:
            return text
    return None


def signature_from_record(record: dict[str, Any]) -> Signature:
    if record.get("format") != RECORD_FORMAT:
        raise ValueError(f"unknown realify signature format {record.get('format')!r} (expected {RECORD_FORMAT})")
    return Signature(
        inputs=[_boundary_from(d) for d in record.get("inputs", [])],
        consts=[_boundary_from(d) for d in record.get("params", [])],
        outputs=[_boundary_from(d) for d in record.get("outputs", [])],
    )


@contextlib.contextmanager
def _quiet_onnx() -> Iterator[None]:
    """The ONNX exporter logs and prints progress of its own; the CLI reports progress itself."""
    logger = logging.getLogger("torch.onnx")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        logger.setLevel(level)


def save(ep: torch.export.ExportedProgram, path: str | os.PathLike[str], *, opset: int | None = None) -> dict[str, Any]:
    """Write a program returned by realify.lower to `path` (.pt2 or .onnx) with its signature record.

    The file appears only when complete (written beside it, then renamed over it). Returns the record written."""
    record = signature_record(ep)
    text = json.dumps(record, indent=1)
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix == ".pt2":
        with atomic_output(path) as tmp, torch_lock():
            torch.export.save(ep, tmp, extra_files={PT2_EXTRA_FILE: text})
    elif suffix == ".onnx":
        from .onnx_ops import default_opset, translation_table

        args, kwargs = ep.example_inputs or ((), {})
        with _quiet_onnx(), torch_lock():
            prog = torch.onnx.export(ep, tuple(args), kwargs=kwargs, dynamo=True, opset_version=opset, verbose=False,
                                     custom_translation_table=translation_table(opset or default_opset()))
        assert prog is not None
        prog.model.metadata_props[ONNX_KEY] = text
        prog.model.metadata_props["realify.version"] = record["realify_version"]
        with atomic_output(path) as tmp:
            prog.save(tmp)
    else:
        raise ValueError(f"{os.fspath(path)}: the output must end in .pt2 or .onnx")
    return record


def read_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The signature record of a saved artifact, without loading its program."""
    p = os.fspath(path)
    if p.lower().endswith(".onnx"):
        import onnx

        meta = {e.key: e.value for e in onnx.load(p, load_external_data=False).metadata_props}
        text = meta.get(ONNX_KEY)
    else:
        extra = {PT2_EXTRA_FILE: ""}
        ep = load_exported_program(p, extra_files=extra)
        text = extra[PT2_EXTRA_FILE] or _graph_record_text(ep)
    if text is None:
        raise ValueError(f"{p} carries no realify signature (write it with `realify lower` or realify.save)")
    return _parse_record(text, p)


def _parse_record(text: str, path: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
        signature_from_record(record)
    except (ValueError, TypeError, AttributeError) as e:
        raise ArtifactError(f"{path}: the realify signature record is damaged ({e})") from None
    return record


class ComplexProgram:
    """A loaded artifact called with the original complex arguments; complex outputs come back complex."""

    def __init__(self, record: dict[str, Any], run: Callable[[list[Any], Any], tuple[list[Any], Any]],
                 source: str) -> None:
        self.record = record
        self.signature = signature_from_record(record)
        self.source = source
        self._run = run

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        flat, spec = pytree.tree_flatten((args, kwargs))
        for b in self.signature.inputs:
            i = int(b.position)
            if i >= len(flat) or not isinstance(flat[i], torch.Tensor) or flat[i].is_complex() != b.packed:
                raise TypeError(f"{self.source}: input {i} ({b.name}) must be a {_dtype_name(b.complex_dtype)} tensor")
            flat[i] = to_lowered(flat[i], b)
        outs, out_spec = self._run(flat, spec)
        for b in self.signature.outputs:
            outs[int(b.position)] = from_lowered(outs[int(b.position)], b)
        return pytree.tree_unflatten(outs, out_spec)


def _load_pt2(path: str) -> ComplexProgram:
    extra = {PT2_EXTRA_FILE: ""}
    ep = load_exported_program(path, extra_files=extra)
    text = extra[PT2_EXTRA_FILE] or _graph_record_text(ep)
    if not text:
        raise ValueError(f"{path} carries no realify signature (write it with `realify lower` or realify.save)")
    module = ep.module()

    def run(flat: list[Any], spec: Any) -> tuple[list[Any], Any]:
        args, kwargs = pytree.tree_unflatten(flat, spec)
        return pytree.tree_flatten(module(*args, **kwargs))

    prog = ComplexProgram(_parse_record(text, path), run, path)
    prog.exported_program = ep  # type: ignore[attr-defined]
    return prog


def _load_onnx(path: str, providers: list[str] | None) -> ComplexProgram:
    from .ort_session import onnxruntime_session

    sess = onnxruntime_session(path, providers=providers)
    meta = sess.get_modelmeta().custom_metadata_map
    if ONNX_KEY not in meta:
        raise ValueError(f"{path} carries no realify signature (write it with `realify lower` or realify.save)")
    record = _parse_record(meta[ONNX_KEY], path)
    names = [i.name for i in sess.get_inputs()]
    out_spec = pytree.treespec_loads(record["out_spec"]) if record.get("out_spec") else None
    storage_read = [int(b["position"]) for b in record.get("inputs", []) if b.get("storage")]

    def run(flat: list[Any], spec: Any) -> tuple[list[Any], Any]:
        for i in storage_read:  # a feed holds the tensor's own elements, as_strided reads its storage
            x = flat[i]
            if not x.is_contiguous() or x.storage_offset() or x.untyped_storage().nbytes() != x.nbytes:
                raise RealifyError(
                    f"{path}: input {i} is read through its storage (as_strided), and an ONNX feed holds only the "
                    "tensor's own elements: pass a contiguous tensor that is its whole storage (x.clone())"
                )
        tensors = [x for x in flat if isinstance(x, torch.Tensor)]
        if len(tensors) != len(names):
            raise TypeError(f"{path}: the ONNX model takes {len(names)} tensor inputs, got {len(tensors)}")
        feeds = {n: x.detach().cpu().contiguous().numpy() for n, x in zip(names, tensors, strict=True)}
        outs = [torch.from_numpy(o) for o in sess.run(None, feeds)]
        if out_spec is not None and out_spec.num_leaves == len(outs):
            return outs, out_spec
        return pytree.tree_flatten(tuple(outs) if len(outs) != 1 else outs[0])

    prog = ComplexProgram(record, run, path)
    prog.session = sess  # type: ignore[attr-defined]
    return prog


def load(path: str | os.PathLike[str], *, providers: list[str] | None = None) -> ComplexProgram:
    """Load a lowered .pt2 (through torch.export) or .onnx (through an ONNX Runtime session, `providers`
    defaulting to the CPU one) written by `realify lower` or realify.save. The result takes the original
    complex arguments and returns complex results again."""
    p = os.fspath(path)
    if p.lower().endswith(".onnx"):
        return _load_onnx(p, providers)
    return _load_pt2(p)
