"""FFT benchmark: realify's real-arithmetic FFT (+ Inductor) against torch.fft and a naive direct-DFT matmul.

Cases (full mode, meant for a GPU):
  rfft2_64x64   batched rfft2 of a [32, 64, 64, 64] real tensor (batch 32, 64 channels)
  rfft_4096     rfft of length 4096, [256, 4096] real
  fft_65536     complex fft of length 65536, [16, 65536] complex64

Implementations:
  torch.fft          the eager op (cuFFT on CUDA, pocketfft on CPU)
  realify+inductor   make_fx -> realify.lower -> torch.compile(backend="inductor") of the real-only graph
  realify+eager      the same lowered graph, run eagerly
  realify native+inductor  fft="native": realify.fft_* operators (the platform FFT) under Inductor
  naive matmul       one dense DFT matrix per transformed axis (skipped when the matrix would not fit)

    python bench/fft.py                 # CUDA if available; prints a table
    python bench/fft.py --json out.json # also writes the results
    python bench/fft.py --small         # tiny sizes on CPU, one run each (what CI runs; no timing assertions)

Timings are medians (bench/_util.py: on the GPU each sample times 10 back-to-back calls between CUDA events).
float32 matmuls run in full precision unless --tf32. The script fails only when a realify result is wrong.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

sys.path.insert(0, str(Path(__file__).parent))
from _util import env_info, graph_time_ms, kernel_count, print_table, time_ms, write_json  # noqa: E402


@dataclass
class Case:
    name: str
    shape: tuple[int, ...]
    complex_input: bool
    fn: Callable[[torch.Tensor], torch.Tensor]  # the torch.fft reference
    naive: Callable[[torch.Tensor, dict[str, torch.Tensor]], torch.Tensor]
    naive_consts: Callable[[torch.device], dict[str, torch.Tensor]]
    naive_bytes: int  # size of the naive DFT matrices in bytes (float32)


@dataclass
class Result:
    case: str
    shape: list[int]
    impl: str
    ms: float | None
    max_rel_err: float | None
    kernels: int | None = None  # Inductor kernels, for the compiled variant
    graph_ms: float | None = None  # replayed as a CUDA graph: GPU time without launch overhead
    note: str = ""


def dft_parts(n: int, cols: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and -sin of 2*pi*j*k/n for j < n, k < cols (float64 angles, float32 result)."""
    j = torch.arange(n, dtype=torch.float64, device=device)[:, None]
    k = torch.arange(cols, dtype=torch.float64, device=device)[None, :]
    ang = 2 * math.pi * torch.remainder(j * k, n) / n
    return torch.cos(ang).float(), (-torch.sin(ang)).float()


def naive_rfft_last(x: torch.Tensor, c: dict[str, torch.Tensor], key: str) -> tuple[torch.Tensor, torch.Tensor]:
    return x @ c[key + "_cos"], x @ c[key + "_sin"]


