"""realify.lower on GraphModules and ExportedPrograms: contract, signature, errors."""

from __future__ import annotations

import pytest
import realify
import torch
from harness import assert_real_only, check, to_real
from realify.runtime import pack, unpack
from torch.fx.experimental.proxy_tensor import make_fx


def rope(xq: torch.Tensor, freqs: torch.Tensor) -> torch.Tensor:
    xc = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    f = freqs.view(1, xq.shape[1], 1, xc.shape[-1])
    return torch.view_as_real(xc * f).flatten(3).type_as(xq)


def rope_args() -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    xq = torch.randn(2, 16, 4, 8, generator=g)
    freqs = torch.polar(torch.ones(16, 4), torch.randn(16, 4, generator=g))
    return xq, freqs


def ops(gm: torch.fx.GraphModule) -> list[str]:
    return [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]


def test_rope_lowers_to_minimal_real_graph() -> None:
    _, lowered = check(rope, rope_args())
    names = ops(lowered)
    # 4 selects split xq and freqs into parts, 4 muls + sub + add form the product,
    # one stack is the final interleave; nothing else touches the parts.
    assert names.count("aten.select.int") == 4
    assert names.count("aten.mul.Tensor") == 4
    assert names.count("aten.sub.Tensor") == 1 and names.count("aten.add.Tensor") == 1
    assert names.count("aten.stack.default") == 1
    stack = next(n for n in lowered.graph.nodes if n.target is torch.ops.aten.stack.default)
    # the stack feeds only the final reshape: no select/stack round trip after the multiply
    assert all(u.target is not torch.ops.aten.select.int for u in stack.users)


def test_input_graph_is_untouched() -> None:
    gm = make_fx(rope)(*rope_args())
    code, nodes = gm.code, [(n.name, n.target, n.args) for n in gm.graph.nodes]
    metas = [n.meta["val"].dtype for n in gm.graph.nodes if n.op != "output"]
    realify.lower(gm)
    assert gm.code == code
    assert [(n.name, n.target, n.args) for n in gm.graph.nodes] == nodes
    assert [n.meta["val"].dtype for n in gm.graph.nodes if n.op != "output"] == metas


