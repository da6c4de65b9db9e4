"""What realify emits for graph runtimes (target="onnx": ONNX Runtime, OpenVINO), which run every node as its own
pass: the node kinds and counts of the exported ONNX graph, and numbers equal to eager's."""

from __future__ import annotations

import collections

import pytest
import realify
import torch
from realify_examples import zoo

onnx = pytest.importorskip("onnx", reason="needs the onnx package (make test installs it)")
ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")

ROPES = ["axial_rope_2d", "llama3_rope_buffer", "llama3_rope_input"]


def export(name: str, target: str) -> tuple[zoo.ZooEntry, torch.export.ExportedProgram, object]:
    e = zoo.entry(name)
    ep = realify.lower(torch.export.export(e.make().eval(), e.inputs()), target=target)
    model = torch.onnx.export(ep, zoo.real_inputs(e, e.inputs()), dynamo=True, verbose=False).model_proto
    return e, ep, model


def attr(node: object, name: str, default: int) -> int:
    return next((a.i for a in node.attribute if a.name == name), default)


def rank_of(model: object) -> dict[str, int]:
    """Rank of every value the exported graph declares (inputs, outputs, value_info, initializers)."""
    inferred = onnx.shape_inference.infer_shapes(model)
    g = inferred.graph
    ranks = {v.name: len(v.type.tensor_type.shape.dim) for v in [*g.input, *g.output, *g.value_info]}
    ranks.update({t.name: len(t.dims) for t in g.initializer})
    return ranks


@pytest.mark.parametrize("name", ROPES)
def test_rope_for_graph_runtimes_moves_pairs_to_the_front(name: str) -> None:
    """The rotation reads and writes the pair axis as contiguous halves: one transpose in, one out, and no split,
    gather or concat on the innermost axis of the activations (OpenVINO runs Concat there with its reference
    kernel, 75% of the axial RoPE's time before). Only the tables (constants, or the freqs_cis input, a head's
    worth of data) are split there."""
    e, _, model = export(name, "onnx")
    kinds = collections.Counter(n.op_type for n in model.graph.node)
    assert kinds["Transpose"] == 2, kinds
    ranks = rank_of(model)
    tables = {t.name for t in model.graph.initializer} | {i.name for i in model.graph.input if "freqs" in i.name}
    for n in model.graph.node:
        if n.op_type in ("Gather", "Split", "Concat"):
            axis = attr(n, "axis", 0)
            rank = ranks.get(n.output[0] if n.op_type == "Concat" else n.input[0], -1)
            innermost = axis == -1 or (rank > 0 and axis == rank - 1)
            assert not innermost or n.input[0] in tables, f"{n.op_type} on the innermost axis: {n}"
    # the portable lowering keeps its own form (no transposes), which Inductor fuses whole
    _, _, portable = export(name, "portable")
    assert collections.Counter(n.op_type for n in portable.graph.node)["Transpose"] == 0


@pytest.mark.parametrize("name", ROPES)
def test_rope_for_graph_runtimes_matches_eager(name: str) -> None:
    """The same products as the portable lowering, term for term: equal to it bit for bit, and to eager (whose
    vectorised complex multiply may fuse a product) and ONNX Runtime within 1e-6."""
    e, ep, model = export(name, "onnx")
    _, portable, _ = export(name, "portable")
    args = e.inputs()
    with torch.no_grad():
        ref = e.make().eval()(*args)
        real = zoo.real_inputs(e, args)
        got = ep.module()(*real)
        assert torch.equal(got, portable.module()(*real))
    assert zoo.max_rel_error(ref, got) <= 1e-6
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), real, strict=True)}
    (out,) = sess.run(None, feeds)
    assert zoo.max_rel_error(ref, torch.from_numpy(out)) <= 1e-6


