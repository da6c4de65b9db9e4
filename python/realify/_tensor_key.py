"""The key of a cached conversion of a caller's tensor (runtime.PlanarCache, _hoist.HoistedInputs)."""

from __future__ import annotations

from typing import Any

import torch


def data_key(x: torch.Tensor) -> tuple[Any, ...]:
    """What a cached conversion of x depends on besides x's identity: its version counter, data pointer, shape and
    strides. data_ptr covers the storage offset; a conj view is another object; in-place metadata changes (t_,
    resize_, as_strided_, set_) bump the version; `.data =` does not, but changes the pointer, shape or strides."""
    return (x._version, x.data_ptr(), x.shape, x.stride())


__all__ = ["data_key"]
