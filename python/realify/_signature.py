"""The boundary of a lowered graph: the inputs, constants and outputs that carry complex as real [..., 2], and
(under truncate_double) the real float64 ones narrowed to float32."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass(frozen=True)
class Boundary:
    """A tensor whose dtype differs on the two sides of the lowered graph's boundary: a complex one crossing as real
    [..., 2] (packed), or a real float64 one that truncate_double narrowed to float32 (same shape)."""

    position: int | str  # input index, constant target, or flat output index
    name: str
    complex_dtype: torch.dtype  # the caller's dtype: complex when packed, float64 when only narrowed
    real_dtype: torch.dtype
    planar: bool = False  # real [2, ...] (parts along dim 0, contiguous) instead of [..., 2]
    # read through its storage (as_strided at twice the offset and strides): passed as the [..., 2] view of the
    # real form of its whole storage (runtime.unpack_storage), which a dtype change converts as a whole
    storage: bool = False

    @property
    def packed(self) -> bool:
        return self.complex_dtype.is_complex


@dataclass
class Signature:
    inputs: list[Boundary] = field(default_factory=list)
    consts: list[Boundary] = field(default_factory=list)
    outputs: list[Boundary] = field(default_factory=list)
