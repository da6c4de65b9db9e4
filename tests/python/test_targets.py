"""target=: every op realify emits is in the declared op set (src/lower/opset.c), and the chosen target's set is
checked after lowering, naming the node and the user's source line."""

from __future__ import annotations

import pytest
import realify
import torch
from realify import _core, targets
from realify_examples import zoo
from torch.fx.experimental.proxy_tensor import make_fx

DEPLOY_TARGETS = ["tensorrt", "onnx", "executorch", "openvino"]


def test_op_set_is_declared_in_c_and_excludes_what_targets_lack() -> None:
    table = targets.opset()
    assert len(table) == len(_core.opset()) > 100
    for op in ("aten.hypot.default", "aten.copysign.Tensor", "aten.view_as_complex.default", "aten.complex.default"):
        assert op not in table
    assert table["aten.add.Tensor"] == frozenset(targets.TARGETS) - {"portable", "inductor"} | {"core_aten"}
    assert "core_aten" in table["aten.mul.Tensor"] and "tensorrt" in table["aten.atan2.default"]
    assert _core.op_targets("aten.nope.default") is None
    with pytest.raises(ValueError, match="unknown deployment target"):
        _core.target_bit("tpu")


def test_unknown_target_is_refused_before_lowering() -> None:
    gm = make_fx(torch.abs)(torch.randn(3, dtype=torch.complex64))
    with pytest.raises(ValueError, match="unknown target 'tpu'"):
        realify.lower(gm, target="tpu")


@pytest.mark.parametrize("fn", [torch.abs, torch.sqrt, torch.log, torch.tanh, torch.asinh, torch.sgn, torch.exp])
@pytest.mark.parametrize("target", DEPLOY_TARGETS)
def test_elementwise_complex_functions_lower_for_every_target(fn, target: str) -> None:
    z = torch.randn(5, dtype=torch.complex64)
    g = realify.lower(make_fx(fn)(z), target=target)
    want = fn(z)
    torch.testing.assert_close(g(torch.view_as_real(z)), torch.view_as_real(want) if want.is_complex() else want)


def zoo_names() -> list[str]:
    return [e.name for e in zoo.ZOO if e.known_failure is None]


@pytest.mark.parametrize("target", DEPLOY_TARGETS)
@pytest.mark.parametrize("name", zoo_names())
def test_zoo_lowers_for_every_deploy_target(name: str, target: str) -> None:
    e = zoo.entry(name)
    # the ExportedProgram: realify functionalizes in-place ops (FNO's slice assignment) there
    ep = torch.export.export(e.make().eval(), e.inputs())
    realify.lower(ep, truncate_double=e.truncate_double, target=target)


def test_an_op_outside_the_target_names_node_and_source_line() -> None:
    class MatrixExp(torch.nn.Module):
        def forward(self, z: torch.Tensor) -> torch.Tensor:
            return torch.linalg.matrix_exp(z)  # a real matrix_exp of the 2n x 2n block form: no deploy target has it

    z = torch.randn(3, 3, dtype=torch.complex64)
    gm = torch.export.export(MatrixExp(), (z,)).module()
    realify.lower(gm, target="inductor")  # Inductor takes every declared op
    with pytest.raises(realify.TargetOpError, match=r"target='tensorrt' does not accept") as info:
        realify.lower(gm, target="tensorrt")
    assert "test_targets.py" in str(info.value) and "torch.linalg.matrix_exp" in str(info.value)
    assert info.value.node and info.value.op.startswith("aten.")


@pytest.mark.parametrize("target", ["portable", "executorch"])
def test_executorch_reads_parts_with_slice_and_view_not_select(target: str) -> None:
    """XNNPACK takes slice_copy and view_copy, not select_copy (see test_deploy_executorch); other targets keep the
    plain select."""

    def rope(x: torch.Tensor, f: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.view_as_complex(x.reshape(2, 3, 4, 2)) * f).flatten(2)

    x, f = torch.randn(2, 3, 8), torch.polar(torch.ones(3, 4), torch.randn(3, 4))
    g = realify.lower(make_fx(rope)(x, f), target=target)
    ops = [n.target for n in g.graph.nodes if n.op == "call_function"]
    selects = ops.count(torch.ops.aten.select.int)
    assert (selects, ops.count(torch.ops.aten.slice.Tensor)) == ((4, 0) if target == "portable" else (0, 4))
    torch.testing.assert_close(g(x, torch.view_as_real(f)), rope(x, f))


@pytest.mark.parametrize("target", ["inductor", "tensorrt"])
def test_users_multi_output_op_is_not_judged(target: str) -> None:
    """native_layer_norm (three outputs) after a complex subgraph, as an inference graph holds it: the C core copies
    it, the rebuilt node keeps its name, and the target check leaves the user's own op alone."""
    model = zoo.FNet(dim=16).eval()
    x = torch.randn(2, 8, 16)
    with torch.no_grad():
        gm = make_fx(model)(x)
    assert any(n.target is torch.ops.aten.native_layer_norm.default for n in gm.graph.nodes)
    low = realify.lower(gm, target=target)
    names = {n.name for n in low.graph.nodes if n.target is torch.ops.aten.native_layer_norm.default}
    assert names == {n.name for n in gm.graph.nodes if n.target is torch.ops.aten.native_layer_norm.default}
    with torch.no_grad():
        torch.testing.assert_close(low(x), model(x))
