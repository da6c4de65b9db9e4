"""Llama 3 transformer following Meta's reference architecture: hyper-parameters, layers and the model.

An independent implementation of the same math as Meta's reference model; rotary embeddings come from
:mod:`.rope` (complex multiplication).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .rope import apply_rotary_emb, precompute_freqs_cis


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
