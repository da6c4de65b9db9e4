"""as_strided reads the storage of a complex input: the C core marks such an input `storage` (Boundary.storage), and
every caller of a lowered graph (realify.runtime.real_arguments, the torch.compile adapter, the re-export of an
ExportedProgram, realify.load) passes the real form of its whole storage, seen with the input's own geometry. With
truncate_double that is a converted copy of the whole storage; an input read elementwise is converted alone."""

from __future__ import annotations

import os
from typing import Any

import pytest
import realify
import torch
from realify.runtime import real_arguments, unpack_storage
from torch.fx.experimental.proxy_tensor import make_fx

TRUNC_TOL = dict(rtol=1e-5, atol=1e-5)


def strided(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    a = torch.as_strided(x, (2, 2), (1, 3), 1) * y  # an explicit offset into x's storage
    b = torch.as_strided(x, (2, 2), (3, 1)) + 1j  # no offset: x's own
    return a, b


def inputs() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """x: a strided view with a storage offset; y: a corner of a larger tensor, read elementwise only."""
    g = torch.Generator().manual_seed(0)
    big = torch.randn(4, 8, dtype=torch.complex128, generator=g)
    other = torch.randn(6, 6, dtype=torch.complex128, generator=g)
    return big, big[1:, ::2], other, other[:2, :2]


def close(out: Any, ref: Any, **tol: float) -> None:
    for o, r in zip(out, ref, strict=True):
        torch.testing.assert_close(o.to(r.dtype), r, **tol)


def complex_of(out: Any) -> list[torch.Tensor]:
    return [torch.view_as_complex(o.double().contiguous()) for o in out]


def test_lower_marks_the_storage_read_input_and_matches_eager_truncated() -> None:
    _, x, _, y = inputs()
    assert x.storage_offset() == 8 and x.stride() == (8, 2)
    gm = make_fx(strided)(x, y)
    low = realify.lower(gm, truncate_double=True)
    sig = low.meta["realify_report"].signature
    assert [(b.storage, b.real_dtype) for b in sig.inputs] == [(True, torch.float32), (False, torch.float32)]
    assert "!c128 storage" in low.meta["realify_report"].ir_after
    close(complex_of(low(*real_arguments(sig, (x, y)))), strided(x, y), **TRUNC_TOL)


def test_only_storage_read_inputs_convert_their_whole_storage() -> None:
    big, x, other, y = inputs()
    gm = make_fx(strided)(x, y)
    sig = realify.lower(gm, truncate_double=True).meta["realify_report"].signature
    rx, ry = real_arguments(sig, (x, y))
    # x: the float32 form of all 32 elements of big's storage, seen at twice x's offset and strides
    assert rx.untyped_storage().nbytes() == big.numel() * 2 * 4
    assert (rx.shape, rx.stride(), rx.storage_offset()) == ((3, 4, 2), (16, 4, 1), 16)
    torch.testing.assert_close(rx, torch.view_as_real(x).float())
    # y: its own 4 elements only, not the 36 of the tensor it is a corner of
    assert ry.untyped_storage().nbytes() == y.numel() * 2 * 4 < other.numel() * 2 * 4
    # without a dtype change the storage form is view_as_real itself: no copy
    sig64 = realify.lower(gm).meta["realify_report"].signature
    assert [b.storage for b in sig64.inputs] == [True, False]
    assert real_arguments(sig64, (x, y))[0].data_ptr() == torch.view_as_real(x).data_ptr()


def test_conj_view_reads_the_conjugated_storage() -> None:
    """Eager as_strided of a conj view reads conj of the storage: the whole storage is conjugated, so it is exact
    (resolving only x's own elements would move them to a new storage of their own)."""
    _, x, _, y = inputs()
    xc = x.conj()
    gm = make_fx(strided)(xc, y)
    for trunc, tol in ((False, dict(rtol=1e-12, atol=1e-12)), (True, TRUNC_TOL)):
        low = realify.lower(gm, truncate_double=trunc)
        args = real_arguments(low.meta["realify_report"].signature, (xc, y))
        close(complex_of(low(*args)), strided(xc, y), **tol)
    r = unpack_storage(xc, torch.float64)
    torch.testing.assert_close(torch.view_as_complex(r.contiguous()), xc.resolve_conj())


def test_compile_truncated_passes_the_whole_storage() -> None:
    _, x, _, y = inputs()
    events: list[Any] = []
    torch._dynamo.reset()
    fn = torch.compile(
        strided, backend="realify", options={"backend": "eager", "truncate_double": True, "on_lowered": events.append}
    )
    close(fn(x, y), strided(x, y), **TRUNC_TOL)
    assert [b.storage for b in events[0].report.signature.inputs] == [True, False]


class _Strided(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        # a buffer that is a view at offset 1 of a larger storage, read with as_strided_copy
        g = torch.Generator().manual_seed(1)
        self.register_buffer("w", torch.randn(6, dtype=torch.complex128, generator=g)[1:])

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        return (*strided(x, y), torch.as_strided_copy(self.w, (2,), (2,), 1))


def test_exported_program_truncated_verifies_and_loads(tmp_path: Any) -> None:
    _, x, _, y = inputs()
    m = _Strided()
    ref = m(x, y)
    ep2 = realify.lower(torch.export.export(m, (x, y)), truncate_double=True)
    sig = ep2.graph_module.meta["realify_report"].signature
    assert [b.storage for b in sig.inputs] == [True, False]
    assert [(b.position, b.storage) for b in sig.consts] == [("w", True)]
    for n in ep2.graph.nodes:  # no complex value left, and the real program still checks its inputs' shapes
        assert not (isinstance(n.meta.get("val"), torch.Tensor) and n.meta["val"].is_complex())
    close(complex_of(ep2.module()(*real_arguments(sig, (x, y)))), ref, **TRUNC_TOL)
    path = os.path.join(tmp_path, "strided.pt2")
    record = realify.save(ep2, path)
    assert [b.get("storage", False) for b in record["inputs"]] == [True, False]
    close(realify.load(path)(x, y), ref, **TRUNC_TOL)


class _Plain(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return strided(x, y)


def test_onnx_refuses_a_storage_read_input_that_is_not_its_own_storage(tmp_path: Any) -> None:
    """An ONNX feed holds only the tensor's own elements: exact for a tensor that is its whole storage, refused for
    a view into a larger one (which would silently read other elements)."""

    pytest.importorskip("onnxruntime")
    _, x, _, y = inputs()
    own = x.clone()
    path = os.path.join(tmp_path, "strided.onnx")
    realify.save(realify.lower(torch.export.export(_Plain(), (own, y)), truncate_double=True), path)
    prog = realify.load(path)
    close(prog(own, y), strided(own, y), **TRUNC_TOL)
    with pytest.raises(realify.RealifyError, match="read through its storage"):
        prog(x, y)
