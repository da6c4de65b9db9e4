"""The `realify` command: lower a saved ExportedProgram to a self-describing .pt2 or ONNX file, verify it against
the original, or inspect a program before lowering.

Exit codes: 0 ok; 1 verification failed; 2 unsupported op, bad input, bad output path or bad usage; 3 internal error
(a bug in realify); 130 interrupted (SIGINT or SIGTERM: an existing output is left as it was). Every failure ends
with one line `realify: error: ...` on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import math
import os
import signal
import sys
import time
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import torch
from torch.utils import _pytree as pytree

if TYPE_CHECKING:
    from ._options import LowerOptions

EXIT_OK, EXIT_VERIFY, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class CliError(Exception):
    """A failure the user can act on: one line, exit code 2 unless said otherwise."""

    def __init__(self, message: str, code: int = EXIT_INPUT) -> None:
        super().__init__(message)
        self.code = code


class Progress:
    """Progress lines on stderr with the time since start; silent with -q."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.t0 = time.perf_counter()

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"realify [{time.perf_counter() - self.t0:6.1f}s] {msg}", file=sys.stderr, flush=True)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="realify",
        description="Rewrite the complex-valued parts of a saved torch.export program into real-only ops.",
        epilog="exit codes: 0 ok, 1 verification failed, 2 unsupported op, bad input or output path, 3 internal error, "
               "130 interrupted",
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    common.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    sub = p.add_subparsers(dest="command", required=True)
    lo = sub.add_parser("lower", parents=[common], help="lower IN.pt2 to a real-only .pt2 or .onnx")
    lo.add_argument("input", metavar="IN.pt2", help="a program saved with torch.export.save")
    lo.add_argument("-o", "--output", required=True, metavar="OUT.pt2|OUT.onnx")
    lo.add_argument("-f", "--force", action="store_true", help="replace OUT if it exists")
    _lowering_flags(lo)
    lo.add_argument("--opset", type=int, metavar="N", help="ONNX opset (ONNX output only)")
    lo.add_argument("--verify", action="store_true", help="compare the written artifact with the original")
    lo.add_argument("--inputs", metavar="FILE.pt", help="torch.save'd arguments for --verify (default: random)")
    lo.add_argument("--seed", type=int, default=0, help="seed of the random --verify inputs")
    lo.add_argument("--tol", type=float, help="max relative error per output (default: by dtype)")
    lo.add_argument("--report", metavar="REPORT.json", help="write the lowering report as JSON")
    ins = sub.add_parser("inspect", parents=[common], help="show the complex values and which ops realify lowers")
    ins.add_argument("input", metavar="IN.pt2")
    ins.add_argument("--no-targets", action="store_true", help="skip the per-target check")
    return p


# The realify.LowerOptions fields `lower` sets, each by the flag of its name (an ExportedProgram is lowered: no
# eager fallback). Names left out take realify.lower's defaults.
LOWERING_FLAGS = (
    "target", "truncate_double", "fft", "division", "planar", "rotary_op", "pair_words", "cleanup", "disable_patterns"
)


def _lowering_flags(p: argparse.ArgumentParser) -> None:
    from ._options import DIVISIONS, PATTERNS, STRATEGIES, TARGETS

    p.add_argument("--target", choices=list(TARGETS), help="who receives the program: its op set is checked")
    p.add_argument("--truncate-double", action="store_true",
                   help="no float64 left: complex128 as float32 pairs, real float64 values as float32")
    p.add_argument("--fft", choices=list(STRATEGIES), help="how transforms are lowered (default auto)")
    p.add_argument("--division", choices=list(DIVISIONS), help="complex division (default c10, as eager PyTorch)")
    p.add_argument("--planar", action="store_true",
                   help="complex buffers read only as parts become contiguous [2, ...] tensors")
    p.add_argument("--rotary-op", action="store_true", help="each RoPE as one realify.rotary_embedding op")
    p.add_argument("--pair-words", action="store_true", help="bfloat16 RoPE pairs as int32 words (for Inductor)")
    p.add_argument("--no-cleanup", dest="cleanup", action="store_false", help="skip the core's peephole passes")
    p.add_argument("--disable-pattern", dest="disable_patterns", action="append", choices=list(PATTERNS),
                   metavar="NAME", help=f"a multi-op pattern not to try (repeatable): {', '.join(PATTERNS)}")


