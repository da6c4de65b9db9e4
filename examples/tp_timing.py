"""Timing for examples/llama3_tp.py --bench: prefill latency and decode throughput of a (sharded) model.

Every rank runs the same calls (the collectives inside keep them in step); each timed region starts after a
device sync and a barrier and ends after a device sync, so it covers the slowest rank. Rank 0's figures are
reported. Compilation happens in the warm-up calls, never inside a timed region.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.distributed as dist

Forward = Callable[[torch.Tensor, int], torch.Tensor]


def _sync(dev: torch.device) -> None:
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    dist.barrier()


def _decode(fwd: Forward, first: torch.Tensor, start: int, steps: int) -> torch.Tensor:
    tok = first
    for step in range(steps):
        tok = fwd(tok[:, None], start + step)[:, -1].argmax(dim=-1)
    return tok


def time_generation(
    fwd: Forward, prompt: torch.Tensor, decode_steps: int, iters: int, dev: torch.device
) -> dict[str, float]:
    """Median prefill latency (ms) over `iters` runs and decode tokens/s over `iters` runs of `decode_steps` steps."""
    with torch.no_grad():
        first = fwd(prompt, 0)[:, -1].argmax(dim=-1)  # warm-up: compiles prefill
        _decode(fwd, first, prompt.shape[1], min(decode_steps, 2))  # compiles the decode graph
        prefill_ms, decode_s = [], []
        for _ in range(iters):
            _sync(dev)
            t0 = time.perf_counter()
            first = fwd(prompt, 0)[:, -1].argmax(dim=-1)
            _sync(dev)
            prefill_ms.append((time.perf_counter() - t0) * 1e3)
            t0 = time.perf_counter()
            _decode(fwd, first, prompt.shape[1], decode_steps)
            _sync(dev)
            decode_s.append(time.perf_counter() - t0)
    batch = prompt.shape[0]
    return {
        "prefill_ms": statistics.median(prefill_ms),
        "decode_ms_per_step": statistics.median(decode_s) / max(decode_steps, 1) * 1e3,
        "decode_tokens_per_s": batch * decode_steps / statistics.median(decode_s),
        "prefill_tokens_per_s": batch * prompt.shape[1] / (statistics.median(prefill_ms) / 1e3),
    }


def bench_both(
    model: torch.nn.Module,
    realify_fwd: Forward,
    prompt: torch.Tensor,
    decode_steps: int,
    iters: int,
    dev: torch.device,
) -> dict[str, Any]:
    """realify's compiled model, then Inductor on the complex model (the same sharded module, compiled afresh)."""
    out: dict[str, Any] = {"iters": iters, "decode_steps": decode_steps}
    out["realify"] = time_generation(realify_fwd, prompt, decode_steps, iters, dev)
    torch._dynamo.reset()
    inductor_fwd = torch.compile(model, backend="inductor", fullgraph=True)
    out["inductor_complex"] = time_generation(inductor_fwd, prompt, decode_steps, iters, dev)
    return out
