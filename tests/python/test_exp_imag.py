"""Pattern cx.exp_imag (src/patterns/exp_imag.c): exp(x * c) of a real x and an imaginary scalar c is (cos t,
sin t) of the product's imaginary part, with eager's values at zeros, infinities and nans, on every target."""

from __future__ import annotations

import math

import pytest
import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

SPECIAL = [0.0, -0.0, 1.0, -1.0, math.pi, 1e30, -1e30, math.inf, -math.inf, math.nan, 3e-39, -3e-39]


class Phasor(torch.nn.Module):
    def __init__(self, c: complex, scalar_first: bool = False) -> None:
        super().__init__()
        self.c, self.scalar_first = c, scalar_first

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.exp(self.c * x if self.scalar_first else x * self.c)


def _inputs(dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator().manual_seed(7)
    return torch.cat([torch.tensor(SPECIAL, dtype=dtype), torch.randn(64, dtype=dtype, generator=g) * 10])


def _assert_same(got: torch.Tensor, ref: torch.Tensor) -> None:
    """Equal within rounding of cos/sin, nan where eager is nan, and the sign of every zero part eager's."""
    torch.testing.assert_close(got, ref, equal_nan=True)
    for part in (torch.real, torch.imag):
        g, r = part(got), part(ref)
        assert torch.equal(g.isnan(), r.isnan())
        zero = r == 0
        assert torch.equal(torch.signbit(g[zero]), torch.signbit(r[zero]))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("c", [1j, -1j, 2j * math.pi, complex(-0.0, 3.0)])
@pytest.mark.parametrize("target", ["portable", "onnx"])
def test_exp_of_an_imaginary_product_is_cos_and_sin(dtype: torch.dtype, c: complex, target: str) -> None:
    x = _inputs(dtype)
    for scalar_first in (False, True):
        m = Phasor(c, scalar_first)
        gm = make_fx(m)(x)
        lowered = realify.lower(gm, target=target)
        fired = lowered.meta["realify_report"].patterns
        assert len(fired) == 1 and fired[0].startswith("pattern cx.exp_imag: aten.exp.default %"), fired
        got = torch.view_as_complex(lowered(x).contiguous())
        _assert_same(got, m(x))
        plain = realify.lower(gm, target=target, disable_patterns=("cx.exp_imag",))
        assert plain.meta["realify_report"].patterns == []
        assert len(plain.graph.nodes) > len(lowered.graph.nodes) + 10  # the general exp's scaling and cases


@pytest.mark.parametrize("c", [complex(1.0, 1.0), 0j, complex(0.0, math.inf)])
def test_exp_of_another_product_keeps_the_general_form(c: complex) -> None:
    """A scalar with a real part, zero, or an infinite imaginary part is exp's general case."""
    x = _inputs(torch.float32)
    m = Phasor(c)
    lowered = realify.lower(make_fx(m)(x))
    assert lowered.meta["realify_report"].patterns == []
    _assert_same(torch.view_as_complex(lowered(x).contiguous()), m(x))


def test_exp_of_a_complex_tensor_product_keeps_the_general_form() -> None:
    x = _inputs(torch.float32)
    z = torch.complex(torch.zeros_like(x), torch.ones_like(x))
    gm = make_fx(lambda x, z: torch.exp(x * z))(x, z)
    lowered = realify.lower(gm)
    assert lowered.meta["realify_report"].patterns == []
    _assert_same(torch.view_as_complex(lowered(x, torch.view_as_real(z)).contiguous()), torch.exp(x * z))
