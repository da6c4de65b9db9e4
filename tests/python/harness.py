"""Shared checks: trace, lower, assert real-only, run on view_as_real inputs, compare with eager."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import realify
import torch
from realify.runtime import real_arguments
from torch.fx.experimental.proxy_tensor import make_fx
from torch.utils import _pytree as pytree

TOL = {
    torch.complex64: dict(rtol=1e-5, atol=1e-5),
    torch.complex128: dict(rtol=1e-10, atol=1e-10),
    "truncated": dict(rtol=1e-5, atol=1e-5),
}


def has_op(name: str) -> bool:
    """Whether this torch release has the op `ns.op.overload` (torch 2.15 removed aten.cholesky, for one)."""
    obj: Any = torch.ops
    try:
        for part in name.split("."):
            obj = getattr(obj, part)
    except (AttributeError, RuntimeError):
        return False
    return True


def rules_to_exercise(rules: list[str]) -> set[str]:
    """The rules a case can reach here: a rule for an op this torch lacks is exercised on the releases that have it."""
    return {r for r in rules if has_op(r)}


def traced_ops(gm: torch.fx.GraphModule) -> set[str]:
    return {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}


def call_argument(node: torch.fx.Node, name: str, default: Any = None) -> Any:
    """The value of an OpOverload call's argument `name`, given by position or keyword, else `default`."""
    names = [a.name for a in node.target._schema.arguments]
    return {**dict(zip(names, node.args, strict=False)), **node.kwargs}.get(name, default)


def assert_real_only(gm: torch.fx.GraphModule) -> None:
    for node in gm.graph.nodes:
        for v in pytree.tree_leaves(node.meta.get("val")):
            if isinstance(v, torch.Tensor):
                assert not v.is_complex(), f"{node.format_node()} is complex"
        for a in pytree.tree_leaves((node.args, node.kwargs)):
            assert not (isinstance(a, torch.dtype) and a.is_complex), node.format_node()
    for name, t in list(gm.named_parameters()) + list(gm.named_buffers()):
        assert not t.is_complex(), name


def to_real(x: Any, truncate_double: bool = False) -> Any:
    """An argument as the lowered graph takes it: complex as view_as_real, and under truncate_double every float64
    (complex128's parts and real float64 tensors alike) as float32."""
    if not isinstance(x, torch.Tensor):
        return x
    r = torch.view_as_real(x.resolve_conj()) if x.is_complex() else x
    return r.float() if truncate_double and r.dtype == torch.float64 else r


def lowered_args(lowered: torch.fx.GraphModule, args: Any) -> list[Any]:
    """The arguments `lowered` (a realify.lower result) takes for the original ones, in the form its signature
    asks for: view_as_real (cast when truncated), or the real form of the whole storage of an input the graph
    reads through its storage (as_strided)."""
    return real_arguments(lowered.meta["realify_report"].signature, args)


def compare(out: Any, ref: Any, tol: dict[str, float]) -> None:
    outs, refs = pytree.tree_leaves(out), pytree.tree_leaves(ref)
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs, strict=True):
        if isinstance(r, torch.Tensor) and r.is_complex():
            assert not o.is_complex()
            assert o.shape == r.shape + (2,), (o.shape, r.shape)
            o = torch.view_as_complex(o.to(r.real.dtype).contiguous())
        if isinstance(r, torch.Tensor):
            o = o.to(r.dtype) if o.dtype != r.dtype else o
            torch.testing.assert_close(o, r, equal_nan=True, **tol)
        else:
            assert o == r


def check(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    *,
    pre_dispatch: bool = False,
    truncate_double: bool = False,
    tol: dict[str, float] | None = None,
    tracing_mode: str = "real",
) -> tuple[torch.fx.GraphModule, torch.fx.GraphModule]:
    """Trace fn with make_fx, lower it, and compare with eager. Returns (traced, lowered)."""
    gm = make_fx(fn, pre_dispatch=pre_dispatch, tracing_mode=tracing_mode)(*args)
    code_before = gm.code
    lowered = realify.lower(gm, truncate_double=truncate_double)
    assert gm.code == code_before, "realify.lower changed its input"
    assert_real_only(lowered)
    out = lowered(*lowered_args(lowered, args))
    ref = fn(*args)
    if tol is None:
        dts = [a.dtype for a in args if isinstance(a, torch.Tensor) and a.is_complex()]
        tol = TOL["truncated"] if truncate_double else TOL[dts[0] if dts else torch.complex64]
    compare(out, ref, tol)
    return gm, lowered
