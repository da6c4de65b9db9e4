"""ExportedProgram in, ExportedProgram out: lower the unlifted module, then export it again."""

from __future__ import annotations

import dataclasses
from typing import Any

import torch
import torch.fx as fx
from torch.utils import _pytree as pytree

from ._lowering import lower_graph_module, module_check_guards_kwargs
from ._options import LowerOptions
from .runtime import real_arguments


def _example_inputs(ep: torch.export.ExportedProgram) -> tuple[tuple[Any, ...], dict[str, Any]]:
    ex = getattr(ep, "example_inputs", None)
    if ex is None:
        raise ValueError(
            "this ExportedProgram carries no example_inputs (a deserialized program?); lower ep.module() instead"
        )
    args, kwargs = ex
    return tuple(args), dict(kwargs or {})


def _dynamic_shapes(gm: fx.GraphModule, flat_args: list[Any], spec: pytree.TreeSpec) -> Any:
    """Dim.DYNAMIC for every input dim that was symbolic in the original program."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    specs: list[Any] = []
    any_dynamic = False
    for p, a in zip(placeholders, flat_args, strict=True):
        val = p.meta.get("val")
        if isinstance(a, torch.Tensor) and isinstance(val, torch.Tensor):
            dims = {i: torch.export.Dim.DYNAMIC for i, d in enumerate(val.shape) if not isinstance(d, int)}
            any_dynamic |= bool(dims)
            specs.append(dims or None)
        else:
            specs.append(None)
    if not any_dynamic:
        return None
    arg_specs, kwarg_specs = pytree.tree_unflatten(specs, spec)
    if any(v is not None for v in pytree.tree_leaves(kwarg_specs)):
        raise NotImplementedError("realify re-exports dynamic shapes of positional arguments only")
    return tuple(arg_specs)


def _mutates(gm: fx.GraphModule) -> bool:
    return any(
        isinstance(n.target, torch._ops.OpOverload) and n.target._schema.is_mutable
        for n in gm.graph.nodes
        if n.op == "call_function"
    )


def functionalized(ep: torch.export.ExportedProgram) -> torch.export.ExportedProgram:
    """ep with its in-place ops made functional (copy_ into a slice becomes slice_scatter, add_
    becomes add, ...); mutated inputs and buffers become outputs of its signature, which the
    unlifted module writes back with copy_. A new program: ep itself is left as it is."""
    if not _mutates(ep.graph_module):
        return ep
    return ep.run_decompositions({})


def lower_exported_program(ep: torch.export.ExportedProgram, options: LowerOptions) -> Any:
    """`options.fallback` must be "error": a program has no eager PyTorch behind it (realify.lower says so)."""
    given, ep = ep, functionalized(ep)
    gm = ep.module(**module_check_guards_kwargs())
    # a program's inputs are its caller's [..., 2] tensors: only buffers and constants may be planar
    new_gm, report = lower_graph_module(gm, dataclasses.replace(options, planar_inputs=False))
    args, kwargs = _example_inputs(ep)
    flat, spec = pytree.tree_flatten((args, kwargs))
    real_flat = real_arguments(report.signature, flat)
    real_args, real_kwargs = pytree.tree_unflatten(real_flat, spec)
    dyn = _dynamic_shapes(gm, flat, spec)
    ep2 = torch.export.export(new_gm, tuple(real_args), kwargs=real_kwargs, dynamic_shapes=dyn, strict=False)
    if ep is not given:  # functional again, so the real write-backs show in the signature as mutations
        ep2 = ep2.run_decompositions({})
    ep2.graph_module.meta["realify_report"] = report
    from .artifact import attach_signature

    attach_signature(ep2)  # so that a plain torch.export.save of ep2 is self-describing too
    return ep2
