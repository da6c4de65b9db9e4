"""The linalg spectral family (eigh, svd, pinv, lstsq and what decomposes into them) against eager PyTorch.

Values are compared directly. Vectors are defined by torch only up to a phase per vector (and, for a repeated
eigenvalue, up to a unitary mix inside its eigenspace), so they are checked the way that leaves them free: the
defining equations (H Q = Q diag(w), A V = U diag(S)), unitarity, and projectors onto eigenspaces compared with
eager's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
import realify
import torch
from harness import TOL, assert_real_only, check, to_real
from torch.fx.experimental.proxy_tensor import make_fx

MODES = [(torch.complex64, False), (torch.complex128, False), (torch.complex128, True)]
MODE_IDS = ["c64", "c128", "trunc"]


def lowered_run(fn: Callable[..., Any], args: tuple[torch.Tensor, ...], trunc: bool) -> tuple[Any, Any]:
    """Lower fn, run it on the real views of args; returns (result with complex outputs made complex, eager)."""
    gm = make_fx(fn)(*args)
    low = realify.lower(gm, truncate_double=trunc)
    assert_real_only(low)
    ops = {str(n.target) for n in low.graph.nodes if n.op == "call_function"}
    assert not any(o.startswith("aten.linalg_eigh") for o in ops)
    out = low(*[to_real(a, trunc) for a in args])
    ref = fn(*args)
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    made = tuple(
        torch.view_as_complex(o.to(r.real.dtype).contiguous()) if r.is_complex() else o.to(r.dtype)
        for o, r in zip(outs, refs, strict=True)
    )
    return made, refs


def bind(f: Callable[..., Any], **kwargs: Any) -> Callable[..., Any]:
    """f with keyword arguments fixed (make_fx traces every parameter, defaults included)."""
    return lambda *args: f(*args, **kwargs)


def tol(dtype: torch.dtype, trunc: bool, scale: float = 1.0) -> dict[str, float]:
    t = TOL["truncated"] if trunc else TOL[dtype]
    return {k: v * scale for k, v in t.items()}


def hermitian(n: int, batch: tuple[int, ...], dtype: torch.dtype, eigs: list[float] | None = None) -> torch.Tensor:
    """A random Hermitian matrix; with eigs, exactly those eigenvalues (repeated ones included)."""
    a = torch.randn(*batch, n, n, dtype=dtype)
    if eigs is None:
        return a + a.mH
    q, _ = torch.linalg.qr(a)
    return q @ torch.diag_embed(torch.tensor(eigs, dtype=dtype)) @ q.mH


def assert_unitary_columns(q: torch.Tensor, t: dict[str, float]) -> None:
    eye = torch.eye(q.shape[-1], dtype=q.dtype).expand(q.shape[:-2] + (q.shape[-1], q.shape[-1]))
    torch.testing.assert_close(q.mH @ q, eye, **t)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
def test_eigvalsh_batched(dtype: torch.dtype, trunc: bool) -> None:
    torch.manual_seed(0)
    h = torch.randn(2, 3, 5, 5, dtype=dtype)  # not Hermitian: eigh reads one triangle, as torch does
    for uplo in ("L", "U"):
        check(bind(torch.linalg.eigvalsh, UPLO=uplo), (h,), truncate_double=trunc)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
def test_eigh_vectors(dtype: torch.dtype, trunc: bool) -> None:
    torch.manual_seed(1)
    h = hermitian(6, (3,), dtype)
    (w, q), (wr, qr) = lowered_run(torch.linalg.eigh, (h,), trunc)
    t = tol(dtype, trunc, 10.0)
    torch.testing.assert_close(w, wr, **t)
    assert_unitary_columns(q, t)
    torch.testing.assert_close(h @ q, q * w.unsqueeze(-2).to(q.dtype), **t)
    # distinct eigenvalues: each vector is eager's up to a phase, |<q_torch, q_ours>| = 1
    overlap = (qr.conj() * q).sum(-2).abs()
    torch.testing.assert_close(overlap, torch.ones_like(overlap), **t)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
@pytest.mark.parametrize("eigs", [[1.0, 1.0, 1.0, 2.0, 3.0], [0.0] * 5, [-2.0, -2.0, 4.0, 4.0, 4.0]])
def test_eigh_repeated_eigenvalues(dtype: torch.dtype, trunc: bool, eigs: list[float]) -> None:
    """A repeated eigenvalue's real embedding has a 2m-dim eigenspace in any basis; the picked complex vectors
    must still be orthonormal eigenvectors, spanning eager's eigenspace."""
    torch.manual_seed(2)
    h = hermitian(5, (2,), dtype, eigs)
    (w, q), (wr, qr) = lowered_run(torch.linalg.eigh, (h,), trunc)
    t = tol(dtype, trunc, 100.0)
    torch.testing.assert_close(w, wr, **t)
    assert_unitary_columns(q, t)
    torch.testing.assert_close(h @ q, q * w.unsqueeze(-2).to(q.dtype), **t)
    for value in sorted(set(eigs)):
        idx = [i for i, e in enumerate(sorted(eigs)) if e == value]
        mine, theirs = q[..., idx], qr[..., idx]
        torch.testing.assert_close(mine @ mine.mH, theirs @ theirs.mH, **t)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
