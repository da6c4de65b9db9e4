"""Weights of a Llama 3 model: seeded random initialization, and Meta's single-shard checkpoint layout
(``params.json`` plus ``consolidated.00.pth``)."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import torch
from torch import nn

from .model import ModelArgs, RMSNorm, Transformer

PARAMS_FILE = "params.json"
SHARD_GLOB = "consolidated.*.pth"
SHARD_FILE = "consolidated.00.pth"

# Keys written to params.json by save_checkpoint (architecture only; batch/sequence limits are runtime choices).
_PARAMS_KEYS = (
    "dim",
    "n_layers",
    "n_heads",
    "n_kv_heads",
    "vocab_size",
    "multiple_of",
    "ffn_dim_multiplier",
    "norm_eps",
    "rope_theta",
    "use_scaled_rope",
)


@torch.no_grad()
def init_random(model: Transformer, seed: int = 0) -> Transformer:
    """Deterministically initialize ``model`` in place: N(0, 0.02) for linears/embeddings, ones for norms.

    Values are drawn on CPU in float32 from a seeded generator, so they do not depend on device or dtype.
    """
    gen = torch.Generator(device="cpu").manual_seed(seed)
    for module in model.modules():
        if isinstance(module, (nn.Linear, nn.Embedding)):
            w = module.weight
            w.copy_(torch.randn(w.shape, generator=gen, dtype=torch.float32) * 0.02)
            bias = getattr(module, "bias", None)
            if bias is not None:
                bias.zero_()
        elif isinstance(module, RMSNorm):
            module.weight.fill_(1.0)
    model.reset_buffers()
    return model


def build(
    args: ModelArgs, seed: int = 0, dtype: torch.dtype = torch.float32, device: str | torch.device = "cpu"
) -> Transformer:
    """Create a randomly initialized model (see :func:`init_random`) in eval mode."""
    with torch.device("meta"):
        model = Transformer(args)
    model.to(dtype=dtype)
    model.to_empty(device=device)
    init_random(model, seed)
    return model.eval()


def _find_shard(ckpt_dir: Path) -> Path:
    shards = sorted(ckpt_dir.glob(SHARD_GLOB))
    if not shards:
        raise FileNotFoundError(f"no {SHARD_GLOB} file in checkpoint directory {ckpt_dir}")
    if len(shards) > 1:
        names = ", ".join(p.name for p in shards)
        raise ValueError(
            f"checkpoint {ckpt_dir} is sharded into {len(shards)} files ({names}); "
            "only single-shard checkpoints (consolidated.00.pth) are supported"
        )
    return shards[0]


def load_checkpoint(
    ckpt_dir: str | os.PathLike[str],
    *,
    dtype: torch.dtype | None = None,
    device: str | torch.device = "cpu",
    **overrides: Any,
) -> Transformer:
    """Load a Meta-format single-shard checkpoint (``params.json`` + ``consolidated.00.pth``).

    ``overrides`` replace ModelArgs fields (e.g. ``max_seq_len=512, use_kv_cache=True``). Weights keep their stored
    dtype unless ``dtype`` is given. Returns the model in eval mode.
    """
    ckpt_dir = Path(ckpt_dir)
    if not ckpt_dir.is_dir():
        raise FileNotFoundError(f"checkpoint directory not found: {ckpt_dir}")
    params_path = ckpt_dir / PARAMS_FILE
    if not params_path.is_file():
        raise FileNotFoundError(f"missing {PARAMS_FILE} in checkpoint directory {ckpt_dir}")
    shard = _find_shard(ckpt_dir)

    with params_path.open() as f:
        params = json.load(f)
    if not isinstance(params, dict):
        raise ValueError(f"{params_path} must contain a JSON object")
    state = torch.load(shard, map_location="cpu", weights_only=True, mmap=True)
    if not isinstance(state, dict) or "tok_embeddings.weight" not in state:
        raise ValueError(f"{shard} does not look like a Llama state dict (no 'tok_embeddings.weight')")

    vocab = params.get("vocab_size")
    if vocab is None or vocab <= 0:
        params["vocab_size"] = int(state["tok_embeddings.weight"].shape[0])
    args = ModelArgs.from_params(params, **overrides)

    if dtype is not None:
        state = {k: v.to(dtype) if v.is_floating_point() else v for k, v in state.items()}
    with torch.device("meta"):
        model = Transformer(args)
    model.load_state_dict(state, strict=True, assign=True)
    model.reset_buffers()  # buffers are still on the meta device: materialize them next to the weights
    model.to(device)
    return model.eval()


def save_checkpoint(model: Transformer, ckpt_dir: str | os.PathLike[str]) -> None:
    """Write ``params.json`` and ``consolidated.00.pth`` in Meta's layout (persistent weights only)."""
    ckpt_dir = Path(ckpt_dir)
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    args = dataclasses.asdict(model.params)
    params = {k: args[k] for k in _PARAMS_KEYS if args[k] is not None}
    with (ckpt_dir / PARAMS_FILE).open("w") as f:
        json.dump(params, f, indent=2)
        f.write("\n")
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    torch.save(state, ckpt_dir / SHARD_FILE)
