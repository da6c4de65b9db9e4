"""The property TensorRT needs, checked another way: the lowered graph exports to ONNX with no complex
dtype anywhere and runs in ONNX Runtime with the same numbers as eager PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import realify
import torch
from realify_examples import llama3

onnx = pytest.importorskip("onnx", reason="needs the onnx package (make test installs it)")
ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")

COMPLEX_ONNX_TYPES = {onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128}


def elem_types(model: onnx.ModelProto) -> set[int]:
    g = model.graph
    types = {vi.type.tensor_type.elem_type for vi in list(g.value_info) + list(g.input) + list(g.output)}
    types |= {init.data_type for init in g.initializer}
    for node in g.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR:
                types.add(attr.t.data_type)
            if attr.name in ("to", "dtype"):
                types.add(attr.i)
    return types


def run_onnx(ep: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> tuple[set[int], list[np.ndarray]]:
    model = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args, strict=True)}
    return elem_types(model), sess.run(None, feeds)


def test_lowered_llama_runs_in_onnxruntime() -> None:
    cfg = llama3.ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128, multiple_of=16, max_seq_len=32)
    model = llama3.build(cfg, seed=0)
    tokens = torch.randint(0, cfg.vocab_size, (2, 16), generator=torch.Generator().manual_seed(0))
    lowered = realify.lower(torch.export.export(model, (tokens,)))
    types, (logits,) = run_onnx(lowered, (tokens,))
    assert not types & COMPLEX_ONNX_TYPES, types
    ref = model(tokens).detach().numpy()
    assert np.abs(logits - ref).max() / np.abs(ref).max() <= 1e-5


class SpectralFilter(torch.nn.Module):
    """rfft, a complex weight per frequency, irfft: the FFT path end to end."""

    def __init__(self, n: int) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.weight = torch.nn.Parameter(torch.randn(n // 2 + 1, dtype=torch.complex64, generator=g))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * self.weight, n=x.shape[-1])


def test_lowered_fft_model_runs_in_onnxruntime() -> None:
    model = SpectralFilter(48)
    x = torch.randn(3, 48, generator=torch.Generator().manual_seed(2))
    lowered = realify.lower(torch.export.export(model, (x,)))
    types, (out,) = run_onnx(lowered, (x,))
    assert not types & COMPLEX_ONNX_TYPES, types
    ref = model(x).detach().numpy()
    assert np.abs(out - ref).max() / np.abs(ref).max() <= 1e-5
