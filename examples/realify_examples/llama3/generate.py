"""Greedy decoding of a Llama 3 model with its KV cache."""

from __future__ import annotations

from collections.abc import Callable

import torch

from .model import Transformer


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
