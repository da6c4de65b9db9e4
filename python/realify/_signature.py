"""The packed boundary of a lowered graph: the inputs, constants and outputs that carry complex as real [..., 2]."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass(frozen=True)
class Boundary:
    """A complex tensor that crosses the lowered graph's boundary as real [..., 2]."""

    position: int | str  # input index, constant target, or flat output index
    name: str
    complex_dtype: torch.dtype
    real_dtype: torch.dtype
    planar: bool = False  # real [2, ...] (parts along dim 0, contiguous) instead of [..., 2]
    # read through its storage (as_strided at twice the offset and strides): passed as the [..., 2] view of the
    # real form of its whole storage (runtime.unpack_storage), which a dtype change converts as a whole
    storage: bool = False


@dataclass
class Signature:
    inputs: list[Boundary] = field(default_factory=list)
    consts: list[Boundary] = field(default_factory=list)
    outputs: list[Boundary] = field(default_factory=list)
