"""Give a user's op the memory layout its argument had in eager.

A real value that realify computes from complex parts (view_as_real of a product, say) comes out contiguous; eager's
came out in the layout of its complex inputs (a pointwise op keeps a permuted input's order). Copied user ops that
follow may depend on it: a later `view` that was traced on eager's strides fails on the contiguous ones (a transposed
RoPE input through SDPA, as diffusers' AnyFlow writes it). Where such an argument was dense in eager and differs,
it is laid out again in eager's order (permute, contiguous clone, inverse permute: a view with eager's strides,
which Inductor fuses into the producer)."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx


def _layout_order(t: torch.Tensor) -> list[int] | None:
    """The dims of a dense, non-overlapping tensor from outermost to innermost in memory; None if not so."""
    shape, stride = list(t.shape), list(t.stride())
    if not all(isinstance(x, int) for x in (*shape, *stride)) or t.numel() == 0:
        return None
    order = sorted(range(t.dim()), key=lambda d: (-stride[d], -shape[d]))
    expected = 1
    for d in reversed(order):
        if shape[d] != 1 and stride[d] != expected:
            return None
        expected *= shape[d]
    return order


def _static(t: torch.Tensor) -> bool:
    return all(isinstance(x, int) for x in (*t.shape, *t.stride()))


def _same_layout(a: torch.Tensor, b: torch.Tensor) -> bool:
    return all(s == t for s, t, d in zip(a.stride(), b.stride(), a.shape, strict=True) if d != 1)


def wanted_order(new: Any, old: Any) -> list[int] | None:
    """The order to lay `new` out in so that it has `old`'s strides, or None when nothing is to be done."""
    if not isinstance(new, torch.Tensor) or not isinstance(old, torch.Tensor):
        return None
    # symbolic sizes: _layout_order wants static ones, and comparing unbacked sizes (nonzero's) would guard on data
    if not (_static(new) and _static(old)) or new.shape != old.shape:
        return None
    if new.dim() < 2 or _same_layout(new, old):
        return None
    return _layout_order(old)


def insert_restride(graph: fx.Graph, before: fx.Node, value: fx.Node, order: list[int]) -> list[fx.Node]:
    """permute -> contiguous clone -> inverse permute of `value`, placed before `before`; the nodes, in order."""
    inverse = [order.index(d) for d in range(len(order))]
    aten = torch.ops.aten
    with graph.inserting_before(before):
        p = graph.call_function(aten.permute.default, (value, order))
        c = graph.call_function(aten.clone.default, (p,), {"memory_format": torch.contiguous_format})
        back = graph.call_function(aten.permute.default, (c, inverse))
    for node in (p, c, back):
        node.meta["stack_trace"] = before.meta.get("stack_trace")
        node.meta["realify_restride"] = True
    return [p, c, back]
