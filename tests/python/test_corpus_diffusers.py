"""Corpus: diffusers' transformer models whose rotary embedding is complex (diffusers 0.42.1, tiny configs, one
layer). Found by grepping the installed package for view_as_complex / torch.polar / torch.fft / use_real=False:

- QwenImageTransformer2DModel: RoPE tables from torch.polar, applied through view_as_complex

Each model is called through `Call`, which fixes the non-tensor arguments (image shapes, return_dict=False).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
from corpus_support import Case, parametrize, run_column

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing is downloaded: every model is built from a config in code


class Call(torch.nn.Module):
    """A diffusers model called with tensors by position and its fixed keyword arguments; the first output."""

    def __init__(self, model: torch.nn.Module, names: tuple[str, ...], **fixed: Any) -> None:
        super().__init__()
        self.model, self.names, self.fixed = model, names, fixed

    def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
        out = self.model(**dict(zip(self.names, tensors, strict=True)), **self.fixed, return_dict=False)
        return out[0]


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape)


def _qwen_image() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import QwenImageTransformer2DModel

    model = QwenImageTransformer2DModel(
        patch_size=2, in_channels=16, out_channels=4, num_layers=1, attention_head_dim=8, num_attention_heads=2,
        joint_attention_dim=16, axes_dims_rope=(2, 2, 4),
    )
    call = Call(model, ("hidden_states", "encoder_hidden_states", "timestep"), img_shapes=[(1, 4, 4)])
    return call.eval(), (_randn(1, 16, 16), _randn(1, 5, 16), torch.tensor([0.5]))


CASES = [
    Case("diffusers/QwenImageTransformer2DModel", "diffusers", _qwen_image),
]


@parametrize(CASES)
def test_diffusers(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
