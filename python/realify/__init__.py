"""realify: rewrite complex-valued PyTorch graphs into equivalent real-only graphs."""

from ._core import version as core_version
from .errors import ComplexDtypeRemainsError, GraphCaptureError, RealifyError, TargetOpError, UnsupportedOpError
from .lower import Boundary, LoweringReport, Signature, check_real_only, lower, lower_graph_module

__version__ = "0.1.0"

__all__ = [
    "Boundary",
    "ComplexDtypeRemainsError",
    "GraphCaptureError",
    "LoweringReport",
    "RealifyError",
    "Signature",
    "TargetOpError",
    "UnsupportedOpError",
    "check_real_only",
    "core_version",
    "lower",
    "lower_graph_module",
]