def _load_program(path: str) -> torch.export.ExportedProgram:
    if not os.path.exists(path):
        raise CliError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory, not a .pt2 file")
    from ._safe_load import ArtifactError, load_exported_program

    try:
        return load_exported_program(path)
    except ArtifactError as e:  # damaged, or holding something that would run code
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"{path}: cannot read ({e.strerror})") from None


def _check_output(path: str, force: bool, source: str) -> None:
    from ._atomic import check_output_path

    try:
        check_output_path(path, force=force, inputs=(source,) if os.path.exists(source) else ())
    except (OSError, ValueError) as e:
        raise CliError(str(e)) from None


def _first_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[0] if lines else type(e).__name__


def _root_cause(e: BaseException) -> str:
    """The innermost cause's type and first line: wrappers such as the ONNX exporter's say only 'failed'."""
    while e.__cause__ is not None:
        e = e.__cause__
    return f"{type(e).__name__}: {_first_line(e)}"


def _lower_options(args: argparse.Namespace, onnx: bool) -> LowerOptions:
    """The flags as realify.LowerOptions. An ONNX file for ONNX's own receivers (no other --target) is lowered as
    realify.export_onnx lowers: RotaryEmbedding for RoPE from opset 23, DFT nodes for the FFTs with --fft onnx-dft
    (opset >= 17)."""
    from ._options import LowerOptions
    from .onnx_export import for_opset
    from .onnx_ops import default_opset

    given = {f: getattr(args, f) for f in LOWERING_FLAGS if getattr(args, f) is not None}
    try:
        options = LowerOptions(**given)
        if onnx and args.target in (None, "onnx"):
            options = for_opset(options, default_opset() if args.opset is None else args.opset)
    except ValueError as e:
        raise CliError(str(e)) from e
    return options


def _real_dtypes(ref: Any, record: dict[str, Any], truncate: bool) -> list[torch.dtype | None]:
    """The real dtype each flat output is computed in by the artifact (tolerances depend on it)."""
    from .artifact import signature_from_record

    packed = {int(b.position): b.real_dtype for b in signature_from_record(record).outputs}
    out: list[torch.dtype | None] = []
    for i, r in enumerate(pytree.tree_leaves(ref)):
        dt = packed.get(i, r.dtype if isinstance(r, torch.Tensor) else None)
        out.append(torch.float32 if truncate and dt == torch.float64 else dt)
    return out


# Random --verify inputs are made only up to this many elements in all: beyond, pass --inputs.
MAX_RANDOM_ELEMENTS = 1 << 28


def _verify_inputs(ep: torch.export.ExportedProgram | None, args: argparse.Namespace) -> tuple[Any, Any, str]:
    """The --verify arguments, read or made before any lowering or writing: (args, kwargs, where from)."""
    from . import _verify as v

    if args.inputs:
        try:
            call_args, call_kwargs = v.load_inputs(args.inputs)
        except FileNotFoundError:
            raise CliError(f"{args.inputs}: no such file") from None
        except IsADirectoryError:
            raise CliError(f"{args.inputs}: is a directory") from None
        except Exception as e:
            raise CliError(f"{args.inputs}: cannot read the inputs ({_first_line(e)})") from e
        return call_args, call_kwargs, f"file:{args.inputs}"
    assert ep is not None
    n = sum(x.numel() for x in pytree.tree_leaves(ep.example_inputs) if isinstance(x, torch.Tensor))
    if n > MAX_RANDOM_ELEMENTS:
        raise CliError(f"--verify: the program's example inputs hold {n} elements (more than {MAX_RANDOM_ELEMENTS}); "
                       "pass smaller ones with --inputs FILE.pt")
    try:
        call_args, call_kwargs = v.random_inputs(ep, args.seed)
    except ValueError as e:
        raise CliError(str(e)) from None
    except RuntimeError as e:  # out of memory for inputs under the bound
        raise CliError(f"--verify: cannot make random inputs ({_first_line(e)}); pass --inputs FILE.pt") from None
    return call_args, call_kwargs, f"random(seed={args.seed})"


