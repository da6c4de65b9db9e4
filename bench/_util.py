"""Timing helpers shared by the benchmark scripts."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def time_ms(fn: Callable[[], Any], device: torch.device, warmup: int = 5, iters: int = 50, batch: int = 10) -> float:
    """Median time of one fn() call in milliseconds.

    On the GPU each sample times `batch` back-to-back calls between two CUDA events, so the host's
    launch overhead overlaps the kernels as in a real loop instead of being added to every sample.
    """
    for _ in range(warmup):
        fn()
    sync(device)
    samples = []
    if device.type == "cuda":
        for _ in range(iters):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(batch):
                fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) / batch)
    else:
        for _ in range(iters):
            t0 = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples)


def graph_time_ms(fn: Callable[[], Any], device: torch.device, warmup: int = 5, iters: int = 50) -> float | None:
    """Median time of fn() replayed as one captured CUDA graph: the GPU time alone, without Python or launch
    overhead (what a deployment that replays graphs, as TensorRT engines do, would see). None off CUDA."""
    if device.type != "cuda":
        return None
    side = torch.cuda.Stream(device)
    side.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(side):  # warm up off the capture stream, as capture requires
        fn()
    torch.cuda.current_stream(device).wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    return time_ms(graph.replay, device, warmup=warmup, iters=iters)


def kernel_count(fn: Callable[[], Any]) -> int:
    """Kernels Inductor generates while fn() compiles (0 for eager code)."""
    from torch._inductor import metrics

    metrics.reset()
    fn()
    return int(metrics.generated_kernel_count)


def env_info(device: torch.device) -> dict[str, Any]:
    info: dict[str, Any] = {"torch": torch.__version__, "device": str(device)}
    if device.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(device)
    return info


def write_json(path: str | None, payload: dict[str, Any]) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(payload, f, indent=2)


def print_table(headers: list[str], rows: list[list[Any]]) -> None:
    cells = [[str(h) for h in headers]] + [[f"{c:.4g}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for k, r in enumerate(cells):
        print("  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)))
        if k == 0:
            print("  ".join("-" * w for w in widths))
