"""The strides of a compiled forward's outputs, as the outer aot_autograd needs to know them.

aot_autograd compiles the backward for the saved activations' strides. By default those are the strides of the
traced (complex) graph; a compiler whose outputs come out with other strides reports them
(TracingContext.report_output_strides), and aot_autograd restrides the backward's inputs by the report, as it does
for Inductor's layout choices. A lowered graph's outputs may well differ: realify folds a stack/select round trip,
so an output the trace saw as one component of a (..., 2) tensor (strides 2x) comes out as its own contiguous
tensor. Unreported, the backward's Inductor graph asserts the traced strides and fails on the real ones.

The report is computed from the lowered graph's meta (the inner compilers keep their outputs' strides as the graph
declares them) passed through the adapter's own conversion (runtime.from_lowered), on meta tensors.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import torch
import torch.fx as fx

from ._signature import Signature
from .runtime import from_lowered


@contextlib.contextmanager
def own_output_strides() -> Iterator[None]:
    """Keep the inner compiler's output strides out of the outer aot_autograd's record.

    The inner Inductor reports the strides of the lowered graph's real outputs, which have one more dim than the
    complex ones the outer layer saved: on a warm Inductor cache, and always on the direct path, that report reached
    the outer record and failed the backward's compile ("mismatch in length of strides and shape"). Inside this block
    the inner report goes to a record of its own; report_outer_strides gives the outer record the right one."""
    from torch._guards import TracingContext

    report = getattr(TracingContext, "report_output_strides", None)
    with report() if report is not None else contextlib.nullcontext():
        yield


def _concrete(xs: Sequence[Any]) -> bool:
    return all(isinstance(x, int) for x in xs)


def outer_output_strides(
    real_gm: fx.GraphModule, sig: Signature, view_positions: Sequence[int]
) -> list[tuple[int, ...] | None]:
    """For each flat output of the original graph, the strides the caller gets from the compiled lowered graph;
    None where unknown (a symbolic size, a non-tensor) or where the adapter rebuilds the output from the caller's
    own arguments through the traced view chain (the trace's strides hold)."""
    out_node = next(n for n in reversed(real_gm.graph.nodes) if n.op == "output")
    flat = out_node.args[0] if isinstance(out_node.args[0], (list, tuple)) else [out_node.args[0]]
    bounds = {int(b.position): b for b in sig.outputs}
    views = set(view_positions)
    strides: list[tuple[int, ...] | None] = []
    for j, o in enumerate(flat):
        val = o.meta.get("val") if isinstance(o, fx.Node) else None
        if j in views or not isinstance(val, torch.Tensor) or not _concrete([*val.shape, *val.stride()]):
            strides.append(None)
            continue
        if not isinstance(val.storage_offset(), int):
            strides.append(None)
            continue
        b = bounds.get(j)
        if b is None:
            strides.append(tuple(val.stride()))
            continue
        extent = val.storage_offset() + sum((d - 1) * s for d, s in zip(val.shape, val.stride(), strict=True)) + 1
        buf = torch.empty(max(extent, 1), dtype=val.dtype, device="meta")
        meta = buf.as_strided(val.shape, val.stride(), val.storage_offset())
        strides.append(tuple(from_lowered(meta, b).stride()))
    return strides


def report_outer_strides(strides: list[tuple[int, ...] | None]) -> None:
    """Give the outer aot_autograd's record (when it keeps one, and nobody filled it) the output strides."""
    from torch._guards import TracingContext

    ctx = TracingContext.try_get()
    if ctx is None or getattr(ctx, "output_strides", None) is None or ctx.output_strides:
        return
    ctx.output_strides.extend(strides)
