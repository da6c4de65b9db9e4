"""Corpus: neuraloperator (neuralop) 2.0, whose Fourier neural operators multiply the truncated rFFT of their
hidden channels by complex spectral weights and transform back: FNO, TFNO (Tucker-factorized weights through
tensorly), UNO, and the SpectralConv layer alone, also on complex data.

neuralop turns on tensorly's opt_einsum plugin at import, which dynamo cannot trace (threading.get_ident). One case
keeps it (an upstream failure of compile and train); the others switch tensorly back to its default einsum
(tensorly.plugins.use_default_einsum, the plugin's documented off switch) in their build, and a fixture restores
the package's setting after each test."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
import torch
from corpus_support import Case, Upstream, parametrize, run_column


def _default_einsum() -> None:
    import neuralop  # noqa: F401  (its import turns the plugin on first)
    from tensorly.plugins import use_default_einsum

    use_default_einsum()


@pytest.fixture(autouse=True)
def _package_einsum() -> Iterator[None]:
    yield
    if "neuralop" in sys.modules:
        from tensorly.plugins import use_opt_einsum

        use_opt_einsum("optimal")  # what neuralop.layers.spectral_convolution sets at import


def _fno_opt_einsum() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from neuralop.models import FNO
    from tensorly.plugins import use_opt_einsum

    use_opt_einsum("optimal")
    model = FNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=1)
    return model.eval(), (torch.randn(1, 1, 16, 16),)


def _fno_channels() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    _default_einsum()
    from neuralop.models import FNO

    model = FNO(n_modes=(4, 4), in_channels=3, out_channels=2, hidden_channels=8, n_layers=1)
    return model.eval(), (torch.randn(2, 3, 16, 16),)


def _fno_complex() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    _default_einsum()
    from neuralop.models import FNO

    model = FNO(n_modes=(4, 4), in_channels=2, out_channels=2, hidden_channels=8, n_layers=1, complex_data=True)
    return model.eval(), (torch.randn(1, 2, 16, 16, dtype=torch.complex64),)


def _tfno() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    _default_einsum()
    from neuralop.models import TFNO

    model = TFNO(n_modes=(4, 4), in_channels=1, out_channels=1, hidden_channels=8, n_layers=1, rank=0.5)
    return model.eval(), (torch.randn(1, 1, 16, 16),)


def _spectral_conv() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    _default_einsum()
    from neuralop.layers.spectral_convolution import SpectralConv

    return SpectralConv(3, 4, n_modes=(4, 4)).eval(), (torch.randn(2, 3, 16, 16),)


def _uno() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    _default_einsum()
    from neuralop.models import UNO

    model = UNO(
        in_channels=1, out_channels=1, hidden_channels=8, lifting_channels=8, projection_channels=8, n_layers=1,
        uno_out_channels=[8], uno_n_modes=[[4, 4]], uno_scalings=[[0.5, 0.5]],
    )
    return model.eval(), (torch.randn(1, 1, 16, 16),)


OPT_EINSUM = Upstream("compile", "dynamo cannot trace opt_einsum (threading.get_ident), which neuralop turns on")

CASES = [
    Case("neuralop/FNO with opt_einsum", "neuralop", _fno_opt_einsum, upstream=(OPT_EINSUM,)),
    Case("neuralop/FNO 3->2 channels", "neuralop", _fno_channels),
    Case("neuralop/FNO complex data", "neuralop", _fno_complex),
    Case("neuralop/TFNO (Tucker weights)", "neuralop", _tfno),
    Case("neuralop/SpectralConv", "neuralop", _spectral_conv, train_inductor=True),
    Case("neuralop/UNO", "neuralop", _uno),
]


@parametrize(CASES)
def test_neuralop(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