@pytest.mark.parametrize(("m", "n", "full"), [(5, 3, True), (5, 3, False), (3, 5, True), (4, 4, False)])
def test_svd(dtype: torch.dtype, trunc: bool, m: int, n: int, full: bool) -> None:
    torch.manual_seed(3)
    a = torch.randn(2, m, n, dtype=dtype)
    (u, s, vh), (ur, sr, vhr) = lowered_run(lambda x: torch.linalg.svd(x, full_matrices=full), (a,), trunc)
    t = tol(dtype, trunc, 10.0)
    assert u.shape == ur.shape and vh.shape == vhr.shape
    torch.testing.assert_close(s, sr, **t)
    k = s.shape[-1]
    torch.testing.assert_close((u[..., :k] * s.unsqueeze(-2).to(u.dtype)) @ vh[..., :k, :], a.to(u.dtype), **t)
    assert_unitary_columns(u, t)
    assert_unitary_columns(vh.mH, t)
    # the columns beyond k (full_matrices) are free up to a unitary mix: compare their span with eager's
    torch.testing.assert_close(u[..., k:] @ u[..., k:].mH, ur[..., k:] @ ur[..., k:].mH, **t)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
def test_svd_repeated_and_zero_singular_values(dtype: torch.dtype, trunc: bool) -> None:
    torch.manual_seed(4)
    qa, _ = torch.linalg.qr(torch.randn(6, 6, dtype=dtype))
    qb, _ = torch.linalg.qr(torch.randn(4, 4, dtype=dtype))
    sv = torch.tensor([3.0, 3.0, 1.0, 0.0], dtype=dtype)
    a = qa[:, :4] @ torch.diag(sv) @ qb.mH
    (u, s, vh), (_, sr, _) = lowered_run(lambda x: torch.linalg.svd(x, full_matrices=True), (a,), trunc)
    t = tol(dtype, trunc, 100.0)
    torch.testing.assert_close(s, sr, **t)
    assert_unitary_columns(u, t)
    assert_unitary_columns(vh.mH, t)
    torch.testing.assert_close((u[:, :4] * s.to(u.dtype)) @ vh, a.to(u.dtype), **t)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
def test_values_of_the_svd(dtype: torch.dtype, trunc: bool) -> None:
    """Ops that need only singular values: svdvals, the nuclear and spectral norms, cond, rank, pinv, lstsq."""
    torch.manual_seed(5)
    a = torch.randn(3, 6, 4, dtype=dtype)
    low_rank = torch.randn(2, 5, 2, dtype=dtype) @ torch.randn(2, 2, 5, dtype=dtype)
    square = torch.randn(2, 5, 5, dtype=dtype)
    b = torch.randn(3, 6, 2, dtype=dtype)
    t = tol(dtype, trunc, 10.0)
    check(torch.linalg.svdvals, (a,), truncate_double=trunc, tol=t)
    for ord in ("nuc", 2, -2):
        check(bind(torch.linalg.matrix_norm, ord=ord), (a,), truncate_double=trunc, tol=t)
    check(torch.linalg.cond, (a,), truncate_double=trunc, tol=t)
    # an explicit rtol keeps the rank away from rounding noise (the default cut-off is eps-sized)
    check(bind(torch.linalg.matrix_rank, rtol=1e-3), (low_rank,), truncate_double=trunc)
    check(bind(torch.linalg.matrix_rank, rtol=1e-3, hermitian=True), (low_rank + low_rank.mH,), truncate_double=trunc)
    check(torch.linalg.pinv, (a,), truncate_double=trunc, tol=t)
    check(bind(torch.linalg.pinv, hermitian=True), (square,), truncate_double=trunc, tol=tol(dtype, trunc, 100.0))
    check(lambda x, y: torch.linalg.lstsq(x, y), (a, b), truncate_double=trunc, tol=t)
    check(lambda x, y: torch.linalg.lstsq(x, y, driver="gelsd"), (a, b), truncate_double=trunc, tol=t)
    check(lambda x, y: torch.linalg.lstsq(x, y[..., 0]).solution, (a, b), truncate_double=trunc, tol=t)


