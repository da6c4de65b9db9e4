"""x.to(dtype) under torch.export records an aten._assert_tensor_metadata; with an in-place op in the same program,
realify.lower functionalizes it first (ep.run_decompositions, or the retrace of ep.module()), and the check comes back
as a new node with another name. It is the user's own real op all the same: legality is judged by provenance in the C
core (src/lower/legality.c), so the check passes through for every target, and ONNX Runtime runs the result."""

from __future__ import annotations

import pytest
import realify
import torch
from harness import assert_real_only
from realify.targets import TARGETS


class CastScaleSpectrum(torch.nn.Module):
    """A cast with .to, an in-place scale of its result, then complex work (a complex buffer and an FFT)."""

    def __init__(self) -> None:
        super().__init__()
        angles = torch.linspace(0, 3, 4)
        self.register_buffer("phase", torch.polar(torch.ones(4), angles))

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        y = x.to(torch.float32)
        y.mul_(2)
        zc = torch.view_as_complex(y.reshape(*y.shape[:-1], -1, 2)) * self.phase
        spec = torch.fft.fft(zc, dim=-1)
        return torch.view_as_real(spec).flatten(-2) + h.to(torch.float32)


def inputs() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return torch.randn(2, 3, 8, dtype=torch.float64, generator=g), torch.randn(2, 3, 8, generator=g)


def checks(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.target is torch.ops.aten._assert_tensor_metadata.default]


def test_the_program_is_what_this_test_is_about() -> None:
    """torch.export records the checks and keeps mul_; functionalization renames the checks it rebuilds."""
    ep = torch.export.export(CastScaleSpectrum(), inputs())
    before = {n.name for n in checks(ep.graph_module)}
    assert len(before) == 2
    assert any(n.target is torch.ops.aten.mul_.Tensor for n in ep.graph_module.graph.nodes)
    after = {n.name for n in checks(ep.run_decompositions({}).graph_module)}
    assert len(after) == 2 and after != before


@pytest.mark.parametrize("target", list(TARGETS))
def test_exported_program_lowers_for_every_target(target: str) -> None:
    model, args = CastScaleSpectrum(), inputs()
    low = realify.lower(torch.export.export(model, args), target=target)
    assert_real_only(low.module())
    torch.testing.assert_close(low.module()(*args), model(*args), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", list(TARGETS))
def test_unlifted_module_lowers_for_every_target(target: str) -> None:
    """The checks survive as the user's ops, with their source line."""
    model, args = CastScaleSpectrum(), inputs()
    low = realify.lower(torch.export.export(model, args).module(), target=target)
    assert_real_only(low)
    kept = checks(low)
    assert len(kept) == 2 and all("x.to(torch.float32)" in n.meta.get("stack_trace", "") or
                                  "h.to(torch.float32)" in n.meta.get("stack_trace", "") for n in kept)
    torch.testing.assert_close(low(*args), model(*args), rtol=1e-5, atol=1e-5)


def test_export_onnx_runs_in_onnxruntime() -> None:
    pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")
    import onnxruntime as ort

    model, args = CastScaleSpectrum(), inputs()
    program = realify.export_onnx(torch.export.export(model, args), args)
    sess = ort.InferenceSession(program.model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args, strict=True)}
    (got,) = sess.run(None, feeds)
    torch.testing.assert_close(torch.from_numpy(got), model(*args), rtol=1e-5, atol=1e-5)
