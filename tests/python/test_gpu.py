"""The same behaviour as the CPU tests, on a CUDA device when one is present."""

from __future__ import annotations

import pytest
import torch
from realify.backend import CompileEvent
from realify.runtime import unpack
from realify_examples import llama3

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs a CUDA GPU; the CPU tests cover the same paths"
)

TINY = llama3.ModelArgs(dim=64, n_layers=2, n_heads=4, n_kv_heads=2, vocab_size=128, multiple_of=16, max_seq_len=32)


def test_tiny_llama_realify_inductor_on_cuda() -> None:
    torch._dynamo.reset()
    model = llama3.build(TINY, seed=0, device="cuda")
    tok = torch.randint(0, TINY.vocab_size, (2, 16), device="cuda")
    events: list[CompileEvent] = []
    with torch.no_grad():
        ref = model(tok)
        out = torch.compile(model, backend="realify", fullgraph=True, options={"on_lowered": events.append})(tok)
    assert float((out - ref).abs().max() / ref.abs().max()) <= 1e-5
    assert len(events) == 1 and events[0].report.complex_input_names


def test_complex_io_on_cuda() -> None:
    torch._dynamo.reset()

    def f(z: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return z * w.conj() / (w + 2)

    z = torch.randn(64, 33, dtype=torch.complex64, device="cuda")
    w = torch.randn(64, 33, dtype=torch.complex64, device="cuda")
    out = torch.compile(f, backend="realify")(z, w)
    assert out.is_cuda and out.dtype == torch.complex64
    torch.testing.assert_close(out, f(z, w), rtol=1e-5, atol=1e-5)


def test_unpack_is_zero_copy_on_cuda() -> None:
    z = torch.randn(128, 64, dtype=torch.complex64, device="cuda")
    assert unpack(z, torch.float32).data_ptr() == z.data_ptr()


def test_direct_inductor_path_on_cuda_matches_two_layer_path() -> None:
    """A decode step (RoPE plus a KV-cache write) compiled with and without the second aot_autograd layer: the same
    Triton kernels, so equal to the bit; and close to eager."""
    from test_inductor_direct import decode_args, rotate_and_cache

    args = [a.cuda() for a in decode_args()]
    want_cache = args[3].clone()
    want = rotate_and_cache(*args[:3], want_cache)
    results = []
    for direct in (True, False):
        torch._dynamo.reset()
        cache = torch.zeros_like(want_cache)
        out = torch.compile(rotate_and_cache, backend="realify", options={"direct": direct})(*args[:3], cache)
        results.append((out, cache))
    (out, cache), (out2, cache2) = results
    assert out.is_cuda and out.stride() == want.stride()
    torch.testing.assert_close(out, out2, rtol=0, atol=0)
    torch.testing.assert_close(cache, cache2, rtol=0, atol=0)
    torch.testing.assert_close(out, want)
    torch.testing.assert_close(cache, want_cache)


def test_decode_step_is_one_kernel_launch_with_combo_kernels() -> None:
    """Inference graphs get Inductor's combo kernels (realify.backend.INFERENCE_INDUCTOR_CONFIG): the decode step's
    RoPE of q and RoPE of k with its cache write launch as one kernel, two without them; the numbers stay eager's."""
    from test_inductor_direct import decode_args, rotate_and_cache
    from torch.profiler import ProfilerActivity, profile

    args = [a.cuda() for a in decode_args()]
    want_cache = args[3].clone()
    want = rotate_and_cache(*args[:3], want_cache)
    launches = {}
    for combo in (True, False):
        torch._dynamo.reset()
        cache = torch.zeros_like(want_cache)
        fn = torch.compile(rotate_and_cache, backend="realify", options={"inductor_config": {"combo_kernels": combo}})
        with torch.no_grad():
            out = fn(*args[:3], cache)
            torch.testing.assert_close(out, want)
            torch.testing.assert_close(cache, want_cache)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                fn(*args[:3], cache)
                torch.cuda.synchronize()
        launches[combo] = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    assert launches == {True: 1, False: 2}


@pytest.mark.parametrize(("fft", "tf32"), [("matmul", True), ("matmul", False), ("native", True)])
def test_tf32_reaches_matmul_dfts_only_and_warns(fft: str, tf32: bool) -> None:
    """TF32 on: fft="matmul"'s DFT matmuls lose precision against torch.fft and the compile says so; native and
    TF32 off keep torch.fft's precision without a word (realify._precision)."""
    import warnings

    from realify import Tf32DftWarning

    torch._dynamo.reset()
    x = torch.randn(64, 4096, device="cuda")

    def spectrum(x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.fft.rfft(x))

    ref = spectrum(x.double()).float()
    before = torch.backends.cuda.matmul.fp32_precision
    torch.backends.cuda.matmul.fp32_precision = "tf32" if tf32 else "ieee"
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = torch.compile(spectrum, backend="realify", options={"fft": fft})(x)
    finally:
        torch.backends.cuda.matmul.fp32_precision = before
    err = float((out - ref).abs().max() / ref.abs().max())
    warned = [w for w in caught if issubclass(w.category, Tf32DftWarning)]
    if fft == "matmul" and tf32:
        assert len(warned) == 1 and err > 1e-5  # TF32 keeps 11 significant bits
    else:
        assert not warned and err < 2e-6


@pytest.mark.parametrize("kernel", ["FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH"])
def test_sdpa_llama_on_cuda_every_attention_kernel(kernel: str) -> None:
    """torchtitan's attention (F.scaled_dot_product_attention) reaches the backend as each CUDA SDPA variant; the
    user's ops pass through untouched, in inference and in a training step. Under MATH, torch itself decomposes the
    attention (into _safe_softmax and bmm) before any backend sees it; flash attention takes no attn_mask, so with
    the model's mask torch finds no kernel, eager or compiled, and realify must add no failure of its own."""
    import dataclasses

    from torch.nn.attention import SDPBackend, sdpa_kernel

    torch._dynamo.reset()
    cfg = dataclasses.replace(TINY, attention="sdpa")
    model = llama3.build(cfg, seed=0, device="cuda").to(torch.bfloat16)
    twin = llama3.build(cfg, seed=0, device="cuda").to(torch.bfloat16)
    twin.load_state_dict(model.state_dict())
    tok = torch.randint(0, TINY.vocab_size, (2, 16), device="cuda")
    events: list[CompileEvent] = []
    compiled = torch.compile(model, backend="realify", fullgraph=True, options={"on_lowered": events.append})
    if kernel == "FLASH_ATTENTION":
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]), torch.no_grad():
            with pytest.raises(RuntimeError, match="No available kernel"):
                twin(tok)
            with pytest.raises(RuntimeError, match="No available kernel"):
                compiled(tok)
        assert not events, "torch refused the attention before realify saw a graph"
        return
    with sdpa_kernel([getattr(SDPBackend, kernel)]):
        with torch.no_grad():
            torch.testing.assert_close(compiled(tok), twin(tok), rtol=2e-2, atol=2e-2)
        compiled(tok).float().logsumexp(-1).mean().backward()
        twin(tok).float().logsumexp(-1).mean().backward()

    def attention_ops(gm: torch.fx.GraphModule) -> list[str]:
        words = ("scaled_dot_product", "softmax", "bmm")
        return sorted(str(n.target) for n in gm.graph.nodes if any(w in str(n.target) for w in words))

    for e in events:
        assert attention_ops(e.graph_after) == attention_ops(e.graph_before), "the user's attention ops are kept"
    ops = {op for e in events for op in attention_ops(e.graph_after)}
    want = "softmax" if kernel == "MATH" else "scaled_dot_product"
    assert any(want in op for op in ops), f"the lowered graphs hold the user's attention ops: {sorted(ops)}"
    for (name, p), q in zip(model.named_parameters(), twin.parameters(), strict=True):
        torch.testing.assert_close(p.grad.float(), q.grad.float(), rtol=5e-2, atol=5e-3, msg=name)
