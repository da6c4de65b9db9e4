"""Composite ops on complex values, translated to the ATen ops they are made of, before the C core sees them.

torch.export keeps CompositeImplicitAutograd ops whole (softmax.int, var_mean, broadcast_to, kron, meshgrid, ...);
make_fx and aot_autograd decompose them first. This step gives an exported graph what those tracers would have
given it, and only where the core needs it: a call node is replaced by its decomposition when its op

  (a) touches a complex value (an input, an output, a dtype or a scalar argument is complex),
  (b) has no rule in the C core (`_core.rules()`), and
  (c) has a decomposition: its CompositeImplicitAutograd kernel (`op.decompose`), else torch's own
      (`torch._decomp.decomposition_table`).

An op with a rule is never decomposed, nor a composite on real values only: realify leaves alone what it does not
need to change. The decomposition is traced with make_fx on the node's fake values in the graph's own fake mode, so
symbolic sizes survive, and inlined in place; the new nodes carry the node's provenance (stack trace, module stack,
...). A composite can decompose to another composite: the decomposition is decomposed again, and used only when the core
has a rule for every complex op left in it, so that an op realify cannot lower still raises UnsupportedOpError
naming the user's op, node and source line. The result is a new GraphModule; the given one is never changed.

This is translation to ATen, not a complex-to-real decision: the core still lowers every op that comes out.
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable
from typing import Any

import torch
import torch.fx as fx
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils import _pytree as pytree

from . import _core
from ._fx_to_ir import const_kind, fetch_attr, install_attr

_CIA = "CompositeImplicitAutograd"
_MAX_DEPTH = 8  # composites of composites: torch's nest a few deep
# what a node's meta says about its value: the decomposed nodes have values of their own
_VALUE_KEYS = frozenset({"val", "tensor_meta", "example_value", "unbacked_bindings"})
_rules: frozenset[str] | None = None


def _rule_names() -> frozenset[str]:
    global _rules
    if _rules is None:
        _rules = frozenset(_core.rules())
    return _rules


def is_complex_leaf(x: Any) -> bool:
    """A complex tensor, complex dtype or complex number."""
    if isinstance(x, torch.Tensor):
        return x.is_complex()
    if isinstance(x, torch.dtype):
        return x.is_complex
    return isinstance(x, complex)


def _value(gm: fx.GraphModule, a: Any) -> Any:
    if not isinstance(a, fx.Node):
        return a
    if "val" not in a.meta and a.op == "get_attr":  # an unlifted module's parameters and buffers carry no val
        return fetch_attr(gm, a.target)
    return a.meta.get("val")


def _touches_complex(gm: fx.GraphModule, node: fx.Node) -> bool:
    vals = [_value(gm, a) for a in pytree.tree_leaves((node.args, node.kwargs))]
    return any(is_complex_leaf(v) for v in vals + pytree.tree_leaves(node.meta.get("val")))


def _mutable(node: fx.Node) -> bool:
    return isinstance(node.target, torch._ops.OpOverload) and node.target._schema.is_mutable


def decomposition(op: Any) -> Callable[..., Any] | None:
    """The op's CompositeImplicitAutograd kernel, else torch's decomposition of it, else None."""
    if not isinstance(op, torch._ops.OpOverload):
        return None
    if _CIA in op.py_kernels or torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), _CIA):
        return op.decompose
    from torch._decomp import decomposition_table

    return decomposition_table.get(op)


def _needs(gm: fx.GraphModule, node: fx.Node) -> bool:
    """A call on complex values that the core has no rule for."""
    if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
        return False  # getitem, symbolic-size arithmetic, higher-order ops: the translator's own
    return str(node.target) not in _rule_names() and _touches_complex(gm, node)


class _Tracer:
    """Traces decompositions in one fake mode: the graph's own where it has one with a shape environment
    (symbolic sizes survive), else a fresh one on static copies of the values."""

    def __init__(self, gm: fx.GraphModule) -> None:
        vals = [p.meta.get("val") for p in gm.graph.nodes if p.op == "placeholder"]
        try:
            mode = detect_fake_mode([v for v in vals if isinstance(v, torch.Tensor)])
        except AssertionError:  # make_fx in real mode gives every input a fake mode of its own
            mode = None
        self.fresh = mode is None
        self.mode = mode or FakeTensorMode(shape_env=ShapeEnv())
        self.gm = gm

    def value(self, node: fx.Node) -> Any:
        val = _value(self.gm, node)
        if not isinstance(val, torch.Tensor):
            return val
        if not self.fresh and not isinstance(val, torch._subclasses.FakeTensor):
            val = self.mode.from_tensor(val, static_shapes=True)  # a constant's fake, in the graph's mode
        elif self.fresh:
            with self.mode:
                shape = [int(d) for d in val.shape]
                stride = [int(s) for s in val.stride()]
                val = torch.empty_strided(shape, stride, dtype=val.dtype, device=val.device)
        # detached: the decomposition is traced for its ops, never for autograd (complex kernels refuse some)
        return val.detach() if val.requires_grad else val

    def trace(self, node: fx.Node, depth: int) -> fx.GraphModule | None:
        """The node's decomposition, itself decomposed until the core has a rule for every complex op in it, as a
        graph whose placeholders are the node's fx.Node arguments in pytree order; None where it does not trace
        on these values or leaves an op the core cannot take."""
        fn = decomposition(node.target)
        leaves, spec = pytree.tree_flatten((node.args, node.kwargs))
        slots = [i for i, a in enumerate(leaves) if isinstance(a, fx.Node)]
        vals = [self.value(leaves[i]) for i in slots]
        if fn is None or any(v is None for v in vals):
            return None

        def run(*xs: Any) -> Any:
            filled = list(leaves)
            for i, x in zip(slots, xs, strict=True):
                filled[i] = x
            args, kwargs = pytree.tree_unflatten(filled, spec)
            return fn(*args, **kwargs)

        try:
            with self.mode, torch.no_grad():
                g = make_fx(run)(*vals)
                if any(_mutable(n) for n in g.graph.nodes):
                    # a composite's kernel may update its temporaries in place (rms_norm's add_), out of
                    # functionalization's sight: the ops, replayed one by one, are functionalized
                    g = make_fx(torch.func.functionalize(fx.Interpreter(g).run, remove="mutations"))(*vals)
        except Exception:  # noqa: BLE001  a decomposition that does not trace here leaves the op to the core,
            return None  # which names it (UnsupportedOpError), or runs it in a graph break with fallback="eager"
        return _rewrite(g, depth + 1, strict=True)


def _inline(graph: fx.Graph, root: torch.nn.Module, node: fx.Node, g: fx.GraphModule, env: dict[fx.Node, Any]) -> Any:
    """g's nodes in graph (its placeholders read node's arguments), with node's provenance; g's outputs."""
    args = [a for a in pytree.tree_leaves((node.args, node.kwargs)) if isinstance(a, fx.Node)]
    local: dict[fx.Node, Any] = {}
    placeholders = [n for n in g.graph.nodes if n.op == "placeholder"]
    for p, a in zip(placeholders, args, strict=True):
        local[p] = env[a]
    provenance = {k: copy.copy(v) for k, v in node.meta.items() if k not in _VALUE_KEYS}
    for n in g.graph.nodes:
        if n.op == "placeholder":
            continue
        if n.op == "output":
            return fx.map_arg(n.args[0], lambda a: local[a])
        if n.op == "get_attr":  # a constant the decomposition made (torch.tensor(...)): the new module's
            target = _free_name(root, f"_realify_decomposed_{n.target}")
            install_attr(root, target, fetch_attr(g, n.target), "constant")
            local[n] = graph.get_attr(target)
            local[n].meta = dict(n.meta)
            continue
        new = graph.node_copy(n, lambda a: local[a])
        new.meta = {**n.meta, **provenance, "realify_decomposed_from": str(node.target)}
        local[n] = new
    raise AssertionError("a traced graph ends with its output node")


def _free_name(root: torch.nn.Module, base: str) -> str:
    base = base.replace(".", "_")
    name, i = base, 0
    while hasattr(root, name):
        i += 1
        name = f"{base}_{i}"
    return name


def _rewrite(gm: fx.GraphModule, depth: int, strict: bool) -> fx.GraphModule | None:
    """gm with every node that needs it decomposed, as a new GraphModule (gm itself if none does). A node that
    cannot be decomposed stays as it is, or with `strict` (inside a decomposition) makes the result None."""
    needed = [n for n in gm.graph.nodes if _needs(gm, n)]
    if not needed:
        return gm
    if depth > _MAX_DEPTH:
        return None if strict else gm
    tracer = _Tracer(gm)
    traced: dict[fx.Node, fx.GraphModule] = {}
    for n in needed:
        g = tracer.trace(n, depth) if decomposition(n.target) is not None else None
        if g is None and strict:
            return None
        if g is not None:
            traced[n] = g
    return _rebuilt(gm, traced) if traced else gm


def _rebuilt(gm: fx.GraphModule, traced: dict[fx.Node, fx.GraphModule]) -> fx.GraphModule:
    """A copy of gm with each node of `traced` replaced by its decomposition."""
    graph = fx.Graph()
    graph._codegen = copy.deepcopy(gm.graph._codegen)
    root = torch.nn.Module()
    env: dict[fx.Node, Any] = {}
    for n in gm.graph.nodes:
        if n in traced:
            env[n] = _inline(graph, root, n, traced[n], env)
            continue
        src = n.args[0] if n.target is operator.getitem and n.args else None
        if isinstance(src, fx.Node) and src in traced and isinstance(env[src], (tuple, list)):
            env[n] = env[src][n.args[1]]  # one result of a decomposed multi-output op
            continue
        if n.op in ("get_attr", "call_module"):
            _install_missing(root, gm, n.target)
        env[n] = graph.node_copy(n, lambda a: env[a])
    out = fx.GraphModule(root, graph, class_name=type(gm).__name__)
    out.meta.update(gm.meta)
    return out


def _install_missing(root: torch.nn.Module, gm: fx.GraphModule, target: str) -> None:
    """gm's attribute `target` on root, the same object (a parameter stays the caller's parameter)."""
    try:
        fetch_attr(root, target)  # type: ignore[arg-type]
    except AttributeError:
        install_attr(root, target, fetch_attr(gm, target), const_kind(gm, target))


def decompose_composites(gm: fx.GraphModule) -> fx.GraphModule:
    """gm itself where no node needs decomposing; else a new GraphModule in which each node that needs it and can
    be is decomposed (the others are left for the core to name)."""
    out = _rewrite(gm, 0, strict=False)
    assert out is not None  # only a strict rewrite refuses
    return out
