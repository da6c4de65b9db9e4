"""realify.lower: FX graph or ExportedProgram -> C core -> new real-only graph or program."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx

from ._export import lower_exported_program
from ._lowering import LoweringReport, check_real_only, lower_graph_module, module_check_guards_kwargs
from ._signature import Boundary, Signature


def lower(model: fx.GraphModule | torch.export.ExportedProgram, *, truncate_double: bool = False) -> Any:
    """Rewrite every complex value of `model` into real ops.

    A GraphModule gives a new GraphModule; an ExportedProgram gives a new
    ExportedProgram. Complex inputs, parameters, buffers, constants and outputs
    become real tensors of shape S+(2,) in view_as_real layout. `model` is not
    modified.
    """
    if isinstance(model, torch.export.ExportedProgram):
        return lower_exported_program(model, truncate_double=truncate_double)
    if isinstance(model, fx.GraphModule):
        return lower_graph_module(model, truncate_double=truncate_double)[0]
    raise TypeError(f"realify.lower takes a GraphModule or an ExportedProgram, not {type(model).__name__}")


__all__ = [
    "Boundary",
    "LoweringReport",
    "Signature",
    "check_real_only",
    "lower",
    "lower_graph_module",
    "module_check_guards_kwargs",
]
