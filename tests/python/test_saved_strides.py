"""Training through torch.compile(backend="realify"): the backward is compiled for the strides the forward's
outputs really have. A lowered forward may return a saved activation with other strides than the traced complex
graph had (a folded stack/select round trip, a real part that is its own tensor); the backend reports them to
aot_autograd (realify._out_strides), which compiles the backward for them."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import realify.backend
import torch
from realify import _out_strides


def conj_mul_pairs(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """fastmri's idiom: complex numbers as real (..., 2) pairs, conj by stack, products by selects, around an FFT."""
    f = torch.view_as_real(torch.fft.fft2(torch.view_as_complex(a)))
    c = torch.stack((b[..., 0], -b[..., 1]), dim=-1)  # saved c[..., 1] folds to the neg: contiguous, not 2x strides
    re = f[..., 0] * c[..., 0] - f[..., 1] * c[..., 1]
    im = f[..., 0] * c[..., 1] + f[..., 1] * c[..., 0]
    return torch.stack((re, im), dim=-1).sum(dim=1)


def real_part_saved(z: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """The real part of a complex product saved for the backward: a 2x-strided view in the trace."""
    r = (z * w).real
    return (r * r.sin()).sum(0)


CASES: list[tuple[str, Callable[..., torch.Tensor], Callable[[], tuple[torch.Tensor, ...]]]] = [
    ("conj_mul_pairs", conj_mul_pairs, lambda: (torch.randn(2, 3, 4, 6, 2), torch.randn(2, 3, 4, 6, 2))),
    ("real_part_saved", real_part_saved,
     lambda: (torch.randn(3, 5, dtype=torch.complex64), torch.randn(3, 5, dtype=torch.complex64))),
]


@pytest.mark.parametrize(("name", "fn", "make"), CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("inner", ["inductor", "eager"])
def test_training_step_gradients_equal_eager(
    name: str, fn: Callable[..., torch.Tensor], make: Callable[[], tuple[torch.Tensor, ...]], inner: str
) -> None:
    torch.manual_seed(0)
    eager_args = [a.requires_grad_(True) for a in make()]
    compiled_args = [a.detach().clone().requires_grad_(True) for a in eager_args]
    (fn(*eager_args) ** 2).sum().backward()
    torch._dynamo.reset()
    out = torch.compile(fn, backend="realify", fullgraph=True, options={"backend": inner})(*compiled_args)
    torch.testing.assert_close(out, fn(*eager_args))
    (out**2).sum().backward()
    for g, e in zip(compiled_args, eager_args, strict=True):
        torch.testing.assert_close(g.grad, e.grad, rtol=1e-4, atol=1e-4)


def test_reported_strides_are_the_compiled_outputs_strides(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the backend reports for each forward output is what the compiled forward returns."""
    reports: list[list[tuple[int, ...] | None]] = []
    outputs: list[list[torch.Tensor]] = []
    original = _out_strides.report_outer_strides

    def spy(strides: list[tuple[int, ...] | None]) -> None:
        reports.append(strides)
        original(strides)

    def inner(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]) -> Callable[..., object]:
        def run(*args: torch.Tensor) -> object:
            outs = gm(*args)
            outputs.append(list(outs))
            return outs

        return run

    a, b = torch.randn(2, 3, 4, 6, 2, requires_grad=True), torch.randn(2, 3, 4, 6, 2, requires_grad=True)
    torch._dynamo.reset()
    monkeypatch.setattr(realify.backend, "report_outer_strides", spy)
    out = torch.compile(conj_mul_pairs, backend="realify", fullgraph=True, options={"backend": inner})(a, b)
    assert reports and outputs
    forward = reports[0]
    assert len(forward) == len(outputs[0])
    assert any(s is not None for s in forward)
    for s, o in zip(forward, outputs[0], strict=True):
        assert s is None or s == o.stride()
    # one saved activation is the folded neg: its own tensor, not a component of the traced (..., 2) stack
    assert any(s is not None and s[-1] == 1 and len(s) == 4 for s in forward[1:])
    out.sum().backward()
