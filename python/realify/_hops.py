"""Higher-order ops whose bodies hold complex work: the bodies are lowered, the op itself is kept.

torch.export turns `with torch.autocast(..., enabled=False):` into wrap_with_autocast, `with torch.no_grad():`
inside forward into wrap_with_set_grad_enabled, and torch.cond into cond; each calls a body GraphModule (a
get_attr) on operands. Here every such body is lowered by the same lowering (realify.lower's options, recursively,
so a HOP inside a body is handled there), and the HOP node is copied with its identity and meta into a new outer
graph, where it reads view_as_real of each complex operand and each complex result is view_as_complex of its real
one. The C core then lowers the outer graph as any other: view_as_real/view_as_complex are boundaries it folds, and
the HOP, real now, is the user's own node, copied unchanged. This is FX structure only; every op is rewritten in C.
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable
from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from ._fx_to_ir import const_kind, fetch_attr, install_attr
from .errors import GraphCaptureError, UnsupportedOpError, user_source_line

# The HOPs whose bodies take the operands after the last body, in order, and return the HOP's results.
_HOP_NAMES = ("wrap_with_autocast", "wrap_with_set_grad_enabled", "cond", "wrap")
LOWERED_HOPS = tuple(getattr(torch.ops.higher_order, n) for n in _HOP_NAMES if hasattr(torch.ops.higher_order, n))

LowerBody = Callable[[fx.GraphModule], tuple[fx.GraphModule, Any]]


def is_hop(target: Any) -> bool:
    return isinstance(target, torch._ops.HigherOrderOperator)


def is_body(gm: fx.GraphModule, a: Any) -> bool:
    return isinstance(a, fx.Node) and a.op == "get_attr" and isinstance(fetch_attr(gm, a.target), fx.GraphModule)


def _complex(x: Any) -> bool:
    return any(isinstance(v, torch.Tensor) and v.is_complex() for v in pytree.tree_leaves(x))


def _holds_complex(gm: fx.GraphModule) -> bool:
    for node in gm.graph.nodes:
        if _complex(node.meta.get("val")):
            return True
        if is_body(gm, node) and _holds_complex(fetch_attr(gm, node.target)):
            return True
    return False


def _split(gm: fx.GraphModule, node: fx.Node) -> tuple[list[fx.Node], int]:
    """The HOP's body get_attrs, and the index of the first argument after the last one (its operands)."""
    positions = [i for i, a in enumerate(node.args) if is_body(gm, a)]
    return [node.args[i] for i in positions], (positions[-1] + 1 if positions else len(node.args))


def _needs_lowering(gm: fx.GraphModule, node: fx.Node) -> bool:
    bodies, _ = _split(gm, node)
    if not bodies:
        return False
    operands = [a for a in pytree.tree_leaves((node.args, node.kwargs)) if isinstance(a, fx.Node)]
    return (
        _complex(node.meta.get("val"))
        or any(_complex(a.meta.get("val")) for a in operands)
        or any(_holds_complex(fetch_attr(gm, b.target)) for b in bodies)
    )


def needs_hop_lowering(gm: fx.GraphModule) -> bool:
    return any(n.op == "call_function" and is_hop(n.target) and _needs_lowering(gm, n) for n in gm.graph.nodes)


def _check_body(name: str, report: Any, operands: list[fx.Node], outs: list[Any], hop: fx.Node) -> None:
    """The lowered body takes [..., 2] for exactly the complex operands and returns it for the complex results."""
    sig = report.signature
    inputs = {b.position: b for b in sig.inputs}
    outputs = {b.position: b for b in sig.outputs}
    for i, o in enumerate(operands):
        if _complex(o.meta.get("val")) != (i in inputs) or (i in inputs and (inputs[i].planar or inputs[i].storage)):
            raise GraphCaptureError(f"{hop.name}: body {name} does not take operand {i} ({o.name}) as [..., 2]")
    for j, v in enumerate(outs):
        if _complex(v) != (j in outputs):
            raise GraphCaptureError(f"{hop.name}: body {name} does not return result {j} as [..., 2]")


def _real_val(v: Any) -> Any:
    return torch.view_as_real(v) if isinstance(v, torch.Tensor) and v.is_complex() else v


