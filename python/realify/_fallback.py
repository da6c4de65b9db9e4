"""fallback="eager": an op realify cannot lower runs as the original complex op, in a visible graph break.

The default, fallback="error", raises UnsupportedOpError. With fallback="eager" the lowering of a GraphModule (and
so the torch.compile backend) rewrites a copy of the input graph around each op the C core refused: its complex
tensor arguments go through view_as_real, the op itself runs inside one realify::eager_call (which views them as
complex again, calls the original op eagerly and returns its complex results as view_as_real), and each complex
result comes back through view_as_complex. realify::eager_call is a real op realify did not write, so the C core
copies it unchanged, and Inductor runs it as an opaque kernel: the graph break. The report lists every fallback
(LoweringReport.eager_fallbacks) and an EagerFallbackWarning names them. A deploy target has no eager PyTorch to
fall back to, so a lowering for one still raises (the option is checked with the others: realify._options).
"""

from __future__ import annotations

import copy
import itertools
import operator
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from .errors import EagerFallbackWarning, UnsupportedOpError, user_source_line


@dataclass(frozen=True)
class EagerFallback:
    """One op that runs as the original complex op (a graph break)."""

    op: str
    node: str
    source: str | None


class _EagerOp:
    """The original op, called on real [..., 2] arguments: those at `packed` (flat positions of the tensors) are
    seen as complex, and complex results come back as view_as_real (copied: a custom op returns fresh tensors)."""

    def __init__(self, target: Callable[..., Any], spec: pytree.TreeSpec, consts: list[Any], packed: set[int]):
        self.target, self.spec, self.consts, self.packed = target, spec, consts, packed

    def __call__(self, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
        it = iter(tensors)
        leaves = []
        for i, c in enumerate(self.consts):
            if c is not _TENSOR:
                leaves.append(c)
                continue
            t = next(it)
            leaves.append(torch.view_as_complex(t.contiguous()) if i in self.packed else t)
        args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        out = self.target(*args, **kwargs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        return [torch.view_as_real(o.resolve_conj()).clone() if o.is_complex() else o.clone() for o in outs]


_TENSOR = object()  # marks a tensor leaf among an _EagerOp's constant leaves
_REGISTRY: dict[str, _EagerOp] = {}
_KEYS = itertools.count()


@torch.library.custom_op("realify::eager_call", mutates_args=())
def eager_call(key: str, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    """Run the registered original op `key` eagerly on real [..., 2] tensors (realify._fallback)."""
    return _REGISTRY[key](tensors)


@eager_call.register_fake
def _(key: str, tensors: list[torch.Tensor]) -> list[torch.Tensor]:
    return _REGISTRY[key](tensors)


def _val(a: Any) -> Any:
    return a.meta.get("val") if isinstance(a, fx.Node) else None


def _is_complex(a: Any) -> bool:
    v = _val(a)
    return isinstance(v, torch.Tensor) and v.is_complex()


def _node(graph: fx.Graph, target: Any, args: tuple[Any, ...], val: Any, like: fx.Node) -> fx.Node:
    n = graph.call_function(target, args)
    n.meta["val"] = val
    for k in ("stack_trace", "nn_module_stack", "source_fn_stack"):
        if k in like.meta:
            n.meta[k] = like.meta[k]
    return n


def isolate(gm: fx.GraphModule, node_name: str) -> fx.GraphModule:
    """A copy of gm in which the node named `node_name` runs through realify::eager_call on real tensors."""
    new = fx.GraphModule(gm, _copy_graph(gm.graph), class_name=type(gm).__name__)
    new.meta.update(gm.meta)
    graph = new.graph
    node = next((n for n in graph.nodes if n.name == node_name), None)
    if node is None or node.op != "call_function":
        raise ValueError(f"no call node {node_name!r} to fall back on")
    leaves, spec = pytree.tree_flatten((node.args, node.kwargs))
    consts = [_TENSOR if isinstance(a, fx.Node) else a for a in leaves]
    outs = node.meta.get("val")
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    if any(isinstance(a, fx.Node) and not isinstance(_val(a), torch.Tensor) for a in leaves) or not all(
        isinstance(o, torch.Tensor) for o in outs
    ):
        raise UnsupportedOpError(str(node.target), node.name, user_source_line(node),
                                 "fallback='eager' runs ops on tensors and with tensor results only")
    packed = {i for i, a in enumerate(leaves) if _is_complex(a)}
    key = f"{node.target}#{next(_KEYS)}"
    _REGISTRY[key] = _EagerOp(node.target, spec, consts, packed)
    real_outs = [torch.view_as_real(o.resolve_conj()) if o.is_complex() else o for o in outs]
    with graph.inserting_before(node):
        tensors = []
        for i, a in enumerate(leaves):
            if isinstance(a, fx.Node):
                tensors.append(
                    _node(graph, torch.ops.aten.view_as_real.default, (a,), torch.view_as_real(_val(a).resolve_conj()),
                          node) if i in packed else a
                )
        call = _node(graph, torch.ops.realify.eager_call.default, (key, tensors), real_outs, node)
        results = []
        for k, (o, r) in enumerate(zip(outs, real_outs, strict=True)):
            item = _node(graph, operator.getitem, (call, k), r, node)
            results.append(_node(graph, torch.ops.aten.view_as_complex.default, (item,), o, node) if o.is_complex()
                           else item)
    if isinstance(node.meta["val"], (list, tuple)):
        for user in list(node.users):
            if user.target is not operator.getitem:
                raise UnsupportedOpError(str(node.target), node.name, user_source_line(node),
                                         "fallback='eager': its results are not read by index")
            user.replace_all_uses_with(results[user.args[1]])
            graph.erase_node(user)
    else:
        node.replace_all_uses_with(results[0])
    graph.erase_node(node)
    new.recompile()
    return new


def _copy_graph(graph: fx.Graph) -> fx.Graph:
    out = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    result = out.graph_copy(graph, env)
    out.output(result)
    out._codegen = copy.deepcopy(graph._codegen)
    return out


def warn(fallbacks: list[EagerFallback]) -> None:
    if fallbacks:
        shown = "; ".join(f"{f.op} (node {f.node!r}) at {f.source or 'no source line'}" for f in fallbacks)
        warnings.warn(
            f"fallback='eager': realify could not lower {len(fallbacks)} op(s), which run as the original complex "
            f"op in a graph break: {shown}",
            EagerFallbackWarning,
            stacklevel=3,
        )
