"""Deployed speed: the zoo lowered by realify, run in ONNX Runtime CPU, OpenVINO CPU and ExecuTorch XNNPACK,
each timed against eager PyTorch on the complex model in the same process with the same thread count.

    python bench/deploy_speed.py [--models a,b] [--targets ort,openvino,executorch,plain] [--threads 1,0]
                                 [--rounds 40] [--json out.json]
    python bench/deploy_speed.py --small              # tiny zoo shapes, few rounds (make test keeps it working)
    python bench/deploy_speed.py --profile axial_rope_2d [--threads 1]   # per-op time in ORT and OpenVINO

Each model goes `realify.lower(ep, target=T, truncate_double=True)` -> `torch.onnx.export` (dynamo) -> ONNX
Runtime (T "onnx") and OpenVINO (T "openvino", from the ONNX file; OpenVINO is called as a deployer calls it: the
inputs bound to a reused request, then infer()); ExecuTorch gets the lowering for target "executorch" with the
XNNPACK partitioner; eager runs under torch.inference_mode; `plain` is torch.onnx on the complex ExportedProgram
without realify (most do not export). Timing is interleaved: every round calls each variant once, in a fresh
random order, and each cell is that variant's median over the rounds divided by eager's median (so host drift
hits all variants alike). Thread count 0 means all cores. ExecuTorch's runtime picks its own threads (it is
timed only where --threads is 1 and flagged '*' otherwise).

Deployer sizes (batch 1 unless said; the issue's sizes where it gives them):
  llama3_block          Llama 3 transformer block, dim 512, 8 heads, seq 256, complex freqs_cis input
  llama3_rope_buffer    q projection + RoPE, dim 512, 8 heads, seq 256, freqs_cis a complex buffer
  llama3_rope_input     RoPE alone, (1, 256, 8, 64), freqs_cis a complex input
  axial_rope_2d         SAM2-style 2-D axial RoPE, 32x32 positions, 8 heads, head_dim 64
  yarn_rope_bf16        YaRN RoPE on bfloat16, (1, 256, 8, 64)
  fno_spectral          1-D FNO layer, 16 channels, n 1024, 16 modes
  fno_spectral_2d       2-D FNO layer, 16 channels, 64x64, 12x12 modes
  fnet                  FNet block, 4x128x256
  log_mel               n_fft 400, hop 160, 80 mels, 2 clips of 1 s at 16 kHz
  hyena_fft_conv        128 channels, L 1024
  complex_mlp           256 -> 256 -> 256, batch 256, complex in and out
  mri_recon             4x128x128 k-space, complex in and out
  phase_math_c128_truncated, steering_c128_truncated   65536 samples / 4096x64 snapshots, complex128 truncated
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import realify
import torch

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)
from _util import env_info, write_json  # noqa: E402
from realify_examples import llama3, zoo  # noqa: E402

Made = tuple[torch.nn.Module, tuple[torch.Tensor, ...]]


def _randn(*shape: int, seed: int = 0, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


class LlamaBlock(torch.nn.Module):
    """One Llama 3 block (Meta's reference code), freqs_cis passed in as a complex graph input, no mask."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        args = llama3.ModelArgs(dim=dim, n_heads=heads, n_layers=1, vocab_size=32, multiple_of=64)
        self.block = llama3.TransformerBlock(0, args)
        g = torch.Generator().manual_seed(1)
        for p in self.block.parameters():
            p.data = torch.randn(p.shape, generator=g) * 0.02 + (1.0 if p.ndim == 1 else 0.0)

    def forward(self, x: torch.Tensor, freqs_cis: torch.Tensor) -> torch.Tensor:
        return self.block(x, 0, freqs_cis, None)


def _mri() -> Made:
    mask = torch.zeros(128, 128, dtype=torch.bool)
    mask[:, ::3] = True
    mask[:, 56:72] = True
    return zoo.MRIRecon(), (_randn(4, 128, 128, dtype=torch.complex64), mask)


# name -> deployer-size model and inputs (--small uses the zoo's own tiny entry instead)
SIZES: dict[str, Callable[[], Made]] = {
    "llama3_block": lambda: (LlamaBlock(512, 8), (_randn(1, 256, 512), llama3.precompute_freqs_cis(64, 256))),
    "llama3_rope_buffer": lambda: (zoo.RopeBuffer(512, 8, 256), (_randn(1, 256, 512),)),
    "llama3_rope_input": lambda: (zoo.RopeInput(), (_randn(1, 256, 8, 64), llama3.precompute_freqs_cis(64, 256))),
    "axial_rope_2d": lambda: (zoo.AxialRope2d(32, 32, 64), (_randn(1, 1024, 8, 64),)),
    "yarn_rope_bf16": lambda: (zoo.YarnRopeBf16(64, 256), (_randn(1, 256, 8, 64).bfloat16(),)),
    "fno_spectral": lambda: (zoo.FNOSpectral1d(16, 16), (_randn(1, 16, 1024),)),
    "fno_spectral_2d": lambda: (zoo.FNOSpectral2d(16, 12, 12), (_randn(1, 16, 64, 64),)),
    "fnet": lambda: (zoo.FNet(256), (_randn(4, 128, 256),)),
    "log_mel": lambda: (zoo.LogMel(400, 160, 80), (_randn(2, 16000),)),
    "hyena_fft_conv": lambda: (zoo.HyenaFFTConv(128, 1024), (_randn(1, 128, 1024),)),
    "complex_mlp": lambda: (zoo.ComplexMLP(256, 256, 256), (_randn(256, 256, dtype=torch.complex64),)),
    "mri_recon": _mri,
    "phase_math_c128_truncated": lambda: (
        zoo.PhaseMath128(),
        (_randn(65536, dtype=torch.complex128), _randn(65536, seed=1, dtype=torch.complex128)),
    ),
    "steering_c128_truncated": lambda: (
        zoo.SteeringVector128(),
        (_randn(4096, 64, dtype=torch.complex128), _randn(64, seed=1, dtype=torch.float64)),
    ),
}
SMALL: dict[str, Callable[[], Made]] = {
    "llama3_block": lambda: (LlamaBlock(32, 4), (_randn(1, 8, 32), llama3.precompute_freqs_cis(8, 8))),
    "fno_spectral_2d": lambda: (zoo.FNOSpectral2d(), (_randn(1, 4, 16, 16),)),
}
for _e in zoo.ZOO:
    if _e.name not in SMALL and _e.name != "phase_math_c128":  # un-truncated float64 is not a deployer's case
        SMALL[_e.name] = lambda e=_e: (e.make(), e.inputs())


def _real(args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor, ...]:
    """The lowered model's arguments (truncate_double: complex128 and float64 as float32)."""
    out = []
    for a in args:
        r = torch.view_as_real(a) if a.is_complex() else a
        out.append(r.float() if r.dtype == torch.float64 else r)
    return tuple(out)


def _as_real(a: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(a) if a.is_complex() else a


def _onnx(program: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> Any:
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        return torch.onnx.export(program, args, dynamo=True, verbose=False).model_proto


def _np(a: torch.Tensor) -> Any:
    return a.view(torch.int16).numpy() if a.dtype == torch.bfloat16 else a.numpy()  # numpy has no bfloat16


def _ort_feed(a: torch.Tensor) -> Any:
    import onnx
    import onnxruntime as ort

    if a.dtype == torch.bfloat16:
        return ort.OrtValue.ortvalue_from_numpy_with_onnx_type(_np(a), onnx.TensorProto.BFLOAT16)
    return a.numpy()


def _ov_tensor(a: torch.Tensor) -> Any:
    import openvino as ov

    if a.dtype == torch.bfloat16:  # the bits, through a 16-bit view of OpenVINO's buffer
        t = ov.Tensor(ov.Type.bf16, list(a.shape))
        t.data.view("int16")[...] = _np(a)
        return t
    return ov.Tensor(a.numpy().copy())


def ort_runner(proto: Any, args: tuple[torch.Tensor, ...], threads: int, profile: str | None = None) -> Callable:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads or os.cpu_count() or 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # idle ORT threads spin by default, taking the cores eager's calls, interleaved with them, need
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if profile:
        opts.enable_profiling = True
        opts.profile_file_prefix = profile
    # as realify opens its own sessions (realify.load): without the CPU fusions that slow it down
    sess = realify.onnxruntime_session(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    feeds = {i.name: _ort_feed(a) for i, a in zip(sess.get_inputs(), args, strict=True)}
    if any(a.dtype == torch.bfloat16 for a in args):  # bfloat16 goes in and out as OrtValues
        feeds = {k: v if isinstance(v, ort.OrtValue) else ort.OrtValue.ortvalue_from_numpy(v) for k, v in feeds.items()}
        run = lambda: sess.run_with_ort_values(None, feeds)  # noqa: E731
    else:
        run = lambda: sess.run(None, feeds)  # noqa: E731
    run.session = sess  # type: ignore[attr-defined]
    return run


def openvino_runner(proto: Any, args: tuple[torch.Tensor, ...], threads: int, perf: bool = False) -> Callable:
    import openvino as ov

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "m.onnx"
        path.write_bytes(proto.SerializeToString())
        model = ov.convert_model(str(path))
    cfg: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    cfg["INFERENCE_NUM_THREADS"] = threads or os.cpu_count() or 1
    if perf:
        cfg["PERF_COUNT"] = True
    compiled = ov.Core().compile_model(model, "CPU", cfg)
    request = compiled.create_infer_request()
    inputs = [_ov_tensor(a) for a in args]
    n = len(compiled.outputs)

    def run() -> list[Any]:
        # a deployer's fresh inputs bound per call, then the bare infer(): infer(inputs, share_inputs=True) spends
        # 50 to 80 µs a call in its Python binding (measured on the 1-D FNO layer), more than its node time
        for i, t in enumerate(inputs):
            request.set_input_tensor(i, t)
        request.infer()
        outs = [request.get_output_tensor(i) for i in range(n)]
        return [
            torch.from_numpy(o.data.view("int16")).view(torch.bfloat16) if o.element_type == ov.Type.bf16 else o.data
            for o in outs
        ]

    run.request = request  # type: ignore[attr-defined]
    return run


def executorch_runner(program: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> Callable:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    buffer = edge.to_executorch().buffer
    prog = Runtime.get().load_program(buffer)
    method = prog.load_method("forward")
    keep = (buffer, prog)  # the runtime reads these, it does not copy them
    run = lambda: (keep, method.execute(list(args)))[1]  # noqa: E731
    return run


def _outs(v: Any) -> list[torch.Tensor]:
    if not isinstance(v, (list, tuple)):
        v = [v]
    out = []
    for x in v:
        if hasattr(x, "data_type") and x.data_type() == "tensor(bfloat16)":  # an OrtValue numpy cannot hold
            import ctypes

            import numpy as np

            buf = (ctypes.c_int16 * int(np.prod(x.shape()))).from_address(x.data_ptr())
            x = torch.from_numpy(np.frombuffer(buf, np.int16).reshape(x.shape()).copy()).view(torch.bfloat16)
        elif hasattr(x, "data_type"):
            x = x.numpy()
        out.append(torch.as_tensor(x))
    return out


def _err(ref: Any, got: Any) -> float:
    refs = [r for r in (ref if isinstance(ref, (tuple, list)) else (ref,))]
    refs = [torch.view_as_real(r) if r.is_complex() else r for r in refs]
    gots = _outs(got)
    return max(
        (g.double().reshape(r.shape) - r.double()).abs().max().item() / max(r.double().abs().max().item(), 1e-30)
        for r, g in zip(refs, gots, strict=True)
    )


# each runtime gets realify's lowering for it: target "openvino" differs from "onnx" where OpenVINO's reference
# kernels (Gather, Concat, Split on short axes) would cost more than the form ONNX Runtime prefers
LOWERING_TARGET = {"ort": "onnx", "openvino": "openvino"}


def lowered_protos(ep: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> dict[str, Any]:
    """runtime ("ort", "openvino") -> the ONNX model realify lowers for it, truncate_double as the issue's deployer."""
    real = _real(args)
    return {rt: _onnx(realify.lower(ep, target=t, truncate_double=True), real) for rt, t in LOWERING_TARGET.items()}


def saved_protos(directory: str, name: str) -> dict[str, Any]:
    """--save-onnx's files for a model: name.onnx (ORT's) and name.openvino.onnx (OpenVINO's, where saved)."""
    import onnx

    base = Path(directory) / f"{name}.onnx"
    ov_path = Path(directory) / f"{name}.openvino.onnx"
    return {"ort": onnx.load(str(base)), "openvino": onnx.load(str(ov_path if ov_path.exists() else base))}


def build(
    name: str, small: bool, threads: int, targets: list[str], against: str | None = None
) -> tuple[dict[str, Callable], dict[str, Any]]:
    """Variants of one model at one thread count: eager first, then each target that runs; notes per variant."""
    model, args = (SMALL if small else SIZES)[name]()
    model = model.eval()
    torch.set_num_threads(threads or os.cpu_count() or 1)
    with torch.no_grad():
        ref = model(*args)
    variants: dict[str, Callable] = {"eager": lambda: model(*args)}
    notes: dict[str, Any] = {}
    ep = torch.export.export(model, args)
    real = _real(args)
    protos = lowered_protos(ep, args)
    makers: dict[str, Callable[[], Callable]] = {
        "ort": lambda: ort_runner(protos["ort"], real, threads),
        "openvino": lambda: openvino_runner(protos["openvino"], real, threads),
        "executorch": lambda: executorch_runner(realify.lower(ep, target="executorch", truncate_double=True), real),
        "plain": lambda: ort_runner(_onnx(ep, args), tuple(_as_real(a) for a in args), threads),
    }
    if against:  # another build's lowering of the same model (--save-onnx), timed in the same rounds
        other = saved_protos(against, name)
        makers["ort (against)"] = lambda: ort_runner(other["ort"], real, threads)
        makers["openvino (against)"] = lambda: openvino_runner(other["openvino"], real, threads)
        targets = [*targets, "ort (against)", "openvino (against)"]
    for t in targets:
        try:
            with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("ignore")
                fn = makers[t]()
                got = fn()
            notes[t] = {"err": _err(ref, got) if t != "plain" else None}
            variants[t] = fn
        except Exception as ex:  # record which targets fail and how; the table says "fail"
            notes[t] = {"why": f"{type(ex).__name__}: {str(ex).strip()[:120]}"}
    return variants, notes


def interleaved(variants: dict[str, Callable], rounds: int, warmup: int = 3) -> dict[str, float]:
    """Median ms per call of each variant, calls interleaved in a fresh random order each round."""
    for fn in variants.values():
        for _ in range(warmup):
            fn()
    samples: dict[str, list[float]] = {k: [] for k in variants}
    order = list(variants)
    rng = random.Random(0)
    for _ in range(rounds):
        rng.shuffle(order)
        for k in order:
            t0 = time.perf_counter()
            variants[k]()
            samples[k].append((time.perf_counter() - t0) * 1e3)
    return {k: statistics.median(v) for k, v in samples.items()}


def profile(name: str, small: bool, threads: int, iters: int, against: str | None = None) -> dict[str, Any]:
    """Per-op time (µs per call) of the lowered model in ORT (its profiler) and OpenVINO (PERF_COUNT); with
    `against`, of the ONNX file another build saved there instead (a before/after pair under the same load)."""
    model, args = (SMALL if small else SIZES)[name]()
    real = _real(args)
    protos = saved_protos(against, name) if against else lowered_protos(torch.export.export(model.eval(), args), args)
    proto = protos["ort"]
    out: dict[str, Any] = {"model": name + (f" ({against})" if against else ""), "onnx_nodes": {}}
    for n in proto.graph.node:
        out["onnx_nodes"][n.op_type] = out["onnx_nodes"].get(n.op_type, 0) + 1
    with tempfile.TemporaryDirectory() as d:
        run = ort_runner(proto, real, threads, profile=str(Path(d) / "ort"))
        for _ in range(iters):
            run()
        events = json.loads(Path(run.session.end_profiling()).read_text())
    ort_ops: dict[str, list[float]] = {}
    for ev in events:
        if ev.get("cat") == "Node" and ev["name"].endswith("_kernel_time"):
            op = ev["args"]["op_name"]
            ort_ops.setdefault(op, [0.0, 0])
            ort_ops[op][0] += ev["dur"] / iters
            ort_ops[op][1] += 1 / iters
    run = openvino_runner(protos["openvino"], real, threads, perf=True)
    ov_ops: dict[str, list[float]] = {}
    for _ in range(iters):
        run()
        for p in run.request.profiling_info:
            us = p.real_time.total_seconds() * 1e6
            if p.status.name != "EXECUTED":
                continue
            key = f"{p.node_type} ({p.exec_type})"
            ov_ops.setdefault(key, [0.0, 0])
            ov_ops[key][0] += us / iters
            ov_ops[key][1] += 1 / iters
    out["ort"] = sorted(([k, v[0], round(v[1])] for k, v in ort_ops.items()), key=lambda r: -r[1])
    out["openvino"] = sorted(([k, v[0], round(v[1])] for k, v in ov_ops.items()), key=lambda r: -r[1])
    return out


def print_profile(p: dict[str, Any]) -> None:
    print(f"### {p['model']}: ONNX nodes {dict(sorted(p['onnx_nodes'].items()))}\n")
    for rt in ("ort", "openvino"):
        total = sum(r[1] for r in p[rt]) or 1.0
        print(f"| {rt} op | µs/call | % | nodes |\n|---|---:|---:|---:|")
        for op, us, count in p[rt][:15]:
            print(f"| {op} | {us:.1f} | {100 * us / total:.0f} | {count} |")
        print(f"| total | {total:.1f} | 100 | |\n")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--models")
    p.add_argument("--targets", default="ort,openvino,executorch,plain")
    p.add_argument("--threads", default="1,0", help="thread counts, 0 = all cores")
    p.add_argument("--rounds", type=int)
    p.add_argument("--profile", metavar="MODEL")
    p.add_argument("--save-onnx", metavar="DIR", help="write each lowered model's ONNX file there and stop")
    p.add_argument("--against", metavar="DIR", help="also time the ONNX files another build saved there")
    p.add_argument("--json")
    a = p.parse_args()
    threads = [int(t) for t in a.threads.split(",")]
    if a.profile:
        profs = []
        for t in threads:
            for other in [a.against, None] if a.against else [None]:  # before, then after
                profs.append(profile(a.profile, a.small, t, 5 if a.small else 50, other))
                print(f"threads {t or os.cpu_count()}")
                print_profile(profs[-1])
        write_json(a.json, {"env": env_info(torch.device("cpu")), "results": profs})
        return
    names = a.models.split(",") if a.models else list(SMALL if a.small else SIZES)
    if a.save_onnx:
        for name in names:
            model, args = (SMALL if a.small else SIZES)[name]()
            protos = lowered_protos(torch.export.export(model.eval(), args), args)
            (Path(a.save_onnx) / f"{name}.onnx").write_bytes(protos["ort"].SerializeToString())
            (Path(a.save_onnx) / f"{name}.openvino.onnx").write_bytes(protos["openvino"].SerializeToString())
        return
    targets = a.targets.split(",") + (["ort (against)", "openvino (against)"] if a.against else [])
    rounds = a.rounds or (3 if a.small else 40)
    rows = []
    print(f"| model | threads | eager ms | {' | '.join(f'{t} / eager' for t in targets)} |")
    print("|---|---:|---:|" + "---:|" * len(targets))
    for name in names:
        for t in threads:
            variants, notes = build(name, a.small, t, [x for x in targets if "against" not in x], a.against)
            if "executorch" in variants and t != 1:
                variants.pop("executorch")
                notes["executorch"] = {"why": "ExecuTorch picks its own threads", "star": True}
            with torch.inference_mode():  # eager at its best: no autograd records on parameters that need grad
                ms = interleaved(variants, rounds)
            row: dict[str, Any] = {"model": name, "threads": t or os.cpu_count(), "eager_ms": ms["eager"]}
            cells = []
            for tg in targets:
                if tg in ms:
                    row[tg] = ms[tg] / ms["eager"]
                    row[f"{tg}_err"] = notes[tg]["err"]
                    cells.append(f"{row[tg]:.2f}")
                else:
                    row[f"{tg}_why"] = notes[tg]["why"]
                    cells.append("*" if notes[tg].get("star") else "fail")
                    if not notes[tg].get("star"):
                        print(f"<!-- {name} {tg}: {notes[tg]['why']} -->", file=sys.stderr)
            rows.append(row)
            print(f"| {name} | {row['threads']} | {ms['eager']:.3f} | {' | '.join(cells)} |", flush=True)
    bad = [(r["model"], tg, r[f"{tg}_err"]) for r in rows for tg in targets if (r.get(f"{tg}_err") or 0) > 1e-3]
    for m, tg, e in bad:
        print(f"warning: {m} in {tg} differs from eager by {e:.2g}")
    write_json(a.json, {"env": env_info(torch.device("cpu")), "rounds": rounds, "results": rows})


if __name__ == "__main__":
    main()
