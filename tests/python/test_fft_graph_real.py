"""The graph targets' real transforms (target="onnx"/"openvino", src/fft/graph_real.c): an even, Cooley-Tukey
sized rfft or irfft is two matmuls and a transpose, with no flips or twiddle multiplies between them, a zero-padded
input skips its zero rows, and the numbers stay within 2e-6 of torch.fft (against a float64 reference, at most a
few times eager float32's own error)."""

from __future__ import annotations

import collections

import pytest
import realify
import torch
from realify_examples import zoo

onnx = pytest.importorskip("onnx", reason="needs the onnx package (make test installs it)")
ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")


class Rfft(torch.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.fft.rfft(x, n=self.n))


class Irfft(torch.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.view_as_complex(x), n=self.n)


def rel(ref: torch.Tensor, got: torch.Tensor) -> float:
    return ((got.double() - ref).abs().max() / ref.abs().max()).item()


def kinds(ep: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> collections.Counter:
    proto = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    return collections.Counter(n.op_type for n in proto.graph.node)


# (input shape, n): batch dims of every rank, padded and cropped inputs, n = 2 * odd, a large n
CASES = [((3, 5, 1024), 2048), ((7, 256), 256), ((1000,), 1000), ((2, 3, 300), 512), ((2, 4096), 4096),
         ((6, 130), 130), ((4, 700), 512)]


@pytest.mark.parametrize(("shape", "n"), CASES)
def test_rfft_irfft_two_stages_within_2e6(shape: tuple[int, ...], n: int) -> None:
    g = torch.Generator().manual_seed(n)
    x = torch.randn(*shape, generator=g)
    spec = torch.view_as_real(torch.fft.rfft(torch.randn(*shape[:-1], n, generator=g)))
    spec[..., 0, 1] = 0.5  # torch ignores Im X[0] (and Im X[n/2]); so must the tables
    spec[..., -1, 1] = -0.25
    for model, arg, ref in [
        (Rfft(n), x, torch.view_as_real(torch.fft.rfft(x.double(), n=n))),
        (Irfft(n), spec, torch.fft.irfft(torch.view_as_complex(spec.double()), n=n)),
    ]:
        ep = realify.lower(torch.export.export(model.eval(), (arg,)), target="onnx")
        got = ep.module()(arg)
        assert rel(ref, got) <= 2e-6, (type(model).__name__, rel(ref, got))
        k = kinds(ep, (arg,))
        # irfft's 1/n is the one Mul; no twiddle, packing or Hermitian-mask passes
        assert k["MatMul"] == 2 and k["Mul"] == (isinstance(model, Irfft)) and k["Add"] == 0, k
        assert k["Transpose"] <= 2, k


def test_hyena_skips_the_zero_pad_and_runs_in_ort() -> None:
    """Hyena's rfft(u, n=2L): the padded half never reaches a matmul (no Pad of u in the graph), and ONNX
    Runtime matches eager."""
    model = zoo.HyenaFFTConv(8, 1024).eval()
    u = torch.randn(2, 8, 1024, generator=torch.Generator().manual_seed(3))
    ep = realify.lower(torch.export.export(model, (u,)), target="onnx")
    proto = torch.onnx.export(ep, (u,), dynamo=True, verbose=False).model_proto
    assert not [n for n in proto.graph.node if n.op_type == "Pad" and n.input[0] == proto.graph.input[0].name]
    with torch.no_grad():
        ref = model(u)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {proto.graph.input[0].name: u.numpy()})
    assert zoo.max_rel_error(ref, torch.from_numpy(out)) <= 2e-6


def test_portable_target_keeps_the_packed_transform() -> None:
    """Only graph targets take the two-stage form: the portable lowering keeps its packed half-length plan."""
    x = torch.randn(4, 2048)
    ep = realify.lower(torch.export.export(Rfft(2048).eval(), (x,)))
    assert not any("grfft" in str(n.target) or "grfft" in n.name for n in ep.graph.nodes)
    k = kinds(ep, (x,))
    assert k["MatMul"] > 2 or k["Mul"] > 0, k
