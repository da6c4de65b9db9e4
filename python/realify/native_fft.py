"""The real-layout FFT operators that the C core emits under fft="native".

Each takes and returns real tensors in `torch.view_as_real` layout, so the graph that holds them has no complex
dtype, while the kernel calls the platform FFT (cuFFT on CUDA, pocketfft on the CPU). Transforms are
unnormalised; the lowered graph scales afterwards. Fake kernels give shapes only, so export, dynamo and Inductor
treat the operators as opaque kernels.
"""

from __future__ import annotations

import torch

# "auto" resolves to "native" for these inner compilers: they can call a torch.library kernel.
NATIVE_INNER = ("inductor", "eager")
STRATEGIES = ("auto", "matmul", "native")


def _as_complex(x: torch.Tensor) -> torch.Tensor:
    if x.dtype in (torch.float16, torch.bfloat16):  # the CPU FFT and cuFFT (non-powers of 2) lack halves
        x = x.float()
    return torch.view_as_complex(x.contiguous())


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
    xf = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
    return _as_real(torch._fft_r2c(xf.contiguous(), dim, 0, onesided), x.dtype)


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


def resolve(fft: str, inner: str | None) -> str:
    """The strategy the C core is asked for: "auto" is native where the inner compiler can call our kernels."""
    if fft not in STRATEGIES:
        raise ValueError(f"fft must be one of {STRATEGIES}, got {fft!r}")
    if fft == "auto":
        return "native" if inner in NATIVE_INNER else "matmul"
    return fft
