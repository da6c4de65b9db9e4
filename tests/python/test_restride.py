"""A user's op gets its argument in eager's layout when realify computed that argument (python/realify/_restride.py).

diffusers' AnyFlow applies RoPE to a transposed (B, H, L, D) view and transposes back into SDPA; eager's complex
product keeps the transposed layout, so the `flatten` after attention was traced as a `view`. realify's product came
out contiguous and the view failed in the backend."""

from __future__ import annotations

import realify  # noqa: F401  (registers the backend)
import torch
import torch.nn.functional as F
from realify._restride import wanted_order


def _rotate(h: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    x = torch.view_as_complex(h.to(torch.float64).unflatten(3, (-1, 2)))
    return torch.view_as_real(x * freqs).flatten(3, 4).type_as(h)


def _attention(x: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    q = _rotate(x.unflatten(2, (2, -1)).transpose(1, 2), freqs)
    return F.scaled_dot_product_attention(q, q, q).transpose(1, 2).flatten(2, 3)


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 6, 16, generator=g)
    angle = torch.randn(6, 4, dtype=torch.float64, generator=g)
    return x, torch.polar(torch.ones_like(angle), angle)


def test_transposed_rope_before_sdpa_compiles_and_matches_eager() -> None:
    x, freqs = _inputs()
    torch._dynamo.reset()
    with torch.no_grad():
        out = torch.compile(_attention, backend="realify", fullgraph=True)(x, freqs)
    torch.testing.assert_close(out, _attention(x, freqs), rtol=1e-5, atol=1e-6)


def test_transposed_rope_before_sdpa_trains_with_eager_gradients() -> None:
    x, freqs = _inputs()
    x1, x2 = x.clone().requires_grad_(), x.clone().requires_grad_()
    torch._dynamo.reset()
    torch.compile(_attention, backend="realify", fullgraph=True)(x1, freqs).square().sum().backward()
    _attention(x2, freqs).square().sum().backward()
    assert x1.grad is not None and x2.grad is not None
    torch.testing.assert_close(x1.grad, x2.grad, rtol=1e-5, atol=1e-6)


def test_wanted_order_only_for_dense_layouts_that_differ() -> None:
    base = torch.empty(2, 3, 4)
    transposed = torch.empty(2, 4, 3).transpose(1, 2)
    assert wanted_order(base, base.clone()) is None
    assert wanted_order(base, transposed) == [0, 2, 1]
    # every other element (a real part read out of a (..., 2) tensor) is not dense: left alone
    assert wanted_order(base, torch.empty(2, 3, 4, 2)[..., 0]) is None
    # size-1 dims may carry any stride
    assert wanted_order(torch.empty(2, 1, 4), torch.empty(2, 4, 1).transpose(1, 2)) is None
