"""Deploy (a): lowered zoo model -> torch.onnx.export -> onnx.checker -> ONNX Runtime CPU, compared with eager.
The ONNX model holds no complex type (and no DOUBLE unless complex128 was kept), and uses only ONNX operators
TensorRT 10's ONNX parser accepts."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest
import realify
import torch
from deploy_support import TENSORRT_ONNX_OPS, keeps_double, lowered, onnx_model, run_openvino, zoo_params
from realify_examples import zoo

onnx = pytest.importorskip("onnx", reason="needs the onnx package (make test installs it)")
ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")

from test_onnx import elem_types  # noqa: E402  (after the skips: it needs onnx and onnxscript too)

P = onnx.TensorProto


def run_ort(model: onnx.ModelProto, args: tuple) -> list[np.ndarray]:
    sess = realify.onnxruntime_session(model.SerializeToString())
    feeds = {i.name: a.detach().numpy() for i, a in zip(sess.get_inputs(), args, strict=True)}
    return sess.run(None, feeds)


def bf16_free(args: tuple) -> bool:
    return all(a.dtype != torch.bfloat16 for a in args)


# complex128 kept as float64 lowers phase math to atan2 in double: ONNX Runtime's CPU provider has no double Atan
# kernel (deploy such a model with truncate_double=True, which phase_math_c128_truncated checks).
KNOWN = {
    "phase_math_c128": (ort.capi.onnxruntime_pybind11_state.NotImplemented, "ONNX Runtime has no double Atan"),
}


@pytest.mark.parametrize("name", zoo_params(KNOWN))
def test_zoo_model_exports_to_onnx_and_runs_in_onnxruntime(name: str) -> None:
    lw = lowered(name)
    model = onnx_model(name)
    types = elem_types(model)
    assert not types & {P.COMPLEX64, P.COMPLEX128}, types
    if not keeps_double(lw.entry):
        assert P.DOUBLE not in types, f"{name}: a float64 value in the ONNX model"
    ops = {n.op_type for n in model.graph.node}
    assert ops <= TENSORRT_ONNX_OPS, (
        f"{name}: ONNX operators TensorRT's parser rejects: {sorted(ops - TENSORRT_ONNX_OPS)}"
    )
    if not bf16_free(lw.real_args):
        pytest.skip("numpy has no bfloat16: ONNX Runtime cannot be fed this model's inputs from numpy")
    outs = run_ort(model, lw.real_args)
    err = zoo.max_rel_error(lw.reference, [torch.from_numpy(o) for o in outs])
    assert err <= max(lw.entry.rtol, 1e-5), f"{name}: ONNX Runtime differs from eager by {err:.3g}"


class _ResidualNorm(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return self.norm(a + b)


def _optimized_ops(tmp_path, make_session) -> set[str]:  # type: ignore[no-untyped-def]
    """The op types of the graph ONNX Runtime runs for a session from make_session; its output checked."""
    args = (torch.randn(2, 5, 16), torch.randn(2, 5, 16))
    src = tmp_path / "residual_norm.onnx"

    with contextlib.redirect_stdout(io.StringIO()):
        torch.onnx.export(_ResidualNorm(), args, str(src), dynamo=True, verbose=False)
    opts = ort.SessionOptions()
    opts.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    sess = make_session(str(src), opts)
    outs = sess.run(None, {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args, strict=True)})
    ref = _ResidualNorm()(*args).detach().numpy()
    np.testing.assert_allclose(outs[0], ref, rtol=1e-5, atol=1e-5)
    return {n.op_type for n in onnx.load(opts.optimized_model_filepath).graph.node}


def test_onnxruntime_session_keeps_add_and_layer_norm_apart_on_cpu(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """ONNX Runtime's SkipLayerNormalization ran rank-3 inputs 6-8x slower than Add + LayerNormalization
    (realify/ort_session.py): realify's sessions keep the two nodes, a default session fuses them."""
    default_ops = _optimized_ops(
        tmp_path, lambda f, o: ort.InferenceSession(f, o, providers=["CPUExecutionProvider"])
    )
    assert "SkipLayerNormalization" in default_ops, default_ops  # the fusion this guards against still exists
    ops = _optimized_ops(tmp_path, realify.onnxruntime_session)
    assert "SkipLayerNormalization" not in ops and "LayerNormalization" in ops, ops


