"""FFT models at the sizes of issue 14, each FFT strategy of realify against the complex model in eager and Inductor.

Models (full sizes, meant for the H200):
  fno2d     FNO spectral layer: batch 32, 32 channels, 64x64, 16x16 modes (rfft2, two corner blocks, irfft2)
  fnet      FNet block: 16 x 512 x 768, real part of fft2 over (sequence, hidden), then a feed-forward
  log_mel   log-mel spectrogram: 16 x 10 s of 16 kHz audio, n_fft 400, hop 160, 80 mels
  hyena     Hyena long convolution: 8 x 768 x 2048, zero-padded rfft, product, irfft, crop
  mri       MRI data consistency: 16 x 320 x 320 complex k-space, ifft2/fft2 with shifts and a mask

Variants: eager complex (cuFFT on CUDA, pocketfft on the CPU), Inductor on the complex model, and
realify+inductor with fft="native" (what "auto" picks for Inductor) and fft="matmul" (what TensorRT and the other
deployment targets get). The baseline is the faster of eager and Inductor on the complex model; "vs base" is a
variant's time over it (below 1: faster).

    python bench/fft_models.py [--models fno2d,fnet] [--cudagraphs] [--json out.json]
    python bench/fft_models.py --small     # tiny CPU shapes, one timing each (CI keeps it working)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))  # realify_examples (zoo, llama3)
from _util import env_info, graph_time_ms, kernel_count, print_table, time_ms, write_json  # noqa: E402
from realify_examples import zoo  # noqa: E402

Maker = Callable[[bool, torch.device], tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]


def _randn(*shape: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


def fno2d(small: bool, dev: torch.device) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    b, c, n, m = (2, 4, 16, 4) if small else (32, 32, 64, 16)
    return zoo.FNOSpectral2d(channels=c, m1=m, m2=m), (_randn(b, c, n, n),)


def fnet(small: bool, dev: torch.device) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    b, s, d = (2, 16, 32) if small else (16, 512, 768)
    return zoo.FNet(dim=d), (_randn(b, s, d),)


def log_mel(small: bool, dev: torch.device) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    b, samples, n_fft, hop, mels = (2, 400, 64, 16, 8) if small else (16, 160000, 400, 160, 80)
    return zoo.LogMel(n_fft=n_fft, hop=hop, n_mels=mels), (_randn(b, samples),)


def hyena(small: bool, dev: torch.device) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    b, c, n = (2, 8, 64) if small else (8, 768, 2048)
    return zoo.HyenaFFTConv(channels=c, seq=n), (_randn(b, c, n),)


def mri(small: bool, dev: torch.device) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    b, n = (2, 16) if small else (16, 320)
    mask = torch.zeros(b, n, n, dtype=torch.bool)
    mask[..., ::3] = True
    return zoo.MRIRecon(), (_randn(b, n, n, dtype=torch.complex64), mask)


MODELS: dict[str, Maker] = {"fno2d": fno2d, "fnet": fnet, "log_mel": log_mel, "hyena": hyena, "mri": mri}


def rel_err(got: torch.Tensor, ref: torch.Tensor) -> float:
    return float((got - ref).abs().max() / ref.abs().max().clamp_min(1e-30))


def run_model(name: str, a: argparse.Namespace, dev: torch.device) -> list[dict[str, Any]]:
    model, args = MODELS[name](a.small, dev)
    model = model.to(dev).eval()
    args = tuple(x.to(dev) for x in args)
    with torch.no_grad():
        ref = model(*args)
        torch._dynamo.reset()
        plain = torch.compile(model)
        variants: list[tuple[str, Callable[[], Any], bool]] = [
            ("eager complex", lambda: model(*args), False),
            ("inductor on complex", lambda: plain(*args), True),
        ]
        for fft in ("native", "matmul"):
            f = torch.compile(model, backend="realify", options={"backend": "inductor", "fft": fft})
            variants.append((f"realify+inductor {fft}", lambda f=f: f(*args), True))
        graphed = a.cudagraphs and dev.type == "cuda"
        if graphed:  # CUDA-graph replay on both sides: the GPU time, without the host's per-call cost
            ro = torch.compile(model, mode="reduce-overhead")
            variants.append(("inductor on complex, reduce-overhead", lambda: ro(*args), True))
            for fft in ("native", "matmul"):
                opts = {"backend": "inductor", "fft": fft, "mode": "reduce-overhead"}
                f = torch.compile(model, backend="realify", options=opts)
                variants.append((f"realify+inductor {fft}, reduce-overhead", lambda f=f: f(*args), True))
        rows = []
        for variant, fn, compiled in variants:
            kernels = kernel_count(fn) if compiled else 0
            err = rel_err(fn(), ref)
            ms = time_ms(fn, dev, warmup=a.warmup, iters=a.iters)
            rows.append({"model": name, "variant": variant, "ms": ms, "kernels": kernels, "max_rel_err": err})
        if graphed:
            ms = graph_time_ms(lambda: model(*args), dev, warmup=a.warmup, iters=a.iters)
            rows.append(
                {"model": name, "variant": "eager complex, CUDA graph", "ms": ms, "kernels": 0, "max_rel_err": 0.0}
            )
    base = min(r["ms"] for r in rows[:2])
    graph_rows = [r for r in rows if r["variant"].startswith(("eager complex, CUDA", "inductor on complex, reduce"))]
    graph_base = min((r["ms"] for r in graph_rows), default=None)
    for r in rows:
        replayed = "CUDA graph" in r["variant"] or "reduce-overhead" in r["variant"]
        r["vs_base"] = r["ms"] / (graph_base if replayed and graph_base else base)
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="tiny shapes on CPU, one timing each")
    p.add_argument("--device", default=None)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument(
        "--cudagraphs",
        action="store_true",
        help="add CUDA-graph rows (eager captured, Inductor and realify with mode='reduce-overhead'); "
        "their vs_base is over the faster of the captured eager and Inductor baselines",
    )
    p.add_argument("--tf32", action="store_true", help="let float32 matmuls use TF32 (default: full precision)")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    if a.small:
        a.device, a.warmup, a.iters = a.device or "cpu", 1, 1
    torch.backends.cuda.matmul.allow_tf32 = a.tf32
    dev = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    rows: list[dict[str, Any]] = []
    for name in a.models.split(","):
        rows += run_model(name, a, dev)
    print(env_info(dev))
    keys = ["model", "variant", "ms", "vs_base", "kernels", "max_rel_err"]
    print_table(keys, [[r[k] for k in keys] for r in rows])
    write_json(a.json, {"env": env_info(dev), "args": vars(a), "results": rows})
    bad = [r for r in rows if r["variant"].startswith("realify") and r["max_rel_err"] > 1e-4]
    if bad:
        raise SystemExit(f"realify results off: {bad}")


if __name__ == "__main__":
    main()
