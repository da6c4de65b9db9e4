"""Rotary position embeddings of Llama 3 in their complex formulation (Meta's reference math).

``precompute_freqs_cis`` builds unit complex rotations with ``torch.polar``; ``apply_rotary_emb`` views interleaved
pairs as complex numbers and multiplies: the complex-valued graph realify rewrites into real-only arithmetic.
"""

from __future__ import annotations

import math

import torch


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
