"""options["inductor_config"]: Inductor settings for realify's inner compile, checked before tracing; inference graphs
get combo kernels by default (realify.backend.INFERENCE_INDUCTOR_CONFIG), training graphs only what the caller
asks for. On the GPU a decode step then launches one kernel (test_gpu.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import realify  # noqa: F401  (registers the backend)
import torch
import torch._inductor.compile_fx as inductor_compile_fx
from realify import backend
from test_inductor_direct import decode_args, rotate_and_cache


@contextmanager
def settings_seen_by_inductor(*names: str) -> Iterator[list[dict[str, Any]]]:
    """The values of Inductor settings `names` at each graph Inductor compiles (_compile_fx_inner, which
    compile_fx_inner looks up at each call, and both the direct path and compile_fx reach)."""
    seen: list[dict[str, Any]] = []
    original = inductor_compile_fx._compile_fx_inner

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append({n: getattr(torch._inductor.config, n) for n in names})
        return original(*args, **kwargs)

    inductor_compile_fx._compile_fx_inner = spy
    try:
        # a warm AOTAutograd cache would hand compile_fx its graphs without compiling them
        with torch._inductor.config.patch(force_disable_caches=True):
            yield seen
    finally:
        inductor_compile_fx._compile_fx_inner = original


def compiled_decode(options: dict[str, Any]) -> Callable[..., torch.Tensor]:
    torch._dynamo.reset()
    return torch.compile(rotate_and_cache, backend="realify", options=options)


def test_inference_graph_gets_combo_kernels_by_default_and_the_caller_may_turn_them_off() -> None:
    args = decode_args()
    want_cache = args[3].clone()
    want = rotate_and_cache(*args[:3], want_cache)
    for options, combo in (({}, True), ({"inductor_config": {"combo_kernels": False}}, False)):
        cache = torch.zeros_like(want_cache)
        with settings_seen_by_inductor("combo_kernels") as seen, torch.no_grad():
            got = compiled_decode(options)(*args[:3], cache)
        assert seen == [{"combo_kernels": combo}]
        torch.testing.assert_close(got, want)
        torch.testing.assert_close(cache, want_cache)
    assert torch._inductor.config.combo_kernels is False  # the setting was scoped to the compile


def test_caller_settings_reach_training_graphs_and_defaults_do_not() -> None:
    def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.view_as_complex(x) * w).sum(-1)

    x = torch.randn(4, 3, 2, requires_grad=True)
    w = torch.polar(torch.ones(3), torch.randn(3))
    for options, want in (({}, False), ({"inductor_config": {"max_autotune_pointwise": True}}, True)):
        torch._dynamo.reset()
        with settings_seen_by_inductor("combo_kernels", "max_autotune_pointwise") as seen:
            out = torch.compile(f, backend="realify", options=options)(x, w)
            out.sum().backward()
        assert len(seen) == 2  # the forward, then the backward when it runs
        assert all(s == {"combo_kernels": False, "max_autotune_pointwise": want} for s in seen)
        torch.testing.assert_close(out, f(x, w))


def test_a_mode_and_the_callers_settings_combine() -> None:
    args = decode_args()
    with settings_seen_by_inductor("max_autotune", "combo_kernels") as seen, torch.no_grad():
        compiled_decode({"mode": "max-autotune-no-cudagraphs", "inductor_config": {"combo_kernels": False}})(*args)
    assert seen == [{"max_autotune": True, "combo_kernels": False}]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"inductor_config": {"no_such_setting": 1}}, "no_such_setting does not exist"),
        ({"inductor_config": ["combo_kernels"]}, "must be a dict of torch._inductor.config names"),
        ({"inductor_config": {"combo_kernels": True}, "backend": "eager"}, "needs backend 'inductor'"),
    ],
)
def test_bad_inductor_config_fails_before_tracing(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        backend.realify_backend(torch.fx.symbolic_trace(lambda x: x + 1), [torch.randn(2)], options)
