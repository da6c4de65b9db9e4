"""Complex products with a real factor, as eager computes them.

Eager promotes a real tensor, a Python number, a size or the alpha of add/sub to complex and multiplies with the
four-product formula: (a + bi)(c + 0i) = (ac - b 0) + (a 0 + bc) i. So x * 0 signs zeros (-2 * 0 = -0) and turns
infinities into nan, and add/sub compute a + alpha b with that product even for alpha = 1: (1 + inf i) added to
anything has a nan real part, and -0 - 0i plus itself is +0 - 0i. realify emits the same products, so every part
here must match eager bit-class for bit-class (nan, inf with its sign, zero with its sign) on all edge values."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import pytest
import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

COMPONENTS = [0.0, -0.0, math.inf, -math.inf, math.nan, 2.0, -2.0, 1e-30, -3e30]


def complex_grid(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    """Every pair of complex edge values, as two tensors of one length (a multiple of 64, so eager's vectorised
    body computes every element; its scalar tail forms the same products)."""
    parts = list(itertools.product(COMPONENTS, COMPONENTS))
    z = torch.tensor([complex(*p) for p in parts], dtype=dtype)
    a, b = z.repeat_interleave(z.numel()), z.repeat(z.numel())
    pad = (-a.numel()) % 64
    return torch.cat([a, a[:pad]]), torch.cat([b, b[:pad]])


def classes(t: torch.Tensor) -> torch.Tensor:
    p = torch.view_as_real(t) if t.is_complex() else t
    return torch.stack([torch.isnan(p), torch.isinf(p), p == 0, torch.signbit(p) & ~torch.isnan(p)])


def lowered(fn: Callable[..., torch.Tensor], *args: torch.Tensor) -> torch.Tensor:
    low = realify.lower(make_fx(fn)(*args))
    out = low(*[torch.view_as_real(a) if a.is_complex() else a for a in args])
    return torch.view_as_complex(out) if fn(*args).is_complex() else out


def assert_matches_eager(fn: Callable[..., torch.Tensor], *args: torch.Tensor) -> None:
    want, got = fn(*args), lowered(fn, *args)
    differ = (classes(got) != classes(want)).any(0)
    if differ.any():
        i = int(torch.nonzero(differ.reshape(differ.shape[0], -1).any(-1))[0])
        shown = ", ".join(str(a[i].item()) for a in args)
        raise AssertionError(f"{int(differ.sum())} parts differ; first at f({shown}): realify {got[i].item()}, "
                             f"eager {want[i].item()}")
    wr, gr = (torch.view_as_real(t) if t.is_complex() else t for t in (want, got))
    fin = torch.isfinite(wr)
    torch.testing.assert_close(gr[fin], wr[fin], rtol=1e-6, atol=0)


COMPLEX_COMPLEX: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "add_alpha": lambda a, b: torch.add(a, b, alpha=2),
    "sub_alpha": lambda a, b: torch.sub(a, b, alpha=-3),
    "rsub": lambda a, b: torch.rsub(a, b),
    "mul": lambda a, b: a * b,
}
WITH_REAL: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "mul_real": lambda z, r: z * r,
    "real_mul": lambda z, r: r * z,
    "add_real": lambda z, r: z + r,
    "real_sub": lambda z, r: r - z,
    "sub_real": lambda z, r: z - r,
    "promoted_product": lambda z, r: r.to(z.dtype) * r.to(z.dtype),
    "promoted_square": lambda z, r: torch.square(r.to(z.dtype)),
    "promoted_cube": lambda z, r: r.to(z.dtype) ** 3,
    "ldexp": lambda z, r: torch.ldexp(z, r.clamp(-4, 4).nan_to_num(0.0).round()),
}
SCALARS = [2.5, -1.0, 0.0, -0.0, math.inf, 1, 1j, 0.5 - 2j]
WITH_SCALAR: dict[str, Callable[[torch.Tensor, complex | float], torch.Tensor]] = {
    "mul": lambda z, s: z * s,
    "add": lambda z, s: z + s,
    "sub": lambda z, s: z - s,
    "rsub": lambda z, s: s - z,
}
DTYPES = [torch.complex64, torch.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
@pytest.mark.parametrize("name", sorted(COMPLEX_COMPLEX))
def test_complex_complex(name: str, dtype: torch.dtype) -> None:
    assert_matches_eager(COMPLEX_COMPLEX[name], *complex_grid(dtype))


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
@pytest.mark.parametrize("name", sorted(WITH_REAL))
def test_with_a_real_tensor(name: str, dtype: torch.dtype) -> None:
    z, w = complex_grid(dtype)
    assert_matches_eager(WITH_REAL[name], z, w.real.contiguous())


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
@pytest.mark.parametrize("scalar", SCALARS, ids=str)
@pytest.mark.parametrize("name", sorted(WITH_SCALAR))
def test_with_a_python_number(name: str, scalar: complex | float, dtype: torch.dtype) -> None:
    z, _ = complex_grid(dtype)
    assert_matches_eager(lambda t: WITH_SCALAR[name](t, scalar), z)


def test_square_of_a_promoted_negative_real_has_a_negative_zero_imaginary_part() -> None:
    """The random differential test's finding: (-2 + 0i)^2 is 4 - 0i in eager, so its angle is -0, not +0."""
    r = torch.tensor([-2.0, 3.0] * 32)

    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.square(x.to(torch.complex64)).angle()

    got = lowered(fn, r)
    assert torch.signbit(got[0]) and not torch.signbit(got[1])
    assert torch.equal(torch.signbit(got), torch.signbit(fn(r)))


@pytest.mark.parametrize("dtype", DTYPES, ids=["c64", "c128"])
def test_division_by_a_subnormal_real(dtype: torch.dtype) -> None:
    """c10 divides by c + 0i with rat = 0 / c and scl = 1 / c: where 1 / c overflows (a subnormal c), the real
    part is +-inf and the imaginary part 0 * inf = nan, not nan in both (0 * (1 / c) as rat would give)."""
    tiny = torch.finfo(dtype.to_real()).smallest_normal / 4
    r = torch.tensor([-tiny, tiny, 2.0, -0.0] * 16, dtype=dtype.to_real())
    z = torch.tensor([complex(0.92, -0.0), complex(-1.5, 2.0), complex(1.0, 1.0), complex(3.0, 0.0)] * 16, dtype=dtype)
    assert_matches_eager(lambda a, b: a / b, z, r)