def lower_hop_bodies(gm: fx.GraphModule, lower_body: LowerBody) -> fx.GraphModule:
    """gm itself when no higher-order op holds complex work; else a new GraphModule in which each does: its bodies
    lowered by `lower_body`, its complex operands passed as view_as_real, its complex results read back with
    view_as_complex. gm is not modified (its other attributes are shared, as a GraphModule copy shares them)."""
    if not needs_hop_lowering(gm):
        return gm
    graph = fx.Graph()
    graph._codegen = copy.deepcopy(gm.graph._codegen)
    env: dict[fx.Node, Any] = {}
    attrs: dict[str, Any] = {}  # new attributes of the outer module: lowered bodies, their constants
    hops: dict[fx.Node, list[bool]] = {}  # a rewritten HOP: which of its results were complex
    for node in gm.graph.nodes:
        if node.op == "call_function" and is_hop(node.target) and _needs_lowering(gm, node):
            env[node] = _rewrite(gm, node, graph, env, lower_body, attrs)
            hops[node] = [_complex(v) for v in node.meta["val"]]
        elif node.op == "call_function" and node.target is operator.getitem and node.args[0] in hops:
            src, j = node.args
            item = graph.call_function(operator.getitem, (env[src], j))
            item.meta = {**node.meta, "val": _real_val(node.meta.get("val"))}
            if hops[src][j]:
                item = graph.call_function(torch.ops.aten.view_as_complex.default, (item,))
                item.meta = dict(node.meta)
            env[node] = item
        else:
            for a in node.all_input_nodes:
                if a in hops:
                    raise GraphCaptureError(f"{a.name} ({a.target}) is read by {node.name} other than by getitem")
            env[node] = graph.node_copy(node, lambda n: env[n])
    for n in list(graph.nodes):  # the complex bodies' get_attrs, now read by nobody
        if n.op == "get_attr" and not n.users and n.target not in attrs and is_body(gm, n):
            graph.erase_node(n)
    root = torch.nn.Module()
    for n in graph.nodes:
        if n.op in ("get_attr", "call_module") and n.target not in attrs:
            value = fetch_attr(gm, n.target)
            kind = const_kind(gm, n.target) if isinstance(value, torch.Tensor) else "module"
            install_attr(root, n.target, value, kind)
    for target, value in attrs.items():
        install_attr(root, target, value, "module" if isinstance(value, torch.nn.Module) else "buffer")
    new_gm = fx.GraphModule(root, graph, class_name=type(gm).__name__)
    new_gm.meta.update(gm.meta)
    return new_gm


def _fresh(gm: fx.GraphModule, attrs: dict[str, Any], hint: str, body: bool) -> str:
    """An attribute name of the new outer module: a body keeps its name where it can (the old one is dropped)."""
    base = hint.replace(".", "_")
    name, k = base, 0
    while name in attrs or (not body and hasattr(gm, name)) or (body and name != hint and hasattr(gm, name)):
        k += 1
        name = f"{base}_{k}"
    return name


def _lift_constants(body: fx.GraphModule) -> list[tuple[str, torch.Tensor]]:
    """The tensors a lowered body reads with get_attr (the C core's DFT matrices and the like), removed from it:
    each becomes a trailing placeholder, so the HOP passes them as operands (torch.export lifts a body's constants
    of wrap_with_* that way but not of cond's branches, whose unlifted module would keep its fake tensors)."""
    gets = [n for n in body.graph.nodes if n.op == "get_attr" and isinstance(fetch_attr(body, n.target), torch.Tensor)]
    last = [n for n in body.graph.nodes if n.op == "placeholder"][-1:]
    lifted = []
    for n in gets:
        value = fetch_attr(body, n.target)
        with body.graph.inserting_after(last[0]) if last else body.graph.inserting_before(None):
            ph = body.graph.placeholder(n.target.replace(".", "_"))
        ph.meta = dict(n.meta)
        n.replace_all_uses_with(ph)
        body.graph.erase_node(n)
        last = [ph]
        lifted.append((n.target, value))
        *path, leaf = n.target.split(".")
        delattr(body.get_submodule(".".join(path)), leaf)  # or torch.export would lift it a second time, unread
    body.recompile()
    return lifted


