"""realify: rewrite complex-valued PyTorch graphs into equivalent real-only graphs."""

from ._core import version as core_version
from ._lowering import LoweringReport, check_real_only, lower_graph_module
from ._options import LowerOptions
from ._signature import Boundary, Signature
from ._version import __version__
from .artifact import load, save
from .backend import register as _register_backend
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
from .ort_session import onnxruntime_session

_register_backend()  # once, here: dynamo's own registration from its entry point races between threads

__all__ = [
    "onnxruntime_session",
    "ArtifactError",
    "Boundary",
    "ComplexDtypeRemainsError",
    "EagerFallbackWarning",
    "GraphCaptureError",
    "LowerOptions",
    "LoweringReport",
    "RealifyError",
    "Signature",
    "Status",
    "TargetOpError",
    "Tf32DftWarning",
    "UnsafeArtifactError",
    "UnsupportedOpError",
    "__version__",
    "check_real_only",
    "core_version",
    "export_onnx",
    "lower",
    "load",
    "lower_graph_module",
    "save",
]
