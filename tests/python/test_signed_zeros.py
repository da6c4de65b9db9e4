"""The sign of a zero part at a branch cut: producers that make complex values with a zero part, each followed by a
function whose result jumps across that zero (angle, sqrt, log, pow, acos, asin, atanh). realify must give what
eager PyTorch gives, including where the only difference is the sign of a zero."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import realify
import torch
from harness import assert_real_only
from torch.fx.experimental.proxy_tensor import make_fx

# Real values on and around the cuts: negative reals cut log/sqrt/angle, |x| > 1 cuts acos/asin/atanh. Sixteen
# of them, so eager runs every element through its vectorised kernels: the scalar tail of some (neg) gives
# another sign of zero than the vector body, and realify follows the body, which is what tensors of any size get.
REALS = [-8.0, -4.0, -2.0, -1.5, -1.0, -0.5, -0.25, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 4.0, 8.0]

PRODUCERS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "promote": lambda x: x.to(torch.complex64),
    "conj_physical_of_promoted": lambda x: torch.conj_physical(x.to(torch.complex64)),
    "mul_by_real": lambda x: torch.complex(x, torch.zeros_like(x)) * torch.linspace(-2.0, 2.0, x.numel()),
    "rfft_bins": lambda x: torch.fft.rfft(torch.cat([x, x.flip(0)]).reshape(2, 16)).reshape(-1)[: x.numel()],
    "complex_pos_zero": lambda x: torch.complex(x, torch.zeros_like(x)),
    "complex_neg_zero": lambda x: torch.complex(x, torch.full_like(x, -0.0)),
    "conj_of_complex": lambda x: torch.conj_physical(torch.complex(x, torch.zeros_like(x))),
    "polar": lambda x: torch.polar(x.abs(), torch.where(x < 0, torch.pi, 0.0)),
}

CONSUMERS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "angle": torch.angle,
    "sqrt": torch.sqrt,
    "log": torch.log,
    "pow_half": lambda z: z**0.5,
    "acos": torch.acos,
    "asin": torch.asin,
    "atanh": torch.atanh,
}


def _signs_equal(got: torch.Tensor, want: torch.Tensor) -> torch.Tensor:
    """Elementwise: same value (nan matches nan) and, for zeros, the same sign."""
    same = (got == want) | (torch.isnan(got) & torch.isnan(want))
    close = torch.isclose(got, want, rtol=1e-5, atol=1e-6)
    return (same | close) & (torch.signbit(got) == torch.signbit(want))


def _parts(t: torch.Tensor) -> list[torch.Tensor]:
    return [t.real, t.imag] if t.is_complex() else [t]


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
@pytest.mark.parametrize("producer", sorted(PRODUCERS))
def test_sign_of_zero_matches_eager(producer: str, consumer: str) -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return CONSUMERS[consumer](PRODUCERS[producer](x))

    x = torch.tensor(REALS)
    low = realify.lower(make_fx(fn)(x))
    assert_real_only(low)
    out = low(x)
    want = fn(x)
    got = torch.view_as_complex(out) if want.is_complex() else out
    for g, w in zip(_parts(got), _parts(want), strict=True):
        ok = _signs_equal(g, w)
        bad = [(REALS[i], g[i].item(), w[i].item()) for i in range(len(REALS)) if not ok[i]]
        assert not bad, f"{producer} -> {consumer}: (input, realify, eager) {bad}"


@pytest.mark.parametrize("n", [3, 5, 6, 7, 8])
def test_rfft_dc_and_nyquist_have_positive_zero_imaginary_parts(n: int) -> None:
    """torch.fft.rfft(tensor([[-1., -2., .5]])).angle() is +pi in eager: the DC bin's imaginary part is +0."""
    x = -torch.arange(1.0, n + 1).reshape(1, n)

    def fn(t: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft(t)

    low = realify.lower(make_fx(fn)(x))
    got = torch.view_as_complex(low(x))
    want = fn(x)
    assert torch.equal(torch.signbit(got.imag[..., 0]), torch.signbit(want.imag[..., 0]))
    if n % 2 == 0:
        assert torch.equal(torch.signbit(got.imag[..., -1]), torch.signbit(want.imag[..., -1]))
    torch.testing.assert_close(got.angle()[..., 0], want.angle()[..., 0], rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=["c64", "c128"])
def test_acos_on_the_real_axis_signs_its_zero_as_eager(dtype: torch.dtype) -> None:
    """Found by the random test: eager's complex128 acos is pi/2 - asin z as a complex difference, so a zero
    imaginary part comes out +0 from either sign of zero in z; complex64 follows C99 (-Im asin z)."""
    re = torch.tensor(REALS, dtype=dtype.to_real())
    zeros = torch.zeros_like(re)
    z = torch.cat([torch.complex(re, zeros), torch.complex(re, -zeros)])
    for fn in (torch.acos, torch.asin):
        got = torch.view_as_complex(realify.lower(make_fx(fn)(z))(torch.view_as_real(z)))
        want = fn(z)
        for g, w in zip(_parts(got), _parts(want), strict=True):
            assert bool(_signs_equal(g, w).all()), (fn.__name__, dtype, g, w)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=["c64", "c128"])
def test_inverse_sine_keeps_a_tiny_part_at_the_branch_points(dtype: torch.dtype) -> None:
    """Found through asin(sgn(z)): sgn(1e30 + 1j) is 1 + 1e-30j, and asin there is pi/2 + 1e-15j in eager, where
    1 - z^2 cancelled to an imaginary part of exactly 0 in realify (asinh near +-i likewise)."""
    tiny = [1e-30, -1e-30, 1e-20, -3e-12]
    z = torch.tensor([complex(s, t) for s in (1.0, -1.0) for t in tiny], dtype=dtype)
    for fn, arg in ((torch.asin, z), (torch.acos, z), (torch.asinh, z * 1j)):
        got = torch.view_as_complex(realify.lower(make_fx(fn)(arg))(torch.view_as_real(arg)))
        want = fn(arg)
        assert bool((got.imag if fn is not torch.asinh else got.real).ne(0).all()), (fn.__name__, got)
        torch.testing.assert_close(got, want, rtol=1e-5 if dtype == torch.complex64 else 1e-12, atol=0)
