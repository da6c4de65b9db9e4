"""Work on complex parameters hoisted out of inference graphs.

The lowering turns a product with complex weights into real GEMMs whose weight operand is built from the parameter
(the 2x2 real embedding [[a, b], [-b, a]] of an FNO layer's spectral weights, for one). In a training graph that
build belongs in the graph: autograd runs through it. In an inference graph it recomputes the same tensor on every
call, one kernel per weight. Here the part of an inference graph that depends only on complex parameters (and
constants) moves into a prologue; the run-time adapter runs it once and reuses its results while the parameters'
data is unchanged (HoistedInputs), and the graph takes those results as extra trailing inputs.

Only computations over complex parameters or buffers move: a cast of a real weight (mixed precision) stays in the
graph, since caching it would hold a second copy of every weight.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx

from ._tensor_key import data_key

# Ops that only re-describe their input: a prologue made of these alone saves no kernel.
_SHAPE_ONLY = {"reshape", "flatten", "unflatten", "_unsafe_view", "view_as_real", "view_as_complex"}


def static_positions(example_inputs: Sequence[Any]) -> frozenset[int]:
    """Positions of dynamo's graph inputs that are parameters or buffers (dynamo marks them; torch >= 2.5)."""
    return frozenset(
        i
        for i, x in enumerate(example_inputs)
        if isinstance(x, torch.nn.Parameter) or getattr(x, "_dynamo_static_input_type", None) is not None
    )


def _hoistable_op(node: fx.Node) -> bool:
    op = node.target
    if not isinstance(op, torch._ops.OpOverload) or op._schema.is_mutable:
        return False
    if torch.Tag.nondeterministic_seeded in op.tags:
        return False
    return isinstance(node.meta.get("val"), torch.Tensor)


def _computes(node: fx.Node) -> bool:
    op = node.target
    assert isinstance(op, torch._ops.OpOverload)
    return not (op.is_view or op.overloadpacket.__name__ in _SHAPE_ONLY)


@dataclass
class Prologue:
    """What moved out of a graph: `graph` maps the graph's inputs at `positions` (in their lowered form) to the
    tensors the graph now takes as trailing inputs, in order. The inputs at `dropped` (some of `positions`) are no
    longer the graph's: nothing else read them."""

    graph: fx.GraphModule
    positions: list[int]
    dropped: list[int]


def hoist(gm: fx.GraphModule, sources: frozenset[int]) -> Prologue | None:
    """Move the computations of gm that depend only on the inputs at `sources` (and constants) into a prologue;
    gm is rewritten in place (it is the lowering's own graph). None, and gm unchanged, when nothing would move."""
    placeholders = gm.graph.find_nodes(op="placeholder")
    src = {p for i, p in enumerate(placeholders) if i in sources}
    # What a graph output may alias (through views): never a cached tensor, which the caller could then change.
    (output,) = gm.graph.find_nodes(op="output")
    outputs: set[fx.Node] = set()
    stack = list(output.all_input_nodes)
    while stack:
        n = stack.pop()
        if n in outputs:
            continue
        outputs.add(n)
        if n.op == "call_function" and not (isinstance(n.target, torch._ops.OpOverload) and _computes(n)):
            stack.extend(n.all_input_nodes)
    hoisted: dict[fx.Node, bool] = {}  # hoistable node -> does its cone compute anything
    for node in gm.graph.nodes:
        if node.op != "call_function" or node in outputs or not _hoistable_op(node):
            continue
        inputs = node.all_input_nodes
        if not inputs:
            continue
        if not all(n in src or n in hoisted or n.op == "get_attr" for n in inputs):
            continue
        if not any(n in src or n in hoisted for n in inputs):
            continue  # constants alone: the C core folds those
        hoisted[node] = _computes(node) or any(hoisted.get(n, False) for n in inputs)
    frontier = [n for n, computes in hoisted.items() if computes and any(u not in hoisted for u in n.users)]
    if not frontier:
        return None

    # The prologue: the source inputs, every hoisted node the frontier needs, the frontier as outputs.
    needed: set[fx.Node] = set()
    stack = list(frontier)
    while stack:
        n = stack.pop()
        if n in needed or n in src:
            continue
        needed.add(n)
        stack.extend(n.all_input_nodes)
    pro = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    used = {i for n in needed for i in n.all_input_nodes}
    positions = [i for i, p in enumerate(placeholders) if p in src and p in used]
    for i in positions:
        env[placeholders[i]] = pro.placeholder(placeholders[i].name)
        env[placeholders[i]].meta.update(placeholders[i].meta)
    for node in gm.graph.nodes:
        if node in needed:
            env[node] = pro.node_copy(node, lambda n: env[n])
    pro.output(tuple(env[n] for n in frontier))
    prologue = fx.GraphModule(gm, pro)

    # The graph: each frontier value becomes a trailing input; what only fed the frontier is dead.
    last = placeholders[-1]
    for k, node in enumerate(frontier):
        with gm.graph.inserting_after(last):
            last = gm.graph.placeholder(f"realify_hoisted_{k}")
        last.meta["val"] = node.meta["val"].contiguous() if "val" in node.meta else None
        node.replace_all_uses_with(last, delete_user_cb=lambda user: user not in hoisted)
    gm.graph.eliminate_dead_code()
    dropped = [i for i in positions if not placeholders[i].users]
    for i in dropped:  # the adapter then neither converts nor passes them
        gm.graph.erase_node(placeholders[i])
    gm.recompile()
    return Prologue(prologue, positions, dropped)


