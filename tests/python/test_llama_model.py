"""Tests for the Llama 3 reference model in realify_examples.llama3."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
import torch
from realify_examples import llama3
from realify_examples.llama3 import (
    ModelArgs,
    RMSNorm,
    Transformer,
    apply_rotary_emb,
    apply_scaling,
    build,
    generate_greedy,
    load_checkpoint,
    precompute_freqs_cis,
    save_checkpoint,
)

TINY = ModelArgs(
    dim=64,
    n_layers=2,
    n_heads=4,
    n_kv_heads=2,
    vocab_size=128,
    max_seq_len=32,
    multiple_of=16,
    max_batch_size=4,
)
HEAD_DIM = TINY.dim // TINY.n_heads


def tiny(**overrides) -> ModelArgs:
    return dataclasses.replace(TINY, **overrides)


def tokens(bsz: int, seqlen: int, seed: int = 123) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, TINY.vocab_size, (bsz, seqlen), generator=gen)


# ------------------------------------------------------------------------------------------------ RoPE


def test_freqs_cis_buffer_properties():
    model = build(TINY, seed=0)
    f = model.freqs_cis
    assert f.dtype == torch.complex64
    assert f.shape == (TINY.max_seq_len * 2, HEAD_DIM // 2)
    torch.testing.assert_close(f.abs(), torch.ones(f.shape), rtol=0, atol=1e-6)
    assert "freqs_cis" not in model.state_dict()
    assert not any("cache" in k for k in build(tiny(use_kv_cache=True)).state_dict())
    # position 0 is the identity rotation, position 1 rotates by the base frequencies
    torch.testing.assert_close(f[0], torch.ones(HEAD_DIM // 2, dtype=torch.complex64))
    base = 1.0 / (TINY.rope_theta ** (torch.arange(0, HEAD_DIM, 2).float() / HEAD_DIM))
    torch.testing.assert_close(torch.angle(f[1]), base, rtol=0, atol=1e-6)


def test_freqs_cis_survives_dtype_cast():
    model = build(TINY, seed=0)
    ref = model.freqs_cis.clone()
    model.to(torch.bfloat16)
    assert model.output.weight.dtype == torch.bfloat16
    assert model.freqs_cis.dtype == torch.complex64
    assert torch.equal(model.freqs_cis, ref)
    bf = build(TINY, seed=0, dtype=torch.bfloat16)
    assert bf.tok_embeddings.weight.dtype == torch.bfloat16
    assert torch.equal(bf.freqs_cis, ref)
    assert bf(tokens(1, 5)).dtype == torch.float32


def _rotate_real(x: torch.Tensor, pos: torch.Tensor, theta: float) -> torch.Tensor:
    """Independent real-arithmetic RoPE on interleaved pairs (x[..., 2j], x[..., 2j+1]); x is (b, s, h, d)."""
    d = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    ang = pos.to(torch.float64)[:, None] * inv[None, :]  # (s, d/2)
    cos = torch.cos(ang)[None, :, None, :]
    sin = torch.sin(ang)[None, :, None, :]
    x64 = x.to(torch.float64)
    a, b = x64[..., 0::2], x64[..., 1::2]
    out = torch.empty_like(x64)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out.to(x.dtype)


def test_apply_rotary_emb_matches_real_rotation():
    theta = 10000.0
    seqlen, start = 7, 3
    gen = torch.Generator().manual_seed(0)
    xq = torch.randn(2, seqlen, 4, HEAD_DIM, generator=gen)
    xk = torch.randn(2, seqlen, 2, HEAD_DIM, generator=gen)
    freqs = precompute_freqs_cis(HEAD_DIM, 32, theta)[start : start + seqlen]
    q, k = apply_rotary_emb(xq, xk, freqs)
    assert q.shape == xq.shape and k.shape == xk.shape
    assert q.dtype == xq.dtype
    pos = torch.arange(start, start + seqlen)
    torch.testing.assert_close(q, _rotate_real(xq, pos, theta), rtol=0, atol=1e-6)
    torch.testing.assert_close(k, _rotate_real(xk, pos, theta), rtol=0, atol=1e-6)
    # rotation preserves pair norms
    torch.testing.assert_close(q.norm(dim=-1), xq.norm(dim=-1), rtol=1e-6, atol=1e-6)


def test_rope_scaling_matches_scalar_rule():
    dim = 128
    freqs = 1.0 / (500000.0 ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    scaled = apply_scaling(freqs)
    expected = []
    for f in freqs.tolist():
        wavelen = 2 * math.pi / f
        if wavelen < 8192 / 4:
            expected.append(f)
        elif wavelen > 8192 / 1:
            expected.append(f / 8)
        else:
            s = (8192 / wavelen - 1) / (4 - 1)
            expected.append((1 - s) * f / 8 + s * f)
    torch.testing.assert_close(scaled, torch.tensor(expected), rtol=1e-5, atol=0)
    assert torch.equal(scaled[0], freqs[0])  # highest frequency untouched
    assert torch.allclose(scaled[-1], freqs[-1] / 8)  # lowest frequency divided by the scale factor
    with_scaling = precompute_freqs_cis(dim, 16, 500000.0, use_scaled=True)
    without = precompute_freqs_cis(dim, 16, 500000.0)
    assert not torch.allclose(with_scaling, without)


# ------------------------------------------------------------------------------------------------ modules


def test_rmsnorm_matches_formula():
    norm = RMSNorm(16, eps=1e-5)
    with torch.no_grad():
        norm.weight.copy_(torch.linspace(0.5, 2.0, 16))
    x = torch.randn(3, 5, 16, generator=torch.Generator().manual_seed(2))
    expected = x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + 1e-5) * norm.weight
    torch.testing.assert_close(norm(x), expected, rtol=1e-5, atol=1e-6)
    xb = x.to(torch.bfloat16)
    assert norm.to(torch.bfloat16)(xb).dtype == torch.bfloat16


def test_feed_forward_hidden_dim_rounding():
    ff = llama3.FeedForward(dim=4096, hidden_dim=4 * 4096, multiple_of=1024, ffn_dim_multiplier=1.3)
    assert ff.hidden_dim == 14336  # Llama 3 8B
    assert llama3.FeedForward(64, 256, 16, None).hidden_dim == 176


def test_from_params_ignores_unknown_keys():
    args = ModelArgs.from_params({"dim": 64, "n_heads": 4, "weird_key": 1}, n_layers=3)
    assert (args.dim, args.n_heads, args.n_layers) == (64, 4, 3)
    with pytest.raises(TypeError):
        ModelArgs.from_params({}, not_a_field=1)


# ------------------------------------------------------------------------------------------------ forward


def test_forward_shape_and_seed_determinism():
    x = tokens(2, 9)
    a = build(TINY, seed=0)(x)
    b = build(TINY, seed=0)(x)
    c = build(TINY, seed=1)(x)
    assert a.shape == (2, 9, TINY.vocab_size)
    assert a.dtype == torch.float32
    assert torch.isfinite(a).all()
    assert torch.equal(a, b)
    assert not torch.allclose(a, c)
    assert not build(TINY).training


def test_forward_is_causal():
    model = build(TINY, seed=0)
    x = tokens(1, 8)
    y = x.clone()
    y[0, -1] = (y[0, -1] + 1) % TINY.vocab_size
    lx, ly = model(x), model(y)
    torch.testing.assert_close(lx[:, :-1], ly[:, :-1])
    assert not torch.allclose(lx[:, -1], ly[:, -1])


def test_kv_cache_matches_full_forward():
    seq = tokens(2, 12)
    full = build(TINY, seed=3)(seq)
    cached = build(tiny(use_kv_cache=True), seed=3)
    with torch.no_grad():
        prefill = cached(seq[:, :5], 0)
        torch.testing.assert_close(prefill, full[:, :5], rtol=1e-5, atol=1e-5)
        # chunked prefill with start_pos > 0 exercises the zero-padded mask
        chunk = cached(seq[:, 5:8], 5)
        torch.testing.assert_close(chunk, full[:, 5:8], rtol=1e-5, atol=1e-5)
        for pos in range(8, 12):
            step = cached(seq[:, pos : pos + 1], pos)
            assert step.shape == (2, 1, TINY.vocab_size)
            torch.testing.assert_close(step[:, 0], full[:, pos], rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------------------ checkpoints


def test_checkpoint_round_trip(tmp_path):
    model = build(TINY, seed=5)
    save_checkpoint(model, tmp_path)
    assert (tmp_path / "params.json").is_file() and (tmp_path / "consolidated.00.pth").is_file()
    state = torch.load(tmp_path / "consolidated.00.pth", weights_only=True)
    assert "layers.0.attention.wq.weight" in state and "layers.1.feed_forward.w3.weight" in state
    assert not any("freqs" in k or "cache" in k for k in state)

    loaded = load_checkpoint(tmp_path)
    assert isinstance(loaded, Transformer)
    assert loaded.params.n_kv_heads == 2
    x = tokens(2, 6)
    assert torch.equal(loaded(x), model(x))
    assert loaded.freqs_cis.dtype == torch.complex64

    with_cache = load_checkpoint(tmp_path, use_kv_cache=True, max_seq_len=16, max_batch_size=4)
    assert with_cache.layers[0].attention.cache_k.shape == (4, 16, 2, HEAD_DIM)
    torch.testing.assert_close(with_cache(x), model(x), rtol=1e-5, atol=1e-5)


def test_checkpoint_vocab_size_from_weights(tmp_path):
    model = build(TINY, seed=6)
    save_checkpoint(model, tmp_path)
    params = json.loads((tmp_path / "params.json").read_text())
    params["vocab_size"] = -1
    params["max_seq_len"] = TINY.max_seq_len  # not a Meta key, but valid
    params["unknown_key"] = "ignored"
    (tmp_path / "params.json").write_text(json.dumps(params))
    loaded = load_checkpoint(tmp_path)
    assert loaded.params.vocab_size == TINY.vocab_size
    x = tokens(1, 4)
    assert torch.equal(loaded(x), model(x))

    del params["vocab_size"]
    (tmp_path / "params.json").write_text(json.dumps(params))
    assert load_checkpoint(tmp_path).params.vocab_size == TINY.vocab_size


def test_checkpoint_dtype_override(tmp_path):
    save_checkpoint(build(TINY, seed=7), tmp_path)
    loaded = load_checkpoint(tmp_path, dtype=torch.bfloat16)
    assert loaded.output.weight.dtype == torch.bfloat16
    assert loaded.freqs_cis.dtype == torch.complex64
    assert loaded(tokens(1, 3)).dtype == torch.float32


def test_checkpoint_sharded_raises(tmp_path):
    save_checkpoint(build(TINY, seed=0), tmp_path)
    (tmp_path / "consolidated.01.pth").write_bytes((tmp_path / "consolidated.00.pth").read_bytes())
    with pytest.raises(ValueError, match="single-shard"):
        load_checkpoint(tmp_path)


def test_checkpoint_missing_files_raise(tmp_path):
    save_checkpoint(build(TINY, seed=0), tmp_path)
    (tmp_path / "params.json").unlink()
    with pytest.raises(FileNotFoundError, match="params.json"):
        load_checkpoint(tmp_path)
    with pytest.raises(FileNotFoundError):
        load_checkpoint(tmp_path / "does_not_exist")
    other = tmp_path / "no_weights"
    other.mkdir()
    (other / "params.json").write_text(json.dumps({"dim": 64}))
    with pytest.raises(FileNotFoundError, match="consolidated"):
        load_checkpoint(other)


def test_checkpoint_strict_loading_rejects_missing_keys(tmp_path):
    save_checkpoint(build(TINY, seed=0), tmp_path)
    state = torch.load(tmp_path / "consolidated.00.pth", weights_only=True)
    del state["norm.weight"]
    torch.save(state, tmp_path / "consolidated.00.pth")
    with pytest.raises(RuntimeError, match="norm.weight"):
        load_checkpoint(tmp_path)


# ------------------------------------------------------------------------------------------------ generation


def _greedy_no_cache(model: Transformer, prompt: torch.Tensor, n: int) -> torch.Tensor:
    seq = prompt
    out = []
    with torch.no_grad():
        for _ in range(n):
            nxt = model(seq)[:, -1].argmax(dim=-1)
            out.append(nxt)
            seq = torch.cat([seq, nxt[:, None]], dim=1)
    return torch.stack(out, dim=1)


def test_generate_greedy_matches_no_cache_loop():
    prompt = tokens(2, 5, seed=9)
    cached = build(tiny(use_kv_cache=True), seed=11)
    plain = build(TINY, seed=11)
    gen = generate_greedy(cached, prompt, max_new_tokens=10)
    assert gen.shape == (2, 10)
    assert gen.dtype == torch.long
    assert torch.equal(gen, _greedy_no_cache(plain, prompt, 10))

    calls = []

    def fwd(t: torch.Tensor, start_pos: int) -> torch.Tensor:
        calls.append((t.shape[1], start_pos))
        return cached(t, start_pos)

    again = generate_greedy(cached, prompt, max_new_tokens=4, forward=fwd)
    assert torch.equal(again, gen[:, :4])
    assert calls == [(5, 0), (1, 5), (1, 6), (1, 7)]


def test_generate_greedy_validation():
    with pytest.raises(ValueError, match="use_kv_cache"):
        generate_greedy(build(TINY), tokens(1, 3), 2)
    cached = build(tiny(use_kv_cache=True))
    with pytest.raises(ValueError, match="max_seq_len"):
        generate_greedy(cached, tokens(1, 30), 5)
    assert generate_greedy(cached, tokens(1, 3), 0).shape == (1, 0)
