"""realify.export_onnx: lower for ONNX and export through torch.onnx, with the opset deciding what realify may emit.

ONNX has ops that do what realify otherwise spells out in plain real ops: DFT (opset >= 17), which ONNX Runtime runs
with its own FFT and TensorRT's parser (11.2 and newer) with cuFFT, and RotaryEmbedding (opset >= 23). The opset is
only known at export, so this entry point picks: RoPE becomes realify.rotary_embedding (one RotaryEmbedding node)
from opset 23 on, and fft="onnx-dft" (each transform one realify.dft per axis, exported as one DFT node) is allowed
from opset 17 on. fft="auto" stays "matmul" here: in ONNX Runtime's CPU provider realify's DFT matmuls ran faster
than its DFT kernel on every FFT model of bench/onnx_fft.py (docs/benchmarks.md). realify.onnx_ops holds the
translation of realify's ops to ONNX.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from typing import Any

import torch

from ._atomic import atomic_output
from ._options import LowerOptions, resolve_fft
from ._threads import torch_lock
from .onnx_ops import DFT_MIN_OPSET, default_opset, translation_table
from .rotary import ROTARY_MIN_OPSET

DFT_MATMULS_KEY = "realify.dft_matmuls"  # ONNX metadata: the model's FFTs are DFT matmuls, which TF32 would reach


def fft_strategy(fft: str, opset: int) -> str:
    """The strategy an ONNX model of this opset gets: "auto" is "matmul", as for any receiver realify.lower does not
    know (and faster in ONNX Runtime, see the module's text); "onnx-dft" needs opset >= 17."""
    strategy = resolve_fft(fft, None)
    if strategy == "onnx-dft" and opset < DFT_MIN_OPSET:
        raise ValueError(f'fft="onnx-dft" needs ONNX opset >= {DFT_MIN_OPSET} (DFT); got opset {opset}')
    return strategy


def for_opset(options: LowerOptions, opset: int) -> LowerOptions:
    """`options` for an ONNX model of this opset: target onnx, the fft strategy, RotaryEmbedding from opset 23.
    export_onnx and the CLI's .onnx output both lower with these."""
    return dataclasses.replace(
        options, target="onnx", fft=fft_strategy(options.fft, opset), rotary_op=opset >= ROTARY_MIN_OPSET
    )


def write_metadata(model: Any, lowered: torch.export.ExportedProgram) -> dict[str, Any]:
    """Write the complex signature of `lowered` (realify.lower's result) into an ONNX model's metadata_props, where
    realify.load reads it. Returns the record."""
    from .artifact import ONNX_KEY, signature_record

    record = signature_record(lowered)
    model.metadata_props[ONNX_KEY] = json.dumps(record, indent=1)
    model.metadata_props["realify.version"] = record["realify_version"]
    return record


def export_onnx(
    model: torch.export.ExportedProgram,
    args: tuple[Any, ...],
    *,
    opset_version: int | None = None,
    fft: str = "auto",
    truncate_double: bool = False,
    division: str = "c10",
    **kwargs: Any,
) -> Any:
    """Lower an ExportedProgram for ONNX (target="onnx") and export it with torch.onnx at `opset_version` (torch's
    default when None). `fft`: "auto" or "matmul" (DFT matmuls), "onnx-dft" (DFT nodes); `truncate_double` and
    `division` as realify.lower's (realify.LowerOptions); RoPE becomes RotaryEmbedding from opset 23. Returns
    torch.onnx's ONNXProgram. `args` are the original program's: complex ones are passed in the lowered form
    (view_as_real). `kwargs` go to torch.onnx.export. The model carries the complex signature (metadata
    `realify.signature`), so realify.load of the saved file takes the original complex arguments.

    A model whose transforms became DFT matmuls says so in its metadata (DFT_MATMULS_KEY): TensorRT builds with TF32
    unless told not to, and TF32 matmuls are about 4e-4 off torch.fft (realify._precision)."""
    from .lower import lower_with
    from .runtime import real_arguments

    options = LowerOptions(truncate_double=truncate_double, fft=fft, division=division, target="onnx")
    opset = default_opset() if opset_version is None else opset_version
    lowered = lower_with(model, for_opset(options, opset))
    report = lowered.graph_module.meta["realify_report"]
    real_args = tuple(real_arguments(report.signature, args))
    destination = kwargs.pop("f", None)  # saved below, once the metadata is in
    with torch_lock():
        program = torch.onnx.export(
            lowered, real_args, dynamo=True, opset_version=opset, custom_translation_table=translation_table(opset),
            **kwargs,
        )
    write_metadata(program.model, lowered)
    dfts = report.dft_matmul_sources
    if dfts:
        program.model.metadata_props[DFT_MATMULS_KEY] = (
            f"{len(dfts)} FFT op(s) as float32 DFT matmuls; to keep torch.fft's precision, build TensorRT engines "
            "without TF32 (trtexec --noTF32, or clear BuilderFlag.TF32) and give ONNX Runtime's CUDA provider "
            "use_tf32=0"
        )
    if destination is not None:
        save = functools.partial(
            program.save,
            include_initializers=kwargs.get("export_params", True),
            keep_initializers_as_inputs=kwargs.get("keep_initializers_as_inputs", False),
            external_data=kwargs.get("external_data", True),
        )
        if isinstance(destination, (str, os.PathLike)):
            with atomic_output(destination) as tmp:  # beside the target, renamed over it when complete
                save(tmp)
        else:
            save(destination)
    return program
