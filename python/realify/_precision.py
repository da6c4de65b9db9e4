"""TF32 and the DFT matmuls of fft="matmul".

torch.fft stays float32 on CUDA (cuFFT) whatever the matmul precision, but the DFT matmuls that fft="matmul" writes
in its place are float32 matmuls, which run in TF32 wherever TF32 is on: under torch's flag
(`torch.backends.cuda.matmul`, `torch.set_float32_matmul_precision("high")`) and in TensorRT's default build.
Measured on the H200, that costs 3.5e-4 to 4.3e-4 relative error against torch.fft instead of 4e-7 to 6e-7
(docs/benchmarks.md, "Fourteenth session"). This module finds those matmuls, tells the user when TF32 would reach
them, and gives TensorRT the setting that keeps them float32.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import fx

from .errors import Tf32DftWarning, user_source_line

aten = torch.ops.aten
_TRANSFORMS = frozenset({"aten::_fft_r2c", "aten::_fft_c2c", "aten::_fft_c2r", "aten::stft", "aten::istft"})
_MATMUL_OPS = frozenset(
    {aten.matmul.default, aten.mm.default, aten.bmm.default, aten.addmm.default, aten.baddbmm.default}
)


@dataclass(frozen=True)
class FftSource:
    """An FFT node of the input graph that became DFT matmuls: names only, so a report keeps no graph alive."""

    op: str
    node: str
    source: str | None  # the user's source line (node.stack_trace)


def cuda_matmul_tf32() -> bool:
    """Whether CUDA float32 matmuls may use TF32 now, read without the error that torch raises when a program mixed
    the legacy flag (allow_tf32) with the newer fp32_precision settings."""
    matmul = torch.backends.cuda.matmul
    for precision in (getattr(matmul, "fp32_precision", None), getattr(torch.backends, "fp32_precision", None)):
        if precision == "tf32":
            return True
        if precision not in (None, "none"):  # "ieee"
            return False
    try:
        return bool(matmul.allow_tf32)
    except RuntimeError:
        return False


def is_fft_op(target: object) -> bool:
    """A transform: aten's _fft_* primitives (aot graphs), its torch.fft ops (exported programs) and stft/istft;
    not fftshift or fftfreq."""
    name = getattr(getattr(target, "_schema", None), "name", "")
    if name in _TRANSFORMS:
        return True
    return name.startswith("aten::fft_") and "shift" not in name and "freq" not in name


def dft_matmul_sources(gm: fx.GraphModule, origins: Mapping[fx.Node, fx.Node]) -> list[FftSource]:
    """The input graph's FFT nodes that the lowering turned into matmuls in gm, in graph order."""
    found: dict[fx.Node, None] = {}
    for node in gm.graph.nodes:
        src = origins.get(node)
        if node.op == "call_function" and node.target in _MATMUL_OPS and src is not None and is_fft_op(src.target):
            found[src] = None
    return [FftSource(str(n.target), n.name, user_source_line(n)) for n in found]


def on_cuda(values: Iterable[Any]) -> bool:
    return any(isinstance(v, torch.Tensor) and v.is_cuda for v in values)


def warn_tf32_dfts(sources: list[FftSource], compiler: str) -> None:
    """Warn that these FFT nodes' DFT matmuls will run in TF32 under `compiler`."""
    first = sources[0]
    where = first.source or "unknown source line"
    more = f" and {len(sources) - 1} more" if len(sources) > 1 else ""
    warnings.warn(
        f"realify: fft='matmul' made {first.op} (node {first.node!r}, at {where}){more} into DFT matmuls, and "
        f"TF32 is on for CUDA float32 matmuls, so {compiler} runs them in TF32: about 4e-4 relative error against "
        "torch.fft, which stays float32. Keep torch.fft's precision with fft='native' (or 'auto') or with TF32 off "
        "(torch.backends.cuda.matmul.fp32_precision = 'ieee').",
        Tf32DftWarning,
        stacklevel=3,
    )


def runtime_tf32(sources: list[FftSource]) -> bool:
    """Whether a deployment runtime (TensorRT, ONNX Runtime's CUDA provider) may use TF32 for a lowered graph: never
    where it holds DFT matmuls, else as torch's own matmul setting says."""
    return not sources and cuda_matmul_tf32()


def tensorrt_options(sources: list[FftSource], user: Mapping[str, Any] | None) -> dict[str, Any]:
    """Torch-TensorRT settings for a lowered graph (TensorRT builds with TF32 unless told not to): runtime_tf32's
    choice, under the caller's settings."""
    options: dict[str, Any] = {"disable_tf32": not runtime_tf32(sources)}
    options.update(user or {})
    return options
