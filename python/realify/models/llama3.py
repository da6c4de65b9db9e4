"""Llama 3 transformer following Meta's reference architecture.

This is an independent implementation of the same math as Meta's reference model. Rotary position
embeddings are applied through complex multiplication (``torch.view_as_complex`` / ``torch.polar``), which is
exactly the kind of complex-valued graph that realify rewrites into real-only arithmetic.

Checkpoints use Meta's single-shard layout: ``params.json`` plus ``consolidated.00.pth``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

__all__ = [
    "Attention",
    "FeedForward",
    "ModelArgs",
    "RMSNorm",
    "Transformer",
    "TransformerBlock",
    "apply_rotary_emb",
    "apply_scaling",
    "build",
    "generate_greedy",
    "init_random",
    "load_checkpoint",
    "precompute_freqs_cis",
    "repeat_kv",
    "reshape_for_broadcast",
    "save_checkpoint",
]

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


@dataclass
class ModelArgs:
    """Hyper-parameters of a Llama 3 model (defaults: Llama 3 8B shapes)."""

    dim: int = 4096
    n_layers: int = 32
    n_heads: int = 32
    n_kv_heads: int | None = None
    vocab_size: int = 128256
    multiple_of: int = 256
    ffn_dim_multiplier: float | None = None
    norm_eps: float = 1e-5
    rope_theta: float = 500000.0
    use_scaled_rope: bool = False
    max_batch_size: int = 32
    max_seq_len: int = 2048
    use_kv_cache: bool = False
    # "matmul": Meta's reference softmax(q k^T) v; "sdpa": F.scaled_dot_product_attention, as torchtitan writes it
    attention: str = "matmul"

    @classmethod
    def from_params(cls, params: dict[str, Any], **overrides: Any) -> ModelArgs:
        """Build from a Meta ``params.json`` dict; unknown keys are ignored, ``overrides`` win (and must be fields)."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(overrides) - names)
        if unknown:
            raise TypeError(f"unknown ModelArgs field(s) in overrides: {unknown}")
        kwargs = {k: v for k, v in params.items() if k in names}
        kwargs.update(overrides)
        return cls(**kwargs)


# --------------------------------------------------------------------------------------------------------------
# Rotary position embeddings (complex formulation)
# --------------------------------------------------------------------------------------------------------------


def apply_scaling(
    freqs: torch.Tensor,
    scale_factor: float = 8.0,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    old_context_len: int = 8192,
) -> torch.Tensor:
    """Llama 3.1 RoPE frequency scaling.

    Frequencies with a wavelength shorter than ``old_context_len / high_freq_factor`` are kept, those longer than
    ``old_context_len / low_freq_factor`` are divided by ``scale_factor``, and the band in between is linearly
    interpolated between the two.
    """
    low_freq_wavelen = old_context_len / low_freq_factor
    high_freq_wavelen = old_context_len / high_freq_factor
    wavelen = 2 * math.pi / freqs
    smooth = (old_context_len / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1 - smooth) * freqs / scale_factor + smooth * freqs
    out = torch.where(wavelen > low_freq_wavelen, freqs / scale_factor, blended)
    return torch.where(wavelen < high_freq_wavelen, freqs, out)


def precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0, use_scaled: bool = False) -> torch.Tensor:
    """Unit complex rotations ``exp(i * t * f_j)`` for positions ``t < end``; shape ``(end, dim // 2)``, complex64."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    if use_scaled:
        freqs = apply_scaling(freqs)
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def reshape_for_broadcast(freqs_cis: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """View ``freqs_cis`` of shape ``(seqlen, d)`` so it broadcasts against ``x`` of shape ``(b, seqlen, h, d)``."""
    ndim = x.ndim
    if ndim < 2 or freqs_cis.shape != (x.shape[1], x.shape[-1]):
        raise ValueError(f"freqs_cis shape {tuple(freqs_cis.shape)} does not match x shape {tuple(x.shape)}")
    shape = [d if i == 1 or i == ndim - 1 else 1 for i, d in enumerate(x.shape)]
    return freqs_cis.view(*shape)


def apply_rotary_emb(xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotate interleaved (even, odd) pairs of the last dim of ``xq``/``xk`` by ``freqs_cis`` (complex multiply)."""
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = reshape_for_broadcast(freqs_cis, xq_)
    xq_out = torch.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = torch.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """Repeat each KV head ``n_rep`` times along dim 2: ``(b, s, kv, d) -> (b, s, kv * n_rep, d)``."""
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (
        x[:, :, :, None, :]
        .expand(bs, slen, n_kv_heads, n_rep, head_dim)
        .reshape(bs, slen, n_kv_heads * n_rep, head_dim)
    )


