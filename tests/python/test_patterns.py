"""Multi-op patterns (src/patterns/): the core lists them, the lowering report says which fired where, and
`disable` turns one off, with the plain lowering in its place."""

from __future__ import annotations

import pytest
import realify
import torch
from realify import _core
from realify_examples import llama3
from torch.fx.experimental.proxy_tensor import make_fx

ROPE_IR = """graph {
  input %xq: f32[1, 16, 4, 8]
  input %freqs: c64[16, 4]
  %r: f32[1, 16, 4, 4, 2] = aten.view.default(self=%xq, size=[1, 16, 4, 4, 2])
  %xc: c64[1, 16, 4, 4] = aten.view_as_complex.default(self=%r)
  %f: c64[1, 16, 1, 4] = aten.view.default(self=%freqs, size=[1, 16, 1, 4])
  %m: c64[1, 16, 4, 4] = aten.mul.Tensor(self=%xc, other=%f)
  %vr: f32[1, 16, 4, 4, 2] = aten.view_as_real.default(self=%m)
  output (%vr)
}
"""
ONNX = _core.target_bit("onnx")


def test_table_lists_each_pattern_once() -> None:
    rows = _core.patterns()
    names = [name for name, _, _ in rows]
    assert len(names) == len(set(names))
    assert {"rope.op", "rope.graph", "rope.words"} <= set(names)
    on = {name for name, default, _ in rows if default}
    assert "rope.graph" in on and "rope.op" not in on and "rope.words" not in on  # the keywords opt in
    assert all(doc for _, _, doc in rows)


def test_report_names_the_pattern_and_node() -> None:
    _, graph = _core.lower(ROPE_IR, graph=True, target=ONNX)
    assert graph["report"] == ["pattern rope.graph: aten.mul.Tensor %m"]
    _, graph = _core.lower(ROPE_IR, graph=True, target=ONNX, rotary_op=True)  # rope.op comes first
    assert graph["report"] == ["pattern rope.op: aten.mul.Tensor %m"]
    _, graph = _core.lower(ROPE_IR, graph=True)  # portable: no RoPE form fits it
    assert graph["report"] == []


def test_disable_gives_the_plain_product() -> None:
    text, graph = _core.lower(ROPE_IR, graph=True, target=ONNX, disable=["rope.graph"])
    assert graph["report"] == []
    assert text == _core.lower(ROPE_IR, graph=False)  # the mul rule's lowering, as on the portable target
    assert _core.lower(ROPE_IR, target=ONNX, disable="rope.graph") == text  # one name as a str
    with pytest.raises(ValueError, match="no.such"):
        _core.lower(ROPE_IR, disable=["no.such"])


def test_lowering_report_carries_the_lines() -> None:
    g = torch.Generator().manual_seed(0)
    xq, xk = torch.randn(2, 16, 4, 8, generator=g), torch.randn(2, 16, 2, 8, generator=g)
    freqs = torch.polar(torch.ones(16, 4), torch.randn(16, 4, generator=g))
    gm = make_fx(llama3.apply_rotary_emb)(xq, xk, freqs)
    lowered = realify.lower(gm, rotary_op=True)
    fired = lowered.meta["realify_report"].patterns
    assert len(fired) == 2 and all(line.startswith("pattern rope.op: aten.mul.Tensor %") for line in fired)
    assert realify.lower(gm).meta["realify_report"].patterns == []


def test_disable_patterns_reaches_the_core_from_lower_and_is_checked() -> None:
    g = torch.Generator().manual_seed(1)
    xq, xk = torch.randn(1, 8, 2, 8, generator=g), torch.randn(1, 8, 2, 8, generator=g)
    freqs = torch.polar(torch.ones(8, 4), torch.randn(8, 4, generator=g))
    gm = make_fx(llama3.apply_rotary_emb)(xq, xk, freqs)
    fired = realify.lower(gm, target="onnx").meta["realify_report"].patterns
    assert fired and all(line.startswith("pattern rope.graph:") for line in fired)
    plain = realify.lower(gm, target="onnx", disable_patterns=("rope.graph",))
    assert plain.meta["realify_report"].patterns == []
    args = (xq, xk, torch.view_as_real(freqs))
    for got, want in zip(plain(*args), llama3.apply_rotary_emb(xq, xk, freqs), strict=True):
        torch.testing.assert_close(got, want)
    with pytest.raises(ValueError, match="unknown pattern 'rope.nope'"):
        realify.lower(gm, disable_patterns=("rope.nope",))
    with pytest.raises(TypeError, match="disable_patterns"):
        realify.lower(gm, disable_patterns="rope.graph")  # type: ignore[arg-type]
