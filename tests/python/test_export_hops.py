"""Higher-order ops that wrap complex work: their bodies are lowered, the op is kept (realify._hops).

torch.export makes wrap_with_autocast of `with torch.autocast(..., enabled=False):`, wrap_with_set_grad_enabled of
`with torch.no_grad():` inside forward, and cond of torch.cond. Each case lowers the ExportedProgram (and its
unlifted module), checks the HOP is still there with its own arguments, that no complex dtype is left in the graph
or in any submodule, and that the outputs match eager; the same models compile with backend="realify" (dynamo keeps
cond; autocast and no_grad regions reach realify traced through by aot_autograd)."""

from __future__ import annotations

from typing import Any

import pytest
import realify
import torch
from harness import TOL, assert_real_only, compare
from realify.runtime import real_arguments
from torch import nn

C64, C128 = torch.complex64, torch.complex128
HOP = torch.ops.higher_order


def z(dt: torch.dtype, *shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=dt, generator=torch.Generator().manual_seed(seed + 31 * len(shape)))


class Autocast(nn.Module):
    """An FFT guarded against autocast, a common guard around transforms."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = x * 2
        with torch.autocast("cpu", enabled=False):
            spec = torch.fft.fft(y)
        return spec.abs() + 1, spec


class NoGrad(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(z(C64, 8, seed=3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x * self.w
        with torch.no_grad():
            s = torch.fft.ifft(y, norm="ortho")
        return s * 3 - x


class Cond(nn.Module):
    """Complex work in both branches, with transforms of different sizes (each branch has its own constants)."""

    def forward(self, x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        return torch.cond(
            p.sum() > 0, lambda x: torch.fft.fft(x) * 2, lambda x: torch.fft.ifft(x[:4], n=8) - 1j, (x,)
        )


class CondInAutocast(nn.Module):
    """A cond inside an autocast region (torch.export keeps the region as _enter/_exit_autocast calls then)."""

    def forward(self, x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", enabled=False):
            y = torch.cond(p.sum() > 0, lambda x: torch.fft.fft(x), lambda x: x * (1 + 2j), (x,))
        return y.conj()


class CondInCond(nn.Module):
    """A cond in a branch of a cond: the lowering recurses into the branch."""

    def forward(self, x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
        def outer(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
            return torch.cond(p.sum() > 1, lambda x: torch.fft.fft(x), lambda x: x * (1 + 2j), (x,)) * 2

        return torch.cond(p.sum() > 0, outer, lambda x, p: x.exp(), (x, p))


class RealRegion(nn.Module):
    """An autocast region with only real work: left as it is."""

    def forward(self, x: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", enabled=False):
            r = torch.sin(t)
        return x * r


CASES: dict[str, tuple[type[nn.Module], Any, Any]] = {
    "autocast": (Autocast, HOP.wrap_with_autocast, lambda dt: (z(dt, 8),)),
    "no_grad": (NoGrad, HOP.wrap_with_set_grad_enabled, lambda dt: (z(dt, 8),)),
    "cond_true": (Cond, HOP.cond, lambda dt: (z(dt, 8), torch.ones(3))),
    "cond_false": (Cond, HOP.cond, lambda dt: (z(dt, 8), -torch.ones(3))),
    "cond_in_autocast": (CondInAutocast, HOP.cond, lambda dt: (z(dt, 8), torch.ones(3))),
    "cond_in_cond": (CondInCond, HOP.cond, lambda dt: (z(dt, 8), torch.ones(3))),
}


def hop_nodes(gm: torch.fx.GraphModule, hop: Any) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target is hop]


def assert_real_everywhere(gm: torch.fx.GraphModule) -> None:
    for sub in gm.modules():
        if isinstance(sub, torch.fx.GraphModule):
            assert_real_only(sub)


def run(low: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> Any:
    return low.module()(*real_arguments(low.graph_module.meta["realify_report"].signature, args))


@pytest.mark.parametrize("name", list(CASES))
def test_hop_body_is_lowered_and_the_hop_kept(name: str) -> None:
    cls, hop, inputs = CASES[name]
    torch.manual_seed(0)
    model, args = cls(), inputs(C64)
    ep = torch.export.export(model, args)
    (given,) = hop_nodes(ep.graph_module, hop)
    low = realify.lower(ep)
    assert_real_everywhere(low.graph_module)
    (kept,) = hop_nodes(low.graph_module, hop)
    bodies = sum(isinstance(a, torch.fx.Node) and a.op == "get_attr" for a in given.args)
    # its own arguments (device, dtype, flags, predicate) unchanged, its bodies still bodies
    assert [a for a in kept.args if not isinstance(a, (torch.fx.Node, list, tuple))] == [
        a for a in given.args if not isinstance(a, (torch.fx.Node, list, tuple))
    ]
    assert sum(isinstance(a, torch.fx.Node) and a.op == "get_attr" for a in kept.args) == bodies
    with torch.no_grad():
        compare(run(low, args), model(*args), TOL[C64])


def test_cond_in_cond_lowers_the_nested_body() -> None:
    model, args = CondInCond(), CASES["cond_in_cond"][2](C64)
    low = realify.lower(torch.export.export(model, args))
    conds = [n for sub in low.graph_module.modules() if isinstance(sub, torch.fx.GraphModule)
             for n in hop_nodes(sub, HOP.cond)]
    assert len(conds) == 2
    assert_real_everywhere(low.graph_module)
    for p in (torch.ones(3), torch.full((3,), 0.1), -torch.ones(3)):  # each of the three paths
        with torch.no_grad():
            compare(run(low, (args[0], p)), model(args[0], p), TOL[C64])


def test_complex128_and_truncate_double() -> None:
    model, args = Autocast(), (z(C128, 8),)
    ep = torch.export.export(model, args)
    with torch.no_grad():
        ref = model(*args)
    compare(run(realify.lower(ep), args), ref, TOL[C128])
    low = realify.lower(ep, truncate_double=True)
    assert_real_everywhere(low.graph_module)
    for sub in low.graph_module.modules():
        if isinstance(sub, torch.fx.GraphModule):
            for n in sub.graph.nodes:
                v = n.meta.get("val")
                assert not (isinstance(v, torch.Tensor) and v.dtype == torch.float64), n.format_node()
    compare(run(low, args), ref, TOL["truncated"])


def test_unlifted_module_lowers_too() -> None:
    model, args = Cond(), CASES["cond_false"][2](C64)
    gm = torch.export.export(model, args).module()
    low = realify.lower(gm)
    assert_real_everywhere(low)
    assert len(hop_nodes(low, HOP.cond)) == 1
    out = low(*[torch.view_as_real(a) if a.is_complex() else a for a in args])
    compare(out, model(*args), TOL[C64])
    body = gm.get_submodule("true_graph_0")  # the given module keeps its complex bodies
    assert any(isinstance(n.meta.get("val"), torch.Tensor) and n.meta["val"].is_complex() for n in body.graph.nodes)


def test_real_region_is_left_as_it_is() -> None:
    model, args = RealRegion(), (z(C64, 6), torch.randn(6))
    ep = torch.export.export(model, args)
    low = realify.lower(ep)
    (kept,) = hop_nodes(low.graph_module, HOP.wrap_with_autocast)
    body = low.graph_module.get_submodule(kept.args[4].target)
    assert [str(n.target) for n in body.graph.nodes if n.op == "call_function"] == ["aten.sin.default"]
    compare(run(low, args), model(*args), TOL[C64])


@pytest.mark.parametrize("name", list(CASES))
def test_hop_cases_compile_with_the_realify_backend(name: str) -> None:
    cls, hop, inputs = CASES[name]
    torch.manual_seed(0)
    model, args = cls(), inputs(C64)
    seen: list[torch.fx.GraphModule] = []

    def inner(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        seen.append(gm)
        return gm.forward

    torch._dynamo.reset()
    compiled = torch.compile(model, backend="realify", options={"backend": inner}, fullgraph=True)
    with torch.no_grad():
        out, ref = compiled(*args), model(*args)
    torch.testing.assert_close(out, ref, **TOL[C64])
    assert seen
    for gm in seen:
        assert_real_everywhere(gm)
    if hop is HOP.cond:  # dynamo keeps cond; the autocast and no_grad regions are traced through
        assert any(hop_nodes(gm, HOP.cond) for gm in seen)
