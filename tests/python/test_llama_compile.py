"""Tiny Llama 3 end to end: torch.compile(backend="realify"), torch.export + lower, complex graph inputs."""

from __future__ import annotations

from typing import Any

import pytest
import realify
import torch
from harness import assert_real_only
from realify.backend import CompileEvent
from realify.lower import module_check_guards_kwargs
from realify_examples import llama3

TINY = llama3.ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128, multiple_of=16, max_seq_len=32)


def rel_err(a: torch.Tensor, b: torch.Tensor) -> float:
    return float((a - b).abs().max() / b.abs().max())


def tokens(seq: int = 16, bsz: int = 2) -> torch.Tensor:
    return torch.randint(0, TINY.vocab_size, (bsz, seq), generator=torch.Generator().manual_seed(3))


class Recorder:
    """An inner compiler that records the graph it gets, then defers to another."""

    def __init__(self, inner: str = "eager") -> None:
        self.graphs: list[torch.fx.GraphModule] = []
        self.inner = inner

    def __call__(self, gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        self.graphs.append(gm)
        from realify.backend import INNER_COMPILERS

        return INNER_COMPILERS[self.inner](gm, example_inputs)


@pytest.mark.parametrize("inner", ["eager", "inductor"])
def test_tiny_llama_compiles_whole(inner: str) -> None:
    torch._dynamo.reset()
    model = llama3.build(TINY, seed=0)
    tok = tokens()
    with torch.no_grad():
        ref = model(tok)
        events: list[CompileEvent] = []
        rec = Recorder(inner)
        compiled = torch.compile(
            model, backend="realify", fullgraph=True, options={"backend": rec, "on_lowered": events.append}
        )
        out = compiled(tok)
    assert rel_err(out, ref) <= 1e-5
    assert len(events) == 1 and len(rec.graphs) == 1  # one graph, no break
    before, after = events[0].graph_before, rec.graphs[0]
    complex_inputs = [n.name for n in before.graph.nodes if n.op == "placeholder" and n.meta["val"].is_complex()]
    assert complex_inputs, "freqs_cis should reach the compiler as a complex graph input"
    assert events[0].report.complex_input_names == complex_inputs
    assert_real_only(after)
    assert any(n.target is torch.ops.aten.view_as_complex.default for n in before.graph.nodes)


def test_backend_name_resolves_without_import() -> None:
    from torch._dynamo.backends.registry import lookup_backend

    assert lookup_backend("realify") is realify.backend.realify_backend


def test_tiny_llama_through_export() -> None:
    model = llama3.build(TINY, seed=1)
    tok = tokens(seq=12)
    ep = torch.export.export(model, (tok,))
    ep2 = realify.lower(ep)
    assert_real_only(ep2.graph_module)
    with torch.no_grad():
        ref = model(tok)
        assert rel_err(ep2.module()(tok), ref) <= 1e-5
        ep3 = torch.export.export(ep2.module(**module_check_guards_kwargs()), (tok,))
        assert rel_err(ep3.module()(tok), ref) <= 1e-5


def test_attention_block_with_complex_freqs_input() -> None:
    torch._dynamo.reset()
    model = llama3.build(TINY, seed=2)
    attn = model.layers[0].attention
    x = torch.randn(2, 8, TINY.dim, generator=torch.Generator().manual_seed(4))
    freqs = model.freqs_cis[:8]
    mask = torch.triu(torch.full((8, 8), float("-inf")), 1)
    events: list[CompileEvent] = []
    with torch.no_grad():
        ref = attn(x, 0, freqs, mask)
        compiled = torch.compile(
            attn, backend="realify", fullgraph=True, options={"backend": "eager", "on_lowered": events.append}
        )
        out = compiled(x, 0, freqs, mask)
    assert rel_err(out, ref) <= 1e-5
    sig = events[0].report.signature
    assert [b.complex_dtype for b in sig.inputs] == [torch.complex64]


def test_complex_inputs_and_outputs_through_compile() -> None:
    torch._dynamo.reset()

    def f(z: torch.Tensor, w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return z * w + z.conj(), (z / w).abs()

    z = torch.randn(3, 4, dtype=torch.complex64)
    w = torch.randn(3, 4, dtype=torch.complex64) + 2
    compiled = torch.compile(f, backend="realify", options={"backend": "eager"})
    a, b = compiled(z, w)
    ra, rb = f(z, w)
    assert a.dtype == torch.complex64
    torch.testing.assert_close(a, ra)
    torch.testing.assert_close(b, rb)
    # a conj-bit input and a non-contiguous input go through the adapter
    a2, _ = compiled(z.conj(), w.t().contiguous().t())
    torch.testing.assert_close(a2, f(z.conj(), w)[0])


@pytest.mark.parametrize("truncate", [False, True])
def test_complex128_through_compile(truncate: bool) -> None:
    torch._dynamo.reset()

    def f(z: torch.Tensor) -> torch.Tensor:
        return z * z + 1j

    z = torch.randn(5, dtype=torch.complex128)
    events: list[CompileEvent] = []
    compiled = torch.compile(
        f, backend="realify", options={"backend": "eager", "truncate_double": truncate, "on_lowered": events.append}
    )
    out = compiled(z)
    assert out.dtype == torch.complex128
    assert events[0].report.signature.inputs[0].real_dtype == (torch.float32 if truncate else torch.float64)
    tol = dict(rtol=1e-5, atol=1e-5) if truncate else dict(rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(out, f(z), **tol)


def test_unknown_option_is_an_error() -> None:
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: x * 2, backend="realify", options={"bakend": "eager"})
    with pytest.raises(Exception, match="unknown realify options"):
        compiled(torch.randn(3))


def test_mode_reaches_the_inner_inductor() -> None:
    """options["mode"] is torch.compile's mode for the inner Inductor (reduce-overhead replays CUDA graphs on a GPU);
    another inner backend, or an unknown mode, is refused before tracing."""
    torch._dynamo.reset()

    def f(z: torch.Tensor) -> torch.Tensor:
        return torch.fft.ifft(torch.fft.fft(z) * z)

    z = torch.randn(4, 8, dtype=torch.complex64)
    opts = {"backend": "inductor", "mode": "max-autotune-no-cudagraphs"}
    torch.testing.assert_close(torch.compile(f, backend="realify", options=opts)(z), f(z), rtol=1e-5, atol=1e-5)
    for bad in ({"backend": "eager", "mode": "reduce-overhead"}, {"backend": "inductor", "mode": "fastest"}):
        torch._dynamo.reset()
        with pytest.raises(Exception, match="needs backend 'inductor'"):
            torch.compile(f, backend="realify", options=bad)(z)
