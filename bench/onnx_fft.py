"""FFT models in ONNX Runtime: realify.export_onnx with DFT nodes (fft="onnx-dft", the default from opset 17) against
DFT matmuls (fft="matmul"), and torch.onnx on the complex model where it can export it at all.

    python bench/onnx_fft.py [--models fno2d,fnet] [--threads N] [--json out.json]   # CPU-sized shapes
    python bench/onnx_fft.py --small                                                # tiny, one timing each

ONNX Runtime's CPU provider; each row is the median of --iters session runs. The script fails only when a realify
export is wrong (max relative error above 1e-4).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import re
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import realify
import torch

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)
from _util import env_info, print_table, write_json  # noqa: E402
from realify_examples import zoo  # noqa: E402

Made = tuple[torch.nn.Module, tuple[torch.Tensor, ...]]


def _randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(0))


def _mri(small: bool) -> Made:
    b, n = (2, 16) if small else (4, 128)
    mask = torch.zeros(b, n, n, dtype=torch.bool)
    mask[..., ::3] = True
    return zoo.MRIRecon(), (_randn(b, n, n, dtype=torch.complex64), mask)


MODELS: dict[str, Callable[[bool], Made]] = {
    "fno2d": lambda s: (zoo.FNOSpectral2d(channels=4 if s else 16, m1=4 if s else 12, m2=4 if s else 12),
                        (_randn(2, 4, 16, 16) if s else _randn(8, 16, 64, 64),)),
    "fnet": lambda s: (zoo.FNet(dim=32 if s else 256), (_randn(2, 16, 32) if s else _randn(4, 256, 256),)),
    "log_mel": lambda s: (zoo.LogMel(n_fft=64 if s else 400, hop=16 if s else 160, n_mels=8 if s else 80),
                          (_randn(2, 400) if s else _randn(4, 48000),)),
    "hyena": lambda s: (zoo.HyenaFFTConv(channels=8 if s else 64, seq=64 if s else 1024),
                        (_randn(2, 8, 64) if s else _randn(4, 64, 1024),)),
    "mri": _mri,
}


def _session(proto: Any, threads: int) -> Any:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
    return ort.InferenceSession(proto.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def _time_ms(fn: Callable[[], Any], warmup: int, iters: int) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(iters):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def _rel_err(ref: torch.Tensor, got: np.ndarray) -> float:
    r = torch.view_as_real(ref) if ref.is_complex() else ref
    g = torch.from_numpy(got).reshape(r.shape)
    return float((g - r).abs().max() / r.abs().max().clamp_min(1e-30))


def run_model(name: str, a: argparse.Namespace) -> list[dict[str, Any]]:
    model, args = MODELS[name](a.small)
    model.eval()
    with torch.no_grad():
        ref = model(*args)
    ep = torch.export.export(model, args)
    rows = []
    for variant in ("realify onnx-dft", "realify matmul", "torch.onnx, complex model"):
        row: dict[str, Any] = {"model": name, "variant": variant, "ms": float("nan"), "dft_nodes": 0,
                               "matmul_nodes": 0, "max_rel_err": float("nan"), "note": ""}
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                if variant.startswith("realify"):
                    prog = realify.export_onnx(ep, args, opset_version=a.opset, fft=variant.split()[-1])
                    feeds_from = zoo.real_inputs(zoo.ZooEntry(name, lambda: model, lambda: args), args)
                else:
                    prog = torch.onnx.export(ep, args, dynamo=True, opset_version=a.opset)
                    feeds_from = tuple(torch.view_as_real(x) if x.is_complex() else x for x in args)
            proto = prog.model_proto
            sess = _session(proto, a.threads)
            feeds = {i.name: x.numpy() for i, x in zip(sess.get_inputs(), feeds_from, strict=True)}
            out = sess.run(None, feeds)[0]
            ops = [n.op_type for n in proto.graph.node]
            row.update(dft_nodes=ops.count("DFT"), matmul_nodes=ops.count("MatMul"), max_rel_err=_rel_err(ref, out))
            row["ms"] = _time_ms(lambda s=sess, f=feeds: s.run(None, f), a.warmup, a.iters)
        except Exception as e:  # torch.onnx cannot export most complex models: the row says why
            first = re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip().splitlines()[0][:70] if str(e).strip() else ""
            row["note"] = f"{type(e).__name__}: {first}"
        rows.append(row)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--opset", type=int, default=18)
    p.add_argument("--threads", type=int, default=0, help="ONNX Runtime intra-op threads (0: its default)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--json", default=None)
    a = p.parse_args()
    if a.small:
        a.warmup, a.iters = 1, 1
    warnings.filterwarnings("ignore")
    logging.getLogger("torch.onnx").setLevel(logging.ERROR)
    rows: list[dict[str, Any]] = []
    for name in a.models.split(","):
        rows += run_model(name, a)
    import onnxruntime as ort

    env = {**env_info(torch.device("cpu")), "onnxruntime": ort.__version__, "opset": a.opset}
    print(env)
    keys = ["model", "variant", "ms", "dft_nodes", "matmul_nodes", "max_rel_err", "note"]
    print_table(keys, [[r[k] for k in keys] for r in rows])
    write_json(a.json, {"env": env, "args": vars(a), "results": rows})
    bad = [r for r in rows if r["variant"].startswith("realify") and not r["max_rel_err"] <= 1e-4]
    if bad:
        raise SystemExit(f"realify exports wrong or failed: {bad}")


if __name__ == "__main__":
    main()
