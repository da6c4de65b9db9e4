"""The linalg solve family (src/rules/linalg_solve.c): solves, inverses, LU, Cholesky, det and slogdet of complex
matrices in real arithmetic, compared with eager PyTorch on batched inputs in complex64, complex128 and complex128
truncated to float32; torch's LU pivots exactly; singular inputs; the size cap; targets; an MVDR beamformer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import realify
import torch
from harness import check, to_real
from torch.fx.experimental.proxy_tensor import make_fx

MODES = [(torch.complex64, False), (torch.complex128, False), (torch.complex128, True)]
MODE_IDS = ["c64", "c128", "trunc"]


def well_conditioned(*shape: int, dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    n = shape[-1]
    a = torch.randn(*shape, dtype=dtype, generator=g)
    return a + n * torch.eye(n, dtype=dtype)


def hermitian_pd(*shape: int, dtype: torch.dtype, seed: int = 0) -> torch.Tensor:
    a = well_conditioned(*shape, dtype=dtype, seed=seed)
    return a @ a.mH + torch.eye(shape[-1], dtype=dtype)


def rhs(*shape: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(7))


def tril(*shape: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.linalg.cholesky(hermitian_pd(*shape, dtype=dtype))


CASES: dict[str, tuple[Callable[..., Any], Callable[[torch.dtype], tuple[torch.Tensor, ...]]]] = {
    "solve_matrix": (torch.linalg.solve, lambda dt: (well_conditioned(3, 4, 4, dtype=dt), rhs(3, 4, 2, dtype=dt))),
    "solve_vector": (torch.linalg.solve, lambda dt: (well_conditioned(3, 4, 4, dtype=dt), rhs(3, 4, dtype=dt))),
    "solve_broadcast": (
        torch.linalg.solve,
        lambda dt: (well_conditioned(2, 1, 3, 3, dtype=dt), rhs(4, 3, 2, dtype=dt)),
    ),
    "solve_right": (
        lambda a, b: torch.linalg.solve(a, b, left=False),
        lambda dt: (well_conditioned(2, 3, 3, dtype=dt), rhs(2, 5, 3, dtype=dt)),
    ),
    "solve_ex": (torch.linalg.solve_ex, lambda dt: (well_conditioned(2, 5, 5, dtype=dt), rhs(2, 5, 1, dtype=dt))),
    "inv": (torch.linalg.inv, lambda dt: (well_conditioned(2, 3, 6, 6, dtype=dt),)),
    "inv_ex": (torch.linalg.inv_ex, lambda dt: (well_conditioned(4, 4, dtype=dt),)),
    "matrix_power_neg": (lambda a: torch.linalg.matrix_power(a, -2), lambda dt: (well_conditioned(2, 3, 3, dtype=dt),)),
    "det": (torch.linalg.det, lambda dt: (torch.randn(3, 5, 5, dtype=dt, generator=torch.Generator().manual_seed(1)),)),
    "slogdet": (torch.linalg.slogdet, lambda dt: (torch.randn(2, 6, 6, dtype=dt),)),
    "logdet_hermitian": (torch.logdet, lambda dt: (hermitian_pd(2, 4, 4, dtype=dt),)),
    "lu_factor_tall": (torch.linalg.lu_factor, lambda dt: (torch.randn(2, 6, 4, dtype=dt),)),
    "lu_factor_wide": (torch.linalg.lu_factor_ex, lambda dt: (torch.randn(3, 5, dtype=dt),)),
    "lu": (torch.linalg.lu, lambda dt: (torch.randn(2, 5, 3, dtype=dt),)),
    "lu_unpack": (
        lambda a: torch.lu_unpack(*torch.linalg.lu_factor(a)),
        lambda dt: (torch.randn(2, 4, 4, dtype=dt),),
    ),
    "lu_solve_adjoint": (
        lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, adjoint=True),
        lambda dt: (well_conditioned(2, 4, 4, dtype=dt), rhs(2, 4, 3, dtype=dt)),
    ),
    "lu_solve_right_adjoint": (
        lambda a, b: torch.linalg.lu_solve(*torch.linalg.lu_factor(a), b, left=False, adjoint=True),
        lambda dt: (well_conditioned(4, 4, dtype=dt), rhs(3, 4, dtype=dt)),
    ),
    "cholesky_lower": (torch.linalg.cholesky, lambda dt: (hermitian_pd(2, 5, 5, dtype=dt),)),
    "cholesky_upper": (lambda a: torch.linalg.cholesky(a, upper=True), lambda dt: (hermitian_pd(5, 5, dtype=dt),)),
    "cholesky_solve": (
        lambda b, f: torch.cholesky_solve(b, f),
        lambda dt: (rhs(2, 4, 3, dtype=dt), tril(2, 4, 4, dtype=dt)),
    ),
    "cholesky_inverse_upper": (
        lambda f: torch.cholesky_inverse(f.mH, upper=True),
        lambda dt: (tril(4, 4, dtype=dt),),
    ),
    "solve_triangular_upper_unit": (
        lambda a, b: torch.linalg.solve_triangular(a, b, upper=True, unitriangular=True),
        lambda dt: (well_conditioned(2, 4, 4, dtype=dt), rhs(2, 4, 2, dtype=dt)),
    ),
    "solve_triangular_lower_right": (
        lambda a, b: torch.linalg.solve_triangular(a, b, upper=False, left=False),
        lambda dt: (well_conditioned(4, 4, dtype=dt), rhs(3, 4, dtype=dt)),
    ),
    "triangular_solve_transpose": (
        lambda b, a: torch.triangular_solve(b, a, upper=False, transpose=True),
        lambda dt: (rhs(2, 4, 2, dtype=dt), well_conditioned(2, 4, 4, dtype=dt)),
    ),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_eager(name: str, mode: tuple[torch.dtype, bool]) -> None:
    dtype, trunc = mode
    fn, make = CASES[name]
    check(fn, make(dtype), truncate_double=trunc)


def test_pivots_use_lapack_cabs1() -> None:
    """|z| would pick row 1 (1.27 < 1.7); LAPACK's izamax compares |re| + |im| (1.8 > 1.7) and keeps row 0."""
    a = torch.tensor([[0.9 + 0.9j, 1.0], [1.7 + 0j, 2.0]], dtype=torch.complex64)
    g = realify.lower(make_fx(torch.linalg.lu_factor)(a))
    lu, piv = g(torch.view_as_real(a))
    assert piv.tolist() == [1, 2] == torch.linalg.lu_factor(a).pivots.tolist()
    torch.testing.assert_close(torch.view_as_complex(lu), torch.linalg.lu_factor(a).LU)


