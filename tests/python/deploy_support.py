"""Shared by the test_deploy_* files: the zoo lowered once per model, and facts about the targets."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import pytest
import realify
import torch
from realify_examples import zoo


def run_openvino(model: object, args: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    """An OpenVINO model (from convert_model or read_model) compiled for CPU with an f32 precision hint, run on
    torch tensors (bfloat16 handed over as raw bits, numpy having none); its outputs as torch tensors."""
    import numpy as np
    import openvino as ov

    def to_ov(a: torch.Tensor) -> object:
        if a.dtype == torch.bfloat16:
            return ov.Tensor(a.contiguous().view(torch.int16).numpy(), list(a.shape), ov.Type.bf16)
        return ov.Tensor(a.contiguous().numpy())

    def from_ov(t: object) -> torch.Tensor:
        if t.element_type == ov.Type.bf16:
            return torch.from_numpy(np.array(t.data).view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(np.array(t.data))

    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer([to_ov(a) for a in args])
    return [from_ov(request.get_output_tensor(i)) for i in range(len(compiled.outputs))]


# ONNX operators that TensorRT 10's ONNX parser accepts (onnx/onnx-tensorrt docs/operators.md, rows marked Y;
# opsets 9 to 20), recorded by us.
TENSORRT_ONNX_OPS = frozenset(
    """Abs Acos Acosh Add And ArgMax ArgMin Asin Asinh Atan Atanh AveragePool BatchNormalization Cast CastLike Ceil
    Celu Clip Concat Constant ConstantOfShape Conv ConvTranspose Cos Cosh CumSum DeformConv DepthToSpace
    DequantizeLinear Div Dropout Einsum Elu Equal Erf Exp Expand EyeLike Flatten Floor Gather GatherElements GatherND
    Gelu Gemm GlobalAveragePool GlobalLpPool GlobalMaxPool Greater GreaterOrEqual GridSample GroupNormalization GRU
    HardSigmoid HardSwish Hardmax Identity If ImageScaler InstanceNormalization IsInf IsNaN LayerNormalization
    LeakyRelu Less LessOrEqual Log LogSoftmax Loop LRN LSTM LpNormalization LpPool MatMul Max MaxPool Mean
    MeanVarianceNormalization Min Mish Mod Mul Neg NonMaxSuppression NonZero Not OneHot Or Pad ParametricSoftplus Pow
    PRelu QuantizeLinear RandomNormal RandomNormalLike RandomUniform RandomUniformLike Range Reciprocal ReduceLogSum
    ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare Relu Reshape Resize
    ReverseSequence RNN RoiAlign Round ScaledTanh Scan Scatter ScatterElements ScatterND Selu Shape Shrink Sigmoid
    Sign Sin Sinh Size Slice Softmax Softplus Softsign SpaceToDepth Split Sqrt Squeeze Sub Sum Tan Tanh
    ThresholdedRelu Tile TopK Transpose Trilu Unsqueeze Upsample Where Xor""".split()
)


@dataclass
class Lowered:
    entry: zoo.ZooEntry
    model: torch.nn.Module
    args: tuple[torch.Tensor, ...]
    real_args: tuple[torch.Tensor, ...]
    program: torch.export.ExportedProgram
    reference: object


@functools.cache
def lowered(name: str) -> Lowered:
    e = zoo.entry(name)
    model = e.make().eval()
    args = e.inputs()
    program = realify.lower(torch.export.export(model, args), truncate_double=e.truncate_double)
    with torch.no_grad():
        ref = model(*args)
    return Lowered(e, model, args, zoo.real_inputs(e, args), program, ref)


def zoo_params(extra_xfail: dict[str, tuple[type[BaseException], str]] | None = None) -> list:
    """One param per zoo model. A model that realify cannot lower yet, or that the target rejects for a known
    reason (extra_xfail), is a strict xfail: when it starts passing, the mark must go."""
    params = []
    for e in zoo.ZOO:
        fail = e.known_failure or (extra_xfail or {}).get(e.name)
        marks = [pytest.mark.xfail(raises=fail[0], strict=True, reason=fail[1])] if fail else []
        params.append(pytest.param(e.name, marks=marks, id=e.name))
    return params


def keeps_double(e: zoo.ZooEntry) -> bool:
    """complex128 without truncate_double lowers to float64 on purpose."""
    return not e.truncate_double and any(a.dtype == torch.complex128 for a in e.inputs())


@functools.cache
def onnx_model(name: str) -> object:
    """The lowered model exported by torch.onnx (dynamo exporter) and checked by onnx.checker."""
    import onnx

    lw = lowered(name)
    model = torch.onnx.export(lw.program, lw.real_args, dynamo=True, verbose=False, optimize=True).model_proto
    onnx.checker.check_model(model, full_check=True)
    return model
