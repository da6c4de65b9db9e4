"""realify.lower: FX graph or ExportedProgram -> C core -> new real-only graph or program."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx as fx

from . import native_fft
from ._export import lower_exported_program
from ._fallback import validate_fallback
from ._lowering import (
    PLANAR_CONSTS,
    PLANAR_INPUTS,
    LoweringReport,
    check_real_only,
    lower_graph_module,
    module_check_guards_kwargs,
)
from ._options import check_options
from ._signature import Boundary, Signature
from ._threads import torch_lock
from .targets import validate_target


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
) -> Any:
    """Rewrite every complex value of `model` into real ops.

    A GraphModule gives a new GraphModule; an ExportedProgram gives a new
    ExportedProgram. Complex inputs, parameters, buffers, constants and outputs
    become real tensors of shape S+(2,) in view_as_real layout. `model` is not
    modified. `fft`: "matmul" (DFTs as real matmuls, which every compiler runs),
    "native" (realify.fft_* operators over the platform FFT), "onnx-dft"
    (realify.dft, one per transformed axis, which exports to ONNX DFT with
    realify.onnx_ops.translation_table), or "auto" (matmul here, since the
    receiver is unknown; the torch.compile backend picks native for Inductor and
    eager). With `planar=True`, a complex buffer or constant that
    the lowered graph reads only as its real and imaginary parts (RoPE's freqs_cis)
    becomes one contiguous real tensor of shape (2,)+S instead, folded once here, so
    the kernels that read it read contiguous cos and sin (the C core decides which).
    With `rotary_op=True`, each RoPE (interleaved pairs times a per-position table)
    becomes one realify.rotary_embedding op, which exports to ONNX RotaryEmbedding
    (opset >= 23; see realify.rotary).
    `target` ("portable", "tensorrt", "onnx", "executorch", "inductor",
    "openvino", "coreml") names who receives the result: every op realify
    emitted is checked against that target's op set (realify.targets).
    `fallback`: "error" (default: an op with no rule raises UnsupportedOpError) or
    "eager" (GraphModules only: that op runs as the original complex op in a graph
    break, listed in the report's eager_fallbacks and named by an
    EagerFallbackWarning; a lowering for a deploy target, and an ExportedProgram,
    which is a deployable artifact, still raise).
    """
    if not isinstance(model, (torch.export.ExportedProgram, fx.GraphModule)):
        raise TypeError(f"realify.lower takes a GraphModule or an ExportedProgram, not {type(model).__name__}")
    if isinstance(model, torch.export.ExportedProgram) and _lowered_already(model):
        raise ValueError("this ExportedProgram was already lowered by realify (it carries a realify signature): "
                         "lowering it again would lose its complex signature; lower the original program")
    check_options(truncate_double=truncate_double, planar=planar, rotary_op=rotary_op, fft=fft, target=target)
    validate_target(target)
    validate_fallback(fallback)
    strategy = native_fft.resolve(fft, None)
    flags = PLANAR_CONSTS if planar else 0
    with torch_lock():  # torch's tracing and decomposition state is global (realify._threads)
        if isinstance(model, torch.export.ExportedProgram):
            if fallback != "error":
                raise ValueError(
                    "fallback='eager' applies to GraphModules and the torch.compile backend: an ExportedProgram is "
                    "an artifact with no eager PyTorch behind it; lower ep.module() to fall back"
                )
            return lower_exported_program(
                model, truncate_double=truncate_double, fft=strategy, planar=flags, rotary_op=rotary_op,
                target=target,
            )
        return lower_graph_module(
            model, truncate_double=truncate_double, fft=strategy, planar=flags, rotary_op=rotary_op, target=target,
            fallback=fallback,
        )[0]


__all__ = [
    "PLANAR_CONSTS",
    "PLANAR_INPUTS",
    "Boundary",
    "LoweringReport",
    "Signature",
    "check_real_only",
    "lower",
    "lower_graph_module",
    "module_check_guards_kwargs",
]
