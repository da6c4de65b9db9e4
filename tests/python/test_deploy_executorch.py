"""Deploy (c): lowered zoo model -> ExecuTorch to_edge_transform_and_lower with the XNNPACK partitioner -> .pte ->
ExecuTorch runtime, compared with eager."""

from __future__ import annotations

import pytest
import torch
from deploy_support import lowered, zoo_params
from realify import zoo

pytest.importorskip("executorch", reason="needs executorch (make test installs it)")
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner  # noqa: E402
from executorch.exir import to_edge_transform_and_lower  # noqa: E402
from executorch.runtime import Runtime  # noqa: E402


def delegate_calls(graph: torch.fx.Graph) -> int:
    return sum(1 for n in graph.nodes if n.op == "call_function" and "call_delegate" in str(n.target))


@pytest.mark.parametrize("name", zoo_params())
def test_zoo_model_runs_in_executorch_with_xnnpack(name: str) -> None:
    lw = lowered(name)
    edge = to_edge_transform_and_lower(lw.program, partitioner=[XnnpackPartitioner()])
    graph = edge.exported_program().graph
    for node in graph.nodes:  # the edge dialect verifier passed; and nothing complex or (truncated) double is left
        val = node.meta.get("val")
        if isinstance(val, torch.Tensor):
            assert not val.is_complex(), node.format_node()
    if lw.entry.truncate_double is False and any(a.dtype == torch.complex128 for a in lw.args):
        assert delegate_calls(graph) == 0  # XNNPACK has no float64: the portable kernels run it
    else:
        assert delegate_calls(graph) >= 1
    program = Runtime.get().load_program(edge.to_executorch().buffer)
    outs = program.load_method("forward").execute(list(lw.real_args))
    err = zoo.max_rel_error(lw.reference, outs)
    assert err <= max(lw.entry.rtol, 1e-5), f"{name}: ExecuTorch differs from eager by {err:.3g}"
