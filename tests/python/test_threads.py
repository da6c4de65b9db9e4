"""realify.lower and the torch.compile backend from many threads at once: 8 threads over RoPE, FFT, a complex MLP
and a program with in-place ops each lower a shared ExportedProgram and compile the model, and every output
matches eager."""

from __future__ import annotations

import threading
from typing import Any

import realify
import torch
from realify.runtime import real_arguments
from realify_examples import llama3


class Rope(torch.nn.Module):
    def forward(self, xq: torch.Tensor, xk: torch.Tensor, freqs_cis: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return llama3.apply_rotary_emb(xq, xk, freqs_cis)


class Spectral(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(17, dtype=torch.complex64, generator=torch.Generator().manual_seed(1)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.fft.rfft(x) * self.w, n=x.shape[-1])


class ComplexMLP(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(2)
        self.a = torch.nn.Parameter(torch.randn(8, 16, dtype=torch.complex64, generator=g) / 4)
        self.b = torch.nn.Parameter(torch.randn(16, 4, dtype=torch.complex64, generator=g) / 4)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        h = z @ self.a
        return torch.tanh(h.real) * h @ self.b


class Accumulate(torch.nn.Module):
    """An in-place op: lowering first makes it functional with torch's run_decompositions."""

    def __init__(self) -> None:
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(6, dtype=torch.complex64, generator=torch.Generator().manual_seed(3)))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        y = z.clone()
        y.mul_(self.w)
        return y * 2


def _cases() -> list[tuple[torch.nn.Module, tuple[torch.Tensor, ...]]]:
    g = torch.Generator().manual_seed(0)
    return [
        (Rope(), (torch.randn(2, 8, 4, 16, generator=g), torch.randn(2, 8, 2, 16, generator=g),
                  llama3.precompute_freqs_cis(16, 8))),
        (Spectral(), (torch.randn(3, 32, generator=g),)),
        (ComplexMLP(), (torch.randn(5, 8, dtype=torch.complex64, generator=g),)),
        (Accumulate(), (torch.randn(4, 6, dtype=torch.complex64, generator=g),)),
    ]


def test_lower_and_compile_from_eight_threads() -> None:
    cases = _cases()
    programs = [torch.export.export(m, a) for m, a in cases]
    expected = [m(*a) for m, a in cases]
    start = threading.Barrier(8)
    errors: list[BaseException] = []
    checked: list[tuple[int, str]] = []

    def work(i: int) -> None:
        k = i % len(cases)
        model, args = cases[k]
        try:
            start.wait()
            lowered = realify.lower(programs[k])
            sig = lowered.graph_module.meta["realify_report"].signature
            out = lowered.module()(*real_arguments(sig, list(args)))
            _compare(expected[k], out, sig)
            compiled = torch.compile(model, backend="realify", options={"backend": "eager"})
            torch.testing.assert_close(compiled(*args), expected[k])
            checked.append((i, type(model).__name__))
        except BaseException as e:  # collected and re-raised in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    assert not errors, [f"{type(e).__name__}: {e}" for e in errors]
    assert len(checked) == 8


def _compare(expected: Any, out: Any, sig: Any) -> None:
    """The lowered program's outputs are view_as_real for the complex ones (sig.outputs)."""
    flat_e = list(expected) if isinstance(expected, tuple) else [expected]
    flat_o = list(out) if isinstance(out, (tuple, list)) else [out]
    packed = {int(b.position) for b in sig.outputs}
    assert len(flat_e) == len(flat_o)
    for i, (e, o) in enumerate(zip(flat_e, flat_o, strict=True)):
        torch.testing.assert_close(torch.view_as_complex(o.contiguous()) if i in packed else o, e)
