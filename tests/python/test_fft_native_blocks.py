"""fft="native": an inverse transform of a spectrum that is zero outside a few written blocks (an FNO layer's mixed
modes) gets the whole spectrum rebuilt from the blocks with cat and zero pads (pattern fft.blocks:
src/patterns/fft_blocks.c), not through the graph's zeros and slice_scatter chain. The numbers stay eager's; where the
blocks overlap, a block is cut by a later write, or the spectrum is read elsewhere too, the chain stays."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import realify
import torch
from harness import call_argument
from realify_examples import zoo
from torch.fx.experimental.proxy_tensor import make_fx

Spectrum = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


def two_corners(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(2, 3, 16, 9, dtype=a.dtype)
    out[:, :, :4, :5] = a
    out[:, :, -4:, :5] = b
    return torch.fft.irfft2(out, s=(16, 16))


def three_blocks(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(2, 3, 16, 9, dtype=a.dtype)
    out[:, :, :4, :5] = a
    out[:, :, 6:10, 2:7] = b
    out[:, :, -4:, 4:9] = a * 2
    return torch.fft.irfft2(out, s=(16, 16))


def cube(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(2, 8, 8, 5, dtype=a.dtype)
    out[:, :3, :2, :3] = a[:, :, :2, :3] * 0.5
    out[:, -3:, -2:, 1:4] = b[:, :, 2:4, 1:4]
    return torch.fft.irfftn(out, s=(8, 8, 8))


def overlapping(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(2, 3, 16, 9, dtype=a.dtype)
    out[:, :, :4, :5] = a
    out[:, :, 2:6, 3:8] = b  # cuts the first block
    return torch.fft.irfft2(out, s=(16, 16))


def complex_ifft2(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """A complex-output layer: ifft2 (c2c) of the spectrum, real part taken after."""
    out = torch.zeros(2, 3, 16, 12, dtype=a.dtype)
    out[:, :, :4, :5] = a
    out[:, :, -4:, -5:] = b
    return torch.fft.ifft2(out).real


def read_twice(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    out = torch.zeros(2, 3, 16, 9, dtype=a.dtype)
    out[:, :, :4, :5] = a
    out[:, :, -4:, :5] = b
    return torch.fft.irfft2(out, s=(16, 16)) + out.abs().sum()


CASES: dict[str, tuple[Spectrum, bool]] = {  # name: (function, whether the blocks are rebuilt with cat)
    "two_corners": (two_corners, True),
    "three_blocks": (three_blocks, True),
    "cube": (cube, True),
    "complex_ifft2": (complex_ifft2, True),
    "overlapping": (overlapping, False),
    "read_twice": (read_twice, False),
}


def blocks() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return (
        torch.randn(2, 3, 4, 5, dtype=torch.complex64, generator=g),
        torch.randn(2, 3, 4, 5, dtype=torch.complex64, generator=g),
    )


def ops(gm: torch.fx.GraphModule) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_blocks_rebuilt_with_cat_and_pads(name: str) -> None:
    fn, rebuilt = CASES[name]
    a, b = blocks()
    low = realify.lower(make_fx(fn)(a, b), fft="native")
    names = ops(low)
    assert any(name.startswith("realify.fft_c") for name in names), names
    if rebuilt:
        assert "aten.cat.default" in names and "aten.slice_scatter.default" not in names, names
    else:
        assert "aten.slice_scatter.default" in names, names
    got = low(torch.view_as_real(a), torch.view_as_real(b))
    torch.testing.assert_close(got, fn(a, b), rtol=1e-5, atol=1e-6)


def test_fno_layer_through_the_backend_and_export() -> None:
    layer = zoo.FNOSpectral2d(channels=4, m1=3, m2=4)
    x = torch.randn(2, 4, 12, 12)
    with torch.no_grad():
        want = layer(x)
        events: list[realify.backend.CompileEvent] = []
        torch._dynamo.reset()
        got = torch.compile(layer, backend="realify", options={"fft": "native", "on_lowered": events.append})(x)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    lowered = ops(events[0].graph_after)
    assert "aten.cat.default" in lowered and "aten.slice_scatter.default" not in lowered

    ep = realify.lower(torch.export.export(layer, (x,)), fft="native")
    assert "aten.slice_scatter.default" not in ops(ep.graph_module)
    torch.testing.assert_close(ep.module()(x), want, rtol=1e-5, atol=1e-6)


def test_symbolic_batch_keeps_the_chain() -> None:
    """rf_fft_sparse_dense builds static shapes only; a symbolic batch keeps the written chain, with eager's numbers."""
    layer = zoo.FNOSpectral2d(channels=4, m1=3, m2=4)
    x = torch.randn(3, 4, 12, 12)
    ep = torch.export.export(layer, (x,), dynamic_shapes={"x": {0: torch.export.Dim("batch")}})
    low = realify.lower(ep, fft="native")
    assert "aten.slice_scatter.default" in ops(low.graph_module)
    x5 = torch.randn(5, 4, 12, 12)
    with torch.no_grad():
        torch.testing.assert_close(low.module()(x5), layer(x5), rtol=1e-5, atol=1e-6)


