"""realify.rotary_embedding: RoPE on interleaved pairs as one op, and its ONNX translation.

The C core emits the op (lower(..., rotary_op=True)) where a complex multiply rotates interleaved pairs by a
table that is constant over heads; this module gives it an eager kernel (the plain real arithmetic, the same
products as the complex multiply), a fake kernel, and a translation to ONNX RotaryEmbedding (opset >= 23,
interleaved form), which ONNX Runtime and TensorRT's ONNX parser run as one fused kernel.
"""

from __future__ import annotations

from typing import Any

import torch

ROTARY_MIN_OPSET = 23  # the first opset with RotaryEmbedding


@torch.library.custom_op("realify::rotary_embedding", mutates_args=())
def rotary_embedding(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x: [B, S, H, D], pairs (x[..., 2j], x[..., 2j+1]); cos/sin broadcast against [B, S, H, D/2]."""
    pairs = x.unflatten(-1, (-1, 2))
    x0, x1 = pairs[..., 0], pairs[..., 1]
    return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], dim=-1).flatten(-2)


@rotary_embedding.register_fake
def _(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    return x.new_empty(x.shape)


def rotary_to_onnx(x: Any, cos: Any, sin: Any) -> Any:
    """x [B, S, H, D] -> RotaryEmbedding's 3-D form [B, S, H*D] (num_heads=H); cos/sin [b, s, 1, D/2] are
    squeezed over heads and expanded to [B, S, D/2] (no position_ids: the table is already per position)."""
    from onnxscript import opset23 as op

    heads = x.shape[2] if x.shape is not None else None
    axes = op.Constant(value_ints=[2])
    c, s = op.Squeeze(cos, axes), op.Squeeze(sin, axes)
    target = op.Concat(op.Shape(x, start=0, end=2), op.Shape(c, start=2), axis=0)
    c, s = op.Expand(c, target), op.Expand(s, target)
    if isinstance(heads, int):
        flat = op.Reshape(x, op.Constant(value_ints=[0, 0, -1]))
        y = op.RotaryEmbedding(flat, c, s, interleaved=1, num_heads=heads)
        return op.Reshape(y, op.Shape(x))
    xt = op.Transpose(x, perm=[0, 2, 1, 3])  # the 4-D form is [B, H, S, D]
    return op.Transpose(op.RotaryEmbedding(xt, c, s, interleaved=1), perm=[0, 2, 1, 3])
