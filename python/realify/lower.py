"""realify.lower: FX graph or ExportedProgram -> C core -> new real-only graph or program."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx

from ._export import lower_exported_program
from ._lowering import LoweringReport, check_real_only, lower_graph_module, module_check_guards_kwargs
from ._options import PLANAR_CONSTS, PLANAR_INPUTS, LowerOptions
from ._signature import Boundary, Signature
from ._threads import torch_lock


def _lowered_already(ep: torch.export.ExportedProgram) -> bool:
    from .artifact import NODE_META_KEY

    return any(NODE_META_KEY in (n.meta.get("custom") or {}) for n in ep.graph.nodes)


def lower(
    model: fx.GraphModule | torch.export.ExportedProgram,
    *,
    truncate_double: bool = False,
    fft: str = "auto",
    planar: bool = False,
    rotary_op: bool = False,
    target: str = "portable",
    fallback: str = "error",
    division: str = "c10",
    pair_words: bool = False,
    cleanup: bool = True,
    disable_patterns: tuple[str, ...] = (),
) -> Any:
    """Rewrite every complex value of `model` into real ops.

    A GraphModule gives a new GraphModule; an ExportedProgram gives a new
    ExportedProgram. Complex inputs, parameters, buffers, constants and outputs
    become real tensors of shape S+(2,) in view_as_real layout. `model` is not
    modified. The options are realify.LowerOptions's, which says what each does:
    `truncate_double` leaves no float64 anywhere (complex128 becomes float32 pairs,
    and real float64 inputs, parameters, buffers, constants, intermediates and
    dtype=float64 arguments become float32); `fft` "matmul", "native", "onnx-dft",
    or "auto" (matmul here, since the receiver is unknown; the torch.compile backend
    picks native for Inductor and eager); `planar=True` folds a complex buffer or
    constant read only as its parts (RoPE's freqs_cis) into one contiguous real
    (2,)+S tensor (inputs stay S+(2,): the caller passes view_as_real tensors);
    `rotary_op=True` makes each RoPE one realify.rotary_embedding op (ONNX
    RotaryEmbedding, opset >= 23); `target` (realify.targets.TARGETS: "portable",
    "inductor", "tensorrt", "onnx", "executorch", "openvino", "coreml") names who
    receives the result, whose op set every op realify emitted is checked against;
    `fallback` "error" (an op with no rule raises UnsupportedOpError) or "eager"
    (GraphModules only, not for a deploy target: that op runs as the original
    complex op in a graph break, listed in the report's eager_fallbacks and named by
    an EagerFallbackWarning); `division` "c10" (eager PyTorch's Smith algorithm) or
    "scaled" (by max(|c|, |d|), as ATen's vectorised kernels); `pair_words`
    (bfloat16 RoPE pairs as int32 words, for Inductor); `cleanup` (the core's
    peephole passes); `disable_patterns` (names of the core's multi-op patterns not
    to try, realify._options.PATTERNS).
    """
    options = LowerOptions(
        truncate_double=truncate_double, fft=fft, planar=planar, rotary_op=rotary_op, target=target,
        fallback=fallback, division=division, pair_words=pair_words, cleanup=cleanup,
        disable_patterns=disable_patterns,
    )
    return lower_with(model, options)


def lower_with(model: fx.GraphModule | torch.export.ExportedProgram, options: LowerOptions) -> Any:
    """realify.lower with its options made already (realify.export_onnx and the CLI lower this way)."""
    if not isinstance(model, (torch.export.ExportedProgram, fx.GraphModule)):
        raise TypeError(f"realify.lower takes a GraphModule or an ExportedProgram, not {type(model).__name__}")
    if isinstance(model, torch.export.ExportedProgram) and _lowered_already(model):
        raise ValueError("this ExportedProgram was already lowered by realify (it carries a realify signature): "
                         "lowering it again would lose its complex signature; lower the original program")
    with torch_lock():  # torch's tracing and decomposition state is global (realify._threads)
        if isinstance(model, torch.export.ExportedProgram):
            if options.fallback != "error":
                raise ValueError(
                    "fallback='eager' applies to GraphModules and the torch.compile backend: an ExportedProgram is "
                    "an artifact with no eager PyTorch behind it; lower ep.module() to fall back"
                )
            return lower_exported_program(model, options)
        return lower_graph_module(model, options)[0]


__all__ = [
    "PLANAR_CONSTS",
    "PLANAR_INPUTS",
    "Boundary",
    "LowerOptions",
    "LoweringReport",
    "Signature",
    "check_real_only",
    "lower",
    "lower_graph_module",
    "lower_with",
    "module_check_guards_kwargs",
]
