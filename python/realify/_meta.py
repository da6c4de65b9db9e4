"""Recompute meta["val"] of a rebuilt graph by running it on fake tensors in
the original graph's fake mode, so symbolic shapes survive."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
import torch.fx as fx
from torch._guards import detect_fake_mode
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from ._fx_to_ir import fetch_attr

if TYPE_CHECKING:
    from .lower import Signature


class _FakeProp(fx.Interpreter):
    def __init__(self, gm: fx.GraphModule, mode: FakeTensorMode) -> None:
        super().__init__(gm)
        self.mode = mode

    def run_node(self, n: fx.Node) -> Any:
        if n.op == "get_attr":
            value = fetch_attr(self.module, n.target)
            result = self.mode.from_tensor(value, static_shapes=True) if isinstance(value, torch.Tensor) else value
        else:
            with self.mode:
                result = super().run_node(n)
        if n.op != "output":
            n.meta["val"] = result
        return result


def _fresh_fake(v: torch.Tensor) -> torch.Tensor:
    """A fake tensor like v in the active fake mode (static shapes only)."""
    shape = [int(d) for d in v.shape]
    stride = [int(s) for s in v.stride()]
    return torch.empty_strided(shape, stride, dtype=v.dtype, device=v.device, requires_grad=v.requires_grad)


def real_view(x: Any, real_dtype: torch.dtype) -> Any:
    """The [..., 2] real form of a complex tensor (a view when no cast is needed)."""
    r = torch.view_as_real(x.resolve_conj() if x.is_conj() else x)
    return r if r.dtype == real_dtype else r.to(real_dtype)


def recompute_meta(gm: fx.GraphModule, orig_placeholders: list[fx.Node], sig: Signature, truncate_double: bool) -> None:
    vals = [p.meta["val"] for p in orig_placeholders]
    try:
        mode = detect_fake_mode(vals)
    except AssertionError:  # make_fx in real mode gives every input a fake mode of its own
        mode = None
    if mode is not None and mode.shape_env is None:
        mode = None  # static shapes: a fresh mode with a shape environment computes the same metadata
    if mode is None:
        # A shape environment lets data-dependent ops (nonzero, masked_select) get unbacked sizes.
        mode = FakeTensorMode(shape_env=ShapeEnv())
        with mode:
            vals = [_fresh_fake(v) if isinstance(v, torch.Tensor) else v for v in vals]
    packed = {b.position: b.real_dtype for b in sig.inputs}
    with mode:
        args = [real_view(v, packed[i]) if i in packed else v for i, v in enumerate(vals)]
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for p, a in zip(placeholders, args, strict=True):
        p.meta["val"] = a
    _FakeProp(gm, mode).run(*args)
