"""istft's overlap-add as pads, views and a sum (src/rules/overlap_add.c): the ONNX model loads and runs in ONNX
Runtime and OpenVINO, the lowered program in ExecuTorch (aten.unfold_backward became a ScatterND with int32 indices
that ONNX Runtime refused), and the unfold_backward that make_fx leaves of istft lowers the same way."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import realify
import torch
from torch.fx.experimental.proxy_tensor import make_fx

ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")
warnings.filterwarnings("ignore", message=".*(return_complex|window was not provided|rectangular window).*")

N_FFT, HOP = 16, 4


class Istft(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))

    def forward(self, spec: torch.Tensor) -> torch.Tensor:
        return torch.istft(spec, N_FFT, HOP, window=self.window, length=60)


class InverseSpectrogram(torch.nn.Module):
    """torchaudio's Spectrogram -> magnitude/phase -> InverseSpectrogram, in plain torch."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(wav, N_FFT, HOP, window=self.window, return_complex=True)
        mag, phase = spec.abs(), spec.angle()
        return torch.istft(torch.polar(mag * 0.5, phase), N_FFT, HOP, window=self.window, length=wav.shape[-1])


def cases() -> dict[str, tuple[torch.nn.Module, torch.Tensor]]:
    g = torch.Generator().manual_seed(0)
    spec = torch.stft(torch.randn(2, 60, generator=g), N_FFT, HOP, window=torch.hann_window(N_FFT),
                      return_complex=True).contiguous()  # stft returns a transposed view
    return {"istft": (Istft(), spec), "inverse_spectrogram": (InverseSpectrogram(), torch.randn(2, 70, generator=g))}


def real(x: torch.Tensor) -> torch.Tensor:
    return torch.view_as_real(x) if x.is_complex() else x


@pytest.mark.parametrize("name", ["istft", "inverse_spectrogram"])
def test_istft_onnx_runs_in_onnxruntime_and_openvino(name: str, tmp_path) -> None:
    model, x = cases()[name]
    ref = model(x)
    ep = torch.export.export(model, (x,))
    program = realify.export_onnx(ep, (x,), f=str(tmp_path / "m.onnx"))
    ops = {n.op_type for n in program.model_proto.graph.node}
    assert not ops & {"ScatterND", "ScatterElements"}, ops  # no scatter left of the overlap-add
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {sess.get_inputs()[0].name: real(x).numpy()})
    torch.testing.assert_close(torch.from_numpy(out), ref, rtol=1e-5, atol=1e-5)
    ov = pytest.importorskip("openvino", reason="needs openvino (make test installs it)")
    compiled = ov.Core().compile_model(ov.convert_model(str(tmp_path / "m.onnx")), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32"})
    req = compiled.create_infer_request()
    req.infer([ov.Tensor(real(x).contiguous().numpy())])
    got = torch.from_numpy(np.array(req.get_output_tensor(0).data))
    torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", ["onnx", "openvino", "executorch", "tensorrt"])
def test_istft_lowers_for_every_target_without_unfold_backward(target: str) -> None:
    model, x = cases()["istft"]
    lowered = realify.lower(torch.export.export(model, (x,)), target=target)
    targets = {str(n.target) for n in lowered.graph.nodes if n.op == "call_function"}
    assert not any("unfold" in t or "scatter" in t for t in targets), targets
    torch.testing.assert_close(lowered.module()(real(x)), model(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("size,step,frames", [(10, 2, 6), (6, 4, 3), (4, 6, 3), (8, 8, 2)])
def test_complex_unfold_backward_is_an_overlap_add(size: int, step: int, frames: int) -> None:
    """Window longer, shorter (gaps) or equal to the hop; the frames in the middle of a 3-D input."""
    n = (frames - 1) * step + size + 3  # trailing samples no frame covers: zeros
    g = torch.randn(2, frames, 3, size, dtype=torch.complex64)

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.ops.aten.unfold_backward(x, [2, n, 3], 1, size, step)

    lowered = realify.lower(make_fx(f)(g))
    assert not any("unfold" in str(nd.target) for nd in lowered.graph.nodes)
    torch.testing.assert_close(torch.view_as_complex(lowered(torch.view_as_real(g))), f(g), rtol=1e-6, atol=1e-6)


def test_inverse_spectrogram_runs_in_executorch_with_xnnpack() -> None:
    pytest.importorskip("executorch", reason="needs executorch (make test installs it)")
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.runtime import Runtime

    model, x = cases()["inverse_spectrogram"]
    lowered = realify.lower(torch.export.export(model, (x,)), target="executorch")
    edge = to_edge_transform_and_lower(lowered, partitioner=[XnnpackPartitioner()])
    buffer = edge.to_executorch().buffer  # held while the program runs: the runtime reads it in place
    (out,) = Runtime.get().load_program(buffer).load_method("forward").execute([x])
    torch.testing.assert_close(out, model(x), rtol=1e-5, atol=1e-5)