@pytest.mark.parametrize(("n_fft", "hop", "blocks"), [(400, 160, True), (64, 32, True), (32, 8, False)])
def test_stft_frames_for_graph_runtimes_are_block_slices(n_fft: int, hop: int, blocks: bool) -> None:
    """Where gcd(n_fft, hop) is a block of at least 16 samples, the frames are strided slices of whole blocks
    (no Gather on the samples, which ONNX Runtime copies element by element: a third of a log-mel's time);
    the portable lowering's result within 2e-6 (the graph targets' rfft is the two-stage form of
    fft/graph_real.c, so the last bits differ), and ONNX Runtime within 1e-6 of eager."""
    model = zoo.LogMel(n_fft, hop, 8).eval()
    args = (torch.randn(2, 4 * n_fft + 7, generator=torch.Generator().manual_seed(0)),)
    ep = realify.lower(torch.export.export(model, args), target="onnx")
    portable = realify.lower(torch.export.export(model, args))
    proto = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    wav = {i.name for i in proto.graph.input}
    gathers = [n for n in proto.graph.node if n.op_type == "Gather" and n.input[0] in wav]
    assert (not gathers) == blocks, [n.name for n in gathers]
    with torch.no_grad():
        ref = model(*args)
        got = ep.module()(*args)
        assert zoo.max_rel_error(portable.module()(*args), got) <= 2e-6
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {proto.graph.input[0].name: args[0].numpy()})
    assert zoo.max_rel_error(ref, torch.from_numpy(out)) <= 1e-6


class _MulSum(torch.nn.Module):
    """sum(z * w, dim) against a complex weight w of the given shape (a vector over z's last dim, or not)."""

    def __init__(self, w_shape: tuple[int, ...], dim: int = -1, keepdim: bool = False, conj: bool = False) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(3)
        self.register_buffer("w", torch.randn(w_shape, dtype=torch.complex64, generator=g))
        self.dim, self.keepdim, self.conj = dim, keepdim, conj

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        w = self.w.conj() if self.conj else self.w
        return (z * w).sum(self.dim, keepdim=self.keepdim)


def _ops_of(gm: torch.fx.GraphModule) -> collections.Counter:
    return collections.Counter(str(n.target) for n in gm.graph.nodes if n.op == "call_function")


def _lowered_mul_sum(m: torch.nn.Module, z: torch.Tensor, **opts: object) -> torch.fx.GraphModule:
    return realify.lower(torch.export.export(m, (z,)), target="onnx", **opts).module()


@pytest.mark.parametrize(
    ("w_shape", "keepdim", "conj"), [((8,), False, False), ((1, 1, 8), True, True), ((1, 8), False, True)]
)
def test_mul_sum_against_a_vector_is_two_matrix_vector_products(
    w_shape: tuple[int, ...], keepdim: bool, conj: bool
) -> None:
    """cx.mul_sum: the product summed over the last dim is two MatMuls of the packed pairs (no split of the pairs,
    no reduction), equal to eager within float32 rounding; switched off, the elementwise form comes back."""
    m = _MulSum(w_shape, keepdim=keepdim, conj=conj)
    z = torch.randn(3, 5, 8, dtype=torch.complex64)
    gm = _lowered_mul_sum(m, z)
    ops = _ops_of(gm)
    assert ops["aten.matmul.default"] == 2 and ops["aten.sum.dim_IntList"] == 0, ops
    ref = m(z)
    got = gm(torch.view_as_real(z))
    torch.testing.assert_close(torch.view_as_complex(got.contiguous()), ref, rtol=1e-5, atol=1e-5)
    off = _ops_of(_lowered_mul_sum(m, z, disable_patterns=("cx.mul_sum",)))
    assert off["aten.matmul.default"] == 0 and off["aten.sum.dim_IntList"] == 2, off


