"""Outputs that are views of complex inputs (or of real ones seen through view_as_complex), for the torch.compile
adapter.

aot_autograd rebuilds such an output from the caller's input at run time. With static shapes it replays the
recorded complex view chain; with dynamic shapes it falls back to the returned tensor's own view chain (its
`_base`) or to `as_strided` with its strides. The lowered graph computes these outputs in the real [..., 2] layout,
often as fresh tensors, so both fallbacks read the wrong storage. The adapter therefore applies the output's view
chain, unchanged, to the caller's complex tensor: the result shares the input's storage with eager's strides."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
import torch.fx as fx


def _val(n: Any) -> Any:
    return n.meta.get("val") if isinstance(n, fx.Node) else None


def _view_chain(out: fx.Node, needed: dict[fx.Node, None]) -> bool:
    """Adds to `needed` every node `out` is computed from, if it is a chain of view ops that starts at an input and
    passes through a complex value (a complex input, or view_as_complex of a real one); size arithmetic may feed the
    views. False, and nothing usable, otherwise: a chain of real views alone the C core copies as it is."""
    node, root = out, None
    while root is None:
        if node.op == "placeholder":
            root = node
        elif node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload) and node.target.is_view:
            node = node.args[0] if node.args and isinstance(node.args[0], fx.Node) else None
            if node is None:
                return False
        else:
            return False
    if not isinstance(_val(root), torch.Tensor):
        return False
    stack, seen = [out], {}
    complex_on_chain = False
    while stack:
        n = stack.pop()
        if n in needed or n in seen:
            continue
        v = _val(n)
        if isinstance(v, torch.Tensor) and n.op != "placeholder" and not (
            n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and n.target.is_view
        ):
            return False  # a computed tensor feeds the chain (its shape, say): not a plain view
        seen[n] = None
        complex_on_chain |= isinstance(v, torch.Tensor) and v.is_complex()
        stack.extend(a for a in n.all_input_nodes)
    if not complex_on_chain:
        return False
    needed.update(seen)
    return True


def input_view_outputs(gm: fx.GraphModule) -> tuple[list[int], fx.GraphModule | None]:
    """The output positions that are views of inputs through a complex value, and a module computing just those
    (taking the graph's own arguments)."""
    outputs = next(n for n in reversed(gm.graph.nodes) if n.op == "output")
    flat: Sequence[Any] = outputs.args[0] if isinstance(outputs.args[0], (list, tuple)) else [outputs.args[0]]
    needed: dict[fx.Node, None] = {}
    positions = []
    for j, o in enumerate(flat):
        part: dict[fx.Node, None] = {}
        if isinstance(o, fx.Node) and o.op != "placeholder" and _view_chain(o, part):
            needed.update(part)
            positions.append(j)
    if not positions:
        return [], None
    g = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    for n in gm.graph.nodes:
        if n.op == "placeholder" or n in needed:  # every placeholder, so the module takes the same arguments
            env[n] = g.node_copy(n, lambda a: env[a])
    g.output(tuple(env[flat[j]] for j in positions))
    return positions, fx.GraphModule(gm, g)
