"""Deploy (d): coremltools converts every lowered zoo model to an ML program (convert only: running one needs
macOS)."""

from __future__ import annotations

import warnings

import pytest
from deploy_support import lowered, zoo_params

ct = pytest.importorskip("coremltools", reason="needs coremltools (make test installs it with executorch)")

# coremltools' PyTorch frontend has no bfloat16 in its dtype map, with or without realify.
KNOWN = {"yarn_rope_bf16": (KeyError, "coremltools' torch frontend has no bfloat16 dtype")}


@pytest.mark.parametrize("name", zoo_params(KNOWN))
def test_coremltools_converts_the_lowered_program(name: str) -> None:
    lw = lowered(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = ct.convert(
            lw.program.run_decompositions({}),
            convert_to="mlprogram",
            skip_model_load=True,
            minimum_deployment_target=ct.target.iOS18,
        )
    ops = {op.op_type for f in model._mil_program.functions.values() for op in f.operations}
    assert ops, f"{name}: an empty ML program"
    assert not {o for o in ops if "complex" in o}, ops
