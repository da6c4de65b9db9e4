"""Every rule of the C core against eager PyTorch, for complex64 and complex128."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import realify
import torch
from harness import check, has_op, rules_to_exercise, traced_ops
from realify import _core
from torch.fx.experimental.proxy_tensor import make_fx

A = torch.ops.aten
F = torch.nn.functional


@dataclass
class Case:
    name: str
    op: str | tuple[str, ...]  # the aten overload this case must exercise (a tuple: any one spelling of it)
    fn: Callable[..., Any]
    args: Callable[[torch.dtype], tuple[Any, ...]]
    pre_dispatch: bool = False
    tracing_mode: str = "real"  # "symbolic" for the sym_* ops
    # where torch itself cannot trace the case (no realify involved): the reason, else None
    upstream_failure: Callable[[], str | None] | None = None

    def untraceable(self) -> str | None:
        return self.upstream_failure() if self.upstream_failure else None


def _left_pad_sequence_traces() -> str | None:
    """torch 2.11's pre_dispatch trace passes pad_sequence's padding_side positionally to a binding that takes
    at most three positional arguments (TypeError); 2.13 traces it."""
    a = torch.randn(2, 3)
    try:
        make_fx(lambda x: torch.nn.utils.rnn.pad_sequence([x, x[1:]], padding_side="left"), pre_dispatch=True)(a)
    except TypeError as e:
        return f"upstream: torch {torch.__version__} cannot trace pad_sequence(padding_side=...) pre_dispatch: {e}"
    return None


def z(dt: torch.dtype, *shape: int, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed + 17 * len(shape))
    return torch.randn(*shape, dtype=dt, generator=g)


def r(dt: torch.dtype, *shape: int, seed: int = 1) -> torch.Tensor:
    return z(dt.to_real(), *shape, seed=seed)


def zz(*shape: int) -> Callable[[torch.dtype], tuple[Any, ...]]:
    return lambda dt: (z(dt, *shape),)


def z2(*shape: int) -> Callable[[torch.dtype], tuple[Any, ...]]:
    return lambda dt: (z(dt, *shape), z(dt, *shape, seed=5))


def zr(*shape: int) -> Callable[[torch.dtype], tuple[Any, ...]]:
    return lambda dt: (z(dt, *shape), r(dt, *shape))


def rz(*shape: int) -> Callable[[torch.dtype], tuple[Any, ...]]:
    return lambda dt: (r(dt, *shape), z(dt, *shape))


def rr(*shape: int) -> Callable[[torch.dtype], tuple[Any, ...]]:
    return lambda dt: (r(dt, *shape), r(dt, *shape, seed=3))


def wider(dt: torch.dtype) -> torch.dtype:
    return torch.complex128 if dt == torch.complex64 else torch.complex64


CASES = [
    # construction and parts
    Case("view_as_real", "aten.view_as_real.default", lambda x: torch.view_as_real(x) * 2, zz(3, 4)),
    Case(
        "view_as_complex",
        "aten.view_as_complex.default",
        lambda x: torch.view_as_complex(x),
        lambda dt: (r(dt, 3, 4, 2),),
    ),
    Case("ldexp_real_exponent", "aten.ldexp.Tensor", torch.ldexp, lambda dt: (z(dt, 3, 4), torch.arange(-3.0, 1.0))),
    Case(
        "nan_to_num",
        "aten.nan_to_num.default",
        lambda x: torch.nan_to_num(x, nan=0.5, posinf=7.0),
        lambda dt: (torch.tensor([complex(float("nan"), float("inf")), complex(-float("inf"), 2.0),
                                  complex(1.0, -float("inf")), complex(float("inf"), float("nan"))], dtype=dt),),
    ),
    Case("polar", "aten.polar.default", lambda a, b: torch.polar(a.abs(), b), rr(5, 3)),
    Case("complex", "aten.complex.default", torch.complex, rr(4, 3)),
    Case("complex_broadcast", "aten.complex.default", torch.complex, lambda dt: (r(dt, 4, 1), r(dt, 1, 3))),
    Case("real", "aten.real.default", lambda x: torch.real(x) + 1, zz(6), pre_dispatch=True),
    Case("imag", "aten.imag.default", lambda x: torch.imag(x) + 1, zz(6), pre_dispatch=True),
    Case("_conj", "aten._conj.default", lambda x: torch.conj(x) * 1, zz(5)),
    Case("conj_physical", "aten.conj_physical.default", torch.conj_physical, zz(5), pre_dispatch=True),
    Case("_conj_physical", "aten._conj_physical.default", torch.conj_physical, zz(5)),
    Case("resolve_conj", "aten.resolve_conj.default", lambda x: x.conj().resolve_conj(), zz(5), pre_dispatch=True),
    Case("resolve_neg", "aten.resolve_neg.default", lambda x: x.conj().imag.resolve_neg(), zz(5), pre_dispatch=True),
    # arithmetic
    Case("add", "aten.add.Tensor", lambda a, b: a + b, z2(3, 4)),
    Case("add_alpha", "aten.add.Tensor", lambda a, b: torch.add(a, b, alpha=2), z2(3, 4)),
    Case("add_complex_real", "aten.add.Tensor", lambda a, b: a + b, zr(3, 4)),
    Case("add_real_complex", "aten.add.Tensor", lambda a, b: a + b, rz(3, 4)),
    Case("add_broadcast", "aten.add.Tensor", lambda a, b: a + b, lambda dt: (r(dt, 4, 1), z(dt, 1, 3))),
    Case("add_scalar", "aten.add.Scalar", lambda a: A.add.Scalar(a, 2.5), zz(4)),
    Case("add_complex_scalar", "aten.add.Tensor", lambda a: a + (1 - 2j), zz(4)),
    Case("sub", "aten.sub.Tensor", lambda a, b: a - b, z2(3, 4)),
    Case("sub_real_complex", "aten.sub.Tensor", lambda a, b: a - b, rz(3, 4)),
    Case("sub_scalar", "aten.sub.Scalar", lambda a: A.sub.Scalar(a, 1.5), zz(4)),
    Case("rsub", "aten.rsub.Tensor", lambda a, b: torch.rsub(a, b, alpha=3), z2(4)),
    Case("rsub_scalar", "aten.rsub.Scalar", lambda a: torch.rsub(a, 2), zz(4)),
    Case("mul", "aten.mul.Tensor", lambda a, b: a * b, z2(3, 4)),
    Case("mul_complex_real", "aten.mul.Tensor", lambda a, b: a * b, zr(3, 4)),
    Case("mul_real_complex", "aten.mul.Tensor", lambda a, b: a * b, rz(3, 4)),
    Case("mul_complex_scalar", "aten.mul.Tensor", lambda a: a * (0.5 + 2j), zz(4)),
    Case("mul_scalar", "aten.mul.Scalar", lambda a: A.mul.Scalar(a, 3), zz(4)),
    Case("div", "aten.div.Tensor", lambda a, b: a / b, z2(3, 4)),
    Case("div_complex_real", "aten.div.Tensor", lambda a, b: a / b, zr(3, 4)),
    Case("div_real_complex", "aten.div.Tensor", lambda a, b: a / b, rz(3, 4)),
    Case("div_complex_scalar", "aten.div.Tensor", lambda a: a / (3 - 4j), zz(4)),
    Case("div_scalar", "aten.div.Scalar", lambda a: A.div.Scalar(a, 4.0), zz(4)),
    Case("div_mode", "aten.div.Tensor_mode", lambda a, b: A.div.Tensor_mode(a, b, rounding_mode=None), z2(4)),
    Case("neg", "aten.neg.default", torch.neg, zz(4)),
    Case("reciprocal", "aten.reciprocal.default", torch.reciprocal, zz(4)),
    Case("square", "aten.square.default", torch.square, zz(5), pre_dispatch=True),
    Case("prims_convert", "prims.convert_element_type.default",
         lambda x: torch.ops.prims.convert_element_type(torch.abs(x), x.dtype) * x, zz(5)),
    Case("abs", "aten.abs.default", torch.abs, zz(7)),
    Case("angle", "aten.angle.default", torch.angle, zz(7)),
    Case("exp", "aten.exp.default", torch.exp, zz(7)),
    # shape ops
    Case("view", "aten.view.default", lambda x: x.view(2, 6), zz(3, 4)),
    Case("reshape", "aten.reshape.default", lambda x: x.reshape(12), zz(3, 4), pre_dispatch=True),
    Case("_unsafe_view", "aten._unsafe_view.default", lambda x: A._unsafe_view.default(x * 1, [4, 3]), zz(3, 4)),
    Case("flatten", "aten.flatten.using_ints", lambda x: x.flatten(1), zz(2, 3, 4), pre_dispatch=True),
    Case("unflatten", "aten.unflatten.int", lambda x: x.unflatten(1, (2, 2)), zz(3, 4), pre_dispatch=True),
    Case("unsqueeze", "aten.unsqueeze.default", lambda x: x.unsqueeze(1), zz(3, 4)),
    Case("squeeze", "aten.squeeze.default", lambda x: x.squeeze(), zz(3, 1, 4)),
    Case("squeeze_dim", "aten.squeeze.dim", lambda x: x.squeeze(1), zz(3, 1, 4)),
    Case("squeeze_dims", "aten.squeeze.dims", lambda x: x.squeeze((0, 2)), zz(1, 3, 1)),
    Case("expand", "aten.expand.default", lambda x: x.expand(2, 3, 4), zz(3, 1)),
    Case("permute", "aten.permute.default", lambda x: x.permute(2, 0, 1), zz(2, 3, 4)),
    Case("transpose", "aten.transpose.int", lambda x: x.transpose(0, 2), zz(2, 3, 4)),
    Case("t", "aten.t.default", lambda x: x.t(), zz(3, 4)),
    Case("numpy_T", "aten.numpy_T.default", lambda x: x.T, zz(3, 4), pre_dispatch=True),
    Case("slice", "aten.slice.Tensor", lambda x: x[:, 1:3], zz(3, 4)),
    Case("select", "aten.select.int", lambda x: x[1], zz(3, 4)),
    Case("narrow", "aten.narrow.default", lambda x: x.narrow(1, 1, 2), zz(3, 4), pre_dispatch=True),
    Case("cat", "aten.cat.default", lambda a, b: torch.cat([a, b], 1), z2(3, 4)),
    Case("cat_mixed", "aten.cat.default", lambda a, b: torch.cat([a, b], 0), zr(3, 4)),
    Case("stack", "aten.stack.default", lambda a, b: torch.stack([a, b], 0), z2(3, 4)),
    Case("pad_sequence", "aten.pad_sequence.default",
         lambda a, b: torch.nn.utils.rnn.pad_sequence([a, b[:2]], padding_value=-1.5), z2(3, 4),
         pre_dispatch=True),
    Case("pad_sequence_left", "aten.pad_sequence.default",
         lambda a, b: torch.nn.utils.rnn.pad_sequence([a[1:], b], batch_first=True, padding_side="left"), zr(3, 4),
         pre_dispatch=True, upstream_failure=_left_pad_sequence_traces),
    Case("split", "aten.split.Tensor", lambda x: [t * 1 for t in x.split(2, 1)], zz(3, 4)),
    Case("split_sizes", "aten.split_with_sizes.default", lambda x: x.split([1, 3], 1), zz(3, 4)),
    Case("chunk", "aten.chunk.default", lambda x: x.chunk(2, 0), zz(4, 3), pre_dispatch=True),
    Case("unbind", "aten.unbind.int", lambda x: x.unbind(1), zz(3, 4)),
    Case("clone", "aten.clone.default", lambda x: x.clone(), zz(3, 4)),
    Case("alias", "aten.alias.default", lambda x: A.alias.default(x), zz(3, 4)),
    # the gradients of views, as aot_autograd's backward graphs hold them
    Case("slice_backward", "aten.slice_backward.default", lambda g: A.slice_backward(g, [4, 6], 1, 1, 5, 2), zz(4, 2)),
    Case("select_backward", "aten.select_backward.default", lambda g: A.select_backward(g, [3, 4], 0, 1), zz(4)),
    Case(
        "diagonal_backward", "aten.diagonal_backward.default",
        lambda g: A.diagonal_backward(g, [3, 4], 1, 0, 1), zz(3)
    ),
    Case("tanh_backward", "aten.tanh_backward.default", lambda g, y: A.tanh_backward(g, y), z2(3, 4)),
    Case("sigmoid_backward", "aten.sigmoid_backward.default", lambda g, y: A.sigmoid_backward(g, y), z2(3, 4)),
    # torch.export and pre-dispatch tracing keep detach; plain make_fx traces it as alias from torch 2.15 on
    Case("detach", "aten.detach.default", lambda x: x.detach(), zz(3, 4), pre_dispatch=True),
    Case("detach_dispatch", ("aten.detach.default", "aten.alias.default"), lambda x: x.detach(), zz(3, 4)),
    Case(
        "lift_fresh_copy",
        "aten.lift_fresh_copy.default",
        lambda x: x * torch.tensor([1 + 2j, 3 - 1j], dtype=x.dtype),
        zz(2),
    ),
    Case("flip", "aten.flip.default", lambda x: x.flip(1), zz(3, 4)),
    Case("roll", "aten.roll.default", lambda x: x.roll(1, 1), zz(3, 4)),
    Case("repeat", "aten.repeat.default", lambda x: x.repeat(2, 1), zz(3, 4)),
    Case("movedim", "aten.movedim.int", lambda x: x.movedim(0, 2), zz(2, 3, 4), pre_dispatch=True),
    Case("diagonal", "aten.diagonal.default", lambda x: x.diagonal() * 1, zz(4, 4)),
    # reductions
    Case("sum", "aten.sum.default", lambda x: x.sum(), zz(3, 4)),
    Case("sum_dim", "aten.sum.dim_IntList", lambda x: x.sum(1, keepdim=True), zz(3, 4)),
    Case("mean", "aten.mean.default", lambda x: x.mean(), zz(3, 4)),
    Case("mean_dim", "aten.mean.dim", lambda x: x.mean((0, 1)), zz(3, 4, 2)),
    Case("cumsum", "aten.cumsum.default", lambda x: x.cumsum(1), zz(3, 4)),
    # conversions
    Case("to_copy_precision", "aten._to_copy.default", lambda x: x.to(wider(x.dtype)), zz(3, 4)),
    Case("to_copy_to_real", "aten._to_copy.default", lambda x: A._to_copy.default(x, dtype=x.real.dtype), zz(3, 4)),
    Case("to_copy_from_real", "aten._to_copy.default", lambda x: x.to(torch.complex64) * 1, lambda dt: (r(dt, 3, 4),)),
    Case(
        "sym_size", "aten.sym_size.int", lambda x: x.reshape(x.shape[0] * x.shape[1]), zz(3, 4), tracing_mode="symbolic"
    ),
    Case("sym_numel", "aten.sym_numel.default", lambda x: x.reshape(x.numel()), zz(3, 4), tracing_mode="symbolic"),
    Case(
        "sym_stride",
        "aten.sym_stride.int",
        lambda x: x.reshape(-1, x.stride(0) // 2),
        lambda dt: (z(dt, 6, 8)[:, :4],),  # strides (8, 1): the 8 is a size of its own
        tracing_mode="symbolic",
    ),
    Case("where_scalar_other", "aten.where.ScalarOther", lambda x: torch.where(x.real > 0, x, 0), zz(3, 4), True),
    Case("where_scalar_self", "aten.where.ScalarSelf", lambda x: torch.where(x.real > 0, 2j, x), zz(3, 4), True),
    Case("mT", "aten.mT.default", lambda x: x.mT, zz(2, 3, 4), pre_dispatch=True),
    Case("mH", "aten.mH.default", lambda x: x.mH, zz(2, 3, 4), pre_dispatch=True),
    Case("adjoint", "aten.adjoint.default", lambda x: x.adjoint(), zz(3, 4), pre_dispatch=True),
    Case("matrix_H", "aten.matrix_H.default", lambda x: x.H, zz(3, 4), pre_dispatch=True),
    # the write-back into a graph input (idempotent here: the harness runs eager after the lowered graph)
    Case("copy_inplace", "aten.copy_.default", lambda x: x.copy_(x * 1) + 1, zz(3)),
    Case("detach_inplace", "aten.detach_.default", lambda x: (x * 2).detach_() + 1, zz(3), pre_dispatch=True),
    Case(
        "assert_tensor_metadata",
        "aten._assert_tensor_metadata.default",
        lambda x: (A._assert_tensor_metadata.default(x, dtype=x.dtype), x * 2)[1],
        zz(3),
    ),
    Case("to_dtype", "aten.to.dtype", lambda x: x.to(wider(x.dtype)), zz(3, 4), pre_dispatch=True),
    Case(
        "to_dtype_layout",
        "aten.to.dtype_layout",
        lambda x: A.to.dtype_layout(x, dtype=wider(x.dtype), layout=torch.strided),
        zz(3),
        pre_dispatch=True,
    ),
    Case("to_device", "aten.to.device", lambda x: x.to("cpu", wider(x.dtype)), zz(3), pre_dispatch=True),
    Case(
        "type_as",
        "aten.type_as.default",
        lambda a, b: a.type_as(b),
        lambda dt: (z(dt, 3), z(wider(dt), 3)),
        pre_dispatch=True,
    ),
    # creation and selection
    Case("zeros_like", "aten.zeros_like.default", lambda x: torch.zeros_like(x), zz(3, 4)),
    Case("ones_like", "aten.ones_like.default", lambda x: torch.ones_like(x) + x, zz(3, 4)),
    Case("full_like", "aten.full_like.default", lambda x: torch.full_like(x, 2 - 1j), zz(3, 4)),
    Case("where", "aten.where.self", lambda a, b: torch.where(a.real > 0, a, b), z2(3, 4)),
    Case("where_real_other", "aten.where.self", lambda a, b: torch.where(a.real > 0, a, b), zr(3, 4)),
    # matrix products
    Case("mm", "aten.mm.default", torch.mm, lambda dt: (z(dt, 3, 4), z(dt, 4, 5))),
    Case("bmm", "aten.bmm.default", torch.bmm, lambda dt: (z(dt, 2, 3, 4), z(dt, 2, 4, 5))),
    Case("matmul", "aten.matmul.default", torch.matmul, lambda dt: (z(dt, 2, 3, 4), z(dt, 4, 5)), pre_dispatch=True),
    # torch.export keeps einsum whole before decomposition: one real einsum per choice of re/im parts
    Case(
        "einsum_fno_modes",
        "aten.einsum.default",
        lambda x, w: torch.einsum("bixy,ioxy->boxy", x, w),
        lambda dt: (z(dt, 2, 3, 4, 5), z(dt, 3, 6, 4, 5, seed=3)),
        pre_dispatch=True,
    ),
    Case(
        "einsum_three_operands",
        "aten.einsum.default",
        lambda a, b, c: torch.einsum("ij,jk,kl->il", a, b, c),
        lambda dt: (z(dt, 2, 3), z(dt, 3, 4, seed=1), z(dt, 4, 5, seed=2)),
        pre_dispatch=True,
    ),
    Case("einsum_diagonal", "aten.einsum.default", lambda a: torch.einsum("ii->i", a), zz(4, 4), pre_dispatch=True),
    Case(
        "einsum_ellipsis",
        "aten.einsum.default",
        lambda a, b: torch.einsum("...ij,...jk", a, b),
        lambda dt: (z(dt, 2, 2, 3), z(dt, 2, 3, 4, seed=4)),
        pre_dispatch=True,
    ),
    Case("mv", "aten.mv.default", torch.mv, lambda dt: (z(dt, 3, 4), z(dt, 4))),
    Case("dot", "aten.dot.default", torch.dot, lambda dt: (z(dt, 4), z(dt, 4))),
    # FFT family: the primitives make_fx leaves, the torch.fft ops torch.export keeps, and what stft leaves
    Case("fft_c2c", "aten._fft_c2c.default", lambda x: torch.fft.fft2(x, norm="ortho"), zz(3, 8)),
    Case("fft_r2c", "aten._fft_r2c.default", lambda x: torch.fft.rfft(x), lambda dt: (r(dt, 3, 10),)),
    Case("fft_c2r", "aten._fft_c2r.default", lambda x: torch.fft.irfft(x, n=9), zz(3, 5)),
    *[
        Case(f"fft_{name}", f"aten.fft_{name}.default", fn, args, pre_dispatch=True)
        for name, fn, args in [
            ("fft", lambda x: torch.fft.fft(x, n=6, dim=0), zz(4, 3)),
            ("ifft", lambda x: torch.fft.ifft(x, norm="forward"), zz(3, 7)),
            ("rfft", lambda x: torch.fft.rfft(x, n=12), lambda dt: (r(dt, 2, 10),)),
            ("irfft", lambda x: torch.fft.irfft(x, dim=0), zz(5, 3)),
            ("hfft", lambda x: torch.fft.hfft(x, n=7, norm="ortho"), zz(3, 5)),
            ("ihfft", lambda x: torch.fft.ihfft(x), lambda dt: (r(dt, 3, 9),)),
            ("fft2", lambda x: torch.fft.fft2(x, s=(4, 10)), zz(2, 3, 8)),
            ("ifft2", lambda x: torch.fft.ifft2(x, dim=(0, 2)), zz(4, 3, 5)),
            ("rfft2", lambda x: torch.fft.rfft2(x, norm="ortho"), lambda dt: (r(dt, 2, 6, 8),)),
            ("irfft2", lambda x: torch.fft.irfft2(x, s=(6, 9)), zz(2, 6, 5)),
            ("hfft2", lambda x: torch.fft.hfft2(x), lambda dt: (r(dt, 4, 5),)),  # real in, real out
            ("ihfft2", lambda x: torch.fft.ihfft2(x, s=(3, 6)), lambda dt: (r(dt, 4, 5),)),
            ("fftn", lambda x: torch.fft.fftn(x), lambda dt: (r(dt, 3, 4, 5),)),
            ("ifftn", lambda x: torch.fft.ifftn(x, s=(6,)), zz(3, 4, 5)),
            ("rfftn", lambda x: torch.fft.rfftn(x, dim=(0, 1)), lambda dt: (r(dt, 4, 6, 2),)),
            ("irfftn", lambda x: torch.fft.irfftn(x, norm="forward"), zz(3, 4, 5)),
            ("hfftn", lambda x: torch.fft.hfftn(x, s=(3, 8), dim=(0, 2)), zz(3, 4, 5)),
            ("ihfftn", lambda x: torch.fft.ihfftn(x, norm="ortho"), lambda dt: (r(dt, 3, 4, 5),)),
            ("fftshift", lambda x: torch.fft.fftshift(x), zz(4, 5)),
            ("ifftshift", lambda x: torch.fft.ifftshift(x, dim=1), zz(4, 5)),
        ]
    ],
    Case(
        "stft",
        "aten.stft.default",
        lambda x: torch.stft(x, 8, hop_length=2, window=torch.hann_window(8, dtype=x.dtype), return_complex=True),
        lambda dt: (r(dt, 2, 40),),
        pre_dispatch=True,
    ),
    Case(  # real in, real out
        "stft_center",
        "aten.stft.center",
        lambda x: A.stft.center(x, 8, 3, 6, pad_mode="constant", normalized=True, return_complex=False),
        lambda dt: (r(dt, 40),),
        pre_dispatch=True,
    ),
    Case(
        "istft",
        "aten.istft.default",
        lambda x: torch.istft(x, 8, hop_length=2, window=torch.hann_window(8, dtype=x.real.dtype), length=37),
        lambda dt: (torch.stft(r(dt, 2, 40), 8, 2, window=torch.hann_window(8).to(dt.to_real()), return_complex=True),),
        pre_dispatch=True,
    ),
    Case("constant_pad_nd", "aten.constant_pad_nd.default", lambda x: A.constant_pad_nd(x, [1, 2], 2 - 1j), zz(3, 4)),
    Case("pad", "aten.pad.default", lambda x: F.pad(x, (1, 2), value=0.5), zz(3, 4), pre_dispatch=True),
    *[
        Case(f"{mode}_pad{d}d", f"aten.{mode}_pad{d}d.default", fn, zz(*shape))
        for mode, torch_mode in (("reflection", "reflect"), ("replication", "replicate"))
        for d, shape in ((1, (2, 3, 6)), (2, (2, 3, 6, 5)), (3, (1, 2, 3, 6, 5)))
        for fn in [(lambda p, m: lambda x: F.pad(x, p, mode=m))((2, 1, 1, 1, 1, 2)[: 2 * d], torch_mode)]
    ],
    Case("as_strided", "aten.as_strided.default", lambda x: x.as_strided((3, 2), (1, 2)) * 1, zz(3, 4)),
    Case("unfold", "aten.unfold.default", lambda x: x.unfold(0, 4, 2), zz(10, 3)),
    Case("unfold_backward", "aten.unfold_backward.default", lambda x: A.unfold_backward(x, [10], 0, 4, 2), zz(4, 4)),
    Case("slice_backward_step", "aten.slice_backward.default", lambda x: A.slice_backward(x, [3, 9], 1, 2, 8, 2),
         zz(3, 3)),
    Case("select_backward_3d", "aten.select_backward.default", lambda x: A.select_backward(x, [3, 5, 4], 1, 2),
         zz(3, 4)),
    Case("diagonal_backward_offset", "aten.diagonal_backward.default",
         lambda x: A.diagonal_backward(x, [3, 4, 5], 1, 1, 2), zz(3, 4)),
    Case("transpose_", "aten.transpose_.default", lambda x: (x * 1).transpose_(0, 1), zz(3, 4)),
    Case("squeeze__dim", "aten.squeeze_.dim", lambda x: (x * 1).squeeze_(1), zz(3, 1, 4)),
    Case("squeeze_", "aten.squeeze_.default", lambda x: (x * 1).squeeze_(), zz(3, 1, 4)),
    Case("unsqueeze_", "aten.unsqueeze_.default", lambda x: (x * 1).unsqueeze_(0), zz(3, 4)),
    # Overloads the (capped) OpInfo samples of test_opinfo.py do not reach: pre-dispatch graphs, view_copy graphs,
    # inductor's decompositions. Every other rule is exercised there.
    *[
        Case(name, op, fn, args, pre_dispatch=pre)
        for name, op, fn, args, pre in [
            ("argwhere", "aten.argwhere.default", lambda x: torch.argwhere(x * (x.real > 0)), zz(3, 4), True),
            ("isfinite", "aten.isfinite.default", torch.isfinite, zz(3, 4), True),
            ("diag", "aten.diag.default", lambda x: torch.diag(x, 1), zz(4), True),
            ("select_copy", "aten.select_copy.int", lambda x: A.select_copy.int(x, 1, 2), zz(3, 4), False),
            ("slice_copy", "aten.slice_copy.Tensor", lambda x: A.slice_copy.Tensor(x, 1, 1, 3), zz(3, 4), False),
            ("split_copy", "aten.split_copy.Tensor", lambda x: A.split_copy.Tensor(x, 2, 1), zz(3, 4), False),
            ("squeeze_copy", "aten.squeeze_copy.dims", lambda x: A.squeeze_copy.dims(x, [0, 2]), zz(1, 3, 1), False),
            (
                "unsafe_split_with_sizes",
                "aten.unsafe_split_with_sizes.default",
                lambda x: A.unsafe_split_with_sizes.default(x, [1, 3], 1),
                zz(3, 4),
                False,
            ),
            (
                "native_channel_shuffle",
                "aten.native_channel_shuffle.default",
                lambda x: A.native_channel_shuffle.default(x, 2),
                zz(1, 4, 3),
                False,
            ),
            (
                "col2im",
                "aten.col2im.default",
                lambda x: A.col2im.default(x, [4, 5], [2, 2], [1, 1], [0, 0], [1, 1]),
                zz(1, 8, 12),
                False,
            ),
            (
                "select_scatter",
                "aten.select_scatter.default",
                lambda x, y: A.select_scatter.default(x, y[0], 0, 1),
                z2(3, 4),
                False,
            ),
            (
                "_unsafe_index",
                "aten._unsafe_index.Tensor",
                lambda x: A._unsafe_index.Tensor(x, [None, torch.tensor([2, 0, 2])]),
                zz(3, 4),
                False,
            ),
            (
                "_unsafe_index_put",
                "aten._unsafe_index_put.default",
                lambda x, y: A._unsafe_index_put.default(x, [torch.tensor([2, 0])], y[:2], True),
                z2(3, 4),
                False,
            ),
            ("fill_tensor", "aten.fill.Tensor", lambda x, y: A.fill.Tensor(x, y[0, 0]), zr(3, 4), False),
            (
                "masked_fill_tensor",
                "aten.masked_fill.Tensor",
                lambda x, y: x.masked_fill(x.real > 0, y[0, 0]),
                z2(3, 4),
                False,
            ),
            (
                "scatter_value",
                "aten.scatter.value",
                lambda x: A.scatter.value(x, 1, torch.tensor([[0, 3], [1, 1], [2, 0]]), 1 - 2j),
                zz(3, 4),
                False,
            ),
            ("lerp_tensor", "aten.lerp.Tensor", lambda a, b: torch.lerp(a, b, a * b), z2(3, 4), False),
            (
                "linspace_scalar_tensor",
                "aten.linspace.Scalar_Tensor",
                lambda x: A.linspace.Scalar_Tensor(1 - 1j, x[0], 5, dtype=x.dtype),
                zz(3),
                False,
            ),
            ("pow_scalar", "aten.pow.Scalar", lambda x: A.pow.Scalar(2.5 - 1j, x), zz(3, 4), False),
            ("norm_scalar", "aten.norm.Scalar", lambda x: A.norm.Scalar(x, 3), zz(3, 4), False),
        ]
    ],
    # linalg solve family: the forms torch.export keeps whole (pre-dispatch tracing keeps them too)
    *[
        Case(name, op, fn, lambda dt: (z(dt, 3, 3) + 3 * torch.eye(3, dtype=dt), z(dt, 3, 2, seed=1)), True)
        for name, op, fn in [
            ("linalg_solve", "aten.linalg_solve.default", torch.linalg.solve),
            ("linalg_solve_ex", "aten.linalg_solve_ex.default", lambda a, b: torch.linalg.solve_ex(a, b)[0]),
            ("linalg_inv", "aten.linalg_inv.default", lambda a, b: torch.linalg.inv(a)),
            ("linalg_det", "aten.linalg_det.default", lambda a, b: torch.linalg.det(a)),
            ("linalg_slogdet", "aten.linalg_slogdet.default", lambda a, b: torch.linalg.slogdet(a)),
            ("logdet", "aten.logdet.default", lambda a, b: torch.logdet(a @ a.mH)),
            ("linalg_cholesky", "aten.linalg_cholesky.default", lambda a, b: torch.linalg.cholesky(a @ a.mH)),
            ("linalg_lu_factor", "aten.linalg_lu_factor.default", lambda a, b: torch.linalg.lu_factor(a)),
            ("lu_with_info", "aten._lu_with_info.default", lambda a, b: torch.lu(a, get_infos=True)),
            ("lu_solve", "aten.lu_solve.default", lambda a, b: torch.lu_solve(b, *torch.linalg.lu_factor(a))),
            ("matrix_power", "aten.linalg_matrix_power.default", lambda a, b: torch.linalg.matrix_power(a, -2)),
            ("tensorinv", "aten.linalg_tensorinv.default", lambda a, b: torch.linalg.tensorinv(a, ind=1)),
            ("tensorsolve", "aten.linalg_tensorsolve.default", lambda a, b: torch.linalg.tensorsolve(a, b[:, 0])),
        ]
    ],
    # composite products and convolutions torch.export keeps whole (tests/python/test_export_composite.py exports them)
    *[
        Case(name, op, fn, args, True)
        for name, op, fn, args in [
            ("linear", "aten.linear.default", lambda x, w, b: F.linear(x, w, b),
             lambda dt: (z(dt, 2, 4), z(dt, 3, 4, seed=1), z(dt, 3, seed=2))),
            ("bilinear", "aten.bilinear.default", F.bilinear,
             lambda dt: (z(dt, 2, 4), z(dt, 2, 3, seed=1), z(dt, 5, 4, 3, seed=2), z(dt, 5, seed=3))),
            ("tensordot", "aten.tensordot.default", lambda a, b: torch.tensordot(a, b, dims=([0, 2], [1, 0])),
             lambda dt: (z(dt, 2, 3, 4), z(dt, 4, 2, 5, seed=1))),
            ("inner", "aten.inner.default", torch.inner, lambda dt: (z(dt, 2, 4), z(dt, 3, 4, seed=1))),
            ("multi_dot", "aten.linalg_multi_dot.default", lambda *t: torch.linalg.multi_dot(t),
             lambda dt: (z(dt, 4), z(dt, 4, 3, seed=1), z(dt, 3, 2, seed=2), z(dt, 2, 5, seed=3))),
            ("conv1d", "aten.conv1d.default", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
             lambda dt: (z(dt, 2, 2, 7), z(dt, 3, 2, 3, seed=1), z(dt, 3, seed=2))),
            ("conv1d_same", "aten.conv1d.padding", lambda x, w: F.conv1d(x, w, padding="same"),
             lambda dt: (z(dt, 2, 7), z(dt, 3, 2, 4, seed=1))),
            ("conv2d", "aten.conv2d.default", lambda x, w, b: F.conv2d(x, w, b, dilation=2, groups=2),
             lambda dt: (z(dt, 1, 4, 6, 6), z(dt, 2, 2, 2, 2, seed=1), z(dt, 2, seed=2))),
            ("conv2d_same", "aten.conv2d.padding", lambda x, w, b: F.conv2d(x, w, b, padding="same"),
             lambda dt: (z(dt, 1, 2, 5, 6), z(dt, 3, 2, 2, 3, seed=1), z(dt, 3, seed=2))),
            ("conv3d", "aten.conv3d.default", lambda x, w: F.conv3d(x, w, padding=(1, 0, 1)),
             lambda dt: (z(dt, 1, 2, 3, 3, 3), z(dt, 2, 2, 2, 2, 2, seed=1))),
            ("conv3d_valid", "aten.conv3d.padding", lambda x, w: F.conv3d(x, w, padding="valid"),
             lambda dt: (z(dt, 2, 3, 3, 3), z(dt, 2, 2, 2, 2, 2, seed=1))),
            ("conv_transpose1d", "aten.conv_transpose1d.default",
             lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2),
             lambda dt: (z(dt, 1, 2, 4), z(dt, 2, 3, 3, seed=1), z(dt, 3, seed=2))),
            ("conv_transpose2d", "aten.conv_transpose2d.input",
             lambda x, w: F.conv_transpose2d(x, w, stride=2, groups=2, dilation=(1, 2)),
             lambda dt: (z(dt, 1, 4, 3, 3), z(dt, 4, 1, 2, 2, seed=1))),
            ("conv_transpose3d", "aten.conv_transpose3d.input", lambda x, w: F.conv_transpose3d(x, w, padding=1),
             lambda dt: (z(dt, 2, 2, 3, 3), z(dt, 2, 3, 2, 2, 2, seed=1))),
        ]
    ],
]


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128], ids=["c64", "c128"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_matches_eager(case: Case, dtype: torch.dtype) -> None:
    if (why := case.untraceable()) is not None:
        pytest.xfail(why)
    args = case.args(dtype)
    traced, lowered = check(case.fn, args, pre_dispatch=case.pre_dispatch, tracing_mode=case.tracing_mode)
    ops = (case.op,) if isinstance(case.op, str) else case.op
    seen = traced_ops(traced)
    assert any(op in seen for op in ops), f"{case.name} did not exercise {case.op}: {sorted(seen)}"


@pytest.mark.parametrize("case", [c for c in CASES if c.name in ("mul", "div", "exp", "matmul", "sum_dim")])
def test_rule_truncate_double(case: Case) -> None:
    _, lowered = check(case.fn, case.args(torch.complex128), pre_dispatch=case.pre_dispatch, truncate_double=True)
    for node in lowered.graph.nodes:
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor) and val.is_floating_point():
            assert val.dtype != torch.float64, node.format_node()


def test_rule_table_is_in_c() -> None:
    rules = _core.rules()
    assert len(rules) == len(set(rules))
    assert "aten.view_as_complex.default" in rules and "aten.mul.Tensor" in rules


def test_only_rules_of_removed_ops_go_unexercised() -> None:
    """rules_to_exercise drops a rule only when this torch lacks its op: torch 2.15 removed aten.cholesky and added
    linalg_matrix_sqrth and linalg_polar (tested on 2.15: test_linalg_spectral.py, golden/linalg_sqrth_polar.rf)."""
    assert has_op("aten.mul.Tensor") and has_op("prims.convert_element_type.default")
    assert not has_op("aten.frobnicate.default") and not has_op("aten.mul.NoSuchOverload")
    rules = _core.rules()
    new_in_215 = {"aten.linalg_matrix_sqrth.default", "aten.linalg_polar.default"}
    assert set(rules) - rules_to_exercise(rules) <= {"aten.cholesky.default"} | new_in_215


def test_lower_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        realify.lower(lambda x: x)  # type: ignore[arg-type]


def test_einsum_with_too_many_complex_operands_is_refused() -> None:
    args = tuple(z(torch.complex64, 3, seed=i) for i in range(7))  # 2^7 real einsums would be needed
    gm = make_fx(lambda *a: torch.einsum("i,i,i,i,i,i,i->", *a), pre_dispatch=True)(*args)
    with pytest.raises(realify.UnsupportedOpError) as info:
        realify.lower(gm)
    assert "aten.einsum.default" in str(info.value) and "7 complex operands" in str(info.value)
