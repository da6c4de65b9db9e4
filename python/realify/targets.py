"""target=: who receives the lowered graph.

The op set, each op's targets and the check that every op realify emitted is one the target accepts live in the C
core (src/lower/opset.c, src/lower/legality.c): it judges only the nodes it emitted, never those it copied unchanged
from the input graph. The target names are the core's too (realify._options.TARGETS); this module reads the op set."""

from __future__ import annotations

from . import _core
from ._options import TARGETS

__all__ = ["TARGETS", "opset"]


def opset() -> dict[str, frozenset[str]]:
    """Every real op realify may emit -> the names of the targets that accept it."""
    names = [n for n, bit in TARGETS.items() if bit] + ["core_aten"]
    return {op: frozenset(n for n in names if mask & _core.target_bit(n)) for op, mask in _core.opset()}
