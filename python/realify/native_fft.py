"""The real-layout FFT operators that the C core emits under fft="native" and fft="onnx-dft".

Each takes and returns real tensors in `torch.view_as_real` layout, so the graph that holds them has no complex
dtype, while the kernel calls the platform FFT (cuFFT on CUDA, pocketfft on the CPU). Transforms are
unnormalised; the lowered graph scales afterwards. Fake kernels give shapes only, so export, dynamo and Inductor
treat the operators as opaque kernels. realify.dft (fft="onnx-dft") is ONNX DFT's forward transform, one axis per
call; the ONNX export turns each call into one DFT node (realify.onnx_export).
"""

from __future__ import annotations

import torch

# "auto" resolves to "native" for these inner compilers: they can call a torch.library kernel.
NATIVE_INNER = ("inductor", "eager")
STRATEGIES = ("auto", "matmul", "native", "onnx-dft")
_CORE_CODES = {"matmul": 0, "native": 1, "onnx-dft": 2}  # rf_fft_strategy in include/realify.h


def _no_half(x: torch.Tensor) -> torch.Tensor:
    """Halves as float: the CPU FFT and cuFFT (non-powers of 2) lack them."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _as_complex(x: torch.Tensor) -> torch.Tensor:
    return torch.view_as_complex(_no_half(x).contiguous())


def _as_real(z: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return torch.view_as_real(z).to(dtype).contiguous()


@torch.library.custom_op("realify::fft_c2c", mutates_args=())
def fft_c2c(x: torch.Tensor, dim: list[int], forward: bool) -> torch.Tensor:
    return _as_real(torch._fft_c2c(_as_complex(x), dim, 0, forward), x.dtype)


@fft_c2c.register_fake
def _(x: torch.Tensor, dim: list[int], forward: bool) -> torch.Tensor:
    return x.new_empty(x.shape)


def _r2c_shape(x: torch.Tensor, dim: list[int], onesided: bool) -> list[int | torch.SymInt]:
    shape = list(x.shape)
    if onesided:
        shape[dim[-1]] = shape[dim[-1]] // 2 + 1
    return [*shape, 2]


@torch.library.custom_op("realify::fft_r2c", mutates_args=())
def fft_r2c(x: torch.Tensor, dim: list[int], onesided: bool) -> torch.Tensor:
    return _as_real(torch._fft_r2c(_no_half(x).contiguous(), dim, 0, onesided), x.dtype)


@fft_r2c.register_fake
def _(x: torch.Tensor, dim: list[int], onesided: bool) -> torch.Tensor:
    return x.new_empty(_r2c_shape(x, dim, onesided))


@torch.library.custom_op("realify::fft_c2r", mutates_args=())
def fft_c2r(x: torch.Tensor, dim: list[int], last_dim_size: int) -> torch.Tensor:
    return torch._fft_c2r(_as_complex(x), dim, 0, last_dim_size).to(x.dtype).contiguous()


@fft_c2r.register_fake
def _(x: torch.Tensor, dim: list[int], last_dim_size: int) -> torch.Tensor:
    shape = list(x.shape[:-1])
    shape[dim[-1]] = last_dim_size
    return x.new_empty(shape)


@torch.library.custom_op("realify::dft", mutates_args=())
def dft(x: torch.Tensor, axis: int, onesided: bool) -> torch.Tensor:
    """ONNX DFT, forward: x real [..., 1] or complex [..., 2]; the result [..., 2], n//2+1 entries along `axis`
    when `onesided` (a real x only)."""
    if x.shape[-1] == 1:
        xr = _no_half(x.squeeze(-1))
        z = torch.fft.rfft(xr, dim=axis) if onesided else torch.fft.fft(xr, dim=axis)
    else:
        z = torch.fft.fft(_as_complex(x), dim=axis)
    return _as_real(z, x.dtype)


@dft.register_fake
def _(x: torch.Tensor, axis: int, onesided: bool) -> torch.Tensor:
    shape = list(x.shape)
    if onesided:
        shape[axis] = shape[axis] // 2 + 1
    shape[-1] = 2
    return x.new_empty(shape)


def core_code(strategy: str) -> int:
    """The C core's code for a resolved strategy."""
    return _CORE_CODES[strategy]


def resolve(fft: str, inner: str | None) -> str:
    """The strategy the C core is asked for: "auto" is native where the inner compiler can call our kernels."""
    if fft not in STRATEGIES:
        raise ValueError(f"fft must be one of {STRATEGIES}, got {fft!r}")
    if fft == "auto":
        return "native" if inner in NATIVE_INNER else "matmul"
    return fft
