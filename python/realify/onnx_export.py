"""realify.export_onnx: lower for ONNX and export through torch.onnx, with the opset deciding what realify may emit.

ONNX has ops that do what realify otherwise spells out in plain real ops: DFT (opset >= 17), which ONNX Runtime runs
with its own FFT and TensorRT's parser (11.2 and newer) with cuFFT, and RotaryEmbedding (opset >= 23). The opset is
only known at export, so this entry point picks: RoPE becomes realify.rotary_embedding (one RotaryEmbedding node)
from opset 23 on, and fft="onnx-dft" (each transform one realify.dft per axis, exported as one DFT node) is allowed
from opset 17 on. fft="auto" stays "matmul" here: in ONNX Runtime's CPU provider realify's DFT matmuls ran faster
than its DFT kernel on every FFT model of bench/onnx_fft.py (docs/benchmarks.md). The translation table maps
realify's ops to ONNX; pass it to torch.onnx.export yourself when you lower with fft="onnx-dft" or rotary_op=True
and export on your own.
"""

from __future__ import annotations

from typing import Any

import torch

from . import native_fft
from .rotary import ROTARY_MIN_OPSET, rotary_to_onnx

DFT_MIN_OPSET = 17  # the first opset with DFT


def default_opset() -> int:
    """The opset torch.onnx.export writes when given none."""
    from torch.onnx._internal.exporter import _constants

    return int(_constants.TORCHLIB_OPSET)


def fft_strategy(fft: str, opset: int) -> str:
    """The strategy an ONNX model of this opset gets: "auto" is "matmul" (faster in ONNX Runtime, see the module's
    text); "onnx-dft" needs opset >= 17."""
    native_fft.resolve(fft, None)  # a bad value fails here
    if fft == "onnx-dft" and opset < DFT_MIN_OPSET:
        raise ValueError(f'fft="onnx-dft" needs ONNX opset >= {DFT_MIN_OPSET} (DFT); got opset {opset}')
    return "matmul" if fft == "auto" else fft


def _dft_to_onnx(x: Any, axis: int, onesided: bool) -> Any:
    """realify.dft -> one DFT node. The axis is an attribute in the opset-17 form, which torch.onnx converts to the
    input form of opset 20 and later. A transform along dim 0 gets a leading unit dim: ONNX reads dim 0 as the
    batch."""
    from onnxscript import opset18 as op

    if axis != 0:
        return op.DFT(x, axis=axis, inverse=0, onesided=int(onesided))
    lead = op.Constant(value_ints=[0])
    y = op.DFT(op.Unsqueeze(x, lead), axis=1, inverse=0, onesided=int(onesided))
    return op.Squeeze(y, lead)


def translation_table(opset: int) -> dict[Any, Any]:
    """torch.onnx.export(..., custom_translation_table=...) for the realify ops an export at `opset` may hold."""
    table: dict[Any, Any] = {}
    if opset >= DFT_MIN_OPSET:
        table[torch.ops.realify.dft.default] = _dft_to_onnx
    if opset >= ROTARY_MIN_OPSET:
        table[torch.ops.realify.rotary_embedding.default] = rotary_to_onnx
    return table


def export_onnx(
    model: torch.export.ExportedProgram,
    args: tuple[Any, ...],
    *,
    opset_version: int | None = None,
    fft: str = "auto",
    truncate_double: bool = False,
    **kwargs: Any,
) -> Any:
    """Lower an ExportedProgram for ONNX (target="onnx") and export it with torch.onnx at `opset_version` (torch's
    default when None). `fft`: "auto" or "matmul" (DFT matmuls), "onnx-dft" (DFT nodes). Returns torch.onnx's
    ONNXProgram. `args` are the original program's: complex ones are passed in the lowered form (view_as_real).
    `kwargs` go to torch.onnx.export."""
    from .lower import lower
    from .runtime import real_arguments

    opset = default_opset() if opset_version is None else opset_version
    strategy = fft_strategy(fft, opset)
    lowered = lower(
        model, fft=strategy, rotary_op=opset >= ROTARY_MIN_OPSET, target="onnx", truncate_double=truncate_double
    )
    real_args = tuple(real_arguments(lowered.graph_module.meta["realify_report"].signature, args))
    return torch.onnx.export(
        lowered, real_args, dynamo=True, opset_version=opset, custom_translation_table=translation_table(opset),
        **kwargs,
    )
