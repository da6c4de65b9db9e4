"""truncate_double leaves no float64 anywhere: complex128's parts, the caller's real float64 inputs, parameters and
buffers, real ops on them and explicit dtype=float64 arguments all become float32. The lowered graph takes and returns
float32 there; the torch.compile adapter and realify.load give the caller float64 back."""

from __future__ import annotations

import pytest
import realify
import torch
from realify.errors import RealifyError
from torch.fx.experimental.proxy_tensor import make_fx


class Mixed(torch.nn.Module):
    """complex128 meets real float64 of every kind: an input, a parameter, a buffer, ops with dtype=float64."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(5)
        self.gain = torch.nn.Parameter(torch.rand(4, dtype=torch.float64, generator=g) + 0.5)
        self.register_buffer("offset", torch.randn(4, dtype=torch.float64, generator=g))

    def forward(self, z: torch.Tensor, phase: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        ramp = torch.arange(4, dtype=torch.float64) * 0.25
        bias = torch.full((4,), 0.5, dtype=torch.float64)
        steer = torch.polar(torch.ones_like(phase) * self.gain, phase + ramp)
        y = z * steer + self.offset.to(torch.complex128)
        return y, y.abs().to(torch.float64) + bias


def args() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(6)
    return torch.randn(3, 4, dtype=torch.complex128, generator=g), torch.randn(4, dtype=torch.float64, generator=g)


def float64_nodes(graph: torch.fx.Graph) -> list[str]:
    bad = []
    for n in graph.nodes:
        vals = [n.meta.get("val")] + list(n.args) + list(n.kwargs.values())
        if any(
            (isinstance(v, torch.Tensor) and v.dtype == torch.float64) or v is torch.float64 or v is torch.complex128
            for v in vals
        ):
            bad.append(n.format_node())
    return bad


def test_exported_program_holds_no_float64_and_matches_eager() -> None:
    model, (z, phase) = Mixed().eval(), args()
    given = torch.export.export(model, (z, phase))
    assert len(float64_nodes(given.graph)) > 5  # the check sees float64 where there is some
    ep = realify.lower(given, truncate_double=True)
    assert float64_nodes(ep.graph) == []
    assert all(t.dtype != torch.float64 for t in ep.state_dict.values())
    sig = ep.graph_module.meta["realify_report"].signature
    assert [(b.position, b.complex_dtype, b.real_dtype) for b in sig.inputs] == [
        (0, torch.complex128, torch.float32),
        (1, torch.float64, torch.float32),
    ]
    # the float64 result is returned as float32 by the program, marked for the adapters to cast back
    assert [(b.position, b.complex_dtype) for b in sig.outputs] == [(0, torch.complex128), (1, torch.float64)]
    y, mag = ep.module()(torch.view_as_real(z).float(), phase.float())
    assert y.dtype == mag.dtype == torch.float32
    ref_y, ref_mag = model(z, phase)
    torch.testing.assert_close(torch.view_as_complex(y.double().contiguous()), ref_y, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(mag.double(), ref_mag, rtol=1e-5, atol=1e-5)
    assert all(p.dtype == torch.float64 for p in model.parameters())  # the model is left as it was


def test_torch_compile_gives_the_caller_float64_back() -> None:
    model, (z, phase) = Mixed().eval(), args()
    events: list = []
    opts = {"truncate_double": True, "backend": "eager", "on_lowered": events.append}
    y, mag = torch.compile(model, backend="realify", options=opts)(z, phase)
    assert events and all(float64_nodes(ev.graph_after.graph) == [] for ev in events)
    assert y.dtype == torch.complex128 and mag.dtype == torch.float64
    ref_y, ref_mag = model(z, phase)
    torch.testing.assert_close(y, ref_y, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(mag, ref_mag, rtol=1e-5, atol=1e-5)


def test_saved_program_loads_back_with_float64_in_and_out(tmp_path) -> None:
    model, (z, phase) = Mixed().eval(), args()
    ep = realify.lower(torch.export.export(model, (z, phase)), truncate_double=True)
    realify.save(ep, tmp_path / "m.pt2")
    y, mag = realify.load(tmp_path / "m.pt2")(z, phase)
    assert y.dtype == torch.complex128 and mag.dtype == torch.float64
    torch.testing.assert_close(mag, model(z, phase)[1], rtol=1e-5, atol=1e-5)


def test_lowered_graph_rejects_a_float64_argument_where_it_was_narrowed() -> None:
    z, phase = args()
    gm = make_fx(lambda a, p: a * torch.polar(torch.ones_like(p), p))(z, phase)
    lowered = realify.lower(gm, truncate_double=True)
    with pytest.raises(RealifyError, match=r"float64 tensor that truncate_double narrowed: expected a torch.float32"):
        lowered(torch.view_as_real(z).float(), phase)
    out = lowered(torch.view_as_real(z).float(), phase.float())
    assert out.dtype == torch.float32


def test_integer_and_bool_values_are_untouched() -> None:
    def f(z: torch.Tensor, idx: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.where(mask, z[idx], 0).abs() + idx.to(torch.float64)

    z = torch.randn(4, dtype=torch.complex128)
    idx, mask = torch.tensor([2, 0, 1, 3]), torch.tensor([True, False, True, True])
    gm = make_fx(f)(z, idx, mask)
    lowered, report = realify.lower_graph_module(gm, truncate_double=True)
    dtypes = [p.meta["val"].dtype for p in lowered.graph.nodes if p.op == "placeholder"]
    assert dtypes == [torch.float32, torch.int64, torch.bool]
    assert [b.position for b in report.signature.inputs] == [0]
    out = lowered(torch.view_as_real(z).float(), idx, mask)
    torch.testing.assert_close(out.double(), f(z, idx, mask), rtol=1e-5, atol=1e-5)
