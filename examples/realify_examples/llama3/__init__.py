"""Llama 3 transformer following Meta's reference architecture, the model realify's tests, benchmarks and demo run.

This is an independent implementation of the same math as Meta's reference model. Rotary position
embeddings are applied through complex multiplication (``torch.view_as_complex`` / ``torch.polar``), which is
exactly the kind of complex-valued graph that realify rewrites into real-only arithmetic.

Checkpoints use Meta's single-shard layout: ``params.json`` plus ``consolidated.00.pth``.
"""

from .checkpoint import build, init_random, load_checkpoint, save_checkpoint
from .generate import generate_greedy
from .model import Attention, FeedForward, ModelArgs, RMSNorm, Transformer, TransformerBlock, repeat_kv
from .rope import apply_rotary_emb, apply_scaling, precompute_freqs_cis, reshape_for_broadcast

__all__ = [
    "Attention",
    "FeedForward",
    "ModelArgs",
    "RMSNorm",
    "Transformer",
    "TransformerBlock",
    "apply_rotary_emb",
    "apply_scaling",
    "build",
    "generate_greedy",
    "init_random",
    "load_checkpoint",
    "precompute_freqs_cis",
    "repeat_kv",
    "reshape_for_broadcast",
    "save_checkpoint",
]
