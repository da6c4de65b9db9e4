"""The Python/C boundary: status codes, provenance from the core, the C text-IR reader, module layout."""

from __future__ import annotations

import ast
import pathlib

import pytest
import realify
import torch
from realify import _core
from realify._ir_to_fx import Ref, const_tensor, parse_ir
from realify.errors import Status

PKG = pathlib.Path(realify.__file__).parent


class Rot(torch.nn.Module):
    def forward(self, z: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        y = z * w  # the complex product
        return y.exp() + z.abs()


def test_status_enum_mirrors_the_core() -> None:
    assert {f"RF_{s.name}": int(s) for s in Status} == dict(_core.status_codes)


def test_core_error_is_a_status_code_and_a_node_index() -> None:
    text = "graph {\n  input %z: c64[3]\n  %y: c64[3] = aten.no_such_op.default(self=%z)\n  output (%y)\n}\n"
    with pytest.raises(_core.LowerError) as info:
        _core.lower(text)
    code, name, op, node, _message, index = info.value.args
    assert Status(code) is Status.ERR_UNSUPPORTED and name == "unsupported op"
    assert (op, node, index) == ("aten.no_such_op.default", "y", 0)


def test_lowered_nodes_carry_their_origin() -> None:
    z = torch.randn(4, dtype=torch.complex64)
    gm = torch.export.export(Rot(), (z, z)).module()
    lowered, report = realify.lower_graph_module(gm)
    text, graph = _core.lower(report.ir_before, graph=True)
    assert text == report.ir_after
    n_in = sum(1 for n in gm.graph.nodes if n.op == "call_function")
    assert all(o is None or 0 <= o < n_in for *_, o in graph["nodes"])
    by_op = {n.target: n for n in gm.graph.nodes if n.op == "call_function"}
    mul_line = by_op[torch.ops.aten.mul.Tensor].meta["stack_trace"]
    assert "the complex product" in mul_line
    # every node made from the complex mul (its real muls, sub, add) has the mul's source line
    made = [n for n in lowered.graph.nodes if n.meta.get("stack_trace") == mul_line]
    ops = sorted(str(n.target) for n in made)
    assert ops.count("aten.mul.Tensor") == 4, ops
    assert "aten.sub.Tensor" in ops and "aten.add.Tensor" in ops
    assert all(
        n.meta.get("stack_trace")
        for n in lowered.graph.nodes
        if n.op == "call_function" and n.target is not torch.ops.aten.stack.default
    )


def test_text_ir_is_read_by_the_c_parser() -> None:
    text = (
        "graph {\n"
        "  input %x: c64[s0, 8]\n"
        '  const %w: f32[2] = data "k.w" "0000803f00000040"\n'
        "  %a: f32[s0, 8, 2] !c64 = aten.view_as_real.default(self=%x)\n"
        '  %b: f32[?] = aten.foo.default(self=%a, d="@device:cpu", s="@@at", t="q\\"uote", l=[1, 2.5, none, true],'
        " c=complex(1.0, -2.0), dt=f64, e=-inf)\n"
        "  output (%b, %x, 3)\n"
        "}\n"
    )
    g = parse_ir(text)
    assert [(d.name, d.dtype, d.shape) for d in g.inputs] == [("x", "c64", ["s0", 8])]
    (c,) = g.consts
    assert (c.kind, c.target) == ("data", "k.w")
    assert torch.equal(const_tensor(c), torch.tensor([1.0, 2.0]))
    a, b = g.nodes
    assert a.outs[0].packed_from == "c64" and a.origin is None
    assert b.outs[0].shape is None
    args = dict(b.args)
    assert args["self"] == Ref("a") and args["d"] == torch.device("cpu") and args["s"] == "@at"
    assert args["t"] == 'q"uote' and args["l"] == [1, 2.5, None, True]
    assert args["c"] == complex(1, -2) and args["dt"] is torch.float64 and args["e"] == float("-inf")
    assert g.outputs == [(Ref("b"), None), (Ref("x"), None), (3, None)]
    with pytest.raises(ValueError, match="cannot parse IR"):
        parse_ir("graph {\n  %a: f32[2] = aten.x(self=%nope)\n}\n")


def _imports(path: pathlib.Path) -> set[str]:
    deps = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            deps.add((node.module or "").split(".")[0])
    return deps - {""}


def test_no_import_cycles_between_realify_modules() -> None:
    graph = {p.stem: _imports(p) for p in PKG.glob("*.py")}
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        if state.get(m) == 2 or m not in graph:
            return
        assert state.get(m) != 1, f"import cycle: {' -> '.join(path + [m])}"
        state[m] = 1
        for d in graph[m]:
            visit(d, path + [m])
        state[m] = 2

    for m in graph:
        visit(m, [])
