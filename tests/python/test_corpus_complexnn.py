"""Corpus: complex-valued network packages. complextorch 2.1.1 (complex weights: its Linear and Conv wrap torch's
layers in complex64; whitening batch and layer norms; magnitude max pooling; modReLU, CReLU, the cardioid;
multi-head attention with a split softmax) and complexPyTorch 0.4 (pairs of real layers applied to .real and .imag,
its whitening batch norm, magnitude max pooling). Complex inputs, complex outputs, a few layers each."""

from __future__ import annotations

import pytest
import torch
from corpus_support import Case, parametrize, run_column


def _crandn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, dtype=torch.complex64)


class _Stack(torch.nn.Module):
    """A chain of the package's layers (torch.nn.Sequential would do; a named class reads better in a report)."""

    def __init__(self, *layers: torch.nn.Module) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


def _ct_mlp() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import complextorch.nn as cvnn

    model = _Stack(cvnn.Linear(8, 16), cvnn.modReLU(), cvnn.Linear(16, 4), cvnn.CVCardiod())
    return model.eval(), (_crandn(3, 8),)


def _ct_conv1d() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import complextorch.nn as cvnn

    # CReLU's in-place ReLUs (its default) break eager's own backward; inplace=False is the package's switch
    model = _Stack(
        cvnn.Conv1d(2, 4, 3, padding=1), cvnn.BatchNorm1d(4), cvnn.CReLU(inplace=False), cvnn.Conv1d(4, 4, 3)
    )
    return model.eval(), (_crandn(2, 2, 16),)


def _ct_conv2d() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    import complextorch.nn as cvnn

    model = _Stack(
        cvnn.Conv2d(1, 4, 3, padding=1), cvnn.BatchNorm2d(4), cvnn.modReLU(), cvnn.MagMaxPool2d(2),
        cvnn.LayerNorm([4, 4, 4]), cvnn.AdaptiveAvgPool2d(2),
    )
    return model.eval(), (_crandn(2, 1, 8, 8),)


class _SelfAttention(torch.nn.Module):
    def __init__(self) -> None:
        import complextorch.nn as cvnn

        super().__init__()
        self.attn = cvnn.MultiheadAttention(n_heads=2, d_model=8, d_k=4, d_v=4, dropout=0.0)
        self.norm = cvnn.LayerNorm(8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.attn(x, x, x)
        return self.norm(out[0] if isinstance(out, tuple) else out)


def _ct_attention() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    return _SelfAttention().eval(), (_crandn(2, 5, 8),)


def _cpt_cnn() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from complexPyTorch.complexLayers import ComplexBatchNorm2d, ComplexConv2d, ComplexMaxPool2d, ComplexReLU

    model = _Stack(
        ComplexConv2d(1, 4, 3, padding=1), ComplexBatchNorm2d(4), ComplexReLU(), ComplexMaxPool2d(2),
        ComplexConv2d(4, 2, 3),
    )
    return model.eval(), (_crandn(2, 1, 8, 8),)


def _cpt_mlp() -> tuple[torch.nn.Module, tuple[torch.Tensor, ...]]:
    from complexPyTorch.complexLayers import ComplexBatchNorm1d, ComplexLinear, ComplexReLU

    model = _Stack(ComplexLinear(8, 16), ComplexBatchNorm1d(16), ComplexReLU(), ComplexLinear(16, 4))
    return model.eval(), (_crandn(4, 8),)


CASES = [
    Case("complextorch/MLP (Linear, modReLU, CVCardiod)", "complextorch", _ct_mlp, train_inductor=True),
    Case("complextorch/Conv1d, BatchNorm1d, CReLU", "complextorch", _ct_conv1d),
    Case("complextorch/Conv2d, BatchNorm2d, MagMaxPool2d, LayerNorm", "complextorch", _ct_conv2d),
    Case("complextorch/MultiheadAttention, LayerNorm", "complextorch", _ct_attention),
    Case("complexPyTorch/CNN (Conv2d, BatchNorm2d, ReLU, MaxPool2d)", "complexPyTorch", _cpt_cnn),
    Case("complexPyTorch/MLP (Linear, BatchNorm1d, ReLU)", "complexPyTorch", _cpt_mlp),
]


@parametrize(CASES)
def test_complexnn(request: pytest.FixtureRequest, case: Case, column: str) -> None:
    run_column(request, case, column)
