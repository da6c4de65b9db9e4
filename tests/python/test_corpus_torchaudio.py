"""Corpus: torchaudio 2.11's Python transforms over torch.stft / istft and torch.fft (its compiled extension is not
needed by these): spectrograms (power and complex), the mel spectrogram, the inverse spectrogram, Griffin-Lim, the
phase vocoder's time stretch, the spectral centroid and FFT convolution.

torchaudio.functional.spectrogram and inverse_spectrogram call torch.jit.isinstance (_get_spec_norms), which dynamo
will not trace: the transforms built on them fail torch.compile(fullgraph=True) without realify (upstream)."""

from __future__ import annotations

import pytest
import torch
from corpus_support import Case, Upstream, parametrize, run_column

N_FFT = 32


def _wave(batch: int = 1, n: int = 512) -> torch.Tensor:
    t = torch.arange(n) / 8000.0
    return (torch.sin(2 * torch.pi * 440.0 * t) + 0.1 * torch.randn(batch, n)).float()


def _complex_spec(frames: int = 9) -> torch.Tensor:
    return torch.randn(1, N_FFT // 2 + 1, frames, dtype=torch.complex64)


def _spectrogram() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    return torchaudio.transforms.Spectrogram(n_fft=N_FFT, hop_length=16, power=2.0).eval(), (_wave(2),)


def _complex_spectrogram() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    return torchaudio.transforms.Spectrogram(n_fft=N_FFT, hop_length=16, power=None).eval(), (_wave(2),)


def _mel() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    model = torchaudio.transforms.MelSpectrogram(sample_rate=8000, n_fft=N_FFT, hop_length=16, n_mels=8)
    return model.eval(), (_wave(),)


def _inverse() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    return torchaudio.transforms.InverseSpectrogram(n_fft=N_FFT, hop_length=16).eval(), (_complex_spec(),)


def _griffin_lim() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    # rand_init=False: eager and compiled runs start from the same phase (torch.rand would differ between them)
    model = torchaudio.transforms.GriffinLim(n_fft=N_FFT, hop_length=16, n_iter=1, rand_init=False)
    return model.eval(), (_complex_spec().abs() ** 2,)


def _time_stretch() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    model = torchaudio.transforms.TimeStretch(hop_length=16, n_freq=N_FFT // 2 + 1, fixed_rate=1.3)
    return model.eval(), (_complex_spec(),)


def _centroid() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    return torchaudio.transforms.SpectralCentroid(sample_rate=8000, n_fft=N_FFT, hop_length=16).eval(), (_wave(),)


def _fft_convolve() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import torchaudio

    return torchaudio.transforms.FFTConvolve(mode="same").eval(), (_wave(2, 256), torch.randn(2, 31))


SPEC_NORMS = Upstream("compile", "dynamo will not trace torch.jit.isinstance (torchaudio.functional._get_spec_norms)")

CASES = [
    Case("torchaudio/Spectrogram (power 2)", "torchaudio", _spectrogram, upstream=(SPEC_NORMS,)),
    Case("torchaudio/Spectrogram (complex)", "torchaudio", _complex_spectrogram, upstream=(SPEC_NORMS,)),
    Case("torchaudio/MelSpectrogram", "torchaudio", _mel, upstream=(SPEC_NORMS,)),
    Case("torchaudio/InverseSpectrogram", "torchaudio", _inverse, upstream=(SPEC_NORMS,)),
    Case("torchaudio/GriffinLim (1 iteration)", "torchaudio", _griffin_lim),
    Case("torchaudio/TimeStretch (phase vocoder)", "torchaudio", _time_stretch),
    Case("torchaudio/SpectralCentroid", "torchaudio", _centroid, upstream=(SPEC_NORMS,)),
    Case("torchaudio/FFTConvolve", "torchaudio", _fft_convolve, train_inductor=True),
]


@parametrize(CASES)
def test_torchaudio(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
