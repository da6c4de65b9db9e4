"""One rank of the torchtitan tensor-parallel run (test_torchtitan_tp.py spawns two over gloo on CPU).

The rank builds torchtitan's Llama 3 twice from one seed: unsharded (the eager reference) and sharded by
torchtitan's own plan (`set_llama3_sharding_config`: colwise wqkv/w1/w3/lm_head, rowwise wo/w2, replicated
norms; then `Module.parallelize`). The sharded model runs eagerly and through torch.compile(backend="realify"):
greedy tokens and logits in no_grad, then one training step (loss, every parameter's gradient). What it saw is
written to `out_dir/rank{N}.pt` for the test to check.
"""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import fx

DECODE_STEPS = 2


def _full(t: Any) -> torch.Tensor:
    return t.full_tensor() if hasattr(t, "full_tensor") else t


class GraphLog:
    """What each lowered graph looked like: complex placeholders before, complex values after, collectives."""

    def __init__(self) -> None:
        self.graphs: list[dict[str, Any]] = []

    def __call__(self, event: Any) -> None:
        self.graphs.append({
            "complex_placeholder_before": any(_is_complex(n) for n in event.graph_before.graph.nodes
                                              if n.op == "placeholder"),
            "complex_after": sum(_is_complex(n) for n in event.graph_after.graph.nodes),
            "collectives": sum(_is_collective(n) for n in event.graph_after.graph.nodes),
        })


def _is_complex(node: fx.Node) -> bool:
    val = node.meta.get("val")
    vals = val if isinstance(val, (list, tuple)) else [val]
    return any(isinstance(v, torch.Tensor) and v.is_complex() for v in vals)


def _is_collective(node: fx.Node) -> bool:
    return node.op == "call_function" and "c10d" in str(getattr(node.target, "namespace", ""))


def _greedy(model: torch.nn.Module, prompt: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The prompt's logits and DECODE_STEPS greedy tokens (no KV cache: torchtitan's model has none)."""
    seq, first = prompt, None
    for _ in range(DECODE_STEPS):
        logits = _full(model(seq))
        first = logits if first is None else first
        seq = torch.cat([seq, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return first, seq[:, prompt.shape[1]:]


def _train_step(model: torch.nn.Module, prompt: torch.Tensor) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    logits = _full(model(prompt[:, :-1]))
    loss = F.cross_entropy(logits.flatten(0, 1), prompt[:, 1:].flatten())
    loss.backward()
    # a compiled module names its parameters under "_orig_mod."
    return loss.detach(), {n.removeprefix("_orig_mod."): _full(p.grad) for n, p in model.named_parameters()}


def _parallel_dims(world: int, spmd_backend: str) -> Any:
    import torchtitan.distributed.parallel_dims as parallel_dims
    from torchtitan.distributed import utils as dist_utils

    # torchtitan picks its mesh device as "the available accelerator, else cuda"; this run is on CPU
    parallel_dims.device_type = "cpu"
    # torchtitan builds its size-1 mesh axes on torch's "fake" process group, registered by this import
    importlib.import_module("torch.testing._internal.distributed.fake_pg")
    dist_utils.set_spmd_backend(spmd_backend)
    dims = parallel_dims.ParallelDims(dp_replicate=1, dp_shard=1, cp=1, tp=world, pp=1, ep=1, world_size=world,
                                      spmd_backend=spmd_backend)
    dims.build_mesh()
    return dims


def run_rank(rank: int, world: int, port: int, out_dir: str, spmd_backend: str, enable_sp: bool) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    if dist.is_initialized():  # forked from a test process whose earlier tests left a default group
        dist.destroy_process_group()
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        from torchtitan_support import TINY, build_llama3, tokens

        dims = _parallel_dims(world, spmd_backend)
        prompt = tokens()
        reference = build_llama3().eval()

        def sharded() -> torch.nn.Module:
            model = build_llama3(enable_sp=enable_sp)
            model.parallelize(dims)
            return model

        result: dict[str, Any] = {"rank": rank, "max_seq_len": TINY["max_seq_len"], "seconds": {}}
        clock = time.perf_counter()

        def lap(name: str) -> None:
            nonlocal clock
            result["seconds"][name], clock = time.perf_counter() - clock, time.perf_counter()

        log = GraphLog()
        options = {"backend": "eager", "on_lowered": log}
        with torch.no_grad():
            result["ref_logits"], result["ref_tokens"] = _greedy(reference, prompt)
            tp_model = sharded().eval()
            result["tp_logits"], result["tp_tokens"] = _greedy(tp_model, prompt)
            lap("eager inference")
            torch._dynamo.reset()
            compiled = torch.compile(tp_model, backend="realify", fullgraph=True, dynamic=False, options=options)
            result["compiled_logits"], result["compiled_tokens"] = _greedy(compiled, prompt)
            lap("compiled inference")
        result["inference_graphs"] = list(log.graphs)
        log.graphs.clear()
        result["ref_loss"], result["ref_grads"] = _train_step(build_llama3().train(), prompt)
        result["tp_loss"], result["tp_grads"] = _train_step(sharded().train(), prompt)
        lap("eager training")
        torch._dynamo.reset()
        train_model = sharded().train()
        compiled = torch.compile(train_model, backend="realify", fullgraph=True, dynamic=False, options=options)
        result["compiled_loss"], result["compiled_grads"] = _train_step(compiled, prompt)
        result["train_graphs"] = list(log.graphs)
        lap("compiled training")
        result["sharded_params"] = sorted(n for n, p in train_model.named_parameters() if hasattr(p, "placements")
                                          and any(pl.is_shard() for pl in p.placements))
        for key in ("ref_grads", "tp_grads", "compiled_grads"):
            result[key] = {n: g.detach() for n, g in result[key].items()}
        torch.save(result, Path(out_dir) / f"rank{rank}.pt")
    finally:
        dist.destroy_process_group()
