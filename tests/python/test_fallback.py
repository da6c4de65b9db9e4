"""fallback="eager" (opt-in; default "error"): an op realify cannot lower (general eig) runs as the original complex
op in a graph break (realify::eager_call) that the report lists and an EagerFallbackWarning names, through
realify.lower of a GraphModule and the torch.compile backend; the results equal eager's. A lowering for a deploy
target, and an ExportedProgram, still raise; a bad value fails at the API boundary."""

from __future__ import annotations

import pytest
import realify
import torch
from harness import assert_real_only
from torch.fx.experimental.proxy_tensor import make_fx


class Spectrum(torch.nn.Module):
    """General eigenvalues of a real matrix (complex results), and of a complex one, between lowered complex work."""

    def forward(self, a: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        w, v = torch.linalg.eig(a)
        phased = a * z.sum().abs() + 1j * a.t()
        return (w * z[0]).sum() + v.sum(0), torch.linalg.eigvals(phased).abs().sort().values


def inputs() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return torch.randn(4, 4, generator=g), torch.randn(4, dtype=torch.complex64, generator=g)


def eager_calls(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.target is torch.ops.realify.eager_call.default]


def test_default_is_error_and_names_the_op_and_line() -> None:
    gm = torch.export.export(Spectrum(), inputs()).module()
    with pytest.raises(realify.UnsupportedOpError) as info:
        realify.lower(gm)
    assert info.value.op == "aten.linalg_eig.default" and "torch.linalg.eig(a)" in (info.value.source or "")


def test_graph_module_falls_back_with_warning_and_report() -> None:
    model, args = Spectrum(), inputs()
    gm = torch.export.export(model, args).module()
    code = gm.code
    with pytest.warns(realify.EagerFallbackWarning, match=r"aten\.linalg_eig\.default.*torch\.linalg\.eig\(a\)"):
        low, report = realify.lower_graph_module(gm, fallback="eager")
    assert gm.code == code, "the input graph was changed"
    assert_real_only(low)
    assert len(eager_calls(low)) == 2
    # torch.export keeps eigvals whole
    assert [f.op for f in report.eager_fallbacks] == ["aten.linalg_eig.default", "aten.linalg_eigvals.default"]
    assert all(f.source and "forward" in f.source for f in report.eager_fallbacks)
    got, want = low(args[0], torch.view_as_real(args[1])), model(*args)
    torch.testing.assert_close(torch.view_as_complex(got[0]), want[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got[1], want[1], rtol=1e-5, atol=1e-5)


def test_make_fx_graph_through_lower() -> None:
    model, args = Spectrum(), inputs()
    with pytest.warns(realify.EagerFallbackWarning):
        low = realify.lower(make_fx(model)(*args), fallback="eager")
    assert len(eager_calls(low)) == 2
    got = low(args[0], torch.view_as_real(args[1]))
    torch.testing.assert_close(got[1], model(*args)[1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("inner", ["eager", "inductor"])
def test_backend_falls_back(inner: str) -> None:
    model, args = Spectrum(), inputs()
    events: list[realify.backend.CompileEvent] = []
    compiled = torch.compile(
        model, backend="realify", fullgraph=True,
        options={"backend": inner, "fallback": "eager", "on_lowered": events.append},
    )
    with pytest.warns(realify.EagerFallbackWarning, match="linalg_eig"):
        got = compiled(*args)
    want = model(*args)
    torch.testing.assert_close(got[0], want[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(got[1], want[1], rtol=1e-5, atol=1e-5)
    assert [f.op for e in events for f in e.report.eager_fallbacks] == ["aten.linalg_eig.default"] * 2


@pytest.mark.parametrize("target", ["tensorrt", "onnx", "executorch"])
def test_deploy_target_still_raises(target: str) -> None:
    gm = torch.export.export(Spectrum(), inputs()).module()
    with pytest.raises(realify.UnsupportedOpError, match=r"aten\.linalg_eig\.default.*torch\.linalg\.eig\(a\)"):
        realify.lower(gm, target=target, fallback="eager")


def test_exported_program_still_raises() -> None:
    ep = torch.export.export(Spectrum(), inputs())
    with pytest.raises(ValueError, match="ExportedProgram"):
        realify.lower(ep, fallback="eager")
    with pytest.raises(realify.UnsupportedOpError, match="linalg_eig"):
        realify.lower(ep)


@pytest.mark.parametrize("bad", ["Eager", "graph_break", None, True, 1])
def test_fallback_value_is_validated(bad: object) -> None:
    gm = torch.export.export(Spectrum(), inputs()).module()
    with pytest.raises(ValueError, match="fallback must be one of 'error', 'eager'"):
        realify.lower(gm, fallback=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fallback must be one of"):
        realify.backend.realify_backend(gm, list(inputs()), options={"fallback": bad})


def test_error_default_in_the_backend() -> None:
    compiled = torch.compile(Spectrum(), backend="realify", fullgraph=True, options={"backend": "eager"})
    with pytest.raises(Exception, match="realify cannot lower aten.linalg_eig.default"):
        compiled(*inputs())


class EigTrain(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w = torch.nn.Parameter(torch.randn(4, 4, dtype=torch.complex64, generator=g))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e = torch.linalg.eigvals(self.w * x)
        return (e * e.conj()).real.sum() + (self.w * x).abs().sum()


def test_training_step_through_a_fallback() -> None:
    """The forward's eig falls back; its gradient (complex, lowered in the backward graph) matches eager's."""
    model, x = EigTrain(), torch.randn(4, 4, generator=torch.Generator().manual_seed(1))
    ref = EigTrain()
    options = {"backend": "eager", "fallback": "eager"}
    compiled = torch.compile(model, backend="realify", fullgraph=True, options=options)
    with pytest.warns(realify.EagerFallbackWarning, match="linalg_eig"):
        loss = compiled(x)
    loss.backward()
    ref_loss = ref(x)
    ref_loss.backward()
    torch.testing.assert_close(loss, ref_loss, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(model.w.grad, ref.w.grad, rtol=1e-5, atol=1e-5)