class _Unary(torch.nn.Module):
    def __init__(self, fn) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self.fn = fn

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        out = self.fn(z)
        return torch.view_as_real(out) if out.is_complex() else out


def _special_grid() -> torch.Tensor:
    inf, nan, big = float("inf"), float("nan"), 3e38
    parts = [0.0, -0.0, 1.0, -2.5, 1e-30, big, -big / 3, inf, -inf, nan]
    re, im = zip(*[(a, b) for a in parts for b in parts], strict=True)
    return torch.complex(torch.tensor(re), torch.tensor(im))


# Runtime defects the lowering cannot route around, each checked to still be there (strict xfail): the lowered FX
# graph gives eager's values in both cases (test_signed_zeros, test_edge_values).
ORT_WHERE_NEG_ZERO = "ONNX Runtime 1.32's Where gives +0 where it selects a -0 from its first branch (scalings, cases)"
OV_EXP_NAN = "OpenVINO 2026.4's Exp(nan) is +inf"
# eager's 1j * x has imaginary part x + 0 (+0 for x = -0), and the lowering writes that Add; torch.onnx's optimizer
# and ONNX Runtime's basic graph optimizations both delete Add(x, 0) as a no-op, so sin(-0) = -0 comes out
EXP_IMAG_ZERO = "torch.onnx's optimizer and ORT's graph optimizations delete Add(x, 0), which turns -0 into +0"
SPECIAL_CASES = {
    "abs": (torch.abs, None, None),
    "abs_square": (lambda z: z.abs() ** 2, None, None),
    "exp": (torch.exp, ORT_WHERE_NEG_ZERO, OV_EXP_NAN),
    "exp_imag": (lambda z: torch.exp(1j * z.real), EXP_IMAG_ZERO, EXP_IMAG_ZERO),
    "log": (torch.log, None, None),
    "sqrt": (torch.sqrt, ORT_WHERE_NEG_ZERO, None),
}


def _special_params() -> list:
    params = []
    for runtime in ("onnxruntime", "openvino"):
        for name, (_, ort_bug, ov_bug) in SPECIAL_CASES.items():
            bug = ort_bug if runtime == "onnxruntime" else ov_bug
            marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
            params.append(pytest.param(runtime, name, marks=marks, id=f"{runtime}-{name}"))
    return params


@pytest.mark.parametrize("runtime, name", _special_params())
def test_special_values_survive_the_runtime(runtime: str, name: str) -> None:
    """The graph-target forms (atan2 from Atan on [0, 1], NaN-sticky Max and Min, hypot with one Where, copysign
    with its negative branch second, the abs_square and exp_imag patterns) give eager's infinities, nans and signed
    zeros in the runtimes themselves, not only in the lowered FX graph."""
    z = _special_grid()
    model = _Unary(SPECIAL_CASES[name][0])
    ep = realify.lower(torch.export.export(model, (z,)), target="onnx")
    args = (torch.view_as_real(z),)
    with contextlib.redirect_stdout(io.StringIO()):
        proto = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    if runtime == "onnxruntime":
        got = torch.from_numpy(run_ort(proto, args)[0])
    else:
        ov = pytest.importorskip("openvino", reason="needs openvino (make test installs it)")
        got = run_openvino(ov.Core().read_model(proto.SerializeToString()), args)[0]
    want = model(z)
    assert torch.equal(got.isnan(), want.isnan()), f"{name}: nan where eager has none, or none where it has"
    assert torch.equal(got.isinf(), want.isinf()), f"{name}: inf where eager has none, or none where it has"
    assert torch.equal(got[got.isinf()], want[want.isinf()]), f"{name}: an infinity of the other sign"
    zero = want == 0
    assert torch.equal(torch.signbit(got[zero]), torch.signbit(want[zero])), f"{name}: a zero of the other sign"
    finite = want.isfinite()
    torch.testing.assert_close(got[finite], want[finite], rtol=2e-6, atol=1e-30)