# --------------------------------------------------------------------------------------------------------------
# Modules
# --------------------------------------------------------------------------------------------------------------


class RMSNorm(nn.Module):
    """Root-mean-square layer norm; statistics in float32, result cast back to the input dtype."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Normalize over the last dim and scale by ``weight``."""
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


class Attention(nn.Module):
    """Grouped-query self-attention with RoPE and an optional KV cache."""

    cache_k: torch.Tensor
    cache_v: torch.Tensor

    def __init__(self, args: ModelArgs) -> None:
        super().__init__()
        self.n_heads = args.n_heads
        self.n_kv_heads = args.n_heads if args.n_kv_heads is None else args.n_kv_heads
        if self.n_heads % self.n_kv_heads:
            raise ValueError(f"n_heads ({self.n_heads}) must be a multiple of n_kv_heads ({self.n_kv_heads})")
        # Per-rank head counts; tensor-parallel code may divide these by the world size.
        self.n_local_heads = self.n_heads
        self.n_local_kv_heads = self.n_kv_heads
        self.n_rep = self.n_heads // self.n_kv_heads
        self.head_dim = args.dim // args.n_heads
        self.max_batch_size = args.max_batch_size
        self.max_seq_len = args.max_seq_len
        self.use_kv_cache = args.use_kv_cache
        if args.attention not in ("matmul", "sdpa"):
            raise ValueError(f"attention must be 'matmul' or 'sdpa', not {args.attention!r}")
        self.attention_impl = args.attention

        self.wq = nn.Linear(args.dim, self.n_heads * self.head_dim, bias=False)
        self.wk = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wv = nn.Linear(args.dim, self.n_kv_heads * self.head_dim, bias=False)
        self.wo = nn.Linear(self.n_heads * self.head_dim, args.dim, bias=False)

        if self.use_kv_cache:
            shape = (self.max_batch_size, self.max_seq_len, self.n_local_kv_heads, self.head_dim)
            self.register_buffer("cache_k", torch.zeros(shape), persistent=False)
            self.register_buffer("cache_v", torch.zeros(shape), persistent=False)

    def reset_cache(self) -> None:
        """(Re)allocate zeroed KV caches for the current ``n_local_kv_heads``, on the weights' device and dtype."""
        if not self.use_kv_cache:
            return
        w = self.wk.weight
        shape = (self.max_batch_size, self.max_seq_len, self.n_local_kv_heads, self.head_dim)
        self.cache_k = torch.zeros(shape, dtype=w.dtype, device=w.device)
        self.cache_v = torch.zeros(shape, dtype=w.dtype, device=w.device)

    def forward(
        self, x: torch.Tensor, start_pos: int, freqs_cis: torch.Tensor, mask: torch.Tensor | None
    ) -> torch.Tensor:
        """Attend ``x`` (``(b, s, dim)``) at positions ``start_pos .. start_pos + s``."""
        bsz, seqlen, _ = x.shape
        # -1 head counts so the module still works once the projections are sharded across ranks.
        xq = self.wq(x).view(bsz, seqlen, -1, self.head_dim)
        xk = self.wk(x).view(bsz, seqlen, -1, self.head_dim)
        xv = self.wv(x).view(bsz, seqlen, -1, self.head_dim)

        xq, xk = apply_rotary_emb(xq, xk, freqs_cis=freqs_cis)

        if self.use_kv_cache:
            self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
            self.cache_v[:bsz, start_pos : start_pos + seqlen] = xv
            keys = self.cache_k[:bsz, : start_pos + seqlen]
            values = self.cache_v[:bsz, : start_pos + seqlen]
        else:
            keys, values = xk, xv

        keys = repeat_kv(keys, self.n_rep)  # (b, cache_len + s, h, d)
        values = repeat_kv(values, self.n_rep)

        xq = xq.transpose(1, 2)  # (b, h, s, d)
        keys = keys.transpose(1, 2)
        values = values.transpose(1, 2)
        if self.attention_impl == "sdpa":
            output = F.scaled_dot_product_attention(xq, keys, values, attn_mask=mask)
        else:
            scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.head_dim)
            if mask is not None:
                scores = scores + mask
            scores = F.softmax(scores.float(), dim=-1).type_as(xq)
            output = torch.matmul(scores, values)  # (b, h, s, d)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.wo(output)


