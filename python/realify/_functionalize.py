"""Functionalize a plain GraphModule before lowering.

make_fx, and a module traced by hand, keep in-place ops (add_, copy_ into a slice, index_put_, ...). The C core
lowers functional graphs plus one form of mutation: a final copy_ that writes a new value back into a graph input
or a buffer (what torch.export's unlifted module ends with). So a graph with any other in-place op is traced again
through torch.func.functionalize, which turns each in-place op into its functional form and each mutated input or
buffer into exactly that write-back. Buffers and constants are lifted to inputs for the retrace (functionalize only
sees inputs) and put back as the same attributes afterwards. The given graph is copied first, never changed.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
import torch.fx as fx
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx import traceback as fx_traceback
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from ._fx_to_ir import const_kind, fetch_attr, install_attr
from .errors import GraphCaptureError

_COPY = torch.ops.aten.copy_.default


def _mutable(node: fx.Node) -> bool:
    t = node.target
    return node.op == "call_function" and isinstance(t, torch._ops.OpOverload) and t._schema.is_mutable


def _is_write_back(node: fx.Node) -> bool:
    """copy_(input or buffer, value): the one mutation the C core lowers itself."""
    dst = node.args[0] if node.args else None
    return node.target is _COPY and isinstance(dst, fx.Node) and dst.op in ("placeholder", "get_attr")


def needs_functionalize(gm: fx.GraphModule) -> bool:
    return any(_mutable(n) and not _is_write_back(n) for n in gm.graph.nodes)


def _fake_inputs(vals: list[Any]) -> tuple[list[Any], Any]:
    """The inputs' fake values and their fake mode; a fresh mode (with a shape environment) where the graph has
    none of its own (make_fx in real mode gives every input a mode of its own)."""
    try:
        mode = detect_fake_mode([v for v in vals if isinstance(v, torch.Tensor)])
    except AssertionError:
        mode = None
    if mode is not None:
        return vals, mode
    mode = FakeTensorMode(shape_env=ShapeEnv())
    out = []
    for v in vals:
        if isinstance(v, torch.Tensor):
            shape = [int(d) for d in v.shape]
            stride = [int(s) for s in v.stride()]
            v = torch.empty_strided(shape, stride, dtype=v.dtype, device=v.device)
            v = mode.from_tensor(v, static_shapes=True)
        out.append(v)
    return out, mode


def _lifted_copy(gm: fx.GraphModule) -> tuple[fx.GraphModule, list[str], int]:
    """A copy of gm with plain calling conventions (flat inputs, its output node's value out) whose tensor
    attributes are trailing inputs: the copy, the attribute targets in input order, the number of real inputs."""
    graph = fx.Graph()
    env: dict[fx.Node, fx.Node] = {}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for p in placeholders:
        env[p] = graph.placeholder(p.name)
        env[p].meta = dict(p.meta)
    targets: list[str] = []
    for n in gm.graph.nodes:
        if n.op == "get_attr" and isinstance(fetch_attr(gm, n.target), torch.Tensor):
            targets.append(n.target)
            env[n] = graph.placeholder(f"attr_{len(targets)}")
            env[n].meta = dict(n.meta)
    for n in gm.graph.nodes:
        if n in env or n.op == "placeholder":
            continue
        if n.op == "call_module" and n.target == "_guards_fn" and not n.users:
            continue  # ep.module()'s input guard: the lowered graph drops it too
        if n.op == "output":
            graph.output(fx.map_arg(n.args[0], lambda a: env[a]))
            continue
        env[n] = graph.node_copy(n, lambda a: env[a])
    return fx.GraphModule(gm, graph), targets, len(placeholders)


def functionalize_graph(gm: fx.GraphModule) -> fx.GraphModule:
    """gm itself where it has no mutation but write-backs; else a new, functional GraphModule with gm's calling
    convention, attributes and (per node) source lines."""
    if not needs_functionalize(gm):
        return gm
    lifted, targets, n_inputs = _lifted_copy(gm)
    vals: list[Any] = []
    for p in [n for n in lifted.graph.nodes if n.op == "placeholder"]:
        if "val" not in p.meta:
            raise GraphCaptureError(
                f"input {p.name} has no meta['val']; capture the graph with torch.export, make_fx or aot_autograd"
            )
        vals.append(p.meta["val"])
    fakes, mode = _fake_inputs(vals)
    # attributes enter as fakes of their own values, so that the retrace reads what the module holds; detached,
    # since the retrace only rewrites mutations: a parameter's requires_grad would make the trace run autograd's
    # kernels, which refuse complex slice_scatter and the like (the parameters themselves are put back in _restore)
    fakes = [v.detach() if isinstance(v, torch.Tensor) and v.requires_grad else v for v in fakes]
    attrs = [fetch_attr(gm, target).detach() for target in targets]
    with mode:
        for i, attr in enumerate(attrs):
            fakes[n_inputs + i] = mode.from_tensor(attr, static_shapes=True)

    def run(*args: Any) -> Any:
        return fx.Interpreter(lifted).run(*args)

    fn = torch.func.functionalize(run, remove="mutations")
    with fx_traceback.preserve_node_meta(), mode, torch.no_grad():
        new = make_fx(fn, record_module_stack=True)(*fakes)
    return _restore(gm, new, targets, n_inputs)


def _restore(gm: fx.GraphModule, new: fx.GraphModule, targets: list[str], n_inputs: int) -> fx.GraphModule:
    """The retraced graph with gm's input names, its attributes back as get_attr nodes and gm's calling
    convention (an exported module's pytree codegen included)."""
    graph = new.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    originals = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for p, orig in zip(placeholders[:n_inputs], originals, strict=True):
        p._rename(orig.name)
        p.target = orig.target
        p.meta.update({k: v for k, v in orig.meta.items() if k != "val"})
    first = next(n for n in graph.nodes if n.op != "placeholder")
    for p, target in zip(placeholders[n_inputs:], targets, strict=True):
        with graph.inserting_before(first):
            attr = graph.create_node("get_attr", target)  # the attribute is installed below
        attr.meta = dict(p.meta)
        p.replace_all_uses_with(attr)
        graph.erase_node(p)
    graph._codegen = copy.deepcopy(gm.graph._codegen)
    root = torch.nn.Module()
    kept = set(targets)
    for n in graph.nodes:
        if n.op == "get_attr":
            owner = gm if n.target in kept else new
            install_attr(root, n.target, fetch_attr(owner, n.target), const_kind(owner, n.target))
    out = fx.GraphModule(root, graph, class_name=type(gm).__name__)
    out.meta.update(gm.meta)
    return out


