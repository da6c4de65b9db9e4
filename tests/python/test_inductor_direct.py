"""Graphs aot_autograd hands the backend (inference, and a training step's forward and backward) reach Inductor's
graph compiler without a second aot_autograd layer (realify._inductor_direct): the same numbers, strides and input
mutations as eager and as the two-layer path; modes and direct=False keep compile_fx."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import realify  # noqa: F401  (registers the backend)
import torch
import torch._inductor.compile_fx as inductor_compile_fx
from realify import _inductor_direct


@contextmanager
def counting_inductor_entries() -> Iterator[dict[str, int]]:
    """Counts calls of compile_fx (the aot_autograd layer) and compile_fx_inner (Inductor's graph compiler), each
    only where it is not already running: compile_fx calls itself once inside the config_patches it is given."""
    calls = {"compile_fx": 0, "compile_fx_inner": 0}
    originals = {name: getattr(inductor_compile_fx, name) for name in calls}
    active = dict.fromkeys(calls, 0)

    def counted(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if active[name] == 0:
                calls[name] += 1
            active[name] += 1
            try:
                return originals[name](*args, **kwargs)
            finally:
                active[name] -= 1

        return call

    for name in calls:
        setattr(inductor_compile_fx, name, counted(name))
    try:
        yield calls
    finally:
        for name, fn in originals.items():
            setattr(inductor_compile_fx, name, fn)


def rotate_and_cache(xq: torch.Tensor, xk: torch.Tensor, freqs: torch.Tensor, cache: torch.Tensor) -> torch.Tensor:
    """A decode step: rotate q and k by complex freqs, write k into the cache (an input mutation)."""
    pos = cache.shape[1] - 1
    f = freqs[pos : pos + 1].view(1, 1, 1, -1)
    q = torch.view_as_real(torch.view_as_complex(xq.reshape(*xq.shape[:-1], -1, 2)) * f).flatten(3)
    k = torch.view_as_real(torch.view_as_complex(xk.reshape(*xk.shape[:-1], -1, 2)) * f).flatten(3)
    cache[:, pos : pos + 1] = k
    return q


def decode_args() -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(0)
    xq, xk = torch.randn(2, 1, 4, 8, generator=g), torch.randn(2, 1, 2, 8, generator=g)
    freqs = torch.polar(torch.ones(16, 4), torch.randn(16, 4, generator=g))
    return xq, xk, freqs, torch.zeros(2, 16, 2, 8)


def test_inference_graph_skips_the_second_aot_layer_and_matches_eager() -> None:
    if not _inductor_direct.available():
        pytest.skip("this torch's Inductor lacks an entry point of the direct path (the two-layer path is tested)")
    torch._dynamo.reset()
    args = decode_args()
    want_cache = args[3].clone()
    want = rotate_and_cache(*args[:3], want_cache)
    with counting_inductor_entries() as calls:
        fn = torch.compile(rotate_and_cache, backend="realify", fullgraph=True)
        got = fn(*args)
    assert calls == {"compile_fx": 0, "compile_fx_inner": 1}
    torch.testing.assert_close(got, want)  # Inductor's fused multiply-adds round differently from eager
    torch.testing.assert_close(args[3], want_cache)  # the cache write reached the caller's tensor
    assert got.stride() == want.stride()

    torch._dynamo.reset()  # the two-layer path compiles the same kernels: equal to the bit
    two_layer_cache = torch.zeros_like(want_cache)
    two_layer = torch.compile(rotate_and_cache, backend="realify", options={"direct": False})(
        *args[:3], two_layer_cache
    )
    torch.testing.assert_close(got, two_layer, rtol=0, atol=0)
    torch.testing.assert_close(args[3], two_layer_cache, rtol=0, atol=0)


def test_direct_false_keeps_compile_fx() -> None:
    torch._dynamo.reset()
    args = decode_args()
    with counting_inductor_entries() as calls:
        fn = torch.compile(rotate_and_cache, backend="realify", options={"direct": False})
        got = fn(*args[:3], torch.zeros(2, 16, 2, 8))
    assert calls["compile_fx"] == 1
    torch.testing.assert_close(got, rotate_and_cache(*args[:3], torch.zeros(2, 16, 2, 8)))
    _, calls = conv_step_gradients(direct=False)
    assert calls["compile_fx"] == 2  # a training step's forward and backward, each through aot_autograd again


def conv_step(w: torch.Tensor, b: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """A complex Conv1d and a product: a training step whose forward saves complex values for its backward. (The
    corpus's complextorch Conv1d train cell is the case that a backward flagged as one to Inductor got wrong.)"""
    y = torch.nn.functional.conv1d(x, w, b, padding=1)
    return (y @ y.transpose(-1, -2).conj()).abs().sum()


def conv_step_gradients(**options: Any) -> tuple[list[torch.Tensor], dict[str, int]]:
    g = torch.Generator().manual_seed(2)
    w = torch.randn(4, 2, 3, dtype=torch.complex64, generator=g).requires_grad_(True)
    b = torch.randn(4, dtype=torch.complex64, generator=g).requires_grad_(True)
    x = torch.randn(3, 2, 8, dtype=torch.complex64, generator=g)
    step: Callable[..., torch.Tensor] = conv_step
    if options.pop("compiled", True):
        torch._dynamo.reset()
        step = torch.compile(conv_step, backend="realify", options=options)
    with counting_inductor_entries() as calls:
        step(w, b, x).backward()
    return [w.grad, b.grad], calls


def test_training_graphs_skip_the_second_aot_layer_and_match_eager() -> None:
    if not _inductor_direct.available():
        pytest.skip("this torch's Inductor lacks an entry point of the direct path (the two-layer path is tested)")
    got, calls = conv_step_gradients()
    assert calls == {"compile_fx": 0, "compile_fx_inner": 2}  # the forward and the backward, one layer each
    want, _ = conv_step_gradients(compiled=False)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w)
    two_layer, _ = conv_step_gradients(direct=False)  # the same kernels: equal to the bit
    for g, t in zip(got, two_layer, strict=True):
        torch.testing.assert_close(g, t, rtol=0, atol=0)


def test_output_strides_views_and_dtypes_match_eager() -> None:
    def fn(x: torch.Tensor, z: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = (x * 2).t()  # a transposed real result
        w = z * z.conj()
        return y, w, w.real.t(), z[1:]  # the last is a view of the complex input

    torch._dynamo.reset()
    x, z = torch.randn(3, 5), torch.randn(4, 6, dtype=torch.complex64)
    want = fn(x, z)
    got = torch.compile(fn, backend="realify", fullgraph=True)(x, z)
    torch._dynamo.reset()
    two_layer = torch.compile(fn, backend="realify", options={"direct": False})(x, z)
    for i, (g, e, t) in enumerate(zip(got, want, two_layer, strict=True)):
        assert g.dtype == e.dtype and g.shape == e.shape and g.stride() == t.stride()
        # eager's w.real is a view into w's complex storage; the lowered graph's real part is a tensor of its own
        assert i == 2 or g.stride() == e.stride()
        torch.testing.assert_close(g, e)
    assert got[3].data_ptr() == z[1:].data_ptr()


def test_dynamic_batch_and_native_fft() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * torch.fft.rfft(x.flip(-1)), n=x.shape[-1])

    torch._dynamo.reset()
    fn_c = torch.compile(fn, backend="realify", fullgraph=True)
    with counting_inductor_entries() as calls:
        for batch in (3, 5, 7):
            x = torch.randn(batch, 32)
            torch._dynamo.mark_dynamic(x, 0)  # a symbolic batch; the transform size stays static
            torch.testing.assert_close(fn_c(x), fn(x), rtol=1e-5, atol=1e-5)
    direct = _inductor_direct.available()
    assert calls == {"compile_fx": 0 if direct else 1, "compile_fx_inner": 1 if direct else calls["compile_fx_inner"]}


def test_not_available_under_cuda_graph_or_freezing_config() -> None:
    with torch._inductor.config.patch({"triton.cudagraphs": True}):
        assert not _inductor_direct.available()
    with torch._inductor.config.patch(freezing=True):
        assert not _inductor_direct.available()


def test_training_graph_compiles_again_from_a_warm_inductor_cache() -> None:
    """The second compile of the same training graph loads the inner Inductor's results from its caches; their
    output strides (of the real graph) must not reach the outer aot_autograd, whose backward once failed on them."""
    w = torch.randn(4, 4, dtype=torch.complex64, requires_grad=True)
    x = torch.randn(3, 4, dtype=torch.complex64)

    def loss(x: torch.Tensor) -> torch.Tensor:
        return (x @ w).abs().sum()

    loss(x).backward()
    want = w.grad.clone()
    with torch._inductor.config.patch(fx_graph_cache=True, force_disable_caches=False):
        for _ in range(2):  # the first compile fills the caches (where an earlier run has not), the second reads them
            torch._dynamo.reset()
            w.grad = None
            torch.compile(loss, backend="realify")(x).backward()
            torch.testing.assert_close(w.grad, want)


@pytest.mark.parametrize("fft", ["matmul", "auto"])
def test_lowered_constants_reach_the_direct_path_as_inputs(fft: str) -> None:
    """With fft="matmul" the lowered graph holds DFT matrices (and log-mel its filter bank) as constants; the direct
    path passes them to Inductor as trailing inputs, and the numbers equal the two-layer path's."""
    from realify_examples import zoo

    model, x = zoo.LogMel(n_fft=64, hop=16, n_mels=8), torch.randn(2, 400)
    results = []
    for direct in (True, False):
        torch._dynamo.reset()
        with counting_inductor_entries() as calls, torch.no_grad():
            results.append(torch.compile(model, backend="realify", options={"fft": fft, "direct": direct})(x))
        assert (calls["compile_fx"] == 0) == (direct and _inductor_direct.available())
    with torch.no_grad():
        want = model(x)
    torch.testing.assert_close(results[0], results[1], rtol=0, atol=0)
    torch.testing.assert_close(results[0], want, rtol=1e-5, atol=1e-5)