def test_signature_describes_packed_boundaries() -> None:
    def f(z: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return z * x, (z * z).abs()

    gm = make_fx(f)(torch.randn(3, dtype=torch.complex64), torch.randn(3))
    lowered, report = realify.lower_graph_module(gm)
    sig = report.signature
    assert [(b.position, b.complex_dtype, b.real_dtype) for b in sig.inputs] == [(0, torch.complex64, torch.float32)]
    assert [(b.position, b.complex_dtype) for b in sig.outputs] == [(0, torch.complex64)]
    assert report.complex_input_names == ["z_1"]
    assert report.complex_values >= 3 and report.subgraphs == 1
    placeholders = [n for n in lowered.graph.nodes if n.op == "placeholder"]
    assert placeholders[0].meta["val"].shape == (3, 2)


@pytest.mark.parametrize("truncate", [False, True])
def test_complex128_policy(truncate: bool) -> None:
    z = torch.randn(4, 3, dtype=torch.complex128)

    def f(a: torch.Tensor) -> torch.Tensor:
        return a * a + 1

    gm = make_fx(f)(z)
    lowered, report = realify.lower_graph_module(gm, truncate_double=truncate)
    assert_real_only(lowered)
    want = torch.float32 if truncate else torch.float64
    assert report.signature.inputs[0].real_dtype == want
    floats = {n.meta["val"].dtype for n in lowered.graph.nodes if n.op == "call_function"}
    assert floats == {want}
    out = lowered(to_real(z, truncate))
    assert out.dtype == want
    tol = dict(rtol=1e-5, atol=1e-5) if truncate else dict(rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(pack(out, torch.complex128), f(z), **tol)


def test_complex_parameter_and_buffer_become_real() -> None:
    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(4, 4, dtype=torch.complex64))
            self.register_buffer("b", torch.randn(4, dtype=torch.complex64))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return (x @ self.w + self.b).abs()

    m = M()
    x = torch.randn(2, 4, dtype=torch.complex64)
    ep = torch.export.export(m, (x,))
    gm = ep.module()
    lowered, report = realify.lower_graph_module(gm)
    assert sorted(report.complex_const_targets) == ["b", "w"]
    assert isinstance(lowered.w, torch.nn.Parameter) and lowered.w.shape == (4, 4, 2)
    assert dict(lowered.named_buffers())["b"].shape == (4, 2)
    assert gm.w.dtype == torch.complex64  # the input module keeps its complex parameter
    assert_real_only(lowered)
    torch.testing.assert_close(lowered(unpack(x, torch.float32)), m(x), rtol=1e-5, atol=1e-5)


def test_exported_program_roundtrip_and_reexport() -> None:
    class Rope(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("freqs", rope_args()[1], persistent=False)

        def forward(self, xq: torch.Tensor) -> torch.Tensor:
            return rope(xq, self.freqs[: xq.shape[1]])

    m = Rope()
    xq = rope_args()[0]
    ep = torch.export.export(m, (xq,))
    ep2 = realify.lower(ep)
    assert isinstance(ep2, torch.export.ExportedProgram)
    assert_real_only(ep2.graph_module)
    torch.testing.assert_close(ep2.module()(xq), m(xq), rtol=1e-5, atol=1e-5)
    ep3 = torch.export.export(ep2.module(), (xq,))
    torch.testing.assert_close(ep3.module()(xq), m(xq), rtol=1e-5, atol=1e-5)
    # the original program still has its complex buffer
    assert ep.state_dict.get("freqs", ep.constants.get("freqs", m.freqs)).is_complex()


def test_exported_program_keeps_dynamic_batch() -> None:
    def f(z: torch.Tensor) -> torch.Tensor:
        return (z * z.conj()).real

    class M(torch.nn.Module):
        def forward(self, z: torch.Tensor) -> torch.Tensor:
            return f(z)

    z = torch.randn(4, 3, dtype=torch.complex64)
    ep = torch.export.export(M(), (z,), dynamic_shapes=({0: torch.export.Dim("batch")},))
    ep2 = realify.lower(ep)
    z7 = torch.randn(7, 3, dtype=torch.complex64)
    torch.testing.assert_close(ep2.module()(unpack(z7, torch.float32)), f(z7))


def test_symbolic_shapes_survive() -> None:
    gm = make_fx(rope, tracing_mode="symbolic")(*rope_args())
    lowered = realify.lower(gm)
    out_val = next(n for n in lowered.graph.nodes if n.op == "output").args[0].meta["val"]
    assert any(isinstance(d, torch.SymInt) for d in out_val.shape)
    xq, freqs = rope_args()
    torch.testing.assert_close(lowered(xq, unpack(freqs, torch.float32)), rope(xq, freqs), rtol=1e-5, atol=1e-5)


def test_unsupported_op_names_op_node_and_source_line() -> None:
    class M(torch.nn.Module):
        def forward(self, z: torch.Tensor) -> torch.Tensor:
            return torch.linalg.eigvals(z @ z)  # decompositions are out of scope: no rule

    z = torch.randn(3, 3, dtype=torch.complex64)
    gm = torch.export.export(M(), (z,)).module()
    with pytest.raises(realify.UnsupportedOpError) as info:
        realify.lower(gm)
    err = info.value
    assert "linalg_eig" in err.op
    assert err.node in {n.name for n in gm.graph.nodes}
    assert err.source is not None and "test_lower.py" in err.source and "eigvals" in err.source
    assert "eigvals" in str(err) and err.op in str(err)


def test_graph_without_meta_is_rejected_clearly() -> None:
    gm = torch.fx.symbolic_trace(lambda x: x * 2)
    with pytest.raises(realify.GraphCaptureError, match="meta"):
        realify.lower(gm)


def test_runtime_unpack_is_a_view_and_resolves_conj() -> None:
    z = torch.randn(5, 4, dtype=torch.complex64)
    r = unpack(z, torch.float32)
    assert r.data_ptr() == z.data_ptr() and r.shape == (5, 4, 2)
    zt = z.t()  # non-contiguous: still a view
    rt = unpack(zt, torch.float32)
    assert rt.data_ptr() == zt.data_ptr()
    torch.testing.assert_close(torch.view_as_complex(rt.contiguous()), zt)
    zc = z.conj()
    assert zc.is_conj()
    torch.testing.assert_close(torch.view_as_complex(unpack(zc, torch.float32).contiguous()), zc.resolve_conj())
    z128 = z.to(torch.complex128)
    assert unpack(z128, torch.float64).data_ptr() == z128.data_ptr()
    assert unpack(z128, torch.float32).dtype == torch.float32
    back = pack(unpack(z128, torch.float32), torch.complex128)
    assert back.dtype == torch.complex128
