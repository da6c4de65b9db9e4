"""Deploy (b): OpenVINO convert_model on the lowered ExportedProgram and on its ONNX file, compiled for CPU with
an f32 precision hint, compared with eager."""

from __future__ import annotations

import pytest
import torch
from deploy_support import lowered, onnx_model, run_openvino, zoo_params
from realify_examples import zoo

ov = pytest.importorskip("openvino", reason="needs openvino (make test installs it)")


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
