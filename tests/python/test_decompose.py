"""Composite ops torch.export keeps, on complex values, decomposed inside realify (realify._decompose).

Each case exports a module with `torch.export.export` (the composite is in the program), lowers the ExportedProgram,
asserts that no complex dtype is left and compares with eager; the program handed in is unchanged afterwards. Composites
on real values and ops the core has a rule for are left as they are; symbolic sizes survive; an op with neither a
rule nor a decomposition still raises UnsupportedOpError naming the op, the node and the user's source line."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest
import realify
import torch
from harness import TOL, assert_real_only, compare
from realify._decompose import decompose_composites
from realify.runtime import real_arguments
from test_export_composite import Call
from torch import nn
from torch.utils import _pytree as pytree

F = nn.functional
C64 = torch.complex64
RULES = set(realify._core.rules())


def z(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(shape, dtype=C64, generator=torch.Generator().manual_seed(seed + 7 * len(shape)))




def targets(graph: torch.fx.Graph) -> list[str]:
    return [str(n.target) for n in graph.nodes if n.op == "call_function"]


def snapshot(ep: torch.export.ExportedProgram) -> tuple[str, list[tuple[str, str, str]]]:
    """What a program says about itself: its code, and every node's name, target and value metadata."""
    nodes = [(n.name, str(n.target), str(n.meta.get("val"))) for n in ep.graph.nodes]
    return ep.graph_module.code, nodes


