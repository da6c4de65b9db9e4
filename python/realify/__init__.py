"""realify: rewrite complex-valued PyTorch graphs into equivalent real-only graphs."""

from ._core import version as core_version
from ._lowering import LoweringReport, check_real_only, lower_graph_module
from ._signature import Boundary, Signature
from .artifact import load, save
from .errors import (
    ArtifactError,
    ComplexDtypeRemainsError,
    EagerFallbackWarning,
    GraphCaptureError,
    RealifyError,
    Status,
    TargetOpError,
    Tf32DftWarning,
    UnsafeArtifactError,
    UnsupportedOpError,
)
from .lower import lower
from .onnx_export import export_onnx

__version__ = "0.1.0"

from .backend import register as _register_backend  # noqa: E402

_register_backend()  # once, here: dynamo's own registration from its entry point races between threads

__all__ = [
    "ArtifactError",
    "Boundary",
    "ComplexDtypeRemainsError",
    "EagerFallbackWarning",
    "GraphCaptureError",
    "LoweringReport",
    "RealifyError",
    "Signature",
    "Status",
    "TargetOpError",
    "Tf32DftWarning",
    "UnsafeArtifactError",
    "UnsupportedOpError",
    "check_real_only",
    "core_version",
    "export_onnx",
    "lower",
    "load",
    "lower_graph_module",
    "save",
]
