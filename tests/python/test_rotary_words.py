"""bfloat16 RoPE read and written as int32 words (the pair_words option the Inductor backend sets): the results are
eager's bits, NaN aside (any NaN stays a NaN), for contiguous and strided inputs; other dtypes, other inner
compilers and products whose float32 result is read elsewhere keep the ordinary multiply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch
from realify_examples.llama3 import apply_rotary_emb


def same_bits(out: torch.Tensor, ref: torch.Tensor) -> bool:
    assert out.dtype == ref.dtype and out.shape == ref.shape
    if out.dtype in (torch.bfloat16, torch.float16):
        bits_equal = out.view(torch.int16) == ref.view(torch.int16)
    else:
        bits_equal = out.view(torch.int32) == ref.view(torch.int32)
    return bool((bits_equal | (out.isnan() & ref.isnan())).all())


def compiled(fn: Callable[..., Any], inner: str = "inductor") -> tuple[Callable[..., Any], list[Any]]:
    torch._dynamo.reset()
    events: list[Any] = []
    return torch.compile(fn, backend="realify", options={"backend": inner, "on_lowered": events.append}), events


def emitted(events: list[Any]) -> set[str]:
    return {str(n.target) for e in events for n in e.graph_after.graph.nodes if n.op == "call_function"}


# The rule takes tensors of 2^19 elements or more (smaller ones are host-bound: rotary_words.c).
SHAPE = (2, 64, 32, 128)


def inputs(dtype: torch.dtype, seq: int = 64) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    xq = (torch.randn(2, seq, 32, 128, generator=g) * 4).to(dtype)
    xk = torch.randn(2, seq, 32, 128, generator=g).to(dtype)
    special = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 3e38, -3e38, 1e-39, -1e-40]
    xq.view(-1)[: len(special)] = torch.tensor(special).to(dtype)
    f = torch.polar(torch.ones(seq, 64), torch.randn(seq, 64, generator=g) * 3)
    return xq, xk, f


def test_bf16_rope_reads_words_and_matches_eager_bits() -> None:
    xq, xk, f = inputs(torch.bfloat16)
    fn, events = compiled(apply_rotary_emb)
    out = fn(xq, xk, f)
    ref = apply_rotary_emb(xq, xk, f)
    assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    ops = emitted(events)
    assert "aten.view.dtype" in ops and "aten.bitwise_or.Tensor" in ops
    assert "aten.stack.default" not in ops  # no pairs written as two lanes


def test_ties_round_to_even_as_the_cast_does() -> None:
    """Products that land exactly halfway between two bfloat16 values, and just either side of it."""
    xq = torch.tensor([1.0 + k / 128 for k in range(128)]).bfloat16().expand(SHAPE).contiguous()
    xk = -xq
    f = torch.polar(torch.full((64, 64), 1 + 2.0**-8), torch.zeros(64, 64))  # 1 x (1 + 2^-8) is an exact tie
    fn, events = compiled(apply_rotary_emb)
    out = fn(xq, xk, f)
    ref = apply_rotary_emb(xq, xk, f)
    assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    assert "aten.view.dtype" in emitted(events)


@pytest.mark.parametrize("layout", ["transposed", "sliced"])
def test_strided_inputs_keep_eager_bits(layout: str) -> None:
    _, xk, f = inputs(torch.bfloat16)
    g = torch.Generator().manual_seed(1)
    if layout == "transposed":
        xq = torch.randn(2, 32, 64, 128, generator=g).bfloat16().transpose(1, 2)
    else:
        xq = torch.randn(2, 64, 32, 384, generator=g).bfloat16()[..., 128:256]
    fn, events = compiled(apply_rotary_emb)
    out = fn(xq, xk, f)
    ref = apply_rotary_emb(xq, xk, f)
    assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    assert "aten.view.dtype" in emitted(events)


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
def test_other_dtypes_keep_the_ordinary_multiply(dtype: torch.dtype) -> None:
    xq, xk, f = inputs(dtype)
    fn, events = compiled(apply_rotary_emb)
    out = fn(xq, xk, f)
    ref = apply_rotary_emb(xq, xk, f)
    assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    assert "aten.view.dtype" not in emitted(events)


def test_a_decode_step_keeps_the_ordinary_multiply() -> None:
    """One position: a few kilobytes, host-bound, where Inductor's fallback dtype views would cost more."""
    xq, xk, f = inputs(torch.bfloat16, seq=1)
    fn, events = compiled(apply_rotary_emb)
    out = fn(xq, xk, f)
    ref = apply_rotary_emb(xq, xk, f)
    assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    assert "aten.view.dtype" not in emitted(events)


def test_eager_inner_compiler_keeps_the_ordinary_multiply() -> None:
    xq, xk, f = inputs(torch.bfloat16)
    fn, events = compiled(apply_rotary_emb, inner="eager")
    out = fn(xq, xk, f)
    ref = apply_rotary_emb(xq, xk, f)
    assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    assert "aten.view.dtype" not in emitted(events)


def test_a_product_read_in_float32_too_keeps_the_ordinary_multiply() -> None:
    def rope_and_keep(xq: torch.Tensor, f: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        y = torch.view_as_real(x * f[None, :, None, :]).flatten(3)
        return y.type_as(xq), y * 2

    xq, _, f = inputs(torch.bfloat16)
    fn, events = compiled(rope_and_keep)
    out = fn(xq, f)
    ref = rope_and_keep(xq, f)
    assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    assert "aten.view.dtype" not in emitted(events)


def test_training_takes_words_both_ways_and_matches_eager() -> None:
    """A training graph goes through compile_fx (a second aot layer on the lowered graph): the forward product
    and the backward one (by conj(f)) both read words, and outputs and gradients are eager's."""
    xq, xk, f = inputs(torch.bfloat16)
    xq = xq.nan_to_num().requires_grad_(True)
    xk = xk.requires_grad_(True)
    fn, events = compiled(apply_rotary_emb)
    out = fn(xq, xk, f)
    (out[0].float().sum() + out[1].float().square().sum()).backward()
    grads = (xq.grad.clone(), xk.grad.clone())
    xq.grad = xk.grad = None
    ref = apply_rotary_emb(xq, xk, f)
    (ref[0].float().sum() + ref[1].float().square().sum()).backward()
    assert all(same_bits(o.detach(), r.detach()) for o, r in zip(out, ref, strict=True))
    assert all(same_bits(g, r) for g, r in zip(grads, (xq.grad, xk.grad), strict=True))
    with_words = [e for e in events if any(str(n.target) == "aten.view.dtype" for n in e.graph_after.graph.nodes)]
    assert len(with_words) == 2  # forward and backward


def test_a_dynamic_sequence_length_keeps_words_and_eager_bits() -> None:
    """The second length recompiles with the sequence dim symbolic (automatic dynamic): still words for q."""
    fn, events = compiled(apply_rotary_emb)
    for seq in (64, 96):
        xq, xk, f = inputs(torch.bfloat16, seq=seq)
        out = fn(xq, xk, f)
        ref = apply_rotary_emb(xq, xk, f)
        assert all(same_bits(o, r) for o, r in zip(out, ref, strict=True))
    assert len(events) == 2
    assert all(any(str(n.target) == "aten.view.dtype" for n in e.graph_after.graph.nodes) for e in events)
    symbolic = [
        p
        for p in events[1].graph_after.graph.nodes
        if p.op == "placeholder" and not isinstance(p.meta.get("val"), torch.Tensor)
    ]
    assert symbolic, "the second graph should have a symbolic size"
