"""Corpus: diffusers' transformer models whose rotary embedding is complex (diffusers 0.42.1, tiny configs, one
layer), found by grepping the installed package for view_as_complex / torch.polar / torch.fft / use_real=False:

- QwenImageTransformer2DModel: per-axis RoPE tables from torch.polar, applied through view_as_complex
- NucleusMoEImageTransformer2DModel (dense blocks): the same Qwen-style complex RoPE in its own module
- BriaTransformer2DModel: Flux-style joint/single blocks, RoPE from get_1d_rotary_pos_embed's polar path
- LuminaNextDiT2DModel: the complex freqs_cis is an input (get_2d_rotary_pos_embed_lumina, as its pipeline
  builds it), applied by LuminaAttnProcessor2_0 through apply_rotary_emb(use_real=False)
- Lumina2Transformer2DModel: whole model (its sequence lengths come from the caption mask's values: upstream
  export and dynamo cannot take it), and Lumina2TransformerBlock with get_1d_rotary_pos_embed(use_real=False)
- ZImageTransformer2DModel: torch.polar tables, RoPE inside torch.amp.autocast("cuda", enabled=False) (an
  autocast region that torch.export keeps as a higher-order op)
- QwenImage21Transformer2DModel: polar RoPE; the joint sequence is built with data-dependent repeat_interleave
  (upstream export and dynamo cannot take it), and QwenImage21TransformerBlock with its QwenImage21Rope table
- AnyFlowTransformer3DModel: Wan-style 3-D RoPE built with use_real=False, applied through view_as_complex in
  complex128; the rotated q/k (strided like the permuted input) feed SDPA, whose output strides follow them
- WanTransformer3DModel: its RoPE is real (cos/sin) in this release; a model realify must pass through untouched
- FreeU (diffusers.utils.torch_utils.apply_freeu): fourier_filter's fftn / fftshift / ifftn on the skip features

Each model is called through `Call`, which fixes the non-tensor arguments (image shapes, return_dict=False).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
from corpus_support import Case, Upstream, parametrize, run_column

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


def _nucleus_moe_image() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import NucleusMoEImageTransformer2DModel

    model = NucleusMoEImageTransformer2DModel(
        patch_size=2, in_channels=16, out_channels=4, num_layers=1, attention_head_dim=8, num_attention_heads=2,
        joint_attention_dim=16, axes_dims_rope=(2, 2, 4), moe_enabled=False,
    )
    call = Call(model, ("hidden_states", "encoder_hidden_states", "timestep"), img_shapes=[(1, 4, 4)])
    return call.eval(), (_randn(1, 16, 16), _randn(1, 5, 16), torch.tensor([0.5]))


def _bria() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import BriaTransformer2DModel

    model = BriaTransformer2DModel(
        patch_size=1, in_channels=16, num_layers=1, num_single_layers=1, attention_head_dim=8, num_attention_heads=2,
        joint_attention_dim=16, axes_dims_rope=[2, 2, 4],
    )
    call = Call(model, ("hidden_states", "encoder_hidden_states", "timestep", "img_ids", "txt_ids"))
    grid = torch.meshgrid(torch.zeros(1), torch.arange(4.0), torch.arange(4.0), indexing="ij")
    img_ids = torch.stack(grid, -1).reshape(16, 3)
    return call.eval(), (_randn(1, 16, 16), _randn(1, 5, 16), torch.tensor([500]), img_ids, torch.zeros(5, 3))


def _lumina_next() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import LuminaNextDiT2DModel
    from diffusers.models.embeddings import get_2d_rotary_pos_embed_lumina

    model = LuminaNextDiT2DModel(
        sample_size=8, patch_size=2, in_channels=4, hidden_size=32, num_layers=1, num_attention_heads=4,
        num_kv_heads=2, multiple_of=16, learn_sigma=False, cross_attention_dim=16,
    )
    names = ("hidden_states", "timestep", "encoder_hidden_states", "encoder_mask", "image_rotary_emb")
    call = Call(model, names, cross_attention_kwargs={})
    rope = get_2d_rotary_pos_embed_lumina(32 // 4, 16, 16)  # complex64 (16, 16, head_dim / 2)
    mask = torch.ones(1, 5, dtype=torch.bool)
    return call.eval(), (_randn(1, 4, 8, 8), torch.tensor([0.5]), _randn(1, 5, 16), mask, rope)


def _lumina2() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import Lumina2Transformer2DModel

    model = Lumina2Transformer2DModel(
        sample_size=8, patch_size=2, in_channels=4, hidden_size=32, num_layers=1, num_refiner_layers=1,
        num_attention_heads=4, num_kv_heads=2, multiple_of=16, axes_dim_rope=(2, 2, 4), axes_lens=(16, 16, 16),
        cap_feat_dim=16,
    )
    call = Call(model, ("hidden_states", "timestep", "encoder_hidden_states", "encoder_attention_mask"))
    return call.eval(), (_randn(1, 4, 8, 8), torch.tensor([0.5]), _randn(1, 5, 16), torch.ones(1, 5, dtype=torch.bool))


class Lumina2Block(torch.nn.Module):
    def __init__(self) -> None:
        from diffusers.models.transformers.transformer_lumina2 import Lumina2TransformerBlock

        super().__init__()
        self.block = Lumina2TransformerBlock(32, 4, 2, 16, None, 1e-5, modulation=True)

    def forward(self, x: torch.Tensor, mask: torch.Tensor, rope: torch.Tensor, temb: torch.Tensor) -> torch.Tensor:
        return self.block(x, mask, rope, temb)


def _lumina2_block() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers.models.embeddings import get_1d_rotary_pos_embed

    rope = get_1d_rotary_pos_embed(8, 12, use_real=False)[None]  # complex64 (1, seq, head_dim / 2)
    return Lumina2Block().eval(), (_randn(1, 12, 32), torch.ones(1, 12, dtype=torch.bool), rope, _randn(1, 32))


class ZImage(torch.nn.Module):
    """ZImageTransformer2DModel takes and returns lists of per-sample tensors: one sample here."""

    def __init__(self) -> None:
        from diffusers import ZImageTransformer2DModel

        super().__init__()
        self.model = ZImageTransformer2DModel(
            in_channels=4, dim=32, n_layers=1, n_refiner_layers=1, n_heads=2, n_kv_heads=2, cap_feat_dim=16,
            axes_dims=[4, 6, 6], axes_lens=[64, 16, 16],
        )

    def forward(self, x: torch.Tensor, t: torch.Tensor, cap: torch.Tensor) -> torch.Tensor:
        return self.model([x], t, [cap], return_dict=False)[0][0]


def _z_image() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    model, args = ZImage().eval(), (_randn(4, 1, 8, 8), torch.tensor([0.5]), _randn(5, 16))
    # its RoPE tables are computed on the first call, under `with torch.device("cpu")`, which dynamo does not
    # take; later calls reuse them (a pipeline's denoising loop calls the model many times): one eager call first
    with torch.no_grad():
        model(*args)
    return model, args


def _qwen_image21() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import QwenImage21Transformer2DModel

    model = QwenImage21Transformer2DModel(
        patch_size=1, in_channels=16, out_channels=16, num_layers=1, attention_head_dim=8, num_attention_heads=2,
        context_in_dim=16, axes_dims_rope=(2, 2, 4),
    )
    call = Call(model, ("hidden_states", "encoder_hidden_states", "timestep", "img_mask"), img_shapes=[[(1, 4, 4)]])
    img_mask = torch.arange(9).ge(5)[None]  # 5 text slots, then 4 image slots of 2x2 latent tokens each
    return call.eval(), (_randn(1, 16, 16), _randn(1, 5, 16), torch.tensor([0.5]), img_mask)


class QwenImage21Block(torch.nn.Module):
    def __init__(self) -> None:
        from diffusers.models.transformers.transformer_qwenimage21 import QwenImage21TransformerBlock

        super().__init__()
        self.block = QwenImage21TransformerBlock(16, 2, 8)

    def forward(self, x: torch.Tensor, modulation: torch.Tensor, rope: torch.Tensor) -> torch.Tensor:
        return self.block(x, modulation, rotary_emb=rope)


def _qwen_image21_block() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers.models.transformers.transformer_qwenimage21 import QwenImage21Rope

    image = torch.arange(12).ge(4)  # 4 text tokens, then a 2x4 image
    rope = QwenImage21Rope(10000, [2, 2, 4])([(1, 2, 4)], image, torch.device("cpu"))  # complex64 (12, 4)
    return QwenImage21Block().eval(), (_randn(1, 12, 16), _randn(1, 64), rope)


def _wan() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import WanTransformer3DModel

    model = WanTransformer3DModel(
        patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
        text_dim=16, freq_dim=16, ffn_dim=32, num_layers=1, rope_max_seq_len=32,
    )
    call = Call(model, ("hidden_states", "timestep", "encoder_hidden_states"))
    return call.eval(), (_randn(1, 4, 2, 8, 8), torch.tensor([500]), _randn(1, 5, 16))


def _anyflow() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from diffusers import AnyFlowTransformer3DModel

    model = AnyFlowTransformer3DModel(
        patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
        text_dim=16, freq_dim=16, ffn_dim=32, num_layers=1, rope_max_seq_len=32,
    )
    call = Call(model, ("hidden_states", "timestep", "r_timestep", "encoder_hidden_states"))
    # latents are (batch, frames, channels, height, width); timesteps are per frame
    t, r = torch.tensor([[500.0, 400.0]]), torch.tensor([[250.0, 200.0]])
    return call.eval(), (_randn(1, 2, 4, 8, 8), t, r, _randn(1, 5, 16))


class FreeU(torch.nn.Module):
    """FreeU on one decoder stage, as UNet2DConditionModel applies it: backbone scaled, skip features filtered."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor(0.9))

    def forward(self, h: torch.Tensor, res: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        from diffusers.utils.torch_utils import apply_freeu

        return apply_freeu(0, h * self.scale, res * self.scale, s1=0.9, s2=0.2, b1=1.5, b2=1.6)


def _freeu() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    return FreeU().eval(), (_randn(2, 8, 8, 8), _randn(2, 8, 8, 8))


_LUMINA2 = "Lumina2's forward takes its sequence lengths from the caption mask's values (tolist, set of SymInts)"
CASES = [
    Case("diffusers/QwenImageTransformer2DModel", "diffusers", _qwen_image),
    Case("diffusers/NucleusMoEImageTransformer2DModel", "diffusers", _nucleus_moe_image),
    Case("diffusers/BriaTransformer2DModel", "diffusers", _bria),
    Case("diffusers/LuminaNextDiT2DModel", "diffusers", _lumina_next),
    Case("diffusers/Lumina2Transformer2DModel", "diffusers", _lumina2,
         upstream=(Upstream("export", _LUMINA2), Upstream("compile", _LUMINA2))),
    Case("diffusers/Lumina2TransformerBlock", "diffusers", _lumina2_block, train_inductor=True),
    Case("diffusers/ZImageTransformer2DModel", "diffusers", _z_image),
    Case("diffusers/QwenImage21Transformer2DModel", "diffusers", _qwen_image21,
         upstream=(Upstream("export", "data-dependent repeat_interleave and .tolist() build the joint sequence"),
                   Upstream("compile", "Tensor.tolist() of a bool mask (dynamo cannot trace it)"))),
    Case("diffusers/QwenImage21TransformerBlock", "diffusers", _qwen_image21_block),
    Case("diffusers/WanTransformer3DModel (real RoPE)", "diffusers", _wan),
    Case("diffusers/AnyFlowTransformer3DModel", "diffusers", _anyflow),
    Case("diffusers/FreeU apply_freeu (fourier_filter)", "diffusers", _freeu),
]


@parametrize(CASES)
def test_diffusers(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