def naive_cfft(re: torch.Tensor, im: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> tuple[Any, Any]:
    """(re + i im) @ (cos + i sin) along the last axis."""
    return re @ cos - im @ sin, re @ sin + im @ cos


def make_cases(small: bool) -> list[Case]:
    if small:
        b, ch, h, w, n1, rows1, n2, rows2 = 2, 3, 16, 16, 256, 4, 1024, 2
    else:
        b, ch, h, w, n1, rows1, n2, rows2 = 32, 64, 64, 64, 4096, 256, 65536, 16
    m = w // 2 + 1

    def rfft2_naive(x: torch.Tensor, c: dict[str, torch.Tensor]) -> torch.Tensor:
        re, im = naive_rfft_last(x, c, "w")  # rows: real input, half spectrum
        re, im = re.transpose(-1, -2), im.transpose(-1, -2)
        re, im = naive_cfft(re, im, c["h_cos"], c["h_sin"])  # columns: complex DFT
        return torch.complex(re, im).transpose(-1, -2)

    def rfft2_consts(dev: torch.device) -> dict[str, torch.Tensor]:
        wc, ws = dft_parts(w, m, dev)
        hc, hs = dft_parts(h, h, dev)
        return {"w_cos": wc, "w_sin": ws, "h_cos": hc, "h_sin": hs}

    def rfft_naive(x: torch.Tensor, c: dict[str, torch.Tensor]) -> torch.Tensor:
        return torch.complex(*naive_rfft_last(x, c, "n"))

    def rfft_consts(dev: torch.device) -> dict[str, torch.Tensor]:
        nc, ns = dft_parts(n1, n1 // 2 + 1, dev)
        return {"n_cos": nc, "n_sin": ns}

    def fft_naive(x: torch.Tensor, c: dict[str, torch.Tensor]) -> torch.Tensor:
        return torch.complex(*naive_cfft(x.real, x.imag, c["n_cos"], c["n_sin"]))

    def fft_consts(dev: torch.device) -> dict[str, torch.Tensor]:
        nc, ns = dft_parts(n2, n2, dev)
        return {"n_cos": nc, "n_sin": ns}

    return [
        Case(
            f"rfft2_{h}x{w}",
            (b, ch, h, w),
            False,
            lambda x: torch.fft.rfft2(x),
            rfft2_naive,
            rfft2_consts,
            4 * 2 * (w * m + h * h),
        ),
        Case(f"rfft_{n1}", (rows1, n1), False, lambda x: torch.fft.rfft(x), rfft_naive, rfft_consts, 4 * 2 * n1 * m),
        Case(f"fft_{n2}", (rows2, n2), True, lambda x: torch.fft.fft(x), fft_naive, fft_consts, 4 * 2 * n2 * n2),
    ]


def rel_err(out: torch.Tensor, ref: torch.Tensor) -> float:
    ref64 = ref.to(torch.complex128) if ref.is_complex() else ref.double()
    out64 = out.to(ref64.dtype)
    return ((out64 - ref64).abs().max() / ref64.abs().max()).item()


def run_case(case: Case, args: argparse.Namespace, device: torch.device) -> list[Result]:
    g = torch.Generator(device="cpu").manual_seed(0)
    dtype = torch.complex64 if case.complex_input else torch.float32
    x = torch.randn(case.shape, dtype=dtype, generator=g).to(device)
    shape = list(case.shape)
    results: list[Result] = []
    ref = case.fn(x)
    t = {"warmup": args.warmup, "iters": args.iters}
    fft_ms = time_ms(lambda: case.fn(x), device, **t)
    fft_graph_ms = graph_time_ms(lambda: case.fn(x), device)
    results.append(Result(case.name, shape, "torch.fft", fft_ms, 0.0, graph_ms=fft_graph_ms))

    # realify: trace on CPU-shaped fake-free inputs, lower, then run the real-only graph
    lowered = realify.lower(make_fx(case.fn)(x)).to(device)
    real_x = torch.view_as_real(x) if case.complex_input else x

    def as_complex(y: torch.Tensor) -> torch.Tensor:
        return torch.view_as_complex(y.contiguous())

    err = rel_err(as_complex(lowered(real_x)), ref)
    results.append(Result(case.name, shape, "realify+eager", time_ms(lambda: lowered(real_x), device, **t), err))
    if args.backend == "inductor":
        torch._dynamo.reset()
        compiled = torch.compile(lowered, backend="inductor", dynamic=False, mode=args.mode)
        kernels = kernel_count(lambda: compiled(real_x))  # the first call compiles
        err = rel_err(as_complex(compiled(real_x)), ref)
        ms = time_ms(lambda: compiled(real_x), device, **t)
        gms = graph_time_ms(lambda: compiled(real_x), device)
        results.append(Result(case.name, shape, "realify+inductor", ms, err, kernels, graph_ms=gms))
        # fft="native": realify.fft_* operators over cuFFT/pocketfft, what the backend picks for Inductor
        native = realify.lower(make_fx(case.fn)(x), fft="native").to(device)
        torch._dynamo.reset()
        compiled = torch.compile(native, backend="inductor", dynamic=False, mode=args.mode)
        kernels = kernel_count(lambda: compiled(real_x))
        err = rel_err(as_complex(compiled(real_x)), ref)
        ms = time_ms(lambda: compiled(real_x), device, **t)
        gms = graph_time_ms(lambda: compiled(real_x), device)
        results.append(Result(case.name, shape, "realify native+inductor", ms, err, kernels, graph_ms=gms))

    if case.naive_bytes > args.naive_max_bytes:
        note = f"DFT matrices need {case.naive_bytes / 2**30:.1f} GiB > --naive-max-bytes"
        results.append(Result(case.name, shape, "naive matmul", None, None, note))
    else:
        consts = case.naive_consts(device)
        err = rel_err(case.naive(x, consts), ref)
        ms = time_ms(lambda: case.naive(x, consts), device, **t)
        results.append(Result(case.name, shape, "naive matmul", ms, err))
    return results


def table(results: list[Result]) -> tuple[list[str], list[list[Any]]]:
    base = {r.case: r.ms for r in results if r.impl == "torch.fft"}
    gbase = {r.case: r.graph_ms for r in results if r.impl == "torch.fft"}
    headers = ["case", "shape", "impl", "ms", "vs torch.fft", "graph ms", "graph vs", "max rel err", "kernels", "note"]
    rows = []
    for r in results:
        ratio = f"{r.ms / base[r.case]:.2f}x" if r.ms is not None and base.get(r.case) else "-"
        err = f"{r.max_rel_err:.1e}" if r.max_rel_err is not None else "-"
        ms = r.ms if r.ms is not None else "-"
        kernels = r.kernels if r.kernels is not None else "-"
        gms = r.graph_ms if r.graph_ms is not None else "-"
        gratio = f"{r.graph_ms / gbase[r.case]:.2f}x" if r.graph_ms is not None and gbase.get(r.case) else "-"
        rows.append([r.case, "x".join(map(str, r.shape)), r.impl, ms, ratio, gms, gratio, err, kernels, r.note])
    return headers, rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true", help="tiny sizes on CPU, one timed run each (for CI)")
    p.add_argument("--device", default=None, help="default: cuda when available (cpu with --small)")
    p.add_argument("--backend", choices=["inductor", "eager"], default="inductor", help="compiler for realify")
    p.add_argument("--warmup", type=int, default=None)
    p.add_argument("--iters", type=int, default=None)
    p.add_argument("--naive-max-bytes", type=float, default=8 * 2**30, help="skip naive matrices above this size")
    p.add_argument("--mode", default=None, help="torch.compile mode, realify rows")
    p.add_argument("--only", default=None, help="comma-separated case names (default: all)")
    p.add_argument("--tf32", action="store_true", help="allow TF32 matmuls (faster on tensor cores, less precise)")
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = p.parse_args(argv)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() and not args.small else "cpu"))
    if args.warmup is None:
        args.warmup = 0 if args.small else 10
    if args.iters is None:
        args.iters = 1 if args.small else 50
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    torch.backends.cudnn.allow_tf32 = args.tf32

    results: list[Result] = []
    with torch.no_grad():
        for case in make_cases(args.small):
            if args.only and case.name not in args.only.split(","):
                continue
            results.extend(run_case(case, args, device))
    print(env_info(device))
    print(f"tf32 {args.tf32}, warmup {args.warmup}, iters {args.iters}")
    print_table(*table(results))
    write_json(args.json, {"env": env_info(device), "args": vars(args), "results": [asdict(r) for r in results]})
    for r in results:  # correctness, not speed: the lowered FFT must match torch.fft
        if r.impl.startswith("realify") and (r.max_rel_err is None or r.max_rel_err > 1e-3):
            print(f"error: {r.impl} on {r.case} is off by {r.max_rel_err}")
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
