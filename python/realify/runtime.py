"""Run-time adapters: complex arguments in, real arguments to the compiled
graph, complex results back out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch

from ._signature import Signature


def unpack(x: torch.Tensor, real_dtype: torch.dtype) -> torch.Tensor:
    """Complex tensor -> real [..., 2] tensor: realify's one packing helper
    (arguments, constants, fake values).

    A zero-copy view (any strides) unless the conj bit is set, which must be
    resolved first, or a dtype change (complex128 truncated to float32) forces
    a copy.
    """
    if x.is_conj():
        x = x.resolve_conj()
    r = torch.view_as_real(x)
    return r if r.dtype == real_dtype else r.to(real_dtype)


def pack(r: torch.Tensor, complex_dtype: torch.dtype) -> torch.Tensor:
    """Real [..., 2] tensor -> complex tensor of `complex_dtype` (a view when layout allows)."""
    want = complex_dtype.to_real()
    if r.dtype != want:
        r = r.to(want)
    if r.stride(-1) != 1 or any(s % 2 for s in r.stride()[:-1]) or r.storage_offset() % 2:
        r = r.contiguous()
    return torch.view_as_complex(r)


class ComplexAdapter:
    """Wraps a callable compiled from a lowered graph so callers use complex tensors."""

    def __init__(self, compiled: Callable[..., Any], sig: Signature) -> None:
        self.compiled = compiled
        self.in_plan = [(int(b.position), b.real_dtype) for b in sig.inputs]
        self.out_plan = [(int(b.position), b.complex_dtype) for b in sig.outputs]

    def adapt_inputs(self, args: Sequence[Any]) -> list[Any]:
        real = list(args)
        for i, dt in self.in_plan:
            real[i] = unpack(real[i], dt)
        return real

    def adapt_outputs(self, outs: Any) -> Any:
        if not self.out_plan:
            return outs
        single = not isinstance(outs, (list, tuple))
        res = [outs] if single else list(outs)
        for j, dt in self.out_plan:
            res[j] = pack(res[j], dt)
        if single:
            return res[0]
        return type(outs)(res) if isinstance(outs, tuple) else res

    def __call__(self, *args: Any) -> Any:
        return self.adapt_outputs(self.compiled(*self.adapt_inputs(args)))