def _verify(ep: torch.export.ExportedProgram, args: argparse.Namespace, record: dict[str, Any],
            progress: Progress, inputs: tuple[Any, Any, str]) -> dict[str, Any]:
    from . import _verify as v
    from .artifact import load

    call_args, call_kwargs, source = inputs
    progress(f"verifying on {source} inputs: original program")
    try:
        ref = ep.module()(*call_args, **call_kwargs)
    except Exception as e:
        raise CliError(f"the original program rejects the inputs ({_first_line(e)})") from e
    progress(f"verifying: the written artifact {args.output}")
    got = load(args.output)(*call_args, **call_kwargs)
    rows = v.compare(ref, got, _real_dtypes(ref, record, args.truncate_double), args.tol)
    for r in rows:
        state = "ok" if r["passed"] else "FAILED"
        progress(f"  output {r['index']} {r['dtype']}{r['shape']}: max abs {r['max_abs']:.3g}, "
                 f"max rel {r['max_rel']:.3g} (tol {r['tol']:.1g}) {state}"
                 if r["max_abs"] is not None else f"  output {r['index']}: {r.get('detail', 'mismatch')} {state}")
    return {"inputs": source, "outputs": rows, "passed": all(r["passed"] for r in rows)}


def cmd_lower(args: argparse.Namespace, progress: Progress, report: dict[str, Any]) -> int:
    from .artifact import save
    from .lower import lower_with

    out_ext = os.path.splitext(args.output)[1].lower()
    report.update(input=args.input, output=args.output, format=out_ext[1:] or None,
                  options={**{f: getattr(args, f) for f in LOWERING_FLAGS}, "opset": args.opset},
                  analysis=None, nodes_before=None, nodes_after=None, signature=None, verify=None)
    if out_ext not in (".pt2", ".onnx"):
        raise CliError(f"{args.output}: the output must end in .pt2 or .onnx")
    if args.opset is not None and out_ext != ".onnx":
        raise CliError("--opset applies to ONNX output only")
    _check_output(args.output, args.force, args.input)
    if args.report:
        _check_output(args.report, True, args.input)
    if (args.inputs or args.tol is not None) and not args.verify:
        raise CliError("--inputs and --tol apply with --verify only")
    options = _lower_options(args, out_ext == ".onnx")
    inputs = _verify_inputs(None, args) if args.verify and args.inputs else None
    if out_ext == ".onnx" and args.target in (None, "onnx"):
        report["options"].update(fft=options.fft, rotary_op=options.rotary_op)  # what the opset picked
    times = report["timings_s"]
    t = time.perf_counter()
    progress(f"loading {args.input}")
    ep = _load_program(args.input)
    times["load"] = time.perf_counter() - t
    from .lower import _lowered_already

    if _lowered_already(ep):
        raise CliError(f"{args.input}: already lowered by realify (it carries a realify signature); lowering it "
                       "again would lose its complex signature: lower the original program")
    if args.verify and inputs is None:
        inputs = _verify_inputs(ep, args)
    t = time.perf_counter()
    progress(f"lowering ({sum(1 for n in ep.graph.nodes if n.op == 'call_function')} ops)")
    lowered = lower_with(ep, options)
    times["lower"] = time.perf_counter() - t
    rep = lowered.graph_module.meta["realify_report"]
    report["analysis"] = {"complex_values": rep.complex_values, "subgraphs": rep.subgraphs,
                          "complex_inputs": rep.complex_input_names, "complex_params": rep.complex_const_targets,
                          "complex_outputs": rep.complex_output_indices,
                          "dft_matmuls": [dataclasses.asdict(src) for src in rep.dft_matmul_sources]}
    report.update(nodes_before=rep.nodes_before, nodes_after=rep.nodes_after)
    progress(f"lowered: {rep.complex_values} complex values in {rep.subgraphs} subgraphs; "
             f"{rep.nodes_before} -> {rep.nodes_after} ops")
    t = time.perf_counter()
    progress(f"writing {args.output}" + (" (ONNX export)" if out_ext == ".onnx" else ""))
    if out_ext == ".onnx":
        _need_onnx()
    try:
        report["signature"] = save(lowered, args.output, opset=args.opset)
    except (OSError, ValueError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else _first_line(e)
        raise CliError(f"{args.output}: cannot write ({why})") from e
    except Exception as e:  # the exporter's own failures (an op ONNX lacks, an opset it cannot target)
        if out_ext != ".onnx":
            raise
        raise CliError(f"ONNX export failed ({_root_cause(e)})") from e
    times["save"] = time.perf_counter() - t
    if not args.verify:
        return EXIT_OK
    t = time.perf_counter()
    assert inputs is not None
    report["verify"] = _verify(ep, args, report["signature"], progress, inputs)
    times["verify"] = time.perf_counter() - t
    if not report["verify"]["passed"]:
        bad = [str(r["index"]) for r in report["verify"]["outputs"] if not r["passed"]]
        raise CliError(f"verification failed: output(s) {', '.join(bad)} above tolerance", EXIT_VERIFY)
    return EXIT_OK


def _need_onnx() -> None:
    import importlib.util

    missing = [m for m in ("onnx", "onnxscript") if importlib.util.find_spec(m) is None]
    if missing:
        raise CliError(f"ONNX output needs the package(s) {', '.join(missing)} (pip install {' '.join(missing)})")


def cmd_inspect(args: argparse.Namespace, progress: Progress, report: dict[str, Any]) -> int:
    from .inspection import format_inspection, inspect_program

    progress(f"loading {args.input}")
    ep = _load_program(args.input)
    progress("analysing")
    result = inspect_program(ep, targets=not args.no_targets)
    report.update(input=args.input, inspection=result)
    if not args.json:
        print(format_inspection(result))
    low = result["lowering"]
    if not low["ok"]:
        where = low["source"] or "no source line recorded"
        raise CliError(f"cannot lower {low['op']} (node {low['node']!r}) at {where}: {low['message']}")
    return EXIT_OK


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[None]:
    """SIGTERM raises KeyboardInterrupt as SIGINT does, so a write in progress is abandoned cleanly (its temporary
    file removed, the target untouched) and the command exits 130 with one line."""

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt("SIGTERM")

    try:
        old = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread (main() called from a worker): leave the default
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def _quiet_torch_logs() -> Iterator[None]:
    """torch logs whole tracebacks as warnings (a damaged .pt2, the ONNX exporter's registry); the CLI turns
    failures into one line of its own."""
    loggers = [logging.getLogger(n) for n in ("torch.export", "torch._export", "torch.onnx", "torch._dynamo")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation chatter would bury the one line that matters
        try:
            yield
        finally:
            for lg, level in zip(loggers, levels, strict=True):
                lg.setLevel(level)


def _json_safe(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    return x


def _fail(msg: str) -> None:
    print(f"realify: error: {' '.join(msg.split())}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    progress = Progress(args.quiet)
    from ._version import __version__
    from .errors import RealifyError

    report: dict[str, Any] = {"command": args.command, "realify_version": __version__,
                              "torch_version": torch.__version__.split("+")[0], "status": "ok", "exit_code": 0,
                              "error": None, "timings_s": {}}
    try:
        with _quiet_torch_logs(), _signals_interrupt():
            code = (cmd_lower if args.command == "lower" else cmd_inspect)(args, progress, report)
    except KeyboardInterrupt as e:  # SIGINT, or SIGTERM through _signals_interrupt
        code, msg = EXIT_INTERRUPTED, f"interrupted ({e.args[0] if e.args else 'SIGINT'})"
        if getattr(args, "output", None):
            msg += f"; {args.output} was not written" + (" (the existing file is unchanged)"
                                                          if os.path.exists(args.output) else "")
    except CliError as e:
        code, msg = e.code, str(e)
    except RealifyError as e:  # unsupported op, graph capture: the message names op, node and source line
        code, msg = EXIT_INPUT, str(e)
    except Exception as e:
        code, msg = EXIT_INTERNAL, f"internal error: {type(e).__name__}: {_first_line(e)}"
        if os.environ.get("REALIFY_TRACEBACK"):
            raise
    else:
        msg = ""
    if code:
        report.update(status="verify_failed" if code == EXIT_VERIFY else "error", exit_code=code, error=msg)
    text = json.dumps(_json_safe(report), indent=1)
    if getattr(args, "report", None):
        from ._atomic import write_text

        try:
            write_text(args.report, text + "\n")
        except (OSError, KeyboardInterrupt) as e:
            _fail(f"{args.report}: cannot write the report ({getattr(e, 'strerror', None) or 'interrupted'})")
            return code or EXIT_INPUT
    if args.json:
        print(text)
    if code:
        _fail(msg)
    else:
        progress("done")
    return code


def entry() -> NoReturn:
    try:
        code = main()
    except KeyboardInterrupt:  # before or after the command ran (starting torch, parsing)
        _fail("interrupted")
        code = EXIT_INTERRUPTED
    sys.exit(code)