class _FakeConstants(fx.Interpreter):
    """Runs a prologue on fake inputs: its constants become fake tensors of the same fake mode."""

    def __init__(self, gm: fx.GraphModule, fake_mode: Any) -> None:
        super().__init__(gm)
        self.fake_mode = fake_mode

    def get_attr(self, target: Any, args: Any, kwargs: Any) -> Any:
        value = super().get_attr(target, args, kwargs)
        return self.fake_mode.from_tensor(value, static_shapes=True) if isinstance(value, torch.Tensor) else value


def run_prologue(prologue: Prologue, real_args: Sequence[Any] | Mapping[int, Any]) -> list[torch.Tensor]:
    """The prologue's results for the lowered graph's arguments (real tensors, or the fake ones of a compile; only
    those at its positions are read), each contiguous: the strides the graph was compiled for."""
    from torch._guards import detect_fake_mode

    inputs = [real_args[i] for i in prologue.positions]
    fake_mode = detect_fake_mode(inputs)
    with torch.no_grad():
        if fake_mode is None:
            outs = prologue.graph(*inputs)
        else:
            with fake_mode:
                outs = _FakeConstants(prologue.graph, fake_mode).run(*inputs)
    return [t.contiguous() for t in outs]


class HoistedInputs:
    """The prologue's results, reused while the caller passes the same parameter objects with the same data (version
    counter, data pointer, shape and strides: _tensor_key.data_key). Inference tensors have no version counter:
    computed every call. `lowered(i, x)` gives the lowered form of the caller's argument x at position i, which the
    prologue reads (computed only when the prologue runs)."""

    def __init__(self, prologue: Prologue, lowered: Callable[[int, torch.Tensor], torch.Tensor]) -> None:
        self.prologue = prologue
        self.lowered = lowered
        self.refs: list[weakref.ref[torch.Tensor]] = []
        self.key: tuple[Any, ...] = ()
        self.values: list[torch.Tensor] = []
        self.runs = 0  # how many times the prologue ran (tests read it)

    def get(self, args: Sequence[Any]) -> list[torch.Tensor]:
        sources = [args[i] for i in self.prologue.positions]
        if self.refs and all(r() is x for r, x in zip(self.refs, sources, strict=True)):
            if self.key == tuple(map(data_key, sources)):
                return self.values
        self.runs += 1
        values = run_prologue(self.prologue, {i: self.lowered(i, args[i]) for i in self.prologue.positions})
        if not any(x.is_inference() for x in sources):
            self.refs = [weakref.ref(x) for x in sources]
            self.key = tuple(map(data_key, sources))
            self.values = values
        return values


__all__ = ["HoistedInputs", "Prologue", "hoist", "run_prologue", "static_positions"]