def lower_and_run(ep: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> tuple[Any, Any]:
    low = realify.lower(ep)
    assert isinstance(low, torch.export.ExportedProgram)
    assert_real_only(low.graph_module)
    real = real_arguments(low.graph_module.meta["realify_report"].signature, list(args))
    return low, low.module()(*real)


# name -> (the composite torch.export keeps, the function, its inputs)
CASES: dict[str, tuple[str, Callable[..., Any], Callable[[], tuple[torch.Tensor, ...]]]] = {
    # eager has no complex softmax kernel; with a real dtype (OpInfo's softmax.with_dtype) the composite casts first
    "softmax": ("aten.softmax.int", lambda x: torch.softmax(x, -1, dtype=torch.float32), lambda: (z(3, 5),)),
    "log_softmax": ("aten.log_softmax.int", lambda x: torch.log_softmax(x, 0, dtype=torch.float64), lambda: (z(3, 5),)),
    "var_mean": ("aten.var_mean.dim", lambda x: torch.var_mean(x, 1), lambda: (z(4, 6),)),
    "var_mean_unbiased": ("aten.var_mean.default", lambda x: torch.var_mean(x, unbiased=False), lambda: (z(3, 4),)),
    "var": ("aten.var.dim", lambda x: torch.var(x, (0, 2), keepdim=True), lambda: (z(3, 2, 4),)),
    "std": ("aten.std.dim", lambda x: torch.std(x, 0), lambda: (z(5, 3),)),
    "broadcast_to": ("aten.broadcast_to.default", lambda x: torch.broadcast_to(x, (2, 4, 3)), lambda: (z(4, 3),)),
    "kron": ("aten.kron.default", torch.kron, lambda: (z(2, 3), z(3, 2, seed=1))),
    "meshgrid_ij": (
        "aten.meshgrid.indexing",
        lambda a, b: torch.meshgrid(a, b, indexing="ij"),
        lambda: (z(3), z(4, seed=1)),
    ),
    "meshgrid_xy": (
        "aten.meshgrid.indexing",
        lambda a, b: torch.meshgrid(a, b, indexing="xy"),
        lambda: (z(3), z(4, seed=1)),
    ),
    "outer": ("aten.outer.default", torch.outer, lambda: (z(3), z(4, seed=1))),
    "tile": ("aten.tile.default", lambda x: torch.tile(x, (2, 1, 3)), lambda: (z(2, 3),)),
    "diff": ("aten.diff.default", lambda x: torch.diff(x, dim=0), lambda: (z(5, 3),)),
    "vecdot": ("aten.linalg_vecdot.default", torch.linalg.vecdot, lambda: (z(4, 3), z(4, 3, seed=1))),
    "expand_as": ("aten.expand_as.default", lambda a, b: a.expand_as(b), lambda: (z(1, 3), z(4, 3, seed=1))),
    "true_divide": ("aten.true_divide.Tensor", torch.true_divide, lambda: (z(4, 3), z(4, 3, seed=1))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_composite_on_complex_lowers(name: str) -> None:
    op, fn, make = CASES[name]
    args = make()
    ep = torch.export.export(Call(fn), args, strict=False)
    assert op in targets(ep.graph), f"torch.export no longer keeps {op}: {targets(ep.graph)}"
    assert op not in RULES, f"{op} has a rule now: this case no longer measures the decomposition"
    before = snapshot(ep)
    low, out = lower_and_run(ep, args)
    assert op not in targets(low.graph)
    compare(out, fn(*args), TOL[C64])
    assert snapshot(ep) == before, "realify.lower changed the program it was given"
    still = pytree.tree_leaves(ep.module()(*args))  # and it still runs as it did, on complex values
    for got, want in zip(still, pytree.tree_leaves(fn(*args)), strict=True):
        torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_decomposed_nodes_carry_the_users_provenance() -> None:
    ep = torch.export.export(Call(torch.kron), (z(2, 2), z(2, 2, seed=1)), strict=False)
    gm = ep.module()
    kron = next(n for n in gm.graph.nodes if str(n.target) == "aten.kron.default")
    code = gm.code
    new = decompose_composites(gm)
    assert new is not gm and gm.code == code, "the given graph module was changed"
    made = [n for n in new.graph.nodes if n.meta.get("realify_decomposed_from") == "aten.kron.default"]
    assert made and "aten.kron.default" not in targets(new.graph)
    for n in made:
        assert n.meta.get("stack_trace") == kron.meta.get("stack_trace")
        assert n.meta.get("nn_module_stack") == kron.meta.get("nn_module_stack")
        assert isinstance(n.meta.get("val"), (torch.Tensor, tuple, list, torch.SymInt, int))


class RealComposites(nn.Module):
    """Real-valued composites (linear, SDPA, layer norm) beside a complex one that needs decomposing."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.proj = nn.Linear(8, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, x: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.norm(self.proj(x))
        q = h.view(1, 2, 4, 4)
        a = F.scaled_dot_product_attention(q, q, q)
        return a, torch.kron(c, c) * 2


REAL_KEPT = ("aten.linear.default", "aten.layer_norm.default", "aten.scaled_dot_product_attention.default")


def test_real_composites_are_left_as_they_are() -> None:
    model = RealComposites()
    args = (torch.randn(4, 8), z(2, 3))
    ep = torch.export.export(model, args, strict=False)
    gm = ep.module()
    new = decompose_composites(gm)
    for op in REAL_KEPT:
        old = [(n.name, n.args, n.kwargs) for n in gm.graph.nodes if str(n.target) == op]
        kept = [(n.name, n.args, n.kwargs) for n in new.graph.nodes if str(n.target) == op]
        assert len(old) == 1 and str(kept) == str(old), f"{op} was altered: {old} -> {kept}"
    assert "aten.kron.default" not in targets(new.graph)
    low, out = lower_and_run(ep, args)
    for op in REAL_KEPT:
        assert op in targets(low.graph), f"realify decomposed the user's real {op}"
    compare(out, model(*args), TOL[C64])


def test_ops_with_a_rule_are_not_decomposed() -> None:
    torch.manual_seed(0)
    lin = nn.Linear(4, 3, dtype=C64)  # a complex linear: src/rules has a rule for aten.linear
    ep = torch.export.export(lin, (z(2, 4),), strict=False)
    new = decompose_composites(ep.module())
    assert "aten.linear.default" in targets(new.graph)


def test_symbolic_sizes_survive() -> None:
    def fn(x: torch.Tensor) -> Any:
        v, m = torch.var_mean(x, 1)
        return v, m, torch.broadcast_to(x, (2, *x.shape)), torch.softmax(x, -1, dtype=torch.float32)

    batch = torch.export.Dim("batch", min=2, max=64)
    x = z(5, 3)
    ep = torch.export.export(Call(fn), (x,), dynamic_shapes=(({0: batch},),), strict=False)
    low = realify.lower(ep)
    assert_real_only(low.graph_module)
    first = next(n for n in low.graph.nodes if n.op == "placeholder" and n.meta["val"].dim() == 3)
    assert not isinstance(first.meta["val"].shape[0], int), "the batch size became static"
    for b in (3, 9):
        xb = z(b, 3, seed=b)
        real = real_arguments(low.graph_module.meta["realify_report"].signature, [xb])
        compare(low.module()(*real), fn(xb), TOL[C64])


class Eig(nn.Module):
    def forward(self, x: torch.Tensor) -> Any:
        y = x * 2
        return torch.linalg.eig(y)  # marker: no rule, no decomposition


class ComplexSoftmax(nn.Module):
    def forward(self, x: torch.Tensor) -> Any:
        return torch.softmax(x, -1)  # a composite whose decomposition has no rule on complex values (amax)


def _line_of(cls: type, marker: str) -> int:
    src, start = inspect.getsourcelines(cls)
    return start + next(i for i, line in enumerate(src) if marker in line)


def test_op_without_rule_or_decomposition_raises_naming_it() -> None:
    assert str(torch.ops.aten.linalg_eig.default) not in RULES
    ep = torch.export.export(Eig(), (z(3, 3),), strict=False)
    with pytest.raises(realify.UnsupportedOpError) as info:
        realify.lower(ep)
    e = info.value
    assert e.op == "aten.linalg_eig.default"
    assert e.node.startswith("linalg_eig")
    assert e.source is not None and f"test_decompose.py:{_line_of(Eig, '# marker')}" in e.source
    assert "aten.linalg_eig.default" in str(e) and e.node in str(e)


def test_composite_that_cannot_be_lowered_names_the_users_op() -> None:
    ep = torch.export.export(ComplexSoftmax(), (z(3, 3),), strict=False)
    with pytest.raises(realify.UnsupportedOpError) as info:
        realify.lower(ep)
    assert info.value.op == "aten.softmax.int"  # not an op of its decomposition
    assert info.value.source is not None and "torch.softmax(x, -1)" in info.value.source


class ComplexParameterNorm(nn.Module):
    """A composite on a complex parameter with a real result: the parameter is what makes it complex."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(z(3, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.linalg.norm(self.w)


def test_composite_on_a_complex_parameter() -> None:
    model = ComplexParameterNorm()
    x = torch.randn(2, 2)
    ep = torch.export.export(model, (x,), strict=False)
    assert "aten.linalg_norm.default" in targets(ep.graph) and "aten.linalg_norm.default" not in RULES
    with torch.no_grad():
        want = model(x)
    low, out = lower_and_run(ep, (x,))
    compare(out, want, TOL[C64])
