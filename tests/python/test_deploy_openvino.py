"""Deploy (b): OpenVINO convert_model on the lowered ExportedProgram and on its ONNX file, compiled for CPU with
an f32 precision hint, compared with eager."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from deploy_support import lowered, onnx_model, zoo_params
from realify_examples import zoo

ov = pytest.importorskip("openvino", reason="needs openvino (make test installs it)")


def to_ov(a: torch.Tensor) -> object:
    if a.dtype == torch.bfloat16:  # numpy has no bfloat16: hand OpenVINO the raw bits
        return ov.Tensor(a.contiguous().view(torch.int16).numpy(), list(a.shape), ov.Type.bf16)
    return ov.Tensor(a.contiguous().numpy())


def from_ov(t: object) -> torch.Tensor:
    if t.element_type == ov.Type.bf16:
        return torch.from_numpy(np.array(t.data).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.array(t.data))


def run_openvino(model: object, args: tuple[torch.Tensor, ...]) -> list[torch.Tensor]:
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer([to_ov(a) for a in args])
    return [from_ov(request.get_output_tensor(i)) for i in range(len(compiled.outputs))]


def check(name: str, outs: list[torch.Tensor], what: str) -> None:
    lw = lowered(name)
    err = zoo.max_rel_error(lw.reference, outs)
    assert err <= max(lw.entry.rtol, 1e-5), f"{name} ({what}): OpenVINO differs from eager by {err:.3g}"


@pytest.mark.parametrize("name", zoo_params())
def test_openvino_converts_the_lowered_program(name: str) -> None:
    lw = lowered(name)
    model = ov.convert_model(lw.program, example_input=lw.real_args)
    check(name, run_openvino(model, lw.real_args), "ExportedProgram")


@pytest.mark.parametrize("name", zoo_params())
def test_openvino_converts_the_onnx_file(name: str, tmp_path) -> None:
    lw = lowered(name)
    path = tmp_path / f"{name}.onnx"
    path.write_bytes(onnx_model(name).SerializeToString())
    check(name, run_openvino(ov.convert_model(str(path)), lw.real_args), "ONNX")
