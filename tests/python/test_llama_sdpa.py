"""Llama 3 written the torchtitan way (attention through F.scaled_dot_product_attention) under the realify backend:
the user's SDPA (its CPU variant after aot_autograd) passes through untouched, in inference and in training."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from harness import assert_real_only
from realify.backend import CompileEvent
from realify_examples import llama3

TINY = llama3.ModelArgs(
    dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128, multiple_of=16, max_seq_len=32, attention="sdpa"
)


def tokens(seq: int = 16, bsz: int = 2) -> torch.Tensor:
    return torch.randint(0, TINY.vocab_size, (bsz, seq), generator=torch.Generator().manual_seed(3))


def sdpa_nodes(gm: torch.fx.GraphModule) -> list[torch.fx.Node]:
    return [n for n in gm.graph.nodes if n.op == "call_function" and "scaled_dot_product" in str(n.target)]


@pytest.mark.parametrize("inner", ["eager", "inductor"])
def test_sdpa_llama_inference_compiles_whole(inner: str) -> None:
    torch._dynamo.reset()
    model = llama3.build(TINY, seed=0)
    tok = tokens()
    events: list[CompileEvent] = []
    compiled = torch.compile(
        model, backend="realify", fullgraph=True, options={"backend": inner, "on_lowered": events.append}
    )
    with torch.no_grad():
        ref = model(tok)
        out = compiled(tok)
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
    assert len(events) == 1
    lowered = events[0].graph_after
    assert_real_only(lowered)
    before, after = sdpa_nodes(events[0].graph_before), sdpa_nodes(lowered)
    assert len(before) == TINY.n_layers and [n.target for n in after] == [n.target for n in before]
    assert [n.meta.get("stack_trace") for n in after] == [n.meta.get("stack_trace") for n in before]


def test_sdpa_llama_training_step_matches_eager() -> None:
    torch._dynamo.reset()
    model = llama3.build(dataclasses.replace(TINY, n_layers=1), seed=0)
    twin = llama3.build(dataclasses.replace(TINY, n_layers=1), seed=0)
    twin.load_state_dict(model.state_dict())
    tok = tokens()
    compiled = torch.compile(model, backend="realify", fullgraph=True, options={"backend": "eager"})
    compiled(tok).float().logsumexp(-1).mean().backward()
    twin(tok).float().logsumexp(-1).mean().backward()
    grads = {k: p.grad for k, p in model.named_parameters()}
    assert all(g is not None for g in grads.values())
    for k, p in twin.named_parameters():
        torch.testing.assert_close(grads[k], p.grad, rtol=1e-4, atol=1e-6, msg=k)
