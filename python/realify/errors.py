"""Errors raised by realify, each naming the op, the node and the user's source line."""

from __future__ import annotations

import re
from enum import IntEnum

import torch.fx as fx


class Status(IntEnum):
    """rf_status of include/realify.h (a test checks the two agree)."""

    OK = 0
    ERR_PARSE = 1
    ERR_UNSUPPORTED = 2
    ERR_INVALID = 3
    ERR_DTYPE = 4
    ERR_NOMEM = 5
    ERR_TARGET = 6


class RealifyError(Exception):
    """Base class of realify's errors."""


class ArtifactError(RealifyError, ValueError):
    """A file is not an artifact realify can read: damaged, truncated, another format."""


class UnsafeArtifactError(ArtifactError):
    """An artifact holds something that loading would execute (realify._safe_load refuses it)."""


class GraphCaptureError(RealifyError):
    """The graph handed to realify is not one it can translate."""


class ComplexDtypeRemainsError(RealifyError):
    """A lowered graph still holds a complex dtype (an internal error)."""


def user_source_line(node: fx.Node | None) -> str | None:
    """The innermost 'File "...", line N' frame of the node's stack trace, with its code."""
    trace = node.meta.get("stack_trace") if node is not None else None
    if not trace:
        return None
    frames = re.findall(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)', trace)
    if not frames:
        return trace.strip().splitlines()[-1]
    file, line, func, code = frames[-1]
    return f"{file}:{line} in {func}: {code.strip()}"


class UnsupportedOpError(RealifyError):
    """An op on a complex value has no lowering rule."""

    def __init__(self, op: str, node: str, source: str | None, detail: str = "") -> None:
        self.op = op
        self.node = node
        self.source = source
        where = source or "no source line recorded (the graph carries no stack_trace)"
        msg = f"realify cannot lower {op} (node {node!r}) on complex values; at {where}"
        if detail:
            msg += f"\n  {detail}"
        super().__init__(msg)


class TargetOpError(RealifyError):
    """realify emitted an op that the chosen target does not accept (or that the op set does not declare)."""

    def __init__(self, target: str, op: str, node: str, source: str | None, declared: bool) -> None:
        self.target, self.op, self.node, self.source = target, op, node, source
        where = source or "no source line recorded"
        why = f"which target={target!r} does not accept" if declared else "which realify's op set does not declare"
        super().__init__(f"realify emitted {op} (node {node!r}), {why}; lowered from {where}")


class Tf32DftWarning(UserWarning):
    """fft="matmul" made an FFT into DFT matmuls that TF32 would reach: less precise than torch.fft, which stays
    float32 (realify._precision)."""


class EagerFallbackWarning(UserWarning):
    """fallback="eager": ops realify could not lower run as the original complex ops, in graph breaks
    (realify._fallback); LoweringReport.eager_fallbacks lists them."""