class FeedForward(nn.Module):
    """SwiGLU feed-forward: ``w2(silu(w1 x) * w3 x)``."""

    def __init__(self, dim: int, hidden_dim: int, multiple_of: int, ffn_dim_multiplier: float | None) -> None:
        super().__init__()
        hidden_dim = int(2 * hidden_dim / 3)
        if ffn_dim_multiplier is not None:
            hidden_dim = int(ffn_dim_multiplier * hidden_dim)
        hidden_dim = multiple_of * ((hidden_dim + multiple_of - 1) // multiple_of)
        self.hidden_dim = hidden_dim
        self.w1 = nn.Linear(dim, hidden_dim, bias=False)
        self.w2 = nn.Linear(hidden_dim, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden_dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the gated MLP."""
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class TransformerBlock(nn.Module):
    """Pre-norm transformer layer: attention then feed-forward, each with a residual connection."""

    def __init__(self, layer_id: int, args: ModelArgs) -> None:
        super().__init__()
        self.layer_id = layer_id
        self.n_heads = args.n_heads
        self.dim = args.dim
        self.head_dim = args.dim // args.n_heads
        self.attention = Attention(args)
        self.feed_forward = FeedForward(
            dim=args.dim,
            hidden_dim=4 * args.dim,
            multiple_of=args.multiple_of,
            ffn_dim_multiplier=args.ffn_dim_multiplier,
        )
        self.attention_norm = RMSNorm(args.dim, eps=args.norm_eps)
        self.ffn_norm = RMSNorm(args.dim, eps=args.norm_eps)

    def forward(
        self, x: torch.Tensor, start_pos: int, freqs_cis: torch.Tensor, mask: torch.Tensor | None
    ) -> torch.Tensor:
        """Run one layer."""
        h = x + self.attention(self.attention_norm(x), start_pos, freqs_cis, mask)
        return h + self.feed_forward(self.ffn_norm(h))


class Transformer(nn.Module):
    """Llama 3 decoder-only language model returning float32 logits."""

    freqs_cis: torch.Tensor

    def __init__(self, params: ModelArgs) -> None:
        super().__init__()
        self.params = params
        self.vocab_size = params.vocab_size
        self.n_layers = params.n_layers

        self.tok_embeddings = nn.Embedding(params.vocab_size, params.dim)
        self.layers = nn.ModuleList(TransformerBlock(i, params) for i in range(params.n_layers))
        self.norm = RMSNorm(params.dim, eps=params.norm_eps)
        self.output = nn.Linear(params.dim, params.vocab_size, bias=False)

        # Not part of the checkpoint: derived from the config, so it must not break strict state_dict loading.
        self.register_buffer("freqs_cis", self._compute_freqs_cis(), persistent=False)

    def _compute_freqs_cis(self) -> torch.Tensor:
        p = self.params
        return precompute_freqs_cis(p.dim // p.n_heads, p.max_seq_len * 2, p.rope_theta, p.use_scaled_rope)

    def reset_buffers(self) -> None:
        """Recompute ``freqs_cis`` (on CPU, then moved) and zero the KV caches, on the parameters' device."""
        device = self.tok_embeddings.weight.device
        with torch.device("cpu"):
            freqs_cis = self._compute_freqs_cis()
        self.freqs_cis = freqs_cis.to(device)
        for layer in self.layers:
            layer.attention.reset_cache()

    def _apply(self, fn: Callable[[torch.Tensor], torch.Tensor], recurse: bool = True) -> Transformer:
        # ``Module.to(dtype)`` / ``.half()`` would cast the complex64 ``freqs_cis`` to a real dtype and silently drop
        # its imaginary part. Keep it complex64 and only follow the device change.
        freqs = self._buffers["freqs_cis"]
        self._buffers["freqs_cis"] = None
        try:
            super()._apply(fn, recurse)
        finally:
            self._buffers["freqs_cis"] = freqs
        if freqs is not None:
            try:
                target = fn(torch.empty(0, device=freqs.device)).device
            except NotImplementedError:  # meta -> real device via .to(): follow the (already moved) parameters
                target = self.tok_embeddings.weight.device
            if target != freqs.device:
                if freqs.device.type == "meta":
                    with torch.device("cpu"):
                        freqs = self._compute_freqs_cis()
                self._buffers["freqs_cis"] = freqs.to(target)
        return self

    def forward(self, tokens: torch.Tensor, start_pos: int = 0) -> torch.Tensor:
        """Logits ``(b, s, vocab)`` in float32 for ``tokens`` ``(b, s)`` placed at ``start_pos``."""
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        freqs_cis = self.freqs_cis[start_pos : start_pos + seqlen]

        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=tokens.device)
            mask = torch.triu(mask, diagonal=1)
            if self.params.use_kv_cache:
                # Cached keys before start_pos are all visible to the new queries.
                mask = torch.hstack([torch.zeros((seqlen, start_pos), device=tokens.device), mask])
            mask = mask.type_as(h)

        for layer in self.layers:
            h = layer(h, start_pos, freqs_cis, mask)
        h = self.norm(h)
        return self.output(h).float()


# --------------------------------------------------------------------------------------------------------------
# Construction, checkpoints, generation
# --------------------------------------------------------------------------------------------------------------


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


@torch.no_grad()
def generate_greedy(
    model: Transformer,
    tokens: torch.Tensor,
    max_new_tokens: int,
    forward: Callable[[torch.Tensor, int], torch.Tensor] | None = None,
) -> torch.Tensor:
    """Greedy decoding with the KV cache; returns the ``(bsz, max_new_tokens)`` generated ids.

    The prompt is prefilled at ``start_pos=0``, then each new token is fed alone at its position. ``forward``
    (default ``model``) lets a compiled/exported wrapper of the same model be used; it is called as
    ``forward(tokens, start_pos)``.
    """
    params = model.params
    if not params.use_kv_cache:
        raise ValueError("generate_greedy requires a model built with use_kv_cache=True")
    if tokens.ndim != 2:
        raise ValueError(f"tokens must have shape (bsz, prompt_len), got {tuple(tokens.shape)}")
    bsz, prompt_len = tokens.shape
    if bsz > params.max_batch_size:
        raise ValueError(f"batch size {bsz} exceeds max_batch_size {params.max_batch_size}")
    if prompt_len < 1:
        raise ValueError("prompt must contain at least one token")
    if prompt_len + max_new_tokens > params.max_seq_len:
        raise ValueError(
            f"prompt_len + max_new_tokens = {prompt_len + max_new_tokens} exceeds max_seq_len {params.max_seq_len}"
        )
    fwd = model if forward is None else forward
    if max_new_tokens <= 0:
        return tokens.new_empty((bsz, 0))

    logits = fwd(tokens, 0)
    next_tok = logits[:, -1].argmax(dim=-1)
    out = [next_tok]
    for pos in range(prompt_len, prompt_len + max_new_tokens - 1):
        logits = fwd(next_tok[:, None], pos)
        next_tok = logits[:, -1].argmax(dim=-1)
        out.append(next_tok)
    return torch.stack(out, dim=1)
