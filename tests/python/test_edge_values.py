"""Edge values: real and imaginary parts drawn from 0, -0, ±inf, nan, ±1e30 and ±1e-30, through the lowered graph
and through eager PyTorch. NaN and Inf must appear in the same places (and infinities with the same sign); finite
results must agree to the dtype's tolerance, relative to the size of the complex result."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest
import realify
import torch
from harness import assert_real_only
from torch.fx.experimental.proxy_tensor import make_fx

COMPONENTS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e30, -1e30, 1e-30, -1e-30]
DTYPES = [torch.complex64, torch.complex128]
RTOL = {torch.complex64: 1e-5, torch.complex128: 1e-12}


def grid(dtype: torch.dtype) -> torch.Tensor:
    pairs = list(itertools.product(COMPONENTS, COMPONENTS))
    re = torch.tensor([p[0] for p in pairs], dtype=dtype.to_real())
    im = torch.tensor([p[1] for p in pairs], dtype=dtype.to_real())
    return torch.complex(re, im)


def pair_grid(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    g = grid(dtype)
    return g.repeat_interleave(g.numel()), g.repeat(g.numel())


def lowered_result(fn: Callable[..., torch.Tensor], args: tuple[torch.Tensor, ...]) -> torch.Tensor:
    gm = make_fx(fn)(*args)
    low = realify.lower(gm)
    assert_real_only(low)
    out = low(*[torch.view_as_real(a) if a.is_complex() else a for a in args])
    return torch.view_as_complex(out) if fn(*args).is_complex() else out


def parts(t: torch.Tensor) -> list[tuple[str, torch.Tensor]]:
    return [("re", t.real), ("im", t.imag)] if t.is_complex() else [("re", t)]


def assert_same_specials(got: torch.Tensor, want: torch.Tensor, inputs: tuple[torch.Tensor, ...]) -> None:
    assert got.shape == want.shape and got.dtype == want.dtype
    finite_parts = [torch.where(torch.isfinite(p), p, torch.zeros_like(p)).abs() for _, p in parts(want)]
    scale = finite_parts[0] if len(finite_parts) == 1 else torch.hypot(*finite_parts)
    rtol = RTOL[inputs[0].dtype]
    tiny = torch.finfo(got.real.dtype).tiny
    for name, g, w in ((n, gp, wp) for (n, gp), (_, wp) in zip(parts(got), parts(want), strict=True)):
        bad = torch.isnan(g) != torch.isnan(w)
        bad |= torch.isinf(g) != torch.isinf(w)
        bad |= torch.isinf(w) & (torch.sign(g) != torch.sign(w))
        both = torch.isfinite(g) & torch.isfinite(w)
        bad |= both & ((g - w).abs() > rtol * scale + tiny * 16)
        if bad.any():
            i = int(torch.nonzero(bad)[0])
            shown = ", ".join(f"{x[i].item()}" for x in inputs)
            raise AssertionError(
                f"{int(bad.sum())} of {bad.numel()} {name} parts differ; first at f({shown}): "
                f"got {got[i].item()}, torch gives {want[i].item()}"
            )


UNARY: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "abs": torch.abs,
    "angle": torch.angle,
    "sgn": torch.sgn,
    "reciprocal": torch.reciprocal,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "exp": torch.exp,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
}

EXPONENTS = [0, 1, 2, 3, 0.5, -0.5, -1, -2, 2.5, -1.5, 1j, 0.5 - 2j]


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_edge_values(name: str, dtype: torch.dtype) -> None:
    z = grid(dtype)
    fn = UNARY[name]
    assert_same_specials(lowered_result(fn, (z,)), fn(z), (z,))


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
@pytest.mark.parametrize("name", ["div", "pow"])
def test_binary_edge_values(name: str, dtype: torch.dtype) -> None:
    a, b = pair_grid(dtype)
    fn = torch.div if name == "div" else torch.pow
    assert_same_specials(lowered_result(fn, (a, b)), fn(a, b), (a, b))


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
def test_division_by_real_edge_values(dtype: torch.dtype) -> None:
    """torch promotes a real divisor to complex, so c10's division decides the NaNs there too."""
    a, b = pair_grid(dtype)
    r = b.real.contiguous()
    assert_same_specials(lowered_result(torch.div, (a, r)), torch.div(a, r), (a, r))
    assert_same_specials(lowered_result(lambda x: x / 3.0, (a,)), a / 3.0, (a,))


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
@pytest.mark.parametrize("exponent", EXPONENTS, ids=str)
def test_pow_scalar_edge_values(exponent: complex, dtype: torch.dtype) -> None:
    z = grid(dtype)

    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.pow(x, exponent)

    assert_same_specials(lowered_result(fn, (z,)), fn(z), (z,))


def test_edge_checker_catches_a_misplaced_nan() -> None:
    want = torch.tensor([complex(1.0, math.inf), complex(math.nan, 0.0)])
    with pytest.raises(AssertionError, match="parts differ"):
        assert_same_specials(torch.tensor([complex(1.0, math.nan), complex(math.nan, 0.0)]), want, (want,))


@pytest.mark.parametrize("name", ["asin", "asinh", "acos"])
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_inverse_sine_keeps_a_tiny_part_near_the_imaginary_axis(name: str, dtype: torch.dtype) -> None:
    """asinh(w) with |w| < 2 near the imaginary axis (and asin, acos through it): Re asinh w is about
    Re w / sqrt(1 - Im(w)^2), which log|w + sqrt(w^2 + 1)| rounded to 0; divided by zero later, that 0 became nan
    where eager gave inf (a random program found it). Each part is compared with eager's, relative to itself."""
    tiny = [1e-30, -2.2e-16, 3e-12, -1e-8]
    axis = [0.02, -0.2, 0.49, 0.9, -0.999, 1.5]
    vals = [complex(t, a) for t in tiny for a in axis] + [complex(a, t) for t in tiny for a in axis]
    z = torch.tensor(vals, dtype=dtype)
    fn = getattr(torch, name)
    got = torch.view_as_real(lowered_result(fn, (z,)))
    want = torch.view_as_real(fn(z))
    rel = 4e-7 if dtype == torch.complex64 else 1e-14
    torch.testing.assert_close(got, want, rtol=rel, atol=0)
