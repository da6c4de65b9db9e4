"""ONNX Runtime sessions the way realify opens them (realify.load of an .onnx file, the "onnxrt" backend).

One graph fusion of ONNX Runtime's CPU provider is slower than what it replaces: SkipLayerNormFusion turns
Add -> LayerNormalization into com.microsoft.SkipLayerNormalization, and on rank-3 inputs ([B, S, H], a transformer's
usual residual) that kernel ran 6.7-7.7x slower than the two nodes it replaced in ONNX Runtime 1.32 (H 256 and
1024, 1 and 2 threads; on rank-2 inputs they are equal). It is switched off where only the CPU provider runs; the CUDA
provider's kernel is a different one and keeps the fusion.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

SLOW_CPU_FUSIONS = ("SkipLayerNormFusion",)


def _cpu_only(providers: Sequence[Any]) -> bool:
    names = [p[0] if isinstance(p, (tuple, list)) else p for p in providers]
    return all(n == "CPUExecutionProvider" for n in names)


def onnxruntime_session(
    model: str | bytes, sess_options: Any = None, providers: Sequence[Any] | None = None
) -> Any:
    """An onnxruntime.InferenceSession of `model` (a path or the serialized ModelProto) with the fusions that slow
    the CPU provider down switched off; `sess_options` and `providers` as InferenceSession takes them (default: the
    CPU provider)."""
    import onnxruntime as ort

    providers = list(providers or ["CPUExecutionProvider"])
    disabled = list(SLOW_CPU_FUSIONS) if _cpu_only(providers) else []
    return ort.InferenceSession(model, sess_options, providers=providers, disabled_optimizers=disabled)
