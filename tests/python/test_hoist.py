"""Work on complex parameters hoisted out of inference graphs (realify._hoist): computed once by the adapter,
reused while the parameters are unchanged, recomputed when they change, never in training graphs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch
import torch.fx as fx
from realify import _hoist
from realify.backend import CompileEvent
from realify_examples.zoo import FNOSpectral2d

torch.manual_seed(0)


def hoisted_inputs(gm: fx.GraphModule) -> list[str]:
    return [n.name for n in gm.graph.find_nodes(op="placeholder") if n.name.startswith("realify_hoisted")]


@pytest.fixture
def prologue_runs(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times a prologue ran on real tensors (compile-time runs on fake tensors are not counted)."""
    from torch._subclasses.fake_tensor import FakeTensor

    runs = [0]
    real_run = _hoist.run_prologue

    def counting(prologue: _hoist.Prologue, args: Any) -> list[torch.Tensor]:
        if not any(isinstance(args[i], FakeTensor) for i in prologue.positions):
            runs[0] += 1
        return real_run(prologue, args)

    monkeypatch.setattr(_hoist, "run_prologue", counting)
    yield runs


def compile_fno(inner: str = "eager", **options: Any) -> tuple[FNOSpectral2d, Any, list[CompileEvent]]:
    torch._dynamo.reset()
    model = FNOSpectral2d(channels=4, m1=3, m2=3).eval()
    events: list[CompileEvent] = []
    opts = {"backend": inner, "fft": "matmul", "on_lowered": events.append, **options}
    return model, torch.compile(model, backend="realify", options=opts), events


@pytest.mark.parametrize("inner", ["eager", "inductor"])
def test_fno_weights_embedded_once(inner: str, prologue_runs: list[int]) -> None:
    model, fn, events = compile_fno(inner)
    x = torch.randn(2, 4, 16, 16)
    with torch.no_grad():
        for _ in range(3):
            torch.testing.assert_close(fn(x), model(x), rtol=1e-5, atol=1e-5)
    (event,) = events
    assert len(hoisted_inputs(event.graph_after)) == 2  # one embedding per weight
    # the graph no longer takes the weights: nothing stacks or negates their parts per call, and the adapter
    # neither converts nor passes them
    names = [n.name for n in event.graph_after.graph.find_nodes(op="placeholder")]
    assert names == ["arg0_1", "realify_hoisted_0", "realify_hoisted_1"], names
    assert prologue_runs[0] == 1


def test_changed_weights_are_embedded_again(prologue_runs: list[int]) -> None:
    model, fn, _ = compile_fno()
    x = torch.randn(2, 4, 16, 16)
    with torch.no_grad():
        fn(x)
        model.w1.mul_(-2)  # in place: the version counter moves
        torch.testing.assert_close(fn(x), model(x), rtol=1e-5, atol=1e-5)
        model.w2.data = torch.randn_like(model.w2)  # new storage behind the same parameter
        torch.testing.assert_close(fn(x), model(x), rtol=1e-5, atol=1e-5)
        fn(x)
    assert prologue_runs[0] == 3


def test_training_graph_keeps_the_embedding() -> None:
    model, fn, events = compile_fno()
    x = torch.randn(2, 4, 16, 16)
    out = fn(x)
    out.square().sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).square().sum().backward()
    for got, p in zip(grads, model.parameters(), strict=True):
        torch.testing.assert_close(got, p.grad, rtol=1e-4, atol=1e-5)
    assert events and all(not hoisted_inputs(e.graph_after) for e in events)


def test_option_off() -> None:
    _, fn, events = compile_fno(hoist=False)
    with torch.no_grad():
        fn(torch.randn(2, 4, 16, 16))
    assert not hoisted_inputs(events[0].graph_after)


class RealAndComplex(torch.nn.Module):
    """A real weight cast every call (stays in the graph: caching it would copy every weight) and a complex one
    also returned itself, conjugated (an output is never a cached tensor)."""

    def __init__(self) -> None:
        super().__init__()
        self.real = torch.nn.Parameter(torch.randn(8))
        self.cx = torch.nn.Parameter(torch.randn(8, dtype=torch.complex64))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.view_as_real(x * (self.cx * 3.0)) * self.real.to(torch.float16).float()[:, None]
        return y, self.cx.conj() * 2.0


