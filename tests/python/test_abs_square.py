"""Pattern cx.abs_square (src/patterns/abs_square.c): abs(z) ** 2 and square(abs(z)) are re*re + im*im, with
eager's values at zeros, infinities (inf even beside a nan part), nans, overflow and underflow, on every target."""

from __future__ import annotations

import itertools

import pytest
import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

INF, NAN = float("inf"), float("nan")

POWERS = {
    "pow2": lambda z: z.abs() ** 2,
    "pow2.0": lambda z: torch.pow(torch.abs(z), 2.0),
    "square": lambda z: torch.square(z.abs()),
}


def _grid(dtype: torch.dtype) -> torch.Tensor:
    fi = torch.finfo(dtype.to_real())
    parts = [0.0, -0.0, 1.0, -2.5, fi.tiny, fi.max, -fi.max / 3, 1e-30, 3e15, INF, -INF, NAN]
    pairs = list(itertools.product(parts, parts))
    grid = torch.complex(*(torch.tensor(p, dtype=dtype.to_real()) for p in zip(*pairs, strict=True)))
    g = torch.Generator().manual_seed(3)
    return torch.cat([grid, torch.randn(256, dtype=dtype, generator=g) * 10])


def _assert_same(got: torch.Tensor, want: torch.Tensor) -> None:
    assert torch.equal(got.isnan(), want.isnan()), (got[got.isnan() != want.isnan()], want[got.isnan() != want.isnan()])
    assert torch.equal(got.isinf(), want.isinf()), (got[got.isinf() != want.isinf()], want[got.isinf() != want.isinf()])
    finite = want.isfinite()
    torch.testing.assert_close(got[finite], want[finite], rtol=4 * torch.finfo(want.dtype).eps, atol=0)
    assert not torch.signbit(got[want == 0]).any()


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
@pytest.mark.parametrize("form", sorted(POWERS))
@pytest.mark.parametrize("target", ["portable", "onnx"])
def test_squared_magnitude_is_the_sum_of_squares(dtype: torch.dtype, form: str, target: str) -> None:
    fn, z = POWERS[form], _grid(dtype)
    gm = make_fx(fn)(z)
    lowered = realify.lower(gm, target=target)
    fired = lowered.meta["realify_report"].patterns
    assert len(fired) == 1 and fired[0].startswith("pattern cx.abs_square: aten.abs.default %"), fired
    ops = {str(n.target) for n in lowered.graph.nodes if n.op == "call_function"}
    assert not ops & {"aten.sqrt.default", "aten.maximum.default", "aten.pow.Tensor_Scalar"}, ops
    _assert_same(lowered(torch.view_as_real(z)), fn(z))
    plain = realify.lower(gm, target=target, disable_patterns=("cx.abs_square",))
    assert plain.meta["realify_report"].patterns == []
    _assert_same(plain(torch.view_as_real(z)), fn(z))


def test_truncated_double_gives_float32() -> None:
    z = _grid(torch.complex128)
    lowered = realify.lower(make_fx(POWERS["pow2"])(z), truncate_double=True)
    assert lowered.meta["realify_report"].patterns
    got = lowered(torch.view_as_real(z).float())
    assert got.dtype == torch.float32
    _assert_same(got, POWERS["pow2"](z.to(torch.complex64)))


@pytest.mark.parametrize(
    "fn",
    [
        lambda z: z.abs() ** 3,  # another exponent
        lambda z: (lambda a: (a**2, a + 1))(z.abs()),  # one abs, read twice
        lambda z: z.real.abs() ** 2,  # a real abs
    ],
)
def test_other_powers_keep_the_abs_rule(fn) -> None:
    z = _grid(torch.complex64)
    lowered = realify.lower(make_fx(fn)(z))
    assert not any("cx.abs_square" in line for line in lowered.meta["realify_report"].patterns)
    got, want = lowered(torch.view_as_real(z)), fn(z)
    pairs = zip(got, want, strict=True) if isinstance(want, tuple) else [(got, want)]
    for g, w in pairs:
        torch.testing.assert_close(g, w, equal_nan=True)
