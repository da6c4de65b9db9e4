"""torchtitan's own Llama 3 (torchtitan.models.llama3.Llama3Model) at a tiny size, built from its config classes.

torchtitan 0.3.0 builds a model from a tree of `Config` dataclasses; its registry flavours are large and use
FlexAttention, and its `get_attention_config` refuses "sdpa" for language models, so the tiny config here is
assembled from the package's own public helpers (`make_gqa_config`, `make_ffn_config`) with its
`ScaledDotProductAttention` inner attention (F.scaled_dot_product_attention, is_causal) and its `ComplexRoPE`
(freqs_cis from torch.polar, applied through view_as_complex). Shared by the corpus and the TP test.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import torch

TINY = dict(dim=32, n_layers=2, n_heads=4, n_kv_heads=2, vocab=64, seq=8, max_seq_len=16)


def llama3_config(*, enable_sp: bool | None = None, **overrides: int) -> Any:
    """The Llama3Model.Config; with `enable_sp` set, torchtitan's own TP sharding config is filled in."""
    from torch import nn
    from torchtitan.models.common import ComplexRoPE, Embedding, Linear, RMSNorm, compute_ffn_hidden_dim
    from torchtitan.models.common.attention import ScaledDotProductAttention
    from torchtitan.models.common.config_utils import make_ffn_config, make_gqa_config
    from torchtitan.models.llama3 import Llama3Model, Llama3TransformerBlock

    t = {**TINY, **overrides}
    dim, n_heads = t["dim"], t["n_heads"]
    linear = {"weight": partial(nn.init.trunc_normal_, std=0.02), "bias": nn.init.zeros_}
    norm = {"weight": nn.init.ones_}
    rope = ComplexRoPE.Config(dim=dim // n_heads, max_seq_len=t["max_seq_len"], theta=500000, scaling="llama")
    layers = [
        Llama3TransformerBlock.Config(
            attention_norm=RMSNorm.Config(normalized_shape=dim, param_init=norm),
            ffn_norm=RMSNorm.Config(normalized_shape=dim, param_init=norm),
            attention=make_gqa_config(
                dim=dim, n_heads=n_heads, n_kv_heads=t["n_kv_heads"], wqkv_param_init=linear,
                wo_param_init=linear, inner_attention=ScaledDotProductAttention.Config(), rope=rope, fuse_qkv=True,
            ),
            feed_forward=make_ffn_config(
                dim=dim, hidden_dim=compute_ffn_hidden_dim(dim, multiple_of=16), w1_param_init=linear,
                w2w3_param_init=linear,
            ),
        )
        for _ in range(t["n_layers"])
    ]
    config = Llama3Model.Config(
        dim=dim,
        vocab_size=t["vocab"],
        tok_embeddings=Embedding.Config(
            num_embeddings=t["vocab"], embedding_dim=dim, param_init={"weight": partial(nn.init.normal_, std=1.0)}
        ),
        norm=RMSNorm.Config(normalized_shape=dim, param_init=norm),
        lm_head=Linear.Config(in_features=dim, out_features=t["vocab"], param_init=linear),
        layers=layers,
    )
    if enable_sp is not None:
        from torchtitan.models.llama3.sharding import set_llama3_sharding_config

        set_llama3_sharding_config(config, enable_sp=enable_sp)
    return config


def build_llama3(seed: int = 0, **kwargs: Any) -> torch.nn.Module:
    """The model with torchtitan's own initialisation (init_states), deterministic from `seed`."""
    config = llama3_config(**kwargs)
    torch.manual_seed(seed)
    model = config.build()
    model.init_states()
    return model


def tokens(seed: int = 1, batch: int = 2) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, TINY["vocab"], (batch, TINY["seq"]), generator=g)
