"""Pruned transforms (issue 14) against eager PyTorch.

A spectrum read only through slices (a Fourier neural operator keeps the lowest modes of an rfft2) is computed
for those frequencies alone, with truncated DFT matrices; the C core decides (src/patterns/fft_prune.c). These tests
check the numbers against eager torch.fft (every norm, complex64 and complex128, low modes and negative-frequency
blocks, torch.export and make_fx graphs), that the matrices really shrink, that any other reader of the spectrum
keeps the full transform, and FNO layers end to end.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import realify
import torch
from harness import TOL, assert_real_only, compare, to_real
from realify_examples.zoo import FNOSpectral1d, FNOSpectral2d
from torch.fx.experimental.proxy_tensor import make_fx


class _Fn(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: torch.Tensor) -> Any:
        return self.fn(x)


def lower(fn: Callable[..., Any], x: torch.Tensor, mode: str) -> torch.fx.GraphModule:
    if mode == "export":
        out = realify.lower(torch.export.export(_Fn(fn), (x,)), fft="matmul").module()
    else:
        out = realify.lower(make_fx(fn)(x), fft="matmul")
    assert_real_only(out)
    return out


def dft_constants(gm: torch.fx.GraphModule) -> dict[str, tuple[int, ...]]:
    """The DFT matrices of a lowered graph: name -> shape. An inverse's 1/n folded into its matrix (the core's
    rf_b_scale) adds "_scaled" to the name, dropped here."""
    out = {}
    for n in gm.graph.nodes:
        if n.op == "get_attr" and "dft" in str(n.target):
            t = gm.get_buffer(str(n.target)) if "." in str(n.target) else getattr(gm, str(n.target))
            out[str(n.target).rsplit(".", 1)[-1].removesuffix("_scaled")] = tuple(t.shape)
    return out


def pruned(gm: torch.fx.GraphModule) -> bool:
    return any("_keep" in name for name in dft_constants(gm))


def sparse_read(gm: torch.fx.GraphModule) -> bool:
    """An inverse transform reads only some input frequencies (truncated inverse matrices)."""
    return any("_from" in name for name in dft_constants(gm))


def tol(dtype: torch.dtype) -> dict[str, float]:
    return TOL[torch.complex64 if dtype == torch.float32 else torch.complex128]


def two(fn: Callable[[torch.Tensor], torch.Tensor], a: tuple[Any, ...], b: tuple[Any, ...]) -> Any:
    """Two slices of one transform's result (one node in the graph)."""

    def f(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = fn(x)
        return y[a], y[b]

    return f


S = slice(None)
# name: (function, input shape); every one reads only part of its spectrum
CASES: dict[str, tuple[Callable[[torch.Tensor], Any], tuple[int, ...]]] = {
    "rfft_low": (lambda x: torch.fft.rfft(x)[..., :5], (3, 64)),
    "rfft_band_ortho": (lambda x: torch.fft.rfft(x, norm="ortho")[:, 3:9], (3, 48)),
    "rfft_dim0_forward": (lambda x: torch.fft.rfft(x, dim=0, norm="forward")[:4], (40, 3)),
    "rfft_n_resized": (lambda x: torch.fft.rfft(x, n=50)[..., :7], (2, 64)),
    "rfft_odd_nyquist": (lambda x: torch.fft.rfft(x)[..., -3:], (2, 33)),
    "rfft2_fno": (
        two(torch.fft.rfft2, (S, S, slice(0, 4), slice(0, 5)), (S, S, slice(-4, None), slice(0, 5))),
        (2, 3, 16, 20),
    ),
    "rfft2_ortho_chain": (lambda x: torch.fft.rfft2(x, norm="ortho")[:, :, :3][..., 1:4], (2, 2, 12, 16)),
    "rfftn_3d": (
        two(
            lambda x: torch.fft.rfftn(x, dim=(1, 2, 3), norm="forward"),
            (S, slice(0, 2), slice(0, 3), slice(0, 2)),
            (S, slice(-2, None), slice(-3, None), slice(0, 2)),
        ),
        (2, 8, 10, 12),
    ),
    "fft_complex_neg": (
        lambda x: torch.fft.fft(x.to(torch.complex128 if x.dtype == torch.float64 else torch.complex64))[..., -6:],
        (3, 32),
    ),
    "fft2_real_input": (lambda x: torch.fft.fft2(x)[:, :4, 2:5], (2, 16, 16)),
    "fftn_complex": (
        two(
            lambda x: torch.fft.fftn(torch.complex(x, x.flip(-1)), dim=(0, 2)),
            (slice(0, 3), S, slice(0, 2)),
            (slice(-3, None), S, slice(0, 2)),
        ),
        (12, 2, 10),
    ),
    "ifft2_slices": (lambda x: torch.fft.ifft2(torch.complex(x, -x), norm="backward")[:, :2, :3], (2, 16, 8)),
    "large_factorised": (lambda x: torch.fft.rfft(x)[..., :8], (2, 4096)),
}


@pytest.mark.parametrize("mode", ["export", "make_fx"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_pruned_forward_matches_torch(case: str, dtype: torch.dtype, mode: str) -> None:
    check_case(CASES[case], case, dtype, mode, pruned, "not pruned")


def check_case(entry: tuple, case: str, dtype: torch.dtype, mode: str, applied: Callable, missing: str) -> None:
    """Lower case `entry` (fn, input shape), require the rewrite `applied` to have happened, compare with torch."""
    fn, shape = entry
    x = torch.randn(shape, dtype=dtype, generator=torch.Generator().manual_seed(len(case)))
    lowered = lower(fn, x, mode)
    assert applied(lowered), f"{missing}: {dft_constants(lowered)}"
    compare(lowered(x), fn(x), tol(dtype))


def test_pruned_matrix_shapes() -> None:
    """rfft of 64 points keeping 16 modes: one [64, 32] basis (re and im of 16 bins), not the [64, 64] packed one;
    the FNO rows of a 32-point dim: one [16, 32] left matrix for 8 rows (cos and sin) instead of [32, 32]."""
    x = torch.randn(2, 3, 32, 64)
    lowered = lower(lambda x: torch.fft.rfft(x)[..., :16], x[0, 0], "make_fx")
    assert dft_constants(lowered) == {"dft64_keep16_real": (64, 32)}
    fn = two(torch.fft.rfft2, (S, S, slice(0, 4), slice(0, 16)), (S, S, slice(-4, None), slice(0, 16)))
    lowered = lower(fn, x, "export")
    shapes = dft_constants(lowered)
    assert sorted(shapes.values()) == [(16, 32), (64, 32)], shapes
    matmuls = [n for n in lowered.graph.nodes if n.target == torch.ops.aten.matmul.default]
    assert [tuple(n.meta["val"].shape) for n in matmuls] == [(2, 3, 32, 32), (2, 3, 16, 32)]


def test_other_reader_keeps_the_full_transform() -> None:
    def fn(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.fft.rfft2(x)
        return y, y[:, :3, :4]  # the whole spectrum is an output too

    def fn_abs(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.fft.rfft2(x, norm="ortho")
        return y.abs().sum(), y[:, -3:, :4]

    def fn_step(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.rfft2(x)[:, ::2, :4]

    x = torch.randn(2, 16, 12, dtype=torch.float64)
    for f in (fn, fn_abs, fn_step):
        for mode in ("export", "make_fx"):
            lowered = lower(f, x, mode)
            assert not pruned(lowered), (f.__name__, mode, dft_constants(lowered))
            compare(lowered(x), f(x), TOL[torch.complex128])


def test_pruned_graph_is_smaller() -> None:
    x = torch.randn(2, 3, 32, 64)
    fn = two(torch.fft.rfft2, (S, S, slice(0, 4), slice(0, 16)), (S, S, slice(-4, None), slice(0, 16)))

    def full(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = torch.fft.rfft2(x)
        return y[:, :, :4, :16], y[:, :, -4:, :16], y.abs().sum()  # abs: a reader of the whole spectrum

    cut, ref = lower(fn, x, "make_fx"), lower(full, x, "make_fx")
    assert pruned(cut) and not pruned(ref)
    assert matmul_flops(cut) * 2 < matmul_flops(ref)  # 491520 against 1179648 multiply-adds


def matmul_flops(gm: torch.fx.GraphModule) -> int:
    """Multiply-adds of the matmuls (from the recomputed shapes)."""
    total = 0
    for n in gm.graph.nodes:
        if n.target == torch.ops.aten.matmul.default:
            a, b = (t.meta["val"] for t in n.args[:2])
            out = n.meta["val"]
            k = a.shape[-1] if a.dim() > 1 else a.shape[0]
            total += out.numel() * k
            assert b.shape[-2 if b.dim() > 1 else 0] == k
    return total


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
def test_fno2d_layer(dtype: torch.dtype) -> None:
    model = FNOSpectral2d(dtype=torch.complex64 if dtype == torch.float32 else torch.complex128)
    x = torch.randn(2, 4, 16, 20, dtype=dtype, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        ref = model(x)
        ep = realify.lower(torch.export.export(model, (x,)), fft="matmul")
        gm = ep.module()
        assert pruned(gm), dft_constants(gm)
        shapes = dft_constants(gm)
        assert shapes["dft16_keep8_left"] == (16, 16)  # forward: 8 of 16 rows (cos and sin) from 16 samples
        assert shapes["dft20_keep5_real"] == (20, 10)  # forward: 5 of 11 columns (re and im) from 20 samples
        assert shapes["dft16_from8_left_inv"] == (32, 8)  # inverse: 16 rows (cos and sin) from 8 kept rows
        # inverse: re and im of 5 bins; DC's im is not read (a where zeroes it, its table row is zero)
        assert shapes["irdft20_from5"] == (10, 20) and shapes["irdft20_from5_keep"] == (10,)
        compare(gm(x), ref, tol(dtype))


def test_fno1d_zoo_layer() -> None:
    model = FNOSpectral1d(channels=4, modes=5)
    x = torch.randn(3, 4, 32, generator=torch.Generator().manual_seed(6))
    with torch.no_grad():
        ref = model(x)
        gm = realify.lower(torch.export.export(model, (x,)), fft="matmul").module()
        assert dft_constants(gm).get("dft32_keep5_real") == (32, 10), dft_constants(gm)
        assert dft_constants(gm).get("irdft32_from5") == (10, 32), dft_constants(gm)
        keep = next(t for name, t in gm.named_buffers() if name.endswith("irdft32_from5_keep"))
        assert keep.tolist() == [True] * 5 + [False] + [True] * 4  # re of 5 bins, im of all but DC
        compare(gm(x), ref, TOL[torch.complex64])
        traced = realify.lower(make_fx(model)(x), fft="matmul")
        assert pruned(traced)
        compare(traced(to_real(x)), ref, TOL[torch.complex64])


def _cx(x: torch.Tensor, k: int, shift: int = 0) -> torch.Tensor:
    """A complex block of k entries along the last dim, made from x."""
    return torch.complex(x[..., shift : shift + k], x[..., shift + k : shift + 2 * k].flip(-1))


def _blocks_irfft(x: torch.Tensor) -> torch.Tensor:
    b, n = x.shape
    z = torch.zeros(b, n // 2 + 1, dtype=_cx(x, 1).dtype)
    z[:, :3] = _cx(x, 3)  # DC included: its imaginary part is ignored, as irfft does
    z[:, -2:] = _cx(x, 2, 4)  # Nyquist included
    return torch.fft.irfft(z, n=n, norm="ortho")


def _fno_irfft2(x: torch.Tensor) -> torch.Tensor:
    b, h, w = x.shape
    z = torch.zeros(b, h, w // 2 + 1, dtype=_cx(x, 1).dtype)
    z[:, :3, :4] = _cx(x[:, :3], 4)
    z[:, -3:, :4] = _cx(x[:, -3:], 4, 2)
    return torch.fft.irfft2(z, s=(h, w), norm="forward")


def _scattered_irfft2(x: torch.Tensor) -> torch.Tensor:  # blocks that do not tile: padded and summed
    b, h, w = x.shape
    z = torch.zeros(b, h, w // 2 + 1, dtype=_cx(x, 1).dtype)
    z[:, :2, :3] = _cx(x[:, :2], 3)
    z[:, 5:7, 2:4] = _cx(x[:, 5:7], 2, 1)
    return torch.fft.irfft2(z)


def _ifft_band(x: torch.Tensor) -> torch.Tensor:
    b, n = x.shape
    z = torch.zeros(b, n, dtype=_cx(x, 1).dtype)
    z[:, 5:9] = _cx(x, 4)
    z[:, -3:] = _cx(x, 3, 5)
    return torch.fft.ifft(z)


def _irfftn_3d(x: torch.Tensor) -> torch.Tensor:
    b, c, h, w = x.shape
    z = torch.zeros(b, c, h, w // 2 + 1, dtype=_cx(x, 1).dtype)
    z[:, :2, :2, :3] = _cx(x[:, :2, :2], 3)
    z[:, -2:, :2, :3] = _cx(x[:, -2:, :2], 3, 1)
    return torch.fft.irfftn(z, s=(c, h, w), dim=(1, 2, 3))


def _padded_irfft(x: torch.Tensor) -> torch.Tensor:  # F.pad of the kept modes, as FNO code also writes it
    return torch.fft.irfft(torch.nn.functional.pad(_cx(x, 5), (0, x.shape[-1] // 2 + 1 - 5)), n=x.shape[-1])


def _cat_irfft2(x: torch.Tensor) -> torch.Tensor:  # test_fft's SpectralConv2d form: pads and a cat
    b, h, w = x.shape
    top = torch.nn.functional.pad(_cx(x[:, :3], 4), (0, w // 2 + 1 - 4, 0, h - 6))
    bottom = torch.nn.functional.pad(_cx(x[:, -3:], 4, 1), (0, w // 2 + 1 - 4))
    return torch.fft.irfft2(torch.cat([top, bottom], dim=1), s=(h, w))


INVERSE_CASES: dict[str, tuple[Callable[[torch.Tensor], Any], tuple[int, ...]]] = {
    "irfft_dc_nyquist": (_blocks_irfft, (3, 32)),
    "irfft2_fno": (_fno_irfft2, (2, 16, 12)),
    "irfft2_scattered": (_scattered_irfft2, (2, 12, 10)),
    "ifft_bands": (_ifft_band, (2, 24)),
    "irfftn_3d": (_irfftn_3d, (2, 8, 6, 10)),
    "irfft_padded": (_padded_irfft, (3, 30)),
    "irfft2_pad_cat": (_cat_irfft2, (2, 12, 14)),
}


@pytest.mark.parametrize("mode", ["export", "make_fx"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", sorted(INVERSE_CASES))
def test_sparse_inverse_matches_torch(case: str, dtype: torch.dtype, mode: str) -> None:
    check_case(INVERSE_CASES[case], case, dtype, mode, sparse_read, "input read in full")


def test_irfft_ignores_dc_and_nyquist_imaginary_parts() -> None:
    """The truncated c2r never reads Im X[0] and Im X[n/2]: an inf there leaves the output finite, as in eager."""

    def fn(x: torch.Tensor) -> torch.Tensor:
        inf = torch.full_like(x[:, :1], float("inf"))
        z = torch.zeros(x.shape[0], 9, dtype=torch.complex64)
        z[:, :1] = torch.complex(x[:, :1], inf)  # DC
        z[:, 1:3] = torch.complex(x[:, 1:3], x[:, 3:5])
        z[:, 8:] = torch.complex(x[:, 5:6], -inf)  # Nyquist
        return torch.fft.irfft(z, n=16)

    x = torch.randn(2, 6)
    lowered = lower(fn, x, "export")
    assert sparse_read(lowered)
    out, ref = lowered(x), fn(x)
    assert ref.isfinite().all()
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)


def test_overlapping_writes_read_the_full_input() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(x.shape[0], 17, dtype=torch.complex128)
        z[:, :4] = _cx(x, 4)
        z[:, 2:6] = _cx(x, 4, 3)  # overwrites part of the first block
        return torch.fft.irfft(z)

    x = torch.randn(2, 32, dtype=torch.float64)
    for mode in ("export", "make_fx"):
        lowered = lower(fn, x, mode)
        assert not sparse_read(lowered), dft_constants(lowered)
        compare(lowered(x), fn(x), TOL[torch.complex128])


@pytest.mark.parametrize("target", ["tensorrt", "onnx", "executorch"])
def test_pruned_fno_fits_deploy_targets(target: str) -> None:
    """Every op the pruned transforms emit is in the target's declared op set (realify checks it on lowering)."""
    model = FNOSpectral2d(channels=2, m1=3, m2=3)
    x = torch.randn(1, 2, 12, 10)
    with torch.no_grad():
        gm = realify.lower(torch.export.export(model, (x,)), fft="matmul", target=target).module()
        assert pruned(gm) and sparse_read(gm)
        compare(gm(x), model(x), TOL[torch.complex64])


@pytest.mark.parametrize("n", [16, 12])
def test_inverse_scale_is_folded_into_the_last_dft_matrix(n: int) -> None:
    """irfft's 1/n scales its last DFT matrix, so no pass over the output multiplies it (a power of two or not)."""

    def inverse(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(x, n=n)

    x = torch.randn(3, n // 2 + 1, dtype=torch.complex64, generator=torch.Generator().manual_seed(1))
    low = realify.lower(make_fx(inverse)(x), fft="matmul")
    out = next(n for n in low.graph.nodes if n.op == "output").args[0]
    out = out[0] if isinstance(out, (tuple, list)) else out
    assert out.target == torch.ops.aten.matmul.default, out.format_node()
    assert not [n for n in low.graph.nodes if n.target == torch.ops.aten.mul.Tensor]
    assert any(name.endswith("_scaled") for name in (str(n.target) for n in low.graph.nodes if n.op == "get_attr"))
    torch.testing.assert_close(low(torch.view_as_real(x)), inverse(x), rtol=1e-6, atol=1e-6)
