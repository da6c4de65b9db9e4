"""Corpus: every transformers (5.25) model family whose modeling code calls `view_as_complex`, `torch.polar` or
`torch.fft` (grep of transformers/models/*/modeling_*.py), each the package's own class at a tiny config.

- Llama 4 text (Llama4TextModel): RoPE as `torch.polar` freqs_cis times `view_as_complex` q/k, SDPA, MoE
- Llama 4 vision (Llama4VisionModel): 2-D axial RoPE from a complex buffer (`view_as_complex` of cos/sin)
- FNet (FNetModel): `torch.fft.fftn` over (seq, hidden); the TPU variant's DFT as a complex64 einsum (SciPy's
  DFT matrices) and its per-axis `torch.fft.fft` loop (past 4096 positions)
- DeepSeek-V2 (DeepseekV2Model): MLA attention, `torch.polar` RoPE on the rope half of q/k, MoE
- Autoformer (AutoformerModel): auto-correlation as `rfft(q) * conj(rfft(k))` then `irfft`
- the Vocos-style ISTFT heads of the audio codecs (`torch.polar` then `irfft` and fold): WavTokenizer, XCodec2
  and NeuCodec (test_corpus_transformers_codecs.py)

Dropout and layer drop are 0 so the training step is deterministic; `use_cache=False` keeps a cache object out of
the outputs.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
from corpus_support import Case, Upstream, parametrize, run_column

os.environ.setdefault("HF_HUB_OFFLINE", "1")

Built = tuple[torch.nn.Module, tuple[Any, ...]]


def _llama4_text() -> Built:
    import transformers as tf

    config = tf.Llama4TextConfig(
        vocab_size=64, hidden_size=32, intermediate_size=32, intermediate_size_mlp=64, num_hidden_layers=1,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, num_local_experts=2, use_cache=False,
        attn_implementation="sdpa",
    )
    return tf.Llama4TextModel(config).eval(), (torch.randint(0, 64, (2, 6)),)


def _llama4_vision() -> Built:
    import transformers as tf

    # intermediate_size = 4 * hidden: the pixel shuffle (ratio 0.5) feeds it to the adapter's first linear
    config = tf.Llama4VisionConfig(
        hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=128, vision_output_dim=32,
        image_size=16, patch_size=4, projector_input_dim=32, projector_output_dim=32, attn_implementation="sdpa",
    )
    return tf.Llama4VisionModel(config).eval(), (torch.randn(1, 3, 16, 16),)


def _fnet(**extra: Any) -> Built:
    import transformers as tf

    config = tf.FNetConfig(
        vocab_size=64, hidden_size=32, num_hidden_layers=1, intermediate_size=64, hidden_dropout_prob=0.0,
        **{"max_position_embeddings": 16, **extra},
    )
    return tf.FNetModel(config).eval(), (torch.randint(0, 64, (2, 8)),)


def _fnet_fftn() -> Built:
    return _fnet()


def _fnet_dft_matmul() -> Built:
    pytest.importorskip("scipy", reason="FNet's TPU DFT matrices come from scipy.linalg.dft")
    return _fnet(use_tpu_fourier_optimizations=True, tpu_short_seq_length=8)


def _fnet_fft_loop() -> Built:
    # past 4096 positions the TPU option falls back to one torch.fft.fft per axis
    return _fnet(use_tpu_fourier_optimizations=True, tpu_short_seq_length=8, max_position_embeddings=4100)


def _deepseek_v2() -> Built:
    import transformers as tf

    # one MoE layer (greedy top-2 of 4 routed experts and one shared); experts through batched bmm, as the default
    # grouped_mm is transformers' own custom op, which torch.onnx cannot translate
    config = tf.DeepseekV2Config(
        vocab_size=64, hidden_size=32, intermediate_size=64, moe_intermediate_size=16, num_hidden_layers=1,
        first_k_dense_replace=0, num_attention_heads=4, num_key_value_heads=4, kv_lora_rank=16, q_lora_rank=16,
        qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=8, n_routed_experts=4, num_experts_per_tok=2,
        n_shared_experts=1, use_cache=False, attn_implementation="sdpa", experts_implementation="batched_mm",
    )
    return tf.DeepseekV2Model(config).eval(), (torch.randint(0, 64, (2, 6)),)


def _autoformer() -> Built:
    import transformers as tf

    # autocorrelation_factor 1: top-k of int(log(8)) = 2 delays, each one a gather in the graph
    config = tf.AutoformerConfig(
        prediction_length=4, context_length=8, lags_sequence=[1, 2], d_model=16, encoder_layers=1, decoder_layers=1,
        encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16,
        num_time_features=1, label_length=4, moving_average=3, autocorrelation_factor=1, dropout=0.0,
        attention_dropout=0.0, activation_dropout=0.0, encoder_layerdrop=0.0, decoder_layerdrop=0.0, use_cache=False,
    )
    past = 8 + 2  # context_length + max(lags_sequence)
    args = (torch.randn(2, past), torch.randn(2, past, 1), torch.ones(2, past), None, None,
            torch.randn(2, 4), torch.randn(2, 4, 1))
    return tf.AutoformerModel(config).eval(), args


CASES = [
    Case("transformers/Llama4TextModel", "transformers", _llama4_text),
    Case("transformers/Llama4VisionModel", "transformers", _llama4_vision),
    Case("transformers/FNetModel (fftn)", "transformers", _fnet_fftn, train_inductor=True),
    Case("transformers/FNetModel (TPU DFT einsum)", "transformers", _fnet_dft_matmul),
    Case("transformers/FNetModel (TPU fft per axis)", "transformers", _fnet_fft_loop),
    Case("transformers/DeepseekV2Model", "transformers", _deepseek_v2),
    Case("transformers/AutoformerModel", "transformers", _autoformer, upstream=(
        Upstream("train", "in training mode Autoformer's auto-correlation indexes by topk results in a Python loop "
                          "(data-dependent int under dynamo fullgraph)"),)),
]


@parametrize(CASES)
def test_transformers(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