@pytest.mark.parametrize(
    ("w_shape", "dim", "computed"), [((5, 8), -1, False), ((8,), 1, False), ((8,), -1, True)]
)
def test_mul_sum_declines_what_is_not_a_vector_product(w_shape: tuple[int, ...], dim: int, computed: bool) -> None:
    """A weight that varies over another dim, a sum over another dim, or a z that is not held as pairs (computed
    in the graph) keeps the mul and sum rules' form, with eager's numbers."""
    m: torch.nn.Module = _MulSum(w_shape, dim=dim)
    if computed:
        inner = m

        class Computed(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.inner = inner

            def forward(self, z: torch.Tensor) -> torch.Tensor:
                return self.inner(torch.exp(z))

        m = Computed()
    z = torch.randn(3, 5, 8, dtype=torch.complex64)
    gm = _lowered_mul_sum(m, z)
    assert _ops_of(gm)["aten.matmul.default"] == 0
    got = torch.view_as_complex(gm(torch.view_as_real(z)).contiguous())
    torch.testing.assert_close(got, m(z), rtol=1e-5, atol=1e-5)


def test_steering_vectors_in_onnxruntime_use_matmuls() -> None:
    """The zoo's beamformer (complex128, truncated) in ONNX Runtime: MatMul instead of ReduceSum, eager's numbers."""
    e = zoo.entry("steering_c128_truncated")
    args = e.inputs()
    ep = realify.lower(torch.export.export(e.make().eval(), args), target="onnx", truncate_double=True)
    real = zoo.real_inputs(e, args)
    model = torch.onnx.export(ep, real, dynamo=True, verbose=False).model_proto
    kinds = collections.Counter(n.op_type for n in model.graph.node)
    assert kinds["MatMul"] == 2 and kinds["ReduceSum"] == 0, kinds
    (out,) = realify.onnxruntime_session(model.SerializeToString()).run(
        None, {i.name: a.numpy() for i, a in zip(model.graph.input, real, strict=True)}
    )
    assert zoo.max_rel_error(e.make().eval()(*args), torch.from_numpy(out)) <= 1e-5


class _PartsProduct(torch.nn.Module):
    """A matrix product whose left operand is computed as parts (exp of the input), by a complex weight or a
    complex input, through matmul, mm or bmm."""

    def __init__(self, op: str) -> None:
        super().__init__()
        self.op = op
        g = torch.Generator().manual_seed(5)
        self.w = torch.nn.Parameter(torch.randn(6, 3, dtype=torch.complex64, generator=g))

    def forward(self, z: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = torch.exp(z)
        if self.op == "mm":
            return torch.mm(a[0], self.w)
        if self.op == "bmm":
            return torch.bmm(a, b)
        return a @ self.w


@pytest.mark.parametrize("op", ["matmul", "mm", "bmm"])
def test_product_of_parts_for_graph_runtimes_reads_them_side_by_side(op: str) -> None:
    """For graph targets a left operand held as parts goes into the GEMM as [re, im] along k (a concat of row
    blocks) by a block embedding of the right one, not as pairs stacked on an innermost axis of 2; eager's
    numbers within float32 rounding, and the portable lowering keeps the stacked pairs."""
    m = _PartsProduct(op)
    z, b = torch.randn(2, 4, 6, dtype=torch.complex64) * 0.5, torch.randn(2, 6, 3, dtype=torch.complex64)
    ep = torch.export.export(m, (z, b))
    ref = m(z, b).detach()
    real = (torch.view_as_real(z), torch.view_as_real(b))
    for target, cats in (("onnx", 1), ("portable", 0)):
        gm = realify.lower(ep, target=target).module()
        product = next(n for n in gm.graph.nodes if str(n.target).startswith(("aten.matmul", "aten.mm", "aten.bmm")))
        lhs = product.args[0]
        assert (str(lhs.target) == "aten.cat.default") == bool(cats), (target, lhs.format_node())
        got = torch.view_as_complex(gm(*real).detach().contiguous())
        torch.testing.assert_close(got, ref, rtol=2e-6, atol=2e-6)
