"""Planar boundaries: a complex table read only as its parts (RoPE's freqs_cis) crosses as one contiguous real
[2, ...] tensor, folded at lowering time when it is a buffer and split once (cached) when it is an input."""

from __future__ import annotations

from typing import Any

import realify
import torch
from harness import assert_real_only
from realify.backend import CompileEvent, compile_lowered
from realify.lower import PLANAR_CONSTS, PLANAR_INPUTS, lower_graph_module
from realify.runtime import ComplexAdapter
from realify_examples import llama3
from torch.fx.experimental.proxy_tensor import make_fx


def rope(xq: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    xc = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    f = freqs.view(1, xq.shape[1], 1, xc.shape[-1])
    return torch.view_as_real(xc * f).flatten(3).type_as(xq)


def rope_args() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    xq = torch.randn(2, 16, 4, 8, generator=g)
    freqs = torch.polar(torch.ones(16, 4), torch.randn(16, 4, generator=g))
    return xq, freqs


class Rope(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("freqs", rope_args()[1], persistent=False)

    def forward(self, xq: torch.Tensor) -> torch.Tensor:
        return rope(xq, self.freqs[: xq.shape[1]])


def selects(gm: torch.fx.GraphModule) -> list[tuple[Any, ...]]:
    return [n.args for n in gm.graph.nodes if n.target is torch.ops.aten.select.int]


def test_buffer_is_folded_planar_and_contiguous() -> None:
    m, xq = Rope(), rope_args()[0]
    gm = torch.export.export(m, (xq,)).module()
    lowered, report = lower_graph_module(gm, planar=PLANAR_CONSTS)
    buf = lowered.get_buffer("freqs")
    assert buf.shape == (2, 16, 4) and buf.is_contiguous() and buf.dtype == torch.float32
    torch.testing.assert_close(buf, torch.stack([m.freqs.real, m.freqs.imag]))
    assert [(b.position, b.planar) for b in report.signature.consts] == [("freqs", True)]
    # the parts are read as [0] and [1]: contiguous slices
    freqs_node = next(n for n in lowered.graph.nodes if n.op == "get_attr" and n.target == "freqs")
    assert sorted(a[1:] for a in selects(lowered) if a[0] is freqs_node) == [(0, 0), (0, 1)]
    assert_real_only(lowered)
    torch.testing.assert_close(lowered(xq), m(xq))
    # the same real arithmetic as the [..., 2] lowering, bit for bit
    torch.testing.assert_close(lowered(xq), realify.lower(gm)(xq), rtol=0, atol=0)
    assert m.freqs.is_complex()  # the input module is untouched


def test_planar_is_opt_in_for_lower() -> None:
    gm = torch.export.export(Rope(), (rope_args()[0],)).module()
    assert realify.lower(gm).get_buffer("freqs").shape == (16, 4, 2)
    assert realify.lower(gm, planar=True).get_buffer("freqs").shape == (2, 16, 4)


def test_exported_program_with_planar_buffer_matches_eager() -> None:
    m, xq = Rope(), rope_args()[0]
    ep2 = realify.lower(torch.export.export(m, (xq,)), planar=True)
    assert_real_only(ep2.graph_module)
    planar = [t for t in list(ep2.state_dict.values()) + list(ep2.constants.values()) if t.shape == (2, 16, 4)]
    assert len(planar) == 1
    torch.testing.assert_close(ep2.module()(xq), m(xq))


def test_parameter_stays_a_view() -> None:
    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(4, dtype=torch.complex64))

        def forward(self, z: torch.Tensor) -> torch.Tensor:
            return torch.view_as_real(z * self.w)

    m = M()
    z = torch.randn(3, 4, dtype=torch.complex64)
    lowered = realify.lower(torch.export.export(m, (z,)).module(), planar=True)
    assert lowered.w.shape == (4, 2) and lowered.w.data_ptr() == m.w.data_ptr()


def test_input_table_is_planar_and_split_once() -> None:
    xq, freqs = rope_args()
    gm = make_fx(rope)(xq, freqs)
    fn = compile_lowered(gm, [xq, freqs], inner="eager")
    assert isinstance(fn, ComplexAdapter)
    cache = fn.planar[1]
    assert cache.real_dtype == torch.float32
    ref = rope(xq, freqs)
    torch.testing.assert_close(fn(xq, freqs), ref, rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(fn(xq, freqs), ref, rtol=1e-6, atol=1e-6)
    assert cache.splits == 1  # the same tensor, unchanged: split once
    freqs.mul_(1j)  # in place: the version counter moves, so the split is redone
    torch.testing.assert_close(fn(xq, freqs), rope(xq, freqs), rtol=1e-6, atol=1e-6)
    assert cache.splits == 2
    other = freqs.clone()  # equal data, another tensor: split again
    torch.testing.assert_close(fn(xq, other), rope(xq, other), rtol=1e-6, atol=1e-6)
    assert cache.splits == 3
    # `.data =` moves no version counter: the same pointer read with other strides (every row the first) must
    # still split again
    freqs.data = freqs.data.as_strided(freqs.shape, (0, 1))
    torch.testing.assert_close(fn(xq, freqs), rope(xq, freqs), rtol=1e-6, atol=1e-6)
    assert cache.splits == 4


def test_non_table_input_stays_a_view() -> None:
    def f(z: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return z * w  # nothing is broadcast: neither input is a table

    z, w = torch.randn(3, 4, dtype=torch.complex64), torch.randn(3, 4, dtype=torch.complex64)
    _, report = lower_graph_module(make_fx(f)(z, w), planar=PLANAR_INPUTS | PLANAR_CONSTS)
    assert [b.planar for b in report.signature.inputs] == [False, False]


def test_inference_tensor_is_split_every_call() -> None:
    xq, freqs = rope_args()
    fn = compile_lowered(make_fx(rope)(xq, freqs), [xq, freqs], inner="eager")
    with torch.inference_mode():
        f_inf = freqs.clone()
        for _ in range(2):
            torch.testing.assert_close(fn(xq, f_inf), rope(xq, freqs), rtol=1e-6, atol=1e-6)
    assert fn.planar[1].splits == 2


def test_backend_llama_reads_planar_freqs() -> None:
    torch._dynamo.reset()
    cfg = llama3.ModelArgs(dim=64, n_layers=1, n_heads=4, n_kv_heads=2, vocab_size=128, multiple_of=16, max_seq_len=32)
    model = llama3.build(cfg, seed=0)
    tok = torch.randint(0, cfg.vocab_size, (2, 16), generator=torch.Generator().manual_seed(3))
    events: list[CompileEvent] = []
    with torch.no_grad():
        ref = model(tok)
        for planar in (True, False):
            torch._dynamo.reset()
            compiled = torch.compile(
                model, backend="realify", options={"backend": "eager", "on_lowered": events.append, "planar": planar}
            )
            torch.testing.assert_close(compiled(tok), ref, rtol=1e-6, atol=1e-6)
    on, off = events
    assert [b.planar for b in on.report.signature.inputs] == [True]
    assert [b.planar for b in off.report.signature.inputs] == [False]
    name = on.report.signature.inputs[0].name
    p = next(n for n in on.graph_after.graph.nodes if n.op == "placeholder" and n.name == name)
    assert p.meta["val"].shape == (2,) + tuple(model.freqs_cis.shape)
