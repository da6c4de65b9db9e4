"""Recompute meta["val"] of a rebuilt graph by running it on fake tensors in
the original graph's fake mode, so symbolic shapes survive."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx
from torch._dispatch.python import enable_python_dispatcher
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import DynamicOutputShapeException, FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils import _pytree as pytree

from ._fx_to_ir import fetch_attr
from ._restride import insert_restride, wanted_order
from ._signature import Signature
from .runtime import to_lowered


class _FakeProp(fx.Interpreter):
    """Runs the rebuilt graph on fake tensors and stores meta["val"].

    A node that applies its origin's op (the input node the C core lowered it from) to
    arguments whose fake values have the same dtype, device, shape and strides as there
    (the C core copies real nodes verbatim) gets the input node's value: the same
    computation on the same metadata gives the same metadata, and it spares a fake
    dispatch for most nodes of a large graph.
    """

    def __init__(self, gm: fx.GraphModule, mode: FakeTensorMode, originals: dict[fx.Node, fx.Node] | None) -> None:
        super().__init__(gm)
        self.mode = mode
        self.originals = originals or {}
        self.twins: dict[fx.Node, fx.Node] = {}

    def _paired_args(self, n: fx.Node) -> tuple[fx.Node, list[tuple[Any, Any]]] | None:
        """n's origin and their arguments side by side, when n applies its origin's op to arguments of one structure."""
        orig = self.originals.get(n)
        if orig is None or n.op != "call_function" or orig.target != n.target:
            return None
        new_leaves, new_spec = pytree.tree_flatten(_named_args(n))
        old_leaves, old_spec = pytree.tree_flatten(_named_args(orig))
        if new_spec != old_spec:
            return None
        return orig, list(zip(new_leaves, old_leaves, strict=True))

    def _twin(self, n: fx.Node) -> fx.Node | None:
        paired = self._paired_args(n)
        if paired is None or "val" not in paired[0].meta:
            return None
        orig, pairs = paired
        for a, b in pairs:
            if isinstance(a, fx.Node):
                if not isinstance(b, fx.Node):
                    return None
                if self.twins.get(a) is not b and _signature(self.env[a]) != _signature(b.meta.get("val")):
                    return None
            elif isinstance(b, fx.Node) or type(a) is not type(b) or a != b:
                return None
        return orig

    def _restride_args(self, n: fx.Node) -> None:
        """A copied user op whose argument realify computed gets it in eager's layout (see _restride)."""
        paired = self._paired_args(n)
        if paired is None:
            return
        for a, b in paired[1]:
            if not isinstance(a, fx.Node) or not isinstance(b, fx.Node) or self.twins.get(a) is b:
                continue
            order = wanted_order(self.env.get(a), b.meta.get("val"))
            if order is None:
                continue
            nodes = insert_restride(n.graph, n, a, order)
            with self.mode:
                value = self.env[a]
                for node in nodes:
                    value = node.target(value, *node.args[1:], **node.kwargs)
                    node.meta["val"] = value
                    self.env[node] = value
            n.replace_input_with(a, nodes[-1])

    def run_node(self, n: fx.Node) -> Any:
        if self.originals:
            self._restride_args(n)
        orig = self._twin(n)
        if orig is not None:
            self.twins[n] = orig
            result = orig.meta["val"]
        elif n.op == "get_attr":
            value = fetch_attr(self.module, n.target)
            result = self.mode.from_tensor(value, static_shapes=True) if isinstance(value, torch.Tensor) else value
        else:
            with self.mode:
                try:
                    result = super().run_node(n)
                except DynamicOutputShapeException:
                    result = self._declared(n)
                    if result is None:
                        raise
        if n.op != "output":
            n.meta["val"] = result
        return result

    def _declared(self, n: fx.Node) -> Any:
        """Fake outputs of the static shapes the C core declared, for an op whose output shapes depend on
        data (linalg_lstsq's residuals); None when it declared none."""
        decls = n.meta.get("realify_out_decls")
        if not decls or any(shape is None or not all(isinstance(d, int) for d in shape) for _, shape in decls):
            return None
        first = next(a for a in pytree.tree_leaves((n.args, n.kwargs)) if isinstance(a, fx.Node))
        device = self.env[first].device
        outs = tuple(torch.empty(shape, dtype=dt, device=device) for dt, shape in decls)
        return outs if len(outs) > 1 else outs[0]


def _signature(v: Any) -> Any:
    """What a value's metadata says: dtype, device, shape and strides (symbolic sizes by name)."""
    if isinstance(v, torch.Tensor):
        return ("tensor", v.dtype, v.device, tuple(str(d) for d in v.shape), tuple(str(s) for s in v.stride()))
    if isinstance(v, (list, tuple)):
        return tuple(_signature(x) for x in v)
    return ("value", type(v).__name__, str(v))


def _named_args(node: fx.Node) -> dict[str, Any]:
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        names = [a.name for a in target._schema.arguments]
        out = dict(zip(names, node.args, strict=False))
        out.update(node.kwargs)
        return out
    return {**{f"arg{i}": a for i, a in enumerate(node.args)}, **node.kwargs}


def _fresh_fake(v: torch.Tensor) -> torch.Tensor:
    """A fake tensor like v in the active fake mode (static shapes only)."""
    shape = [int(d) for d in v.shape]
    stride = [int(s) for s in v.stride()]
    return torch.empty_strided(shape, stride, dtype=v.dtype, device=v.device, requires_grad=v.requires_grad)


def recompute_meta(
    gm: fx.GraphModule,
    orig_placeholders: list[fx.Node],
    sig: Signature,
    originals: dict[fx.Node, fx.Node] | None = None,
) -> None:
    """originals: each rebuilt node's origin in the input graph (see _FakeProp)."""
    vals = [p.meta["val"] for p in orig_placeholders]
    try:
        mode = detect_fake_mode(vals)
    except AssertionError:  # make_fx in real mode gives every input a fake mode of its own
        mode = None
    if mode is not None and mode.shape_env is None:
        mode = None  # static shapes: a fresh mode with a shape environment computes the same metadata
    reused_mode = mode is not None
    if mode is None:
        # A shape environment lets data-dependent ops (nonzero, masked_select) get unbacked sizes.
        mode = FakeTensorMode(shape_env=ShapeEnv())
        with mode:
            vals = [_fresh_fake(v) if isinstance(v, torch.Tensor) else v for v in vals]
    packed = {b.position: b for b in sig.inputs}

    def real_arg(i: int, v: Any) -> Any:
        return to_lowered(v, packed[i]) if i in packed else v

    with mode:
        args = [real_arg(i, v) for i, v in enumerate(vals)]
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for p, a in zip(placeholders, args, strict=True):
        p.meta["val"] = a
    # Reusing the input graph's fake values is only sound within its own fake mode. The Python dispatcher
    # routes composite ops such as aten.matmul to their symbolic-size-aware Python forms (torch 2.11's C++
    # matmul calls numel() and fails on symbolic batch sizes).
    with enable_python_dispatcher():
        _FakeProp(gm, mode, originals if reused_mode else None).run(*args)
