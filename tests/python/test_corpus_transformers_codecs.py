"""Corpus: the transformers (5.25) audio codecs whose decoders end in a Vocos-style ISTFT head: magnitude and phase
from a linear layer, `torch.polar`, `torch.fft.irfft`, windowed overlap-add through `F.fold`.

- WavTokenizer (WavTokenizerModel.decode): codebook lookup, ConvNeXt backbone with adaptive layer norms
- XCodec2 (Xcodec2Model.decode): FSQ codebook, ResNet blocks, a RoPE transformer layer
- NeuCodec (NeuCodecModel.decode): XCodec2's decoder at 24 kHz with a bidirectional attention mask

Each is the package's own model at a tiny config, called through its own `decode` on discrete codes: the encoders
(and XCodec2/NeuCodec's Wav2Vec2-BERT semantic encoder, built here at one layer) hold no complex op.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
from corpus_support import Case, parametrize, run_column

os.environ.setdefault("HF_HUB_OFFLINE", "1")

Built = tuple[torch.nn.Module, tuple[Any, ...]]


class Decode(torch.nn.Module):
    """The codec's own decode(audio_codes) as a module's forward, so export and compile see the whole model."""

    def __init__(self, codec: torch.nn.Module) -> None:
        super().__init__()
        self.codec = codec

    def forward(self, audio_codes: torch.Tensor) -> Any:
        return self.codec.decode(audio_codes)


def _no_dropout(model: torch.nn.Module) -> torch.nn.Module:
    # WavTokenizer's Vocos ResNet blocks hard-code nn.Dropout(0.1): off, so the training step is deterministic
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    return model


def _wavtokenizer() -> Built:
    import transformers as tf

    # hop 4, n_fft 16: six codes decode to 24 samples
    config = tf.WavTokenizerConfig(
        num_filters=4, upsampling_ratios=(2, 2), hidden_size=16, codebook_size=16, codebook_dim=16,
        decoder_hidden_size=32, decoder_intermediate_size=64, decoder_num_layers=1, decoder_attention_num_groups=4,
        num_lstm_layers=1,
    )
    return Decode(_no_dropout(tf.WavTokenizerModel(config))).eval(), (torch.randint(0, 16, (2, 1, 6)),)


def _fsq_codec(config_class: Any, model_class: Any) -> Built:
    semantic = {"model_type": "wav2vec2-bert", "hidden_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2,
                "intermediate_size": 32, "output_hidden_size": 16}
    # quantization_dim = hidden + semantic hidden; two levels of 4 give a codebook of 16
    config = config_class(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=4,
        head_dim=8, encoder_hidden_size=4, downsampling_ratios=(2, 2), semantic_model_config=semantic,
        quantization_dim=48, quantization_levels=(4, 4), activation_dropout=0.0, attn_implementation="sdpa",
    )
    return Decode(model_class(config)).eval(), (torch.randint(0, 16, (2, 1, 6)),)


def _xcodec2() -> Built:
    import transformers as tf

    return _fsq_codec(tf.Xcodec2Config, tf.Xcodec2Model)


def _neucodec() -> Built:
    import transformers as tf

    return _fsq_codec(tf.NeuCodecConfig, tf.NeuCodecModel)


CASES = [
    Case("transformers/WavTokenizerModel.decode", "transformers", _wavtokenizer),
    Case("transformers/Xcodec2Model.decode", "transformers", _xcodec2),
    Case("transformers/NeuCodecModel.decode", "transformers", _neucodec),
]


@parametrize(CASES)
def test_transformers_codecs(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