def steering(angles: torch.Tensor, sensors: int, dtype: torch.dtype) -> torch.Tensor:
    """Half-wavelength uniform linear array: a(theta)_k = exp(i pi k sin theta), one column per angle."""
    k = torch.arange(sensors, dtype=torch.float64).unsqueeze(-1)
    return torch.polar(torch.ones(()), (math.pi * k * torch.sin(angles)).float()).to(dtype)


def music_null_spectrum(x: torch.Tensor, scan: torch.Tensor, sources: int) -> torch.Tensor:
    """MUSIC: the noise subspace E_n of the sample covariance (eigh) and |E_n^H a(theta)|^2 over the scan; the
    pseudo-spectrum is its reciprocal, peaking where a(theta) is (nearly) orthogonal to the noise subspace."""
    r = x @ x.mH / x.shape[-1]
    _, q = torch.linalg.eigh(r)
    noise = q[..., : r.shape[-1] - sources]
    return ((noise.mH @ scan).abs() ** 2).sum(-2)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
def test_music_beamforming(dtype: torch.dtype, trunc: bool) -> None:
    """A real use: direction finding on an 8-sensor array with two sources. The noise eigenvalues of the sample
    covariance are close together, so only the noise subspace (not its basis) is defined: the null spectrum, which
    depends on the subspace alone, must match eager, and its minima must sit at the true angles."""
    torch.manual_seed(6)
    sensors, snapshots, truth = 8, 200, torch.tensor([-0.4, 0.3], dtype=torch.float64)
    sig = torch.randn(2, snapshots, dtype=dtype)
    noise = 0.05 * torch.randn(sensors, snapshots, dtype=dtype)
    x = steering(truth, sensors, dtype) @ sig + noise
    grid = torch.linspace(-1.2, 1.2, 241, dtype=torch.float64)
    scan = steering(grid, sensors, dtype)
    (d,), (dr,) = lowered_run(lambda a, s: music_null_spectrum(a, s, 2), (x, scan), trunc)
    single = dtype == torch.complex64 or trunc
    torch.testing.assert_close(d, dr, rtol=0.0, atol=1e-4 if single else 1e-10)
    minima = [i for i in range(1, len(grid) - 1) if d[i] < d[i - 1] and d[i] < d[i + 1]]
    found = torch.sort(grid[sorted(minima, key=lambda i: float(d[i]))[:2]]).values
    torch.testing.assert_close(found, truth, atol=0.011, rtol=0.0)


def test_symbolic_matrix_dims_are_refused() -> None:
    """The embedding and the unrolled vector picking need static matrix dims; a symbolic one raises, naming it."""
    gm = make_fx(torch.linalg.eigvalsh, tracing_mode="symbolic")(torch.randn(4, 4, dtype=torch.complex64))
    with pytest.raises(realify.UnsupportedOpError, match="_linalg_eigh.*static"):
        realify.lower(gm)


