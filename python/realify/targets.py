"""target=: who receives the lowered graph.

The op set, each op's targets and the check that every op realify emitted is one the target accepts live in the C
core (src/lower/opset.c, src/lower/legality.c): it judges only the nodes it emitted, never those it copied unchanged
from the input graph. This module only names the targets and reads the op set."""

from __future__ import annotations

from . import _core

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
