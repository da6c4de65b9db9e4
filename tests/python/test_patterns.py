"""Multi-op patterns (src/patterns/): the core lists them, the lowering report says which fired where, and
`disable` turns one off, with the plain lowering in its place."""

from __future__ import annotations

import pytest
import realify
import torch
from harness import TOL, compare
from realify import _core
from realify_examples import llama3
from realify_examples.zoo import FNOSpectral2d
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
    assert {"rope.op", "rope.graph", "rope.words", "fft.prune", "fft.sparse", "fft.blocks"} <= set(names)
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


# the FFT patterns an FNO layer meets, per strategy, in graph order: its rfft2 read through slices, then the irfft2
# of the blocks it writes into zeros
FNO_PATTERNS = {"matmul": ("fft.prune", "fft.sparse"), "native": ("fft.blocks",)}


@pytest.mark.parametrize("fft", sorted(FNO_PATTERNS))
def test_fft_patterns_fire_and_disable_gives_the_plain_transforms(fft: str) -> None:
    model = FNOSpectral2d()
    x = torch.randn(2, 4, 16, 20, generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        ref = model(x)
        gm = make_fx(model)(x)
        on = realify.lower(gm, fft=fft)
        off = realify.lower(gm, fft=fft, disable_patterns=FNO_PATTERNS[fft])
        fired = [line.split(":")[0].removeprefix("pattern ") for line in on.meta["realify_report"].patterns]
        assert fired == list(FNO_PATTERNS[fft])
        assert off.meta["realify_report"].patterns == []
        targets = [{str(n.target) for n in g.graph.nodes} for g in (on, off)]
        # on: the blocks read (or rebuilt) directly; off: the spectrum written out as the graph says
        assert "aten.slice_scatter.default" not in targets[0] and "aten.slice_scatter.default" in targets[1]
        if fft == "matmul":  # pruned DFT matrices only where fft.prune and fft.sparse fired
            kept = [["_keep" in t or "_from" in t for t in names if "dft" in t] for names in targets]
            assert any(kept[0]) and not any(kept[1])
        compare(on(x), ref, TOL[torch.complex64])
        compare(off(x), ref, TOL[torch.complex64])


def _corpus_model(module: str, build: str) -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    """A third-party model of the corpus, built as its corpus case builds it (tiny config, fixed seed)."""
    package = {"test_corpus_transformers": "transformers", "test_corpus_diffusers": "diffusers"}[module]
    pytest.importorskip(package, reason=f"needs {package} (make test installs the corpus packages)")
    torch.manual_seed(0)
    return getattr(__import__(module), build)()


# RoPE tables that are not Llama's [B|1, S|1, 1, D/2]: rope.graph takes each (one line per rotated q or k)
THIRD_PARTY_ROPES = {
    # apply_rotary_emb: heads-first q [B, H, S, D/2], freqs_cis.unsqueeze(1) -> [1, 1, S, D/2]
    "DeepSeek-V2": ("test_corpus_transformers", "_deepseek_v2", 2),
    # apply_rotary_emb_qwen(use_real=False): freqs_cis.unsqueeze(1) -> [S, 1, D/2], image and text streams
    "Qwen-Image": ("test_corpus_diffusers", "_qwen_image", 4),
    # Wan-style 3-D RoPE in complex128, heads-first after a transpose
    "AnyFlow": ("test_corpus_diffusers", "_anyflow", 2),
}


@pytest.mark.parametrize("name", sorted(THIRD_PARTY_ROPES))
def test_rope_graph_takes_third_party_tables(name: str) -> None:
    module, build, rotated = THIRD_PARTY_ROPES[name]
    model, args = _corpus_model(module, build)
    with torch.no_grad():
        ref = model(*args)
        ep = torch.export.export(model, args, strict=False)
        on = realify.lower(ep, target="onnx")
        off = realify.lower(ep, target="onnx", disable_patterns=("rope.graph",))
        fired = on.graph_module.meta["realify_report"].patterns
        assert len(fired) == rotated and all(line.startswith("pattern rope.graph: aten.mul.Tensor %") for line in fired)
        assert off.graph_module.meta["realify_report"].patterns == []
        permutes = [sum(n.target is torch.ops.aten.permute.default for n in g.graph_module.graph.nodes)
                    for g in (on, off)]
        assert permutes[0] - permutes[1] == 2 * rotated  # the pair axis to the front and back, per rotated tensor
        got, plain = (_first(g.module()(*args)) for g in (on, off))
    assert torch.equal(got, plain)  # eager's product term for term: bit for bit the mul rule's
    compare(got, _first(ref), {"rtol": 1e-5, "atol": 1e-5})


def _first(out: object) -> torch.Tensor:
    """A model's first output (transformers returns a ModelOutput, diffusers a tensor here)."""
    to_tuple = getattr(out, "to_tuple", None)
    first = to_tuple()[0] if callable(to_tuple) else out
    assert isinstance(first, torch.Tensor)
    return first