def test_outputs_and_real_weights_stay_in_the_graph(prologue_runs: list[int]) -> None:
    torch._dynamo.reset()
    model, events = RealAndComplex(), []
    fn = torch.compile(model, backend="realify", options={"backend": "eager", "on_lowered": events.append})
    x = torch.randn(8, dtype=torch.complex64)
    with torch.no_grad():
        y, w = fn(x)
        w.zero_()  # the caller owns its outputs
        y2, w2 = fn(x)
        ry, rw = model(x)
    torch.testing.assert_close(y2, ry)
    torch.testing.assert_close(w2, rw)
    gm = events[0].graph_after
    casts = [n for n in gm.graph.nodes if n.target == torch.ops.aten._to_copy.default]
    assert casts, gm.code  # the real weight's cast is still computed in the graph
    assert hoisted_inputs(gm), gm.code  # cx * 3.0 and the parts of cx.conj() * 2.0 moved out
    (output,) = gm.graph.find_nodes(op="output")
    assert not any(isinstance(a, fx.Node) and a.op == "placeholder" for a in output.args[0])
    assert prologue_runs[0] == 1


class ReturnsAView(torch.nn.Module):
    """An output that is a view of work on a complex parameter alone: it stays in the graph (the caller may write
    to it)."""

    def __init__(self) -> None:
        super().__init__()
        self.cx = torch.nn.Parameter(torch.randn(4, 3, dtype=torch.complex64))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return (x * (self.cx * 2.0)).real, (self.cx.real * 3.0).t()


def test_output_views_are_not_cached(prologue_runs: list[int]) -> None:
    torch._dynamo.reset()
    model, events = ReturnsAView(), []
    fn = torch.compile(model, backend="realify", options={"backend": "eager", "on_lowered": events.append})
    x = torch.randn(4, 3, dtype=torch.complex64)
    with torch.no_grad():
        _, t = fn(x)
        t.fill_(7.0)  # the caller's own tensor
        got, want = fn(x), model(x)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)
    gm = events[0].graph_after
    assert hoisted_inputs(gm), gm.code  # cx * 2.0 moved out
    muls = [n for n in gm.graph.nodes if n.target == torch.ops.aten.mul.Tensor and 3.0 in n.args]
    assert muls, gm.code  # cx.real * 3.0 reaches an output through a view: computed in the graph


def test_hoist_leaves_random_and_view_only_work() -> None:
    def fn(w: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        noise = torch.ops.aten.rand_like.default(w)  # seeded randomness: a fresh draw every call
        view = torch.ops.aten.permute.default(w, [1, 0])  # a view alone saves no kernel
        return x + noise, x @ view, x * torch.ops.aten.neg.default(w)

    w, x = torch.randn(4, 4), torch.randn(4, 4)
    gm = fx.experimental.proxy_tensor.make_fx(fn)(w, x)
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode() as mode:
        fw = mode.from_tensor(w)
    for n in gm.graph.nodes:
        if n.op == "call_function":
            n.meta["val"] = fw  # shapes only matter here
    prologue = _hoist.hoist(gm, frozenset({0}))
    assert prologue is not None
    targets = [n.target for n in prologue.graph.graph.nodes if n.op == "call_function"]
    assert targets == [torch.ops.aten.neg.default]
    assert prologue.positions == [0]
    assert any(n.target == torch.ops.aten.rand_like.default for n in gm.graph.nodes)
    assert any(n.target == torch.ops.aten.permute.default for n in gm.graph.nodes)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU (the CPU runs of this file test the same)")
@pytest.mark.parametrize("fft", ["native", "matmul"])
def test_fno_on_the_gpu(fft: str, prologue_runs: list[int]) -> None:
    torch._dynamo.reset()
    model = FNOSpectral2d(channels=8, m1=4, m2=4).cuda().eval()
    fn = torch.compile(model, backend="realify", options={"fft": fft})
    x = torch.randn(4, 8, 32, 32, device="cuda")
    with torch.no_grad():
        for _ in range(3):
            torch.testing.assert_close(fn(x), model(x), rtol=1e-5, atol=1e-5)
        model.w2.mul_(0.5)
        torch.testing.assert_close(fn(x), model(x), rtol=1e-5, atol=1e-5)
    assert prologue_runs[0] == 2


class RotatesItsState(torch.nn.Module):
    """A complex buffer the forward itself changes in place: what is computed from it is computed again each call."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("state", torch.randn(4, dtype=torch.complex64))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.state.mul_(1j)
        return x * (self.state * 2)


def test_buffer_mutated_by_the_graph(prologue_runs: list[int]) -> None:
    torch._dynamo.reset()
    model, ref = RotatesItsState(), RotatesItsState()
    ref.state.copy_(model.state)
    events: list[CompileEvent] = []
    fn = torch.compile(model, backend="realify", options={"backend": "eager", "on_lowered": events.append})
    x = torch.randn(4, dtype=torch.complex64)
    with torch.no_grad():
        for _ in range(3):
            torch.testing.assert_close(fn(x), ref(x))
            torch.testing.assert_close(model.state, ref.state)
    assert hoisted_inputs(events[0].graph_after)
    assert prologue_runs[0] == 3  # the graph's own write moves the version counter
