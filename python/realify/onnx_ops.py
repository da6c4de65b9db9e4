"""ONNX translations of realify's own operators, for torch.onnx.export(..., custom_translation_table=...).

realify.dft (fft="onnx-dft") becomes one ONNX DFT node (opset >= 17); realify.rotary_embedding (rotary_op=True)
becomes RotaryEmbedding (opset >= 23, see realify.rotary). realify.export_onnx and realify.save use this table;
pass it yourself when you lower with either option and export on your own.
"""

from __future__ import annotations

from typing import Any

import torch

from .rotary import ROTARY_MIN_OPSET, rotary_to_onnx

DFT_MIN_OPSET = 17  # the first opset with DFT


def default_opset() -> int:
    """The opset torch.onnx.export writes when given none."""
    from torch.onnx._internal.exporter import _constants

    return int(_constants.TORCHLIB_OPSET)


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