def test_deployment_targets_without_eigh_are_told() -> None:
    """TensorRT and ONNX have no eigh or svd: lowering for them names the op instead of emitting it."""
    gm = make_fx(torch.linalg.eigvalsh)(torch.randn(4, 4, dtype=torch.complex64))
    with pytest.raises(realify.RealifyError, match="_linalg_eigh"):
        realify.lower(gm, target="onnx")
    assert realify.lower(gm, target="inductor") is not None


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
@pytest.mark.parametrize("shape", [(3, 5, 3), (2, 3, 5)])  # square and empty: OpInfo samples
def test_qr_equals_torch(dtype: torch.dtype, trunc: bool, mode: str, shape: tuple[int, ...]) -> None:
    """LAPACK's reflectors, so Q and R are torch's entry by entry (R's diagonal real, with its signs)."""
    torch.manual_seed(7)
    check(bind(torch.linalg.qr, mode=mode), (torch.randn(*shape, dtype=dtype),), truncate_double=trunc)


@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
def test_qr_reflector_special_cases(dtype: torch.dtype, trunc: bool) -> None:
    """Columns already reduced: a real diagonal entry with zeros below takes no reflection (R keeps its negative
    sign), a complex one is still turned real (sign from its real part, zero here and negative below)."""
    a = torch.tensor([[-2.0, 1.0 + 1j, 3.0], [0.0, 0.5j, 1.0], [0.0, 0.0, -4.0 + 2j]], dtype=dtype)
    check(torch.linalg.qr, (a,), truncate_double=trunc)
    check(torch.linalg.qr, (a.mT.contiguous(),), truncate_double=trunc)


def _ldl(a: torch.Tensor) -> Any:
    return torch.linalg.ldl_factor(a + a.mH + 4 * torch.eye(a.shape[-1]))


def _householder(a: torch.Tensor) -> Any:
    return torch.linalg.householder_product(a, a[0, :2])


@pytest.mark.parametrize(
    "fn, why",
    [
        (torch.linalg.eigvals, "general eigenvalues"),
        (torch.linalg.eig, "general eigenvalues"),
        (torch.geqrf, "packed Householder form"),
        (_householder, "packed Householder form"),
        (_ldl, "Bunch-Kaufman"),
    ],
)
def test_refused_linalg_ops_say_why(fn: Callable[..., Any], why: str) -> None:
    """The ops issue 17 leaves out raise UnsupportedOpError naming the op and the reason, never a wrong number."""
    a = torch.randn(3, 3, dtype=torch.complex64)
    gm = make_fx(fn)(a)
    with pytest.raises(realify.UnsupportedOpError, match=why):
        realify.lower(gm)


NEW_IN_215 = pytest.mark.skipif(
    not hasattr(torch.linalg, "polar") or not hasattr(torch.linalg, "matrix_sqrth"),
    reason="linalg.matrix_sqrth and linalg.polar arrived in torch 2.15 (their C rules: golden/linalg_sqrth_polar.rf)",
)


@NEW_IN_215
@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
@pytest.mark.parametrize("eigs", [[1.0, 1.0, 2.0, 9.0], [-4.0, -1.0, 1.0, 1.0], [0.0] * 4])
def test_matrix_sqrth(dtype: torch.dtype, trunc: bool, eigs: list[float]) -> None:
    """Repeated eigenvalues need no picking; a negative one counts as zero in torch, and only the lower triangle
    is read (the upper one is garbage here)."""
    torch.manual_seed(5)
    h = hermitian(4, (2,), dtype, eigs)
    h = h + torch.triu(torch.randn_like(h), 1)
    (x,), (xr,) = lowered_run(torch.linalg.matrix_sqrth, (h,), trunc)
    torch.testing.assert_close(x, xr, **tol(dtype, trunc, 10.0))
    torch.testing.assert_close(x, x.mH, **tol(dtype, trunc, 10.0))


@NEW_IN_215
@pytest.mark.parametrize(("dtype", "trunc"), MODES, ids=MODE_IDS)
@pytest.mark.parametrize("shape", [(5, 5), (6, 3), (2, 4, 2), (3, 1)])
def test_polar(dtype: torch.dtype, trunc: bool, shape: tuple[int, ...]) -> None:
    torch.manual_seed(6)
    a = torch.randn(*shape, dtype=dtype)
    (u, h), (ur, hr) = lowered_run(torch.linalg.polar, (a,), trunc)
    t = tol(dtype, trunc, 10.0)
    torch.testing.assert_close(u, ur, **t)
    torch.testing.assert_close(h, hr, **t)
    assert_unitary_columns(u, t)
    torch.testing.assert_close(u @ h, a, **t)
