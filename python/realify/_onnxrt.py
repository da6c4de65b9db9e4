"""The "onnxrt" inner compiler: the lowered real graph exported to ONNX and run by ONNX Runtime.

torch's own "onnxrt" dynamo backend is gone from every torch realify supports (2.11 and newer), so realify exports
the graph itself (torch.export, then torch.onnx with realify's translation table) and runs it in an
InferenceSession: CUDA's provider for CUDA inputs where ONNX Runtime has it, else the CPU's. Shapes are static: the
model is exported for the example inputs' shapes, and dynamo recompiles for others.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from typing import Any

import torch
from torch import fx
from torch._dynamo.backends.common import fake_tensor_unsupported

from ._precision import on_cuda
from .errors import RealifyError, user_source_line
from .ort_session import onnxruntime_session


def _providers(ort: Any, on_cuda: bool, use_tf32: bool) -> list[Any]:
    if on_cuda and "CUDAExecutionProvider" in ort.get_available_providers():
        return [("CUDAExecutionProvider", {"use_tf32": str(int(use_tf32))}), "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def _check_exportable(gm: fx.GraphModule, inputs: list[Any]) -> None:
    for x in inputs:
        if not isinstance(x, torch.Tensor):
            raise RealifyError(
                f"backend 'onnxrt' takes tensor inputs with static shapes, got {type(x).__name__}: compile with "
                "dynamic=False"
            )
        if x.dtype == torch.bfloat16:  # the feeds go through numpy, which has no bfloat16
            raise RealifyError("backend 'onnxrt' cannot feed bfloat16 inputs; use 'inductor' or export to ONNX")
    for node in gm.graph.nodes:  # ONNX has no in-place update of a graph input
        if node.op == "call_function" and node.target is torch.ops.aten.copy_.default:
            dest = node.args[0]
            if isinstance(dest, fx.Node) and dest.op == "placeholder":
                where = user_source_line(node) or "unknown source line"
                raise RealifyError(
                    f"backend 'onnxrt': node {node.name!r} writes the graph input {dest.name!r} in place (at {where}), "
                    "which an ONNX model cannot do"
                )


@fake_tensor_unsupported
def compile_onnxrt(gm: fx.GraphModule, example_inputs: list[Any], *, use_tf32: bool = False) -> Callable[..., Any]:
    """An ONNX Runtime session for gm, called as gm is (positional tensors in, gm's outputs out)."""
    try:
        import onnxruntime as ort
    except ImportError as e:
        raise RuntimeError("options['backend']='onnxrt' needs the onnxruntime package, which is not installed") from e
    from .onnx_ops import default_opset, translation_table

    _check_exportable(gm, example_inputs)
    opset = default_opset()
    ep = torch.export.export(gm, tuple(example_inputs), strict=False)
    with contextlib.redirect_stdout(io.StringIO()):  # the exporter prints its progress
        program = torch.onnx.export(
            ep, tuple(example_inputs), dynamo=True, opset_version=opset, verbose=False,
            custom_translation_table=translation_table(opset),
        )
    try:
        session = onnxruntime_session(
            program.model_proto.SerializeToString(), providers=_providers(ort, on_cuda(example_inputs), use_tf32)
        )
    except Exception as e:  # onnxruntime's own exception types live in its C extension
        if "NOT_IMPLEMENTED" not in str(e) or not any(x.dtype == torch.float64 for x in example_inputs):
            raise
        raise RealifyError(
            f"backend 'onnxrt': ONNX Runtime has no kernel for a node of the exported model ({str(e).strip()}). "
            "Its CPU provider lacks float64 kernels for some ops, and complex128 lowers to float64: "
            "options={'truncate_double': True} runs the graph in float32"
        ) from e
    names = [i.name for i in session.get_inputs()]
    if len(names) != len(example_inputs):
        raise RealifyError(f"backend 'onnxrt': the ONNX model takes {len(names)} inputs, gm {len(example_inputs)}")
    out_node = next(n for n in gm.graph.nodes if n.op == "output")
    as_sequence = isinstance(out_node.args[0], (tuple, list))
    device = example_inputs[0].device if example_inputs else torch.device("cpu")

    def run(*args: torch.Tensor) -> Any:
        feeds = {n: x.detach().cpu().contiguous().numpy() for n, x in zip(names, args, strict=True)}
        outs = tuple(torch.from_numpy(o).to(device) for o in session.run(None, feeds))
        return outs if as_sequence else outs[0]

    run.session = session  # type: ignore[attr-defined]
    return run
