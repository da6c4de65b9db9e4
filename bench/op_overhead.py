"""Host time per call of realify's FFT operator and of a small compiled FFT model, where the launch, not the
transform, is the cost.

Rows (microseconds per call, median of --repeats loops of --calls calls; tiny tensors, so the kernel is negligible):
  aten._fft_r2c                     the platform FFT called directly
  realify.fft_r2c (torch.library)   our operator through the dispatcher, as registered (Library + Autograd kernel)
  same kernel as a custom_op        the registration realify used before: torch.library.custom_op
  model: eager / inductor / realify  rfft -> scale -> irfft, eager, torch.compile on the complex code, and the
                                    realify backend (fft="native" and "matmul") over Inductor

    python bench/op_overhead.py [--device cuda] [--json out.json]
    python bench/op_overhead.py --small      # fewer calls (CI keeps it working)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
from realify import native_fft

sys.path.insert(0, str(Path(__file__).parent))
from _util import env_info, print_table, sync, write_json  # noqa: E402


@torch.library.custom_op("realify_bench::fft_r2c", mutates_args=())
def _custom_op_r2c(x: torch.Tensor, dim: list[int], onesided: bool) -> torch.Tensor:
    return native_fft._fft_r2c(x, dim, onesided)


@_custom_op_r2c.register_fake
def _(x: torch.Tensor, dim: list[int], onesided: bool) -> torch.Tensor:
    return native_fft._fft_r2c_fake(x, dim, onesided)


class RfftModel(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * 2, n=x.shape[-1])


def host_us(fn: Callable[[], Any], dev: torch.device, calls: int, repeats: int) -> float:
    for _ in range(20):
        fn()
    sync(dev)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        sync(dev)
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--small", action="store_true")
    p.add_argument("--device", default=None)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--json", default=None)
    a = p.parse_args()
    if a.small:
        a.calls, a.repeats = 50, 1
    dev = torch.device(a.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    x = torch.randn(4, 16, device=dev)
    model = RfftModel()
    rows: list[dict[str, Any]] = []

    def add(name: str, fn: Callable[[], Any]) -> None:
        rows.append({"row": name, "us": host_us(fn, dev, a.calls, a.repeats)})

    with torch.no_grad():
        add("aten._fft_r2c", lambda: torch._fft_r2c(x, [1], 0, True))
        add("realify.fft_r2c (torch.library)", lambda: native_fft.fft_r2c(x, [1], True))
        add("same kernel as a custom_op", lambda: _custom_op_r2c(x, [1], True))
        add("model: eager", lambda: model(x))
        torch._dynamo.reset()
        inductor = torch.compile(model)
        add("model: inductor on complex", lambda: inductor(x))
        for fft in ("native", "matmul"):
            torch._dynamo.reset()
            f = torch.compile(model, backend="realify", options={"backend": "inductor", "fft": fft})
            torch.testing.assert_close(f(x), model(x), rtol=1e-5, atol=1e-5)
            add(f"model: realify+inductor {fft}", lambda f=f: f(x))
    print(env_info(dev))
    print_table(["row", "us"], [[r["row"], r["us"]] for r in rows])
    write_json(a.json, {"env": env_info(dev), "args": vars(a), "results": rows})


if __name__ == "__main__":
    main()
