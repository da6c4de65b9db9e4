"""fft="onnx-dft": every transform becomes forward realify.dft calls (ONNX DFT's semantics, one axis each), and
realify.export_onnx(..., fft="onnx-dft") turns each into one ONNX DFT node that ONNX Runtime runs, with no complex
dtype anywhere."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import realify
import torch
from realify import onnx_export, onnx_ops
from realify.errors import TargetOpError
from realify_examples import zoo
from test_fft_native import CASES, _real_args
from torch.fx.experimental.proxy_tensor import make_fx

DFT = torch.ops.realify.dft.default

# More than test_fft_native's: odd and even c2r lengths, ihfft, a real signal's inverse, dim 0, stft.
MORE: dict[str, tuple[Callable[..., Any], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "irfft_even": (lambda x: torch.fft.irfft(torch.fft.rfft(x) * 3), lambda: (torch.randn(3, 10),)),
    "irfft_pad": (lambda z: torch.fft.irfft(z, n=12), lambda: (torch.randn(2, 4, dtype=torch.complex64),)),
    "ihfft": (lambda x: torch.fft.ihfft(x, norm="forward"), lambda: (torch.randn(3, 7),)),
    "ifft_of_real": (lambda x: torch.fft.ifft(x), lambda: (torch.randn(3, 7),)),
    "fft_dim0": (lambda z: torch.fft.fft(z, dim=0), lambda: (torch.randn(6, 3, dtype=torch.complex64),)),
    "rfftn_3d": (lambda x: torch.fft.rfftn(x, dim=(0, 1, 2)), lambda: (torch.randn(4, 5, 6),)),
    "stft": (lambda x: torch.stft(x, 16, hop_length=4, window=torch.hann_window(16), return_complex=True),
             lambda: (torch.randn(2, 64),)),
}
ALL = {**CASES, **MORE}


def _dft_count(gm: torch.fx.GraphModule) -> int:
    return sum(1 for n in gm.graph.nodes if n.target is DFT)


@pytest.mark.parametrize("name", sorted(ALL))
def test_onnx_dft_lowering_matches_eager(name: str) -> None:
    fn, make = ALL[name]
    args = make()
    low = realify.lower(make_fx(fn)(*args), fft="onnx-dft", target="onnx")
    assert _dft_count(low) >= 1
    fft_ops = {str(n.target) for n in low.graph.nodes if n.op == "call_function" and "fft" in str(n.target)}
    assert not fft_ops, fft_ops  # no aten FFT and no realify.fft_*: only realify.dft
    realify.check_real_only(low)
    ref = fn(*args)
    out = low(*_real_args(args))
    got = torch.view_as_complex(out) if ref.is_complex() else out
    tol = 1e-12 if ref.dtype in (torch.float64, torch.complex128) else 2e-6
    torch.testing.assert_close(got, ref, rtol=tol, atol=tol)


def test_one_call_per_transformed_axis_and_no_inverse() -> None:
    z = torch.randn(2, 6, 5, dtype=torch.complex64)
    low = realify.lower(make_fx(lambda z: torch.fft.ifftn(z, dim=(0, 1, 2)))(z), fft="onnx-dft")
    calls = [n for n in low.graph.nodes if n.target is DFT]
    assert sorted(n.args[1] if len(n.args) > 1 else n.kwargs["axis"] for n in calls) == [0, 1, 2]


@pytest.mark.parametrize("case", ["real_onesided", "real_full", "complex", "axis0", "bf16"])
def test_dft_kernel_is_onnx_dft(case: str) -> None:
    g = torch.Generator().manual_seed(3)
    if case == "complex":
        x, axis, onesided = torch.randn(3, 8, 2, generator=g), 1, False
    elif case == "axis0":
        x, axis, onesided = torch.randn(5, 4, 2, generator=g), 0, False
    else:
        x, axis, onesided = torch.randn(3, 9, 1, generator=g), 1, case == "real_onesided"
    if case == "bf16":
        x = x.to(torch.bfloat16)
    torch.library.opcheck(DFT, (x, axis, onesided))
    got = DFT(x, axis, onesided)
    # numpy's FFT as the reference, on ONNX DFT's definition of the operands
    xn = x.float().numpy()
    sig = xn[..., 0] if xn.shape[-1] == 1 else xn[..., 0] + 1j * xn[..., 1]
    ref = np.fft.fft(sig, axis=axis)
    if onesided:
        ref = np.take(ref, range(sig.shape[axis] // 2 + 1), axis=axis)
    ref_t = torch.from_numpy(np.stack([ref.real, ref.imag], -1)).float()
    assert got.dtype == x.dtype and got.shape == ref_t.shape
    tol = 5e-2 if case == "bf16" else 1e-5
    torch.testing.assert_close(got.float(), ref_t, rtol=tol, atol=tol)


def test_dynamic_batch_exported_program() -> None:
    class M(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.fft.irfft(torch.fft.rfft(x) * 0.5, n=16)

    ep = torch.export.export(M(), (torch.randn(3, 16),), dynamic_shapes={"x": {0: torch.export.Dim("b")}})
    low = realify.lower(ep, fft="onnx-dft")
    assert _dft_count(low.graph_module) == 2
    x5 = torch.randn(5, 16)
    torch.testing.assert_close(low.module()(x5), M()(x5), rtol=1e-6, atol=1e-6)


def test_strategy_is_checked_against_the_target() -> None:
    gm = make_fx(lambda x: torch.fft.rfft(x).abs())(torch.randn(2, 8))
    realify.lower(gm, fft="onnx-dft", target="onnx")
    with pytest.raises(TargetOpError, match="realify.dft"):  # Torch-TensorRT has no converter for it
        realify.lower(gm, fft="onnx-dft", target="tensorrt")


def test_opset_and_strategy_for_onnx() -> None:
    assert onnx_export.fft_strategy("auto", 20) == "matmul"  # faster in ONNX Runtime (bench/onnx_fft.py)
    assert onnx_export.fft_strategy("onnx-dft", 17) == "onnx-dft"
    with pytest.raises(ValueError, match="opset >= 17"):
        onnx_export.fft_strategy("onnx-dft", 16)  # no DFT before opset 17
    with pytest.raises(ValueError, match="fft must be one of"):
        onnx_export.fft_strategy("cufft", 20)
    assert not onnx_ops.translation_table(16)
    assert set(onnx_ops.translation_table(18)) == {DFT}
    assert len(onnx_ops.translation_table(23)) == 2  # DFT and RotaryEmbedding


# ONNX Runtime: the zoo's FFT models and the cases above, exported with DFT nodes.
ORT_ZOO = ["fnet", "fno_spectral", "log_mel", "hyena_fft_conv", "mri_recon"]
ORT_CASES = ["rfft_irfft", "irfft_even", "fft_dim0", "ifft2", "hfft", "fft_c128", "stft"]


def _onnx_modules() -> tuple[Any, Any]:
    onnx = pytest.importorskip("onnx", reason="needs the onnx package (make test installs it)")
    ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript")
    return onnx, ort


def _export_and_run(model: torch.nn.Module, args: tuple[torch.Tensor, ...], real: tuple[torch.Tensor, ...],
                    **kw: Any) -> tuple[list[str], list[torch.Tensor], Any]:
    onnx, ort = _onnx_modules()
    with contextlib.redirect_stdout(io.StringIO()):  # the exporter prints its progress
        prog = realify.export_onnx(torch.export.export(model, args), args, **kw)
    proto = prog.model_proto
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    outs = sess.run(None, {i.name: a.numpy() for i, a in zip(sess.get_inputs(), real, strict=True)})
    types = {v.type.tensor_type.elem_type for v in [*proto.graph.input, *proto.graph.output, *proto.graph.value_info]}
    assert not types & {onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128}
    return [n.op_type for n in proto.graph.node], [torch.from_numpy(o) for o in outs], proto


@pytest.mark.parametrize("opset", [18, 20])
@pytest.mark.parametrize("name", ORT_ZOO)
def test_zoo_models_run_in_onnx_runtime_with_dft_nodes(name: str, opset: int) -> None:
    e = zoo.entry(name)
    model, args = e.make(), e.inputs()
    ops, outs, _ = _export_and_run(model, args, zoo.real_inputs(e, args), opset_version=opset, fft="onnx-dft")
    assert ops.count("DFT") >= 1
    assert zoo.max_rel_error(model(*args), outs) <= e.rtol


class _Fn(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: torch.Tensor) -> Any:
        return self.fn(*args)


@pytest.mark.parametrize("name", ORT_CASES)
def test_transforms_run_in_onnx_runtime(name: str) -> None:
    fn, make = ALL[name]
    args = make()
    ops, outs, _ = _export_and_run(_Fn(fn), args, tuple(_real_args(args)), fft="onnx-dft")
    assert ops.count("DFT") >= 1
    ref = fn(*args)
    ref_r = torch.view_as_real(ref) if ref.is_complex() else ref
    tol = 1e-10 if ref_r.dtype == torch.float64 else 2e-5
    torch.testing.assert_close(outs[0], ref_r, rtol=tol, atol=tol * ref_r.abs().max().item())


def test_default_strategy_exports_matmuls_without_dft() -> None:
    e = zoo.entry("fnet")
    model, args = e.make(), e.inputs()
    ops, outs, _ = _export_and_run(model, args, zoo.real_inputs(e, args), opset_version=18)
    assert "DFT" not in ops and "MatMul" in ops
    assert zoo.max_rel_error(model(*args), outs) <= e.rtol


@pytest.mark.parametrize("fft", ["matmul", "onnx-dft"])
def test_dft_matmuls_are_named_in_the_models_metadata(fft: str, tmp_path: Any) -> None:
    """TensorRT builds with TF32 unless told not to; a model whose FFTs are DFT matmuls says so, in the saved file
    too (f=...). DFT nodes are not matmuls and need no such word."""
    onnx, _ = _onnx_modules()
    model, args = _Fn(lambda x: torch.fft.rfft(x).abs()), (torch.randn(2, 64),)
    path = tmp_path / "m.onnx"
    with contextlib.redirect_stdout(io.StringIO()):
        prog = realify.export_onnx(torch.export.export(model, args), args, fft=fft, f=str(path))
    saved = {p.key: p.value for p in onnx.load(str(path)).metadata_props}
    in_memory = {p.key: p.value for p in prog.model_proto.metadata_props}
    assert saved == in_memory
    if fft == "matmul":
        assert "1 FFT op(s)" in saved[onnx_export.DFT_MATMULS_KEY] and "TF32" in saved[onnx_export.DFT_MATMULS_KEY]
    else:
        assert onnx_export.DFT_MATMULS_KEY not in saved