def _add_placeholders(body: fx.GraphModule, names: list[str]) -> None:
    last = [n for n in body.graph.nodes if n.op == "placeholder"][-1:]
    for name in names:
        with body.graph.inserting_after(last[0]) if last else body.graph.inserting_before(None):
            last = [body.graph.placeholder(name)]
    body.recompile()


def _rewrite(
    gm: fx.GraphModule,
    node: fx.Node,
    graph: fx.Graph,
    env: dict[fx.Node, Any],
    lower_body: LowerBody,
    attrs: dict[str, Any],
) -> fx.Node:
    if node.target not in LOWERED_HOPS:
        raise UnsupportedOpError(
            str(node.target), node.name, user_source_line(node),
            f"a higher-order op whose bodies or operands are complex; realify lowers the bodies of {_HOP_NAMES}",
        )
    val = node.meta.get("val")
    if not isinstance(val, (tuple, list)):
        raise GraphCaptureError(f"{node.name} ({node.target}) has no tuple of results in meta['val']")
    bodies, first = _split(gm, node)
    operands = [a for a in pytree.tree_leaves((node.args[first:], node.kwargs)) if isinstance(a, fx.Node)]
    lowered: dict[fx.Node, fx.GraphModule] = {}
    consts: list[tuple[fx.Node, str, torch.Tensor]] = []  # (body, its attribute, the tensor)
    for b in bodies:
        body_gm, report = lower_body(fetch_attr(gm, b.target))
        _check_body(b.target, report, operands, list(val), node)
        body_gm._forward_pre_hooks.clear()  # the packed-argument check: the HOP's operands get extra constants
        lowered[b] = body_gm
        consts += [(b, target, value) for target, value in _lift_constants(body_gm)]
    # every body takes every lifted constant (cond's branches take the same operands), each its own at its place
    for b, body_gm in lowered.items():
        owned = [c for c in consts if c[0] is b]
        before = [c[1].replace(".", "_") for c in consts[: consts.index(owned[0])]] if owned else []
        after = [c[1].replace(".", "_") for c in consts[consts.index(owned[-1]) + 1 :]] if owned else []
        if not owned:
            _add_placeholders(body_gm, [f"unused_{i}" for i in range(len(consts))])
        else:
            _insert_unused(body_gm, len(before), len(owned), len(after))
    body_refs = {}
    for b, body_gm in lowered.items():
        name = _fresh(gm, attrs, b.target, body=True)
        attrs[name] = body_gm
        body_refs[b] = graph.get_attr(name)
    extra = []
    for b, target, value in consts:
        name = _fresh(gm, attrs, f"{b.target}_{target}", body=False)
        attrs[name] = value
        ref = graph.get_attr(name)
        ref.meta["val"] = value
        extra.append(ref)

    def operand(a: fx.Node) -> fx.Node:
        if not _complex(a.meta.get("val")):
            return env[a]
        packed = graph.call_function(torch.ops.aten.view_as_real.default, (env[a],))
        packed.meta = {k: v for k, v in a.meta.items() if k != "val"}
        packed.meta["val"] = torch.view_as_real(a.meta["val"])
        return packed

    args = [body_refs[a] if a in body_refs else env[a] if isinstance(a, fx.Node) else a for a in node.args[:first]]
    rest, kwargs = pytree.tree_map_only(fx.Node, operand, (list(node.args[first:]), dict(node.kwargs)))
    if extra and node.target is torch.ops.higher_order.cond:
        rest = [*rest[:-1], [*rest[-1], *extra]]  # cond(pred, true_fn, false_fn, operands)
    else:
        rest = [*rest, *extra]
    new = graph.create_node("call_function", node.target, (*args, *rest), kwargs, name=node.name)
    new.meta = {**node.meta, "val": type(val)(_real_val(v) for v in val)}
    return new


def _insert_unused(body: fx.GraphModule, before: int, owned: int, after: int) -> None:
    """Placeholders for the other bodies' constants around this body's own `owned` lifted ones (the last ones)."""
    phs = [n for n in body.graph.nodes if n.op == "placeholder"]
    first_own = phs[len(phs) - owned]
    for i in range(before):
        with body.graph.inserting_before(first_own):
            body.graph.placeholder(f"unused_before_{i}")
    _add_placeholders(body, [f"unused_after_{i}" for i in range(after)])
