"""Corpus: fastmri's centered 2-D FFTs (fastmri.fftc), as its MRI reconstruction code calls them on k-space in
the (..., 2) real layout, and its complex helpers around them."""

from __future__ import annotations

import pytest
import torch
from corpus_support import Case, parametrize, run_column


class CenteredRoundTrip(torch.nn.Module):
    """k-space -> image -> masked k-space, the data-consistency step of fastmri's unrolled networks."""

    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor(0.9))

    def forward(self, kspace: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        import fastmri

        image = fastmri.ifft2c(kspace) * self.scale
        back = fastmri.fft2c(image)
        return fastmri.complex_abs(image), torch.where(mask, kspace, back)


class SensitivityCombine(torch.nn.Module):
    """fastmri's coil combination: sum of the image times conj(sensitivity) over coils."""

    def forward(self, kspace: torch.Tensor, sens: torch.Tensor) -> torch.Tensor:
        import fastmri

        return fastmri.complex_mul(fastmri.ifft2c(kspace), fastmri.complex_conj(sens)).sum(dim=1, keepdim=True)


def _round_trip() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    kspace = torch.randn(2, 3, 8, 6, 2)
    mask = torch.rand(1, 1, 1, 6, 1) > 0.5
    return CenteredRoundTrip().eval(), (kspace, mask.expand(2, 3, 8, 6, 2))


def _combine() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    return SensitivityCombine().eval(), (torch.randn(2, 4, 8, 8, 2), torch.randn(2, 4, 8, 8, 2))


CASES = [
    Case("fastmri/fft2c data consistency", "fastmri", _round_trip, train_inductor=True),
    Case("fastmri/coil combine (ifft2c, conj)", "fastmri", _combine),
]


@parametrize(CASES)
def test_fastmri(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
