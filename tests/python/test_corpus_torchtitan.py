"""Corpus: torchtitan's Llama 3 (its own Llama3Model: fused-QKV GQA, SDPA attention, complex RoPE cache from
torch.polar applied through view_as_complex) at a tiny size. The tensor-parallel run is test_torchtitan_tp.py."""

from __future__ import annotations

import pytest
import torch
from corpus_support import Case, parametrize, run_column
from torchtitan_support import build_llama3, tokens


def _llama3() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    return build_llama3().eval(), (tokens(),)


# the package to import: torchtitan.models imports triton (its MoE kernels), so without triton the cells skip
CASES = [Case("torchtitan/Llama 3 (SDPA, ComplexRoPE)", "torchtitan.models.llama3", _llama3, train_inductor=True)]


@parametrize(CASES)
def test_torchtitan(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
