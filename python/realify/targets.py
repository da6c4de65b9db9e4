"""target=: who receives the lowered graph, and the check that every op realify emitted is one it accepts.

The op set and each op's targets live in the C core (src/lower/opset.c); this module only reads them."""

from __future__ import annotations

import torch
import torch.fx as fx

from . import _core
from .errors import TargetOpError, user_source_line

# target= name -> the op-set bit it needs (0: the op only has to be declared; Inductor takes any aten op).
TARGETS: dict[str, int] = {
    "portable": 0,
    "inductor": 0,
    "tensorrt": _core.target_bit("tensorrt"),
    "onnx": _core.target_bit("onnx"),
    "executorch": _core.target_bit("executorch"),
    "openvino": _core.target_bit("openvino"),
    "coreml": _core.target_bit("coreml"),
}


def opset() -> dict[str, frozenset[str]]:
    """Every real op realify may emit -> the names of the targets that accept it."""
    names = [n for n, bit in TARGETS.items() if bit] + ["core_aten"]
    return {op: frozenset(n for n in names if mask & _core.target_bit(n)) for op, mask in _core.opset()}


def validate_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; choose one of {', '.join(TARGETS)}")


def check_target(new_gm: fx.GraphModule, origins: dict[fx.Node, fx.Node], target: str) -> None:
    """Raise TargetOpError on the first node realify emitted whose op `target` does not accept.

    A node kept unchanged from the input graph (its origin has the same op and name: the C core copied it) is the
    user's own real op, not ours to judge. `origins` maps lowered nodes to the input nodes the C core made them from."""
    validate_target(target)
    bit = TARGETS[target]
    for node in new_gm.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue  # operator.* and other symbolic-size arithmetic: plain Python, every target runs it
        orig = origins.get(node)
        if orig is not None and orig.op == "call_function" and orig.target == node.target and orig.name == node.name:
            continue
        mask = _core.op_targets(str(node.target))
        if mask is None or (bit and not mask & bit):
            raise TargetOpError(target, str(node.target), node.name, user_source_line(node), mask is not None)
