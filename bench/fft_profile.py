"""Where the time of an FFT model goes: the GPU kernels of each variant of bench/fft_models.py, from torch.profiler.

For each model and variant, prints the kernels by total device time over --iters calls (per call), so a gap
against eager can be traced to the transforms, the products or the elementwise work around them.

    python bench/fft_profile.py [--models fno2d,mri] [--variants eager,native,matmul] [--top 12]
    python bench/fft_profile.py --small    # tiny CPU shapes, CPU ops instead of kernels (CI keeps it working)
    python bench/fft_profile.py --host     # also the host: issue time per call and the CPU ops that take it

A model whose launched time exceeds its kernels' time is host-bound; --host says where that host time goes.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, str(Path(__file__).parent))
from _util import env_info, sync, write_json  # noqa: E402
from fft_models import MODELS, rel_err  # noqa: E402


def variant_fn(model: torch.nn.Module, args: tuple[torch.Tensor, ...], variant: str) -> Callable[[], Any]:
    if variant == "eager":
        return lambda: model(*args)
    torch._dynamo.reset()
    if variant == "inductor":
        f = torch.compile(model)
    else:
        f = torch.compile(model, backend="realify", options={"backend": "inductor", "fft": variant})
    return lambda: f(*args)


def kernel_table(fn: Callable[[], Any], dev: torch.device, iters: int) -> list[tuple[str, float, int]]:
    """(name, µs per call, launches per call) for each kernel (CPU ops on the CPU), largest first."""
    gpu = dev.type == "cuda"
    activities = [ProfilerActivity.CUDA] if gpu else [ProfilerActivity.CPU]
    for _ in range(3):
        fn()
    sync(dev)
    with profile(activities=activities) as prof:
        for _ in range(iters):
            fn()
        sync(dev)
    rows = []
    for e in prof.key_averages():
        us = e.device_time_total if gpu else e.self_cpu_time_total
        if us > 0 and (not gpu or e.device_type.name == "CUDA"):
            rows.append((e.key, us / iters, round(e.count / iters)))
    return sorted(rows, key=lambda r: -r[1])


def issue_us(fn: Callable[[], Any], dev: torch.device, iters: int) -> float:
    """µs of host time to issue one call, calls back to back with no sync between them: the fastest of 5 rounds.
    Taken before any profiling: a profiled session leaves later launches slower."""
    for _ in range(3):
        fn()
    sync(dev)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) * 1e6 / iters)
        sync(dev)
    return best


def host_table(fn: Callable[[], Any], dev: torch.device, iters: int) -> list[tuple[str, float, int]]:
    """The CPU ops by self time per call, under the profiler (which inflates them; compare variants, not sums)."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(iters):
            fn()
        sync(dev)
    rows = [
        (e.key, e.self_cpu_time_total / iters, round(e.count / iters))
        for e in prof.key_averages()
        if e.self_cpu_time_total > 0
    ]
    return sorted(rows, key=lambda r: -r[1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--models", default="fno2d,mri")
    p.add_argument("--variants", default="eager,native,matmul")
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--top", type=int, default=12)
    p.add_argument("--host", action="store_true", help="also time the host's issue of each call and its CPU ops")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    dev = torch.device("cpu" if a.small or not torch.cuda.is_available() else "cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    results: list[dict[str, Any]] = []
    for name in a.models.split(","):
        model, args = MODELS[name](a.small, dev)
        model = model.to(dev).eval()
        args = tuple(x.to(dev) for x in args)
        with torch.no_grad():
            ref = model(*args)
            for variant in a.variants.split(","):
                fn = variant_fn(model, args, variant)
                err = rel_err(fn(), ref)
                issue = issue_us(fn, dev, 1 if a.small else a.iters) if a.host else None
                rows = kernel_table(fn, dev, 1 if a.small else a.iters)
                total = sum(r[1] for r in rows)
                results.append(
                    {
                        "model": name,
                        "variant": variant,
                        "us": total,
                        "max_rel_err": err,
                        "top": [{"kernel": k, "us": us, "count": c} for k, us, c in rows[: a.top]],
                    }
                )
                print(f"\n## {name} / {variant}: {total:.1f} us of kernels per call, {len(rows)} kinds, err {err:.1e}")
                for k, us, count in rows[: a.top]:
                    print(f"  {us:9.1f} us  x{count:<3d} {k[:110]}")
                if a.host:
                    ops = host_table(fn, dev, 1 if a.small else a.iters)
                    results[-1]["host_issue_us"] = issue
                    results[-1]["host_top"] = [{"op": k, "self_us": us, "count": c} for k, us, c in ops[: a.top]]
                    print(f"  host: {issue:.1f} us to issue a call; CPU ops by self time per call (profiled):")
                    for k, us, count in ops[: a.top]:
                        print(f"  {us:9.1f} us  x{count:<3d} {k[:110]}")
    write_json(a.json, {"env": env_info(dev), "args": vars(a), "results": results})


if __name__ == "__main__":
    main()