def producer_of_transform_input(gm: torch.fx.GraphModule) -> torch.fx.Node:
    (fft,) = [n for n in gm.graph.nodes if str(n.target).startswith("realify.fft_c2r")]
    return fft.args[0]


def test_blocks_are_joined_on_the_packed_layout() -> None:
    """One cat and its pads on [..., 2] (what the operator takes), not one per part and a stack after."""
    a, b = blocks()
    low = realify.lower(make_fx(two_corners)(a, b), fft="native")
    names = ops(low)
    assert names.count("aten.cat.default") == 1 and "aten.stack.default" not in names, names
    (cat,) = [n for n in low.graph.nodes if n.target == torch.ops.aten.cat.default]
    assert cat.meta["val"].shape[-1] == 2 and cat.meta["val"].dim() == 5


def test_power_of_two_scale_is_applied_to_the_spectrum_with_eagers_bits() -> None:
    """irfft2 over 16x16 scales by 1/256: exact, so it moves before the transform, into the copy that builds the
    spectrum, and the output keeps eager's bits."""
    a, b = blocks()
    low = realify.lower(make_fx(two_corners)(a, b), fft="native")
    scaled = producer_of_transform_input(low)
    assert scaled.target == torch.ops.aten.mul.Tensor and scaled.args[1] == 1 / 256, scaled.format_node()
    assert not [n for n in low.graph.nodes if n.target == torch.ops.aten.mul.Tensor and n is not scaled]
    got = low(torch.view_as_real(a), torch.view_as_real(b))
    assert torch.equal(got, two_corners(a, b))


def test_other_scales_ride_in_the_call_not_before_it() -> None:
    """1/144 is not exact: scaling the spectrum first would round differently, so it is not moved before the
    transform. As a whole transform's 1/n it goes into the call as aten's normalization, where eager applies it."""

    def twelve(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        out = torch.zeros(2, 3, 12, 7, dtype=a.dtype)
        out[:, :, :4, :5] = a
        out[:, :, -4:, :5] = b
        return torch.fft.irfft2(out, s=(12, 12))

    a, b = blocks()
    low = realify.lower(make_fx(twelve)(a, b), fft="native")
    assert producer_of_transform_input(low).target != torch.ops.aten.mul.Tensor
    (fft,) = [n for n in low.graph.nodes if str(n.target).startswith("realify.fft_c2r")]
    assert call_argument(fft, "normalization", 0) == 2, (fft.args, fft.kwargs)
    assert not [n for n in low.graph.nodes if n.target == torch.ops.aten.mul.Tensor]
    assert torch.equal(low(torch.view_as_real(a), torch.view_as_real(b)), twelve(a, b))
