"""The real-layout FFT operators that the C core emits under fft="native" and fft="onnx-dft".

Each takes and returns real tensors in `torch.view_as_real` layout, so the graph that holds them has no complex
dtype, while the kernel calls the platform FFT (cuFFT on CUDA, pocketfft on the CPU). `normalization` is
aten's (0 none, 1 by 1/sqrt(n), 2 by 1/n): the C core passes the scale of a whole transform so, where it is one of
those, and scales afterwards otherwise. Fake kernels give shapes only, so export, dynamo and Inductor
treat the operators as opaque kernels. realify.dft (fft="onnx-dft") is ONNX DFT's forward transform, one axis per
call; the ONNX export turns each call into one DFT node (realify.onnx_export).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

# The strategy names and "auto"'s choice live with the other options (realify._options); `resolve` is kept here too.
from ._options import NATIVE_INNER, STRATEGIES
from ._options import resolve_fft as resolve


def _no_half(x: torch.Tensor) -> torch.Tensor:
    """Halves as float: the CPU FFT and cuFFT (non-powers of 2) lack them."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _as_complex(x: torch.Tensor) -> torch.Tensor:
    return torch.view_as_complex(_no_half(x).contiguous())


def _as_real(z: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return torch.view_as_real(z).to(dtype).contiguous()


def _fft_c2c(x: torch.Tensor, dim: list[int], forward: bool, normalization: int = 0) -> torch.Tensor:
    return _as_real(torch._fft_c2c(_as_complex(x), dim, normalization, forward), x.dtype)


def _fft_c2c_fake(x: torch.Tensor, dim: list[int], forward: bool, normalization: int = 0) -> torch.Tensor:
    return x.new_empty(x.shape)


def _r2c_shape(x: torch.Tensor, dim: list[int], onesided: bool) -> list[int | torch.SymInt]:
    shape = list(x.shape)
    if onesided:
        shape[dim[-1]] = shape[dim[-1]] // 2 + 1
    return [*shape, 2]


def _r2c_fake_strides_match_cpu() -> bool:
    """Whether this torch's fake kernel of aten._fft_r2c gives the CPU kernel's strides for a transform over a dim
    that is not the last. torch 2.11's models a contiguous result where MKL's is strided, and Inductor then fails
    its stride assertion after the call (transformers' Autoformer under the backend)."""
    from torch._subclasses.fake_tensor import FakeTensorMode  # the kernel export and Inductor trace with

    try:
        real = torch._fft_r2c(torch.zeros(2, 4, 3), [1], 0, True).stride()
        with FakeTensorMode():
            fake = torch._fft_r2c(torch.zeros(2, 4, 3), [1], 0, True).stride()
    except (RuntimeError, NotImplementedError):  # pragma: no cover - no CPU FFT, or no fake kernel: nothing to match
        return True
    return tuple(real) == tuple(fake)


# Where the fake kernel disagrees, a CPU r2c runs only along a contiguous last dim, where the two agree.
_R2C_LAST_DIM_ONLY = not _r2c_fake_strides_match_cpu()


def _r2c_along_last(x: torch.Tensor, dim: list[int], onesided: bool, normalization: int) -> torch.Tensor:
    """aten._fft_r2c with its one-sided dim moved last (a copy) and the others as one c2c; one dim keeps the call's
    normalization, several scale once at the end."""
    last = dim[-1] % x.dim()
    norm = normalization if len(dim) == 1 else 0
    z = torch._fft_r2c(x.movedim(last, -1).contiguous(), [x.dim() - 1], norm, onesided).movedim(-1, last)
    if len(dim) > 1:
        z = torch._fft_c2c(z, dim[:-1], 0, True)
        if normalization:
            n = math.prod(x.shape[d] for d in dim)
            z = z * (n**-0.5 if normalization == 1 else 1.0 / n)
    return z


def _fft_r2c(x: torch.Tensor, dim: list[int], onesided: bool, normalization: int = 0) -> torch.Tensor:
    xf = _no_half(x).contiguous()
    if _R2C_LAST_DIM_ONLY and x.device.type == "cpu" and (len(dim) > 1 or dim[-1] % x.dim() != x.dim() - 1):
        return _as_real(_r2c_along_last(xf, dim, onesided, normalization), x.dtype)
    return _as_real(torch._fft_r2c(xf, dim, normalization, onesided), x.dtype)


def _fft_r2c_fake(x: torch.Tensor, dim: list[int], onesided: bool, normalization: int = 0) -> torch.Tensor:
    return x.new_empty(_r2c_shape(x, dim, onesided))


def _fft_c2r(x: torch.Tensor, dim: list[int], last_dim_size: int, normalization: int = 0) -> torch.Tensor:
    return torch._fft_c2r(_as_complex(x), dim, normalization, last_dim_size).to(x.dtype).contiguous()


def _fft_c2r_fake(x: torch.Tensor, dim: list[int], last_dim_size: int, normalization: int = 0) -> torch.Tensor:
    shape = list(x.shape[:-1])
    shape[dim[-1]] = last_dim_size
    return x.new_empty(shape)


def _dft(x: torch.Tensor, axis: int, onesided: bool) -> torch.Tensor:
    """ONNX DFT, forward: x real [..., 1] or complex [..., 2]; the result [..., 2], n//2+1 entries along `axis`
    when `onesided` (a real x only)."""
    if x.shape[-1] == 1:
        xr = _no_half(x.squeeze(-1))
        z = torch.fft.rfft(xr, dim=axis) if onesided else torch.fft.fft(xr, dim=axis)
    else:
        z = torch.fft.fft(_as_complex(x), dim=axis)
    return _as_real(z, x.dtype)


def _dft_fake(x: torch.Tensor, axis: int, onesided: bool) -> torch.Tensor:
    shape = list(x.shape)
    if onesided:
        shape[axis] = shape[axis] // 2 + 1
    shape[-1] = 2
    return x.new_empty(shape)


# Registered with torch.library.Library rather than torch.library.custom_op: a custom_op call passes through a
# Python autograd layer that costs several times the kernel launch (bench/op_overhead.py). Here the one kernel
# serves every backend (CompositeExplicitAutograd, so export and Inductor keep the op opaque), and an Autograd
# kernel goes straight below autograd unless a gradient is wanted; then it runs the same aten calls under
# autograd, which records their derivatives.
_SCHEMAS = {
    "fft_c2c": ("fft_c2c(Tensor x, int[] dim, bool forward, int normalization=0) -> Tensor", _fft_c2c, _fft_c2c_fake),
    "fft_r2c": ("fft_r2c(Tensor x, int[] dim, bool onesided, int normalization=0) -> Tensor", _fft_r2c,
                _fft_r2c_fake),
    "fft_c2r": ("fft_c2r(Tensor x, int[] dim, SymInt last_dim_size, int normalization=0) -> Tensor", _fft_c2r,
                _fft_c2r_fake),
    "dft": ("dft(Tensor x, int axis, bool onesided) -> Tensor", _dft, _dft_fake),
}
_LIB = torch.library.Library("realify", "FRAGMENT")


def _autograd_kernel(name: str, kernel: Callable[..., torch.Tensor]) -> Callable[..., torch.Tensor]:
    def below_autograd(x: torch.Tensor, *rest: object) -> torch.Tensor:
        if torch.is_grad_enabled() and x.requires_grad:
            return kernel(x, *rest)
        with torch._C._AutoDispatchBelowAutograd():
            return op(x, *rest)

    op = getattr(torch.ops.realify, name).default
    return below_autograd


for _name, (_schema, _kernel, _fake) in _SCHEMAS.items():
    _LIB.define(_schema)
    _LIB.impl(_name, _kernel, "CompositeExplicitAutograd")
    _LIB.impl(_name, _autograd_kernel(_name, _kernel), "Autograd")
    torch.library.register_fake(f"realify::{_name}", _fake, lib=_LIB)

fft_c2c = torch.ops.realify.fft_c2c.default
fft_r2c = torch.ops.realify.fft_r2c.default
fft_c2r = torch.ops.realify.fft_c2r.default
dft = torch.ops.realify.dft.default


_registered_with_inductor = False


def register_inductor_decompositions() -> None:
    """Adds each operator's aten calls to Inductor's global decomposition table, so that Inductor's generated code
    calls the platform FFT as an aten extern kernel (as it does for a complex model) instead of our Python kernel,
    which costs tens of microseconds of host time a call, more than the FFT at small sizes. Serves the backend's
    inner Inductor and torch.compile(realify.lower(..., fft="native")) alike. Only realify's own operators are
    added; where Inductor's table is not where this expects it, nothing changes but speed.

    AOTAutograd's cache keys on the graph handed over, not on this table: an entry made before the operators were
    registered (an older realify) still comes back, with the same numbers and the kernel's host cost, until the
    cache is cleared."""
    global _registered_with_inductor
    if _registered_with_inductor:
        return
    try:
        from torch._inductor import decomposition as inductor_decomposition
    except ImportError:  # pragma: no cover - Inductor is part of every supported torch
        return
    table = getattr(inductor_decomposition, "decompositions", None)
    if not isinstance(table, dict):
        return
    for name, (_, kernel, _) in _SCHEMAS.items():
        table.setdefault(getattr(torch.ops.realify, name).default, kernel)
    cached = getattr(inductor_decomposition, "fast_random_decomps", None)  # a functools.cache over the table
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()
    _registered_with_inductor = True


__all__ = [
    "NATIVE_INNER",
    "STRATEGIES",
    "dft",
    "fft_c2c",
    "fft_c2r",
    "fft_r2c",
    "register_inductor_decompositions",
    "resolve",
]