def singular(n: int = 4) -> torch.Tensor:
    a = well_conditioned(n, n, dtype=torch.complex64)
    a[:, 1] = 0  # an exactly zero column: LAPACK meets an exact zero pivot, as the unrolled LU does
    return a


def lowered_on(fn: Callable[..., Any], example: torch.Tensor) -> Callable[..., Any]:
    return realify.lower(make_fx(fn)(example))


def test_singular_inverse_and_solve_raise_as_torch_does() -> None:
    a, good = singular(), well_conditioned(4, 4, dtype=torch.complex64)
    b = rhs(4, 2, dtype=torch.complex64)
    for fn, args in ((torch.linalg.inv, (a,)), (torch.linalg.solve, (a, b))):
        with pytest.raises(torch.linalg.LinAlgError):
            fn(*args)
        g = lowered_on(fn, good) if len(args) == 1 else realify.lower(make_fx(fn)(good, b))
        with pytest.raises(torch.linalg.LinAlgError):
            g(*[torch.view_as_real(x) for x in args])


def test_singular_det_slogdet_and_lu_info_match_torch() -> None:
    a, good = singular(), well_conditioned(4, 4, dtype=torch.complex64)
    det = lowered_on(torch.linalg.det, good)(torch.view_as_real(a))
    assert torch.view_as_complex(det).abs().item() == 0.0 == torch.linalg.det(a).abs().item()
    sign, logabs = lowered_on(torch.linalg.slogdet, good)(torch.view_as_real(a))
    ref = torch.linalg.slogdet(a)
    assert torch.view_as_complex(sign).item() == ref.sign.item() == 0
    assert logabs.item() == ref.logabsdet.item() == float("-inf")
    lu, piv, info = lowered_on(torch.linalg.lu_factor_ex, good)(torch.view_as_real(a))
    ref_lu = torch.linalg.lu_factor_ex(a)
    assert info.item() == ref_lu.info.item() == 2
    assert piv.tolist() == ref_lu.pivots.tolist()
    # inv_ex reports a singular matrix too (its info indexes the 2n embedding's pivots)
    _, inv_info = lowered_on(torch.linalg.inv_ex, good)(torch.view_as_real(a))
    assert inv_info.item() > 0 and torch.linalg.inv_ex(a).info.item() > 0


