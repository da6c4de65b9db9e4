"""RoPE as one op: the C core emits realify.rotary_embedding when asked (rotary_op=True), its eager kernel
matches the complex multiply, and ONNX export at opset >= 23 holds one RotaryEmbedding node per rotated tensor."""

from __future__ import annotations

import numpy as np
import pytest
import realify
import torch
from harness import assert_real_only
from realify_examples import llama3
from torch.fx.experimental.proxy_tensor import make_fx

ROTARY = torch.ops.realify.rotary_embedding.default


def rope(xq: torch.Tensor, xk: torch.Tensor, freqs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return llama3.apply_rotary_emb(xq, xk, freqs)


def rope_args() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    xq, xk = torch.randn(2, 16, 4, 8, generator=g), torch.randn(2, 16, 2, 8, generator=g)
    return xq, xk, torch.polar(torch.ones(16, 4), torch.randn(16, 4, generator=g))


def count(gm: torch.fx.GraphModule, target: object) -> int:
    return sum(1 for n in gm.graph.nodes if n.target is target)


def test_rope_becomes_one_op_per_rotated_tensor() -> None:
    args = rope_args()
    gm = make_fx(rope)(*args)
    plain, with_op = realify.lower(gm), realify.lower(gm, rotary_op=True)
    assert count(plain, ROTARY) == 0
    assert count(with_op, ROTARY) == 2  # q and k
    assert count(with_op, torch.ops.aten.mul.Tensor) == 0  # no real multiply left: the op does the rotation
    assert_real_only(with_op)
    real = (args[0], args[1], torch.view_as_real(args[2]))
    # the op computes the same products as the complex multiply's lowering, bit for bit
    for a, b in zip(with_op(*real), plain(*real), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0)
    for a, b in zip(with_op(*real), rope(*args), strict=True):
        torch.testing.assert_close(a, b)


def test_table_varying_over_heads_stays_plain() -> None:
    def f(x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2))
        return torch.view_as_real(xc * g)  # g differs per head: not RotaryEmbedding's table

    x, g = torch.randn(1, 8, 4, 8), torch.randn(1, 8, 4, 4, dtype=torch.complex64)
    lowered = realify.lower(make_fx(f)(x, g), rotary_op=True)
    assert count(lowered, ROTARY) == 0
    torch.testing.assert_close(lowered(x, torch.view_as_real(g)), f(x, g))


def test_op_kernels_pass_opcheck() -> None:
    x, cos, sin = torch.randn(2, 5, 3, 8), torch.randn(1, 5, 1, 4), torch.randn(1, 5, 1, 4)
    torch.library.opcheck(ROTARY, (x, cos, sin))
    out = ROTARY(x, cos, sin)
    xc = torch.view_as_complex(x.reshape(2, 5, 3, 4, 2))
    ref = torch.view_as_real(xc * torch.complex(cos, sin)).flatten(3)
    torch.testing.assert_close(out, ref)


@pytest.mark.parametrize("opset", [23, 18])
def test_tiny_llama_onnx_rotary_embedding(opset: int) -> None:
    onnx = pytest.importorskip("onnx", reason="needs the onnx package (make test installs it)")
    ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
    pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript")
    cfg = llama3.ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128, multiple_of=16, max_seq_len=32)
    model = llama3.build(cfg, seed=0)
    tokens = torch.randint(0, cfg.vocab_size, (2, 16), generator=torch.Generator().manual_seed(0))
    ep = torch.export.export(model, (tokens,))
    model_proto = realify.export_onnx(ep, (tokens,), opset_version=opset).model_proto
    nodes = [n for n in model_proto.graph.node if n.op_type == "RotaryEmbedding"]
    if opset >= 23:
        assert len(nodes) == 2 * cfg.n_layers  # one per rotated tensor: q and k of every layer
        for n in nodes:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
            assert attrs["interleaved"] == 1
            assert attrs["num_heads"] in (cfg.n_heads, cfg.n_kv_heads)  # the 3-D form: no transposes around it
    else:
        assert not nodes  # below opset 23 RoPE stays plain ops
    sess = ort.InferenceSession(model_proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (logits,) = sess.run(None, {sess.get_inputs()[0].name: tokens.numpy()})
    ref = model(tokens).detach().numpy()
    assert np.abs(logits - ref).max() / np.abs(ref).max() <= 1e-5
