"""Extreme ranges: |z| from 1e-30 to 1e30, subnormals and (complex128) far outside complex64's range, at phases on
and next to the axes and the branch cut, through abs, angle, sgn, div, reciprocal, sqrt, rsqrt, log, log1p, expm1,
exp and pow. Every sample's error against an mpmath reference (the exact function of the rounded inputs) must be
no worse than eager PyTorch's own complex kernel's on the same sample: err_realify <= SLACK * max(err_eager,
FLOOR * eps). The error is |got - ref| / |ref| in the complex norm over the parts whose reference is finite in the
dtype, with |ref| floored at the smallest normal number (results that underflow are judged absolutely there).
Where the rounded reference is +-inf in a part, realify must give that inf wherever eager does.

`python tests/python/test_extreme_range.py` prints each op's worst ratio err_realify / max(err_eager, FLOOR eps)."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import mpmath
import numpy as np
import pytest
import realify
import torch
from harness import assert_real_only
from torch.fx.experimental.proxy_tensor import make_fx

SLACK = 2.0  # realify may be at most twice as far from the truth as eager ...
FLOOR = 2.0  # ... or 2 eps away where eager is (nearly) exact: a lowering of a few real ops rounds a few times
DTYPES = [torch.complex64, torch.complex128]
PREC = 120  # bits: a reference error below 1e-33, far under float64's eps even after exp amplifies it 1e4-fold

mpmath.mp.prec = PREC


def magnitudes(dtype: torch.dtype) -> list[float]:
    mags = [10.0**k for k in range(-30, 31, 3)] + [1.0, 0.7, 1.3]
    if dtype == torch.complex64:
        return mags + [1e-40, 1e-44, 3e38]  # subnormal, the smallest subnormals, next to the largest finite
    return mags + [1e-100, 1e-200, 1e-300, 1e-310, 5e-323, 1e100, 1e200, 1e300, 1.7e308]


# phases: the axes, next to them, the branch cut from above and below, the diagonals, a generic one
PHASES = [0.0, 1e-7, 0.3, math.pi / 4, math.pi / 2, 2.0, math.pi - 1e-7, -math.pi + 1e-7, -math.pi / 2, -1.0]


def samples(dtype: torch.dtype) -> torch.Tensor:
    vals: list[complex] = []
    for r in magnitudes(dtype):
        vals += [complex(r * math.cos(p), r * math.sin(p)) for p in PHASES]
        # exactly on the axes, the cut with both signs of zero, and a tiny imaginary part next to the cut
        vals += [complex(r, 0.0), complex(0.0, r), complex(-r, 0.0), complex(-r, -0.0), complex(0.0, -r)]
        vals += [complex(-r, r * 1e-20), complex(r, -r * 1e-20)]
    z = torch.tensor(vals, dtype=torch.complex128)
    re, im = z.real.to(dtype.to_real()), z.imag.to(dtype.to_real())
    # keep -0.0 imaginary parts, which the complex constructor above keeps but tensor() may not
    neg0 = torch.tensor([math.copysign(1.0, v.imag) < 0 and v.imag == 0 for v in vals])
    im = torch.where(neg0, torch.tensor(-0.0, dtype=im.dtype), im)
    keep = (re != 0) | (im != 0)  # rounding to complex64 may flush a part or both
    return torch.complex(re[keep], im[keep])


# ---- the mpmath reference, with signed zeros on the branch cut ----


def mp_of(x: complex) -> mpmath.mpc:
    return mpmath.mpc(x.real, x.imag)


def mp_log(x: complex) -> mpmath.mpc:
    z = mp_of(x)
    arg = mpmath.atan2(z.imag, z.real)
    if x.imag == 0 and x.real < 0:
        arg = -mpmath.pi if math.copysign(1.0, x.imag) < 0 else mpmath.pi
    return mpmath.mpc(mpmath.log(abs(z)), arg)


def mp_pow(x: complex, w: complex) -> mpmath.mpc:
    return mpmath.exp(mp_of(w) * mp_log(x))


def mp_log1p(x: complex) -> mpmath.mpc:
    one = mp_of(x) + 1
    s = complex(float(one.real), x.imag)  # 1 + z keeps z's imaginary part (and its sign of zero)
    arg = mpmath.atan2(one.imag, one.real)
    if s.imag == 0 and one.real < 0:
        arg = -mpmath.pi if math.copysign(1.0, x.imag) < 0 else mpmath.pi
    return mpmath.mpc(mpmath.log(abs(one)), arg)


UNARY_REF: dict[str, Callable[[complex], mpmath.mpc | mpmath.mpf]] = {
    "abs": lambda x: abs(mp_of(x)),
    "angle": lambda x: mp_log(x).imag,
    "sgn": lambda x: mp_of(x) / abs(mp_of(x)),
    "reciprocal": lambda x: 1 / mp_of(x),
    "sqrt": lambda x: mpmath.exp(mp_log(x) / 2),
    "rsqrt": lambda x: mpmath.exp(-mp_log(x) / 2),
    "log": mp_log,
    "log1p": mp_log1p,
    "expm1": lambda x: mpmath.expm1(mp_of(x)),
    "exp": lambda x: mpmath.exp(mp_of(x)),
    "square": lambda x: mp_of(x) ** 2,
    "pow_half": lambda x: mpmath.exp(mp_log(x) / 2),
    "pow_1.5-2j": lambda x: mp_pow(x, complex(1.5, -2.0)),
    "pow_-0.3": lambda x: mp_pow(x, complex(-0.3, 0.0)),
}

UNARY_FN: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "abs": torch.abs,
    "angle": torch.angle,
    "sgn": torch.sgn,
    "reciprocal": torch.reciprocal,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "log": torch.log,
    "log1p": torch.log1p,
    "expm1": torch.expm1,
    "exp": torch.exp,
    "square": lambda z: z**2,
    "pow_half": lambda z: z**0.5,
    "pow_1.5-2j": lambda z: z ** complex(1.5, -2.0),
    "pow_-0.3": lambda z: z ** (-0.3),
}

# exp and expm1 overflow beyond |re z| ~ 90 (complex64) or ~ 710, and their phase is meaningless once |im z| is
# beyond 1/eps; they are tested there for matching infinities and zeros, and on the range where they are finite
EXP_LIKE = {"exp", "expm1"}


def lowered(fn: Callable[..., torch.Tensor], args: tuple[torch.Tensor, ...]) -> torch.Tensor:
    gm = make_fx(fn)(*args)
    low = realify.lower(gm)
    assert_real_only(low)
    out = low(*[torch.view_as_real(a) for a in args])
    return torch.view_as_complex(out) if out.dim() > args[0].dim() else out


def reference(values: list, dtype: torch.dtype) -> tuple[np.ndarray, ...]:
    """The exact reference's parts and size as float64 (a size beyond float64 is inf), and for each part whether it
    is significant: at least eps * |ref|, so that the norm-wise error could see it."""
    eps = torch.finfo(dtype.to_real()).eps
    re = np.array([float(mpmath.re(v)) for v in values])
    im = np.array([float(mpmath.im(v)) for v in values])
    size = np.array([float(abs(v)) for v in values])
    sig_re = np.array([abs(mpmath.re(v)) >= eps * abs(v) for v in values])
    sig_im = np.array([abs(mpmath.im(v)) >= eps * abs(v) for v in values])
    return re, im, size, sig_re, sig_im


def errors(got: torch.Tensor, ref: tuple[np.ndarray, ...], rdt: torch.dtype) -> tuple[np.ndarray, np.ndarray]:
    """Per sample: the error of the parts whose reference is finite in the dtype, relative to |ref| (floored at the
    smallest normal number), and whether every significant part whose reference rounds to +-inf got that inf."""
    ref_re, ref_im, size, sig_re, sig_im = ref
    g = got.to(torch.complex128) if got.is_complex() else torch.complex(got.double(), torch.zeros_like(got.double()))
    g_re, g_im = g.real.numpy(), g.imag.numpy()
    info = torch.finfo(rdt)
    with np.errstate(over="ignore"):  # the reference as the dtype rounds it: beyond its range a part is +-inf
        r_re = ref_re.astype(np.float32) if rdt == torch.float32 else ref_re
        r_im = ref_im.astype(np.float32) if rdt == torch.float32 else ref_im
    fin_re, fin_im = np.isfinite(r_re), np.isfinite(r_im)
    with np.errstate(invalid="ignore", over="ignore"):
        d_re = np.where(fin_re, g_re - ref_re, 0.0)
        d_im = np.where(fin_im, g_im - ref_im, 0.0)
        err = np.hypot(d_re, d_im) / np.maximum(size, info.tiny)
    err = np.where(np.isnan(err), np.inf, err)
    inf_ok = np.where(fin_re | ~sig_re, True, g_re == r_re) & np.where(fin_im | ~sig_im, True, g_im == r_im)
    return err, inf_ok


def compare(
    name: str, got: torch.Tensor, want: torch.Tensor, refs: list, dtype: torch.dtype, cond: np.ndarray | None = None
) -> tuple[float, str]:
    """The worst ratio err_realify / max(err_eager, FLOOR eps cond), and a description of the worst failing sample.
    `cond` (default 1) is the sample's condition number where rounding the intermediate is unavoidable: for pow,
    exp(w log z) turns an absolute error of eps |w log z| in the exponent into that relative error."""
    rdt = dtype.to_real()
    eps = torch.finfo(rdt).eps * (1.0 if cond is None else cond)
    ref = reference(refs, dtype)
    err_r, inf_r = errors(got, ref, rdt)
    err_e, inf_e = errors(want, ref, rdt)
    bound = np.maximum(err_e, FLOOR * eps)
    with np.errstate(invalid="ignore"):
        ratio = np.where(np.isinf(err_r) & np.isinf(bound), 1.0, err_r / bound)
    bad = (err_r > SLACK * bound) | (inf_e & ~inf_r)
    worst = float(np.max(ratio)) if ratio.size else 0.0
    if not bad.any():
        return worst, ""
    i = int(np.argmax(np.where(bad, ratio, -1.0)))
    return worst, (
        f"{name}: {int(bad.sum())} of {bad.size} samples worse than eager; e.g. sample {i}: realify {got[i].item()}"
        f" (err {err_r[i]:.3g}), eager {want[i].item()} (err {err_e[i]:.3g}), exact ({ref[0][i]!r}, {ref[1][i]!r})"
    )


# Eager's elementwise kernels run a vectorised body and a scalar tail (the last numel % width elements) that can
# differ at the extremes: the tail's fused multiply-add gives z * z = -inf where the body's x^2 - y^2 is inf - inf =
# nan. The width depends on the CPU (AVX2, AVX-512), so which samples reach the tail does too. realify follows the
# body (the edge-value tests compare its specials with it), so eager is measured on inputs padded to a multiple of
# 64 elements: every sample goes through the body on any CPU.
BODY_MULTIPLE = 64


def eager_body(fn: Callable[..., torch.Tensor], *xs: torch.Tensor) -> torch.Tensor:
    n = xs[0].numel()
    pad = -n % BODY_MULTIPLE
    padded = [torch.cat([x, x[:1].repeat(pad)]) if pad else x for x in xs]
    return fn(*padded)[:n]


def pow_cond(z: torch.Tensor, w: torch.Tensor) -> np.ndarray:
    return np.array([1.0 + float(abs(mp_of(y) * mp_log(x))) for x, y in zip(z.tolist(), w.tolist(), strict=True)])


POW_EXPONENT = {"pow_1.5-2j": complex(1.5, -2.0), "pow_-0.3": complex(-0.3, 0.0)}


def unary_case(name: str, dtype: torch.dtype) -> tuple[float, str]:
    z = samples(dtype)
    fn = UNARY_FN[name]
    if name in EXP_LIKE:  # beyond these the result is inf/0/nan whatever the phase, and checked on a smaller grid
        z = z[(z.real.abs() < 1e4) & (z.imag.abs() < 1e6)]
    refs = [UNARY_REF[name](complex(v)) for v in z.tolist()]
    cond = pow_cond(z, torch.full_like(z, POW_EXPONENT[name])) if name in POW_EXPONENT else None
    return compare(name, lowered(fn, (z,)), eager_body(fn, z), refs, dtype, cond)


def div_case(dtype: torch.dtype) -> tuple[float, str]:
    z = samples(dtype)
    a, b = z.repeat_interleave(z.numel()), z.repeat(z.numel())
    pick = torch.arange(0, a.numel(), 23)  # every 23rd pair (23 is prime to the sample count): quick, all mixes
    a, b = a[pick].contiguous(), b[pick].contiguous()
    refs = [mp_of(complex(x)) / mp_of(complex(y)) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    return compare("div", lowered(torch.div, (a, b)), eager_body(torch.div, a, b), refs, dtype)


def pow_tensor_case(dtype: torch.dtype) -> tuple[float, str]:
    z = samples(dtype)
    ws = torch.tensor([0.5, 2.0, -1.0, complex(1.5, -2.0), complex(0.0, 1.0), 1e-3], dtype=dtype)
    a, b = z.repeat_interleave(ws.numel()), ws.repeat(z.numel())
    refs = [mp_pow(complex(x), complex(y)) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    return compare("pow", lowered(torch.pow, (a, b)), eager_body(torch.pow, a, b), refs, dtype, pow_cond(a, b))


IDS = {torch.complex64: "c64", torch.complex128: "c128"}


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS.get)
@pytest.mark.parametrize("name", list(UNARY_FN))
def test_unary_extreme_range(name: str, dtype: torch.dtype) -> None:
    _, msg = unary_case(name, dtype)
    assert not msg, msg


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS.get)
def test_div_extreme_range(dtype: torch.dtype) -> None:
    _, msg = div_case(dtype)
    assert not msg, msg


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS.get)
def test_pow_tensor_extreme_range(dtype: torch.dtype) -> None:
    _, msg = pow_tensor_case(dtype)
    assert not msg, msg


def test_checker_catches_a_worse_result() -> None:
    """The comparison itself: a result 1000 ulps off where eager is exact fails; a matching one passes."""
    z = torch.tensor([complex(3.0, 4.0), complex(1e30, -1e30)], dtype=torch.complex64)
    refs = [abs(mp_of(complex(v))) for v in z.tolist()]
    want = torch.abs(z)
    assert compare("abs", want.clone(), want, refs, torch.complex64)[1] == ""
    off = want * (1 + 1000 * torch.finfo(torch.float32).eps)
    assert "worse than eager" in compare("abs", off, want, refs, torch.complex64)[1]
    overflowed = torch.tensor([5.0, math.inf])
    assert "worse than eager" in compare("abs", overflowed, want, refs, torch.complex64)[1]


def report(dtype: torch.dtype) -> None:
    cases: list[tuple[str, Callable[[], tuple[float, str]]]] = [(n, lambda n=n: unary_case(n, dtype)) for n in UNARY_FN]
    cases += [("div", lambda: div_case(dtype)), ("pow", lambda: pow_tensor_case(dtype))]
    for n, run in cases:
        worst, msg = run()
        print(f"{IDS[dtype]:5} {n:12} worst ratio {worst:10.3g}  {'FAIL ' + msg if msg else 'ok'}")


if __name__ == "__main__":
    for dt in DTYPES:
        report(dt)
    sys.exit(0)