def test_solve_ex_info_follows_the_batch_of_a() -> None:
    """A (2, 1) batch against B (5,): the result is (2, 5, ...) but info is A's (2, 1), as in torch; the singular
    entry is reported where torch reports it."""

    def fn(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        r = torch.linalg.solve_ex(a, b)
        return r.result, r.info

    a = torch.stack([well_conditioned(1, 4, 4, dtype=torch.complex64), singular()[None]])
    b = rhs(5, 4, 3, dtype=torch.complex64)
    lowered = realify.lower(make_fx(fn)(a, b))
    x, info = lowered(torch.view_as_real(a), torch.view_as_real(b))
    ref_x, ref_info = fn(a, b)
    assert info.shape == ref_info.shape == (2, 1)
    assert info[0].item() == ref_info[0].item() == 0
    assert info[1].item() > 0 and ref_info[1].item() > 0
    torch.testing.assert_close(torch.view_as_complex(x[0]), ref_x[0], rtol=1e-4, atol=1e-4)


def test_not_positive_definite_cholesky_raises() -> None:
    a = hermitian_pd(3, 3, dtype=torch.complex64)
    g = lowered_on(torch.linalg.cholesky, a)
    bad = a.clone()
    bad[2, 2] = -1
    with pytest.raises(torch.linalg.LinAlgError, match="positive-definite"):
        torch.linalg.cholesky(bad)
    with pytest.raises(torch.linalg.LinAlgError, match="positive-definite"):
        g(torch.view_as_real(bad))
    _, info = lowered_on(torch.linalg.cholesky_ex, a)(torch.view_as_real(bad))
    assert info.item() == torch.linalg.cholesky_ex(bad).info.item() == 3


def test_unrolled_factorisations_refuse_above_the_cap() -> None:
    a = well_conditioned(65, 65, dtype=torch.complex64)
    with pytest.raises(realify.UnsupportedOpError, match="cap of 64") as info:
        realify.lower(make_fx(torch.linalg.det)(a))
    assert "_linalg_det" in str(info.value)
    # a solve whose LU output nobody reads builds no LU, so it has no cap
    b = rhs(65, 2, dtype=torch.complex64)
    check(torch.linalg.solve, (a, b), tol=dict(rtol=1e-4, atol=1e-5))


def test_targets() -> None:
    """det, slogdet, LU and Cholesky are elementwise ops, argmax and sums: TensorRT takes them. The embedding's real
    solve and inverse exist only in torch (portable, inductor)."""
    a = hermitian_pd(4, 4, dtype=torch.complex64)
    for fn in (torch.linalg.det, torch.linalg.slogdet, torch.linalg.lu_factor_ex, torch.linalg.cholesky_ex):
        realify.lower(make_fx(fn)(a), target="tensorrt")
    gm = make_fx(torch.linalg.inv_ex)(a)
    realify.lower(gm, target="inductor")
    with pytest.raises(realify.TargetOpError, match="linalg_inv_ex"):
        realify.lower(gm, target="tensorrt")


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
def test_mvdr_beamformer_weights(mode: tuple[torch.dtype, bool]) -> None:
    """MVDR: w = R^-1 d / (d^H R^-1 d) for a sample covariance R of 8 sensors, per frequency bin."""
    dtype, trunc = mode
    sensors, snapshots, bins = 8, 64, 5
    g = torch.Generator().manual_seed(3)
    x = torch.randn(bins, sensors, snapshots, dtype=dtype, generator=g)
    angle = torch.linspace(0.1, 0.9, bins, dtype=torch.float64).to(x.real.dtype)
    k = torch.arange(sensors, dtype=angle.dtype)
    d = torch.exp(1j * torch.pi * torch.sin(angle)[:, None] * k[None, :]).to(dtype)

    def mvdr(x: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
        r = x @ x.mH / x.shape[-1] + 1e-3 * torch.eye(x.shape[-2], dtype=x.dtype)
        rd = torch.linalg.solve(r, d)
        return rd / (d.conj() * rd).sum(-1, keepdim=True)

    _, lowered = check(mvdr, (x, d), truncate_double=trunc)
    out = torch.view_as_complex(lowered(to_real(x, trunc), to_real(d, trunc)).contiguous())
    # the distortionless constraint w^H d = 1 holds in the lowered graph's own result
    torch.testing.assert_close((out.conj() * d.to(out.dtype)).sum(-1), torch.ones(bins, dtype=out.dtype))


class Apply(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> Any:
        return self.fn(*args)


EXPORT_CASES: dict[str, tuple[Callable[..., Any], Callable[[torch.dtype], tuple[torch.Tensor, ...]]]] = {
    "solve": CASES["solve_vector"],
    "solve_ex_right": (
        lambda a, b: torch.linalg.solve_ex(a, b, left=False),
        lambda dt: (well_conditioned(2, 3, 3, dtype=dt), rhs(2, 4, 3, dtype=dt)),
    ),
    "inv": CASES["inv"],
    "det": CASES["det"],
    "slogdet": CASES["slogdet"],
    "logdet": CASES["logdet_hermitian"],
    "cholesky": CASES["cholesky_upper"],
    "lu_factor": CASES["lu_factor_tall"],
    "lu_with_info": (lambda a: torch.lu(a, get_infos=True), lambda dt: (torch.randn(2, 4, 4, dtype=dt),)),
    "lu_solve": (
        lambda b, a: torch.lu_solve(b, *torch.linalg.lu_factor(a)),
        lambda dt: (rhs(2, 4, 3, dtype=dt), well_conditioned(2, 4, 4, dtype=dt)),
    ),
    "matrix_power_neg3": (lambda a: torch.linalg.matrix_power(a, -3), CASES["inv_ex"][1]),
    "matrix_power_0": (lambda a: torch.linalg.matrix_power(a, 0), CASES["inv"][1]),
    "tensorinv": (
        lambda a: torch.linalg.tensorinv(a, ind=2),
        lambda dt: (well_conditioned(6, 6, dtype=dt).reshape(2, 3, 6),),
    ),
    "tensorsolve_dims": (
        lambda a, b: torch.linalg.tensorsolve(a, b, dims=(0,)),
        lambda dt: (
            well_conditioned(6, 6, dtype=dt).reshape(2, 3, 6).permute(2, 0, 1).contiguous(),
            rhs(2, 3, dtype=dt),
        ),
    ),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("name", list(EXPORT_CASES))
def test_exported_program_matches_eager(name: str, mode: tuple[torch.dtype, bool]) -> None:
    """torch.export keeps the composite forms (linalg_solve, linalg_det, ...): they lower too."""
    dtype, trunc = mode
    fn, make = EXPORT_CASES[name]
    args = make(dtype)
    ep = torch.export.export(Apply(fn), args, strict=False)
    ep2 = realify.lower(ep, truncate_double=trunc)
    out = ep2.module()(*[to_real(a, trunc) for a in args])
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == torch.complex64 or trunc else dict(rtol=1e-10, atol=1e-10)
    refs = fn(*args)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = refs if isinstance(refs, (tuple, list)) else (refs,)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs, strict=True):
        if r.is_complex():
            o = torch.view_as_complex(o.to(r.real.dtype).contiguous())
        torch.testing.assert_close(o.to(r.dtype), r, **tol)


def test_exported_singular_solve_raises_at_run_time() -> None:
    good = well_conditioned(4, 4, dtype=torch.complex64)
    ep = realify.lower(torch.export.export(Apply(torch.linalg.inv), (good,), strict=False))
    with pytest.raises(torch.linalg.LinAlgError):
        ep.module()(torch.view_as_real(singular()))


def test_compile_backend_solves() -> None:
    a, b = well_conditioned(2, 4, 4, dtype=torch.complex64), rhs(2, 4, 2, dtype=torch.complex64)

    def f(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.linalg.solve(a, b), torch.linalg.slogdet(a).logabsdet

    compiled = torch.compile(f, backend="realify", options={"backend": "eager"})
    for o, r in zip(compiled(a, b), f(a, b), strict=True):
        torch.testing.assert_close(o, r, rtol=1e-5, atol=1e-5)
