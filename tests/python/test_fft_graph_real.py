"""The graph targets' real transforms (target="onnx"/"openvino", src/fft/graph_real.c): an even, Cooley-Tukey
sized rfft or irfft is two matmuls and a transpose, with no flips or twiddle multiplies between them, a zero-padded
input skips its zero rows, and the numbers stay within 2e-6 of torch.fft (against a float64 reference, at most a
few times eager float32's own error)."""

from __future__ import annotations

import collections

import pytest
import realify
import torch
from realify_examples import zoo

onnx = pytest.importorskip("onnx", reason="needs the onnx package (make test installs it)")
ort = pytest.importorskip("onnxruntime", reason="needs onnxruntime (make test installs it)")
pytest.importorskip("onnxscript", reason="the dynamo ONNX exporter needs onnxscript (make test installs it)")


class Rfft(torch.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.view_as_real(torch.fft.rfft(x, n=self.n))


class Irfft(torch.nn.Module):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.view_as_complex(x), n=self.n)


def rel(ref: torch.Tensor, got: torch.Tensor) -> float:
    return ((got.double() - ref).abs().max() / ref.abs().max()).item()


def kinds(ep: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> collections.Counter:
    proto = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    return collections.Counter(n.op_type for n in proto.graph.node)


# (input shape, n): batch dims of every rank, padded and cropped inputs, n = 2 * odd, a large n
CASES = [((3, 5, 1024), 2048), ((7, 256), 256), ((1000,), 1000), ((2, 3, 300), 512), ((2, 4096), 4096),
         ((6, 130), 130), ((4, 700), 512)]


@pytest.mark.parametrize(("shape", "n"), CASES)
def test_rfft_irfft_two_stages_within_2e6(shape: tuple[int, ...], n: int) -> None:
    g = torch.Generator().manual_seed(n)
    x = torch.randn(*shape, generator=g)
    spec = torch.view_as_real(torch.fft.rfft(torch.randn(*shape[:-1], n, generator=g)))
    spec[..., 0, 1] = 0.5  # torch ignores Im X[0] (and Im X[n/2]); so must the tables
    spec[..., -1, 1] = -0.25
    for model, arg, ref in [
        (Rfft(n), x, torch.view_as_real(torch.fft.rfft(x.double(), n=n))),
        (Irfft(n), spec, torch.fft.irfft(torch.view_as_complex(spec.double()), n=n)),
    ]:
        ep = realify.lower(torch.export.export(model.eval(), (arg,)), target="onnx")
        got = ep.module()(arg)
        assert rel(ref, got) <= 2e-6, (type(model).__name__, rel(ref, got))
        k = kinds(ep, (arg,))
        # irfft's 1/n rides in its last table; no twiddle, packing or Hermitian-mask passes
        assert k["MatMul"] == 2 and k["Mul"] == 0 and k["Add"] == 0, k
        assert k["Transpose"] <= 2, k


def slice_axis(proto: onnx.ModelProto, node: onnx.NodeProto) -> int:
    """The one axis an ONNX Slice node cuts (its axes input, an initializer or a Constant)."""
    name = node.input[3]
    for init in proto.graph.initializer:
        if init.name == name:
            (axis,) = onnx.numpy_helper.to_array(init).tolist()
            return int(axis)
    const = next(n for n in proto.graph.node if n.op_type == "Constant" and n.output[0] == name)
    (axis,) = onnx.numpy_helper.to_array(const.attribute[0].t).tolist()
    return int(axis)


@pytest.mark.parametrize("target", ["onnx", "openvino"])
def test_hyena_skips_the_zero_pad_and_runs_in_ort(target: str) -> None:
    """Hyena's rfft(u, n=2L): the padded half never reaches a matmul (no Pad of u in the graph), and ONNX
    Runtime matches eager."""
    model = zoo.HyenaFFTConv(8, 1024).eval()
    u = torch.randn(2, 8, 1024, generator=torch.Generator().manual_seed(3))
    ep = realify.lower(torch.export.export(model, (u,)), target=target)
    proto = torch.onnx.export(ep, (u,), dynamo=True, verbose=False).model_proto
    assert not [n for n in proto.graph.node if n.op_type == "Pad" and n.input[0] == proto.graph.input[0].name]
    tables = {name: t.shape for name, t in ep.named_buffers()}
    fwd_rows = next(s for name, s in tables.items() if "gconv2048_rows" in name)
    inv_cols = next(s for name, s in tables.items() if "giconv2048_cols" in name)
    inv_rows = next(s for name, s in tables.items() if "giconv2048_rows" in name)
    k1s, q = inv_cols[0], inv_cols[2] // 2
    p = 2 * (k1s - 1)
    assert p * q == 2048 and inv_rows[1] == 2 * k1s, tables
    # real inputs: the first stage computes k1 <= p/2 only (the rest are conjugates), p + 2 rows instead of 2p
    assert fwd_rows[0] == 2 * k1s == p + 2, tables
    # the zero pad: the first stage reads only the rows j1 that hold u; the crop to L: the inverse writes only those
    assert fwd_rows[1] * q == 1024 and inv_rows[0] * q == 1024, tables
    k = collections.Counter(n.op_type for n in proto.graph.node)
    # the product sits between the stages: one transpose per forward, one in the inverse, no pad or crop
    assert k["Transpose"] == 3 and k["Pad"] == 0, k
    if target == "onnx":  # the parts split (two Gathers, which ORT fuses), four products, one stack
        assert k["Slice"] == 0 and k["Concat"] == 1 and k["Mul"] == 5, k
    else:  # OpenVINO: a's parts never split or stacked; the Slices are on the part axis only (b's two parts, the
        # swap of a's) and the two Concats are the filter's factors, which the runtime folds at load
        assert k["Split"] == 0 and k["Gather"] == 0 and k["Concat"] == 2 and k["Mul"] == 3, k
        assert k["Slice"] == 3 and {slice_axis(proto, n) for n in proto.graph.node if n.op_type == "Slice"} == {-2}, k
    with torch.no_grad():
        ref = model(u)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {proto.graph.input[0].name: u.numpy()})
    assert zoo.max_rel_error(ref, torch.from_numpy(out)) <= 2e-6
    try:
        import openvino as ov
    except ImportError:
        return  # ONNX Runtime is the one required runtime; OpenVINO is checked where installed
    core = ov.Core()
    ov_model = core.read_model(proto.SerializeToString(), b"")
    compiled = core.compile_model(ov_model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    assert zoo.max_rel_error(ref, torch.from_numpy(compiled([u.numpy()])[0])) <= 2e-6


class CroppedIrfft(torch.nn.Module):
    def __init__(self, n: int, keep: int) -> None:
        super().__init__()
        self.n, self.keep = n, keep

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.fft.irfft(torch.view_as_complex(x), n=self.n)[..., : self.keep]


def table_rows(ep: torch.export.ExportedProgram, word: str) -> list[int]:
    return [t.shape[0] for name, t in ep.named_buffers() if word in name]


@pytest.mark.parametrize(("n", "keep"), [(2048, 1024), (512, 300), (130, 64)])
def test_cropped_irfft_computes_only_the_kept_outputs(n: int, keep: int) -> None:
    """irfft(..., n)[..., :keep] (Hyena's crop to L): the inverse's last table holds only the rows j1 of the kept
    outputs, its 1/n is folded into that table, and the numbers stay within 2e-6 of torch.fft."""
    g = torch.Generator().manual_seed(keep)
    spec = torch.view_as_real(torch.fft.rfft(torch.randn(3, n, generator=g)))
    model = CroppedIrfft(n, keep).eval()
    ep = realify.lower(torch.export.export(model, (spec,)), target="onnx")
    ref = torch.fft.irfft(torch.view_as_complex(spec.double()), n=n)[..., :keep]
    assert rel(ref, ep.module()(spec)) <= 2e-6
    rows = table_rows(ep, "girfft")  # (p, 2qk, 2q) per-k1 table, then the (rows, 2p) last one
    p = rows[0]
    assert rows[1] == -(-keep // (n // p)) < p, rows
    k = kinds(ep, (spec,))
    assert k["MatMul"] == 2 and k["Mul"] == 0, k
    assert any("fft.crop" in line for line in ep.graph_module.meta["realify_report"].patterns)
    full = realify.lower(torch.export.export(Irfft(n).eval(), (spec,)), target="onnx")
    assert table_rows(full, "girfft")[1] == p  # the uncropped inverse keeps every row
    # the pattern off: the whole inverse, then the slice
    off = realify.lower(torch.export.export(model, (spec,)), target="onnx", disable_patterns=("fft.crop",))
    assert table_rows(off, "girfft")[1] == p and rel(ref, off.module()(spec)) <= 2e-6


class LongConv(torch.nn.Module):
    def __init__(self, n: int, keep: int, norm: str | None, scale: float) -> None:
        super().__init__()
        self.n, self.keep, self.norm, self.scale = n, keep, norm, scale

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        fa = torch.fft.rfft(a, n=self.n, norm=self.norm)
        fb = torch.fft.rfft(b, n=self.n, norm=self.norm) / self.scale
        return torch.fft.irfft(fa * fb, n=self.n, norm=self.norm)[..., : self.keep]


# (a's shape, b's shape, n, keep, norm, scale): broadcast lead dims, none, inputs shorter and longer than n,
# an odd first factor
CONVS = [((2, 3, 100), (3, 100), 200, 100, None, 6.0), ((4, 256), (4, 256), 256, 256, "ortho", 1.0),
         ((300,), (1, 280), 512, 300, "forward", 3.0), ((2, 1, 600), (5, 64), 512, 512, None, 1.0),
         ((3, 65), (65,), 130, 65, None, 2.0)]  # n = 13 * 10: an odd p, whose conjugate halves have no middle k1


@pytest.mark.parametrize("target", ["onnx", "openvino"])  # the two forms of the product
@pytest.mark.parametrize(("sa", "sb", "n", "keep", "norm", "scale"), CONVS)
def test_long_convolution_multiplies_between_the_stages(sa, sb, n, keep, norm, scale, target) -> None:
    """irfft(rfft(a, n) * rfft(b, n) / s, n): the product is taken where the forwards' stages leave the spectrum,
    so the graph keeps one transpose per transform (no output transpose of the forwards, no input transpose of
    the inverse, no pad or crop of the spectrum), within 2e-6 of torch.fft in float64 (and in ONNX Runtime)."""
    g = torch.Generator().manual_seed(n + keep)
    a, b = torch.randn(*sa, generator=g), torch.randn(*sb, generator=g)
    model = LongConv(n, keep, norm, scale).eval()
    with torch.no_grad():
        ref = model(a.double(), b.double())
    exported = torch.export.export(model, (a, b))
    ep = realify.lower(exported, target=target)
    assert rel(ref, ep.module()(a, b)) <= 2e-6
    assert any("fft.long_conv" in line for line in ep.graph_module.meta["realify_report"].patterns)
    # the pattern off: each transform on its own, with its transposes, and the same numbers
    off = realify.lower(exported, target=target, disable_patterns=("fft.long_conv",))
    assert rel(ref, off.module()(a, b)) <= 2e-6
    assert aten_ops(off)["aten.permute.default"] > aten_ops(ep)["aten.permute.default"]
    model_proto = torch.onnx.export(ep, (a, b), dynamo=True, verbose=False).model_proto
    k = collections.Counter(n.op_type for n in model_proto.graph.node)
    assert k["MatMul"] == 6 and k["Transpose"] == 3, k
    assert k["Pad"] <= 2, k  # an input may be padded to whole rows j1 of the first stage; the spectrum is not
    proto = model_proto.SerializeToString()
    sess = ort.InferenceSession(proto, providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {i.name: x.numpy() for i, x in zip(sess.get_inputs(), (a, b), strict=True)})
    assert rel(ref, torch.from_numpy(out)) <= 2e-6


def test_portable_target_keeps_the_packed_transform() -> None:
    """Only graph targets take the two-stage form: the portable lowering keeps its packed half-length plan."""
    x = torch.randn(4, 2048)
    ep = realify.lower(torch.export.export(Rfft(2048).eval(), (x,)))
    assert not any("grfft" in str(n.target) or "grfft" in n.name for n in ep.graph.nodes)
    k = kinds(ep, (x,))
    assert k["MatMul"] > 2 or k["Mul"] > 0, k


class Centred(torch.nn.Module):
    """fastMRI's fft2c/ifft2c (ifftshift -> transform -> fftshift), or without the fftshift (`post` False)."""

    def __init__(self, fn: str, dims: tuple[int, ...], norm: str | None, post: bool = True) -> None:
        super().__init__()
        self.fn, self.dims, self.norm, self.post = fn, dims, norm, post

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        z = torch.view_as_complex(x)
        f = getattr(torch.fft, self.fn)
        kw = {"dim": self.dims[0]} if self.fn in ("fft", "ifft") else {"dim": self.dims}
        y = f(torch.fft.ifftshift(z, dim=self.dims), norm=self.norm, **kw)
        return torch.view_as_real(torch.fft.fftshift(y, dim=self.dims) if self.post else y)


def onnx_ops(ep: torch.export.ExportedProgram, args: tuple[torch.Tensor, ...]) -> tuple[collections.Counter, bytes]:
    proto = torch.onnx.export(ep, args, dynamo=True, verbose=False).model_proto
    return collections.Counter(n.op_type for n in proto.graph.node), proto.SerializeToString()


def output_producers(proto: bytes) -> list[str]:
    model = onnx.load_from_string(proto)
    outs = {o.name for o in model.graph.output}
    return [n.op_type for n in model.graph.node if set(n.output) & outs]


def aten_ops(ep: torch.export.ExportedProgram) -> collections.Counter:
    return collections.Counter(str(n.target) for n in ep.graph.nodes if n.op == "call_function")


# (fn, dims, norm, post, shape): even and odd sizes, 1-D, 2-D and n-D forms, a roll before only
SHIFTED = [("fft2", (-2, -1), "ortho", True, (4, 32, 32)), ("ifft2", (-2, -1), None, True, (2, 15, 20)),
           ("fft", (1,), None, True, (3, 17, 6)), ("ifftn", (0, 2), "forward", True, (8, 3, 12)),
           ("fft2", (-2, -1), None, False, (2, 16, 9))]


@pytest.mark.parametrize(("fn", "dims", "norm", "post", "shape"), SHIFTED)
def test_centred_transform_folds_its_rolls_into_the_tables(fn, dims, norm, post, shape) -> None:
    """The fftshift/ifftshift rolls around a direct-size transform are permutations of its DFT tables: no roll is
    left, so the ONNX graph has no Slice or Concat but those of the transform's own flips and stacks, and the
    numbers stay within 2e-6 of torch.fft in float64 (in ONNX Runtime too)."""
    x = torch.randn(*shape, 2, generator=torch.Generator().manual_seed(len(shape) * 7 + shape[-1]))
    model = Centred(fn, dims, norm, post).eval()
    with torch.no_grad():
        ref = model(x.double())
    exported = torch.export.export(model, (x,))
    ep = realify.lower(exported, target="onnx")
    assert any("fft.shift_fold" in line for line in ep.graph_module.meta["realify_report"].patterns)
    ops = aten_ops(ep)
    assert ops["aten.roll.default"] == 0, ops
    assert rel(ref, ep.module()(x)) <= 2e-6
    k, proto = onnx_ops(ep, (x,))
    assert k["Slice"] == ops["aten.flip.default"], (k, ops)
    assert k["Concat"] == ops["aten.stack.default"] + ops["aten.cat.default"], (k, ops)
    # read only packed (view_as_real): the last matmul writes the pairs interleaved, no stack makes the output
    assert "Concat" not in output_producers(proto), output_producers(proto)
    sess = ort.InferenceSession(proto, providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {sess.get_inputs()[0].name: x.numpy()})
    assert rel(ref, torch.from_numpy(out)) <= 2e-6
    # the same graph with the pattern off keeps the rolls: Slices and Concats of their own
    off = realify.lower(exported, target="onnx", disable_patterns=("fft.shift_fold",))
    k_off, _ = onnx_ops(off, (x,))
    assert aten_ops(off)["aten.roll.default"] > 0 and k_off["Slice"] > k["Slice"], k_off


def test_mri_data_consistency_has_no_rolls_in_ort_and_openvino() -> None:
    """The zoo's MRI model (three centred 2-D transforms): no Slice/Concat from the rolls, and ONNX Runtime and
    OpenVINO (when installed) match eager."""
    model = zoo.MRIRecon().eval()
    g = torch.Generator().manual_seed(5)
    kspace = torch.randn(2, 32, 32, dtype=torch.complex64, generator=g)
    mask = torch.zeros(32, 32, dtype=torch.bool)
    mask[:, ::3] = True
    with torch.no_grad():
        ref = model(kspace, mask)
    args = (torch.view_as_real(kspace), mask)
    ep = realify.lower(torch.export.export(model, (kspace, mask)), target="onnx")
    ops = aten_ops(ep)
    assert ops["aten.roll.default"] == 0, ops
    k, proto = onnx_ops(ep, args)
    assert k["Slice"] == ops["aten.flip.default"] and k["Concat"] == ops["aten.stack.default"], (k, ops)
    assert "Concat" not in output_producers(proto) and k["Concat"] == 3, k  # the three transforms' input stacks
    sess = ort.InferenceSession(proto, providers=["CPUExecutionProvider"])
    feeds = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args, strict=True)}
    (out,) = sess.run(None, feeds)
    assert zoo.max_rel_error(ref, torch.from_numpy(out)) <= 2e-6
    try:
        import openvino as ov
    except ImportError:
        return  # ONNX Runtime is the one required runtime; OpenVINO is checked where installed
    core = ov.Core()  # f32 asked for: the CPU plugin may otherwise run bf16 where the host has it
    compiled = core.compile_model(core.read_model(proto, b""), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    got = compiled(list(feeds.values()))[0]
    assert zoo.max_rel_error(ref, torch.from_numpy(got)) <= 2e-6


class Stft(torch.nn.Module):
    def __init__(self, n_fft: int, hop: int, center: bool, normalized: bool) -> None:
        super().__init__()
        self.n_fft, self.hop, self.center, self.normalized = n_fft, hop, center, normalized
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, wav: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, center=self.center,
                          normalized=self.normalized, return_complex=True)
        return torch.view_as_real(spec)


def moved_axes(perm: list[int]) -> int:
    """How many axes a permutation moves, counted as the fewest single-axis moves that give it."""
    ends: list[int] = []  # patience sort: the longest increasing subsequence (the axes that stay) has len(ends)
    for p in perm:
        i = next((k for k, e in enumerate(ends) if e >= p), len(ends))
        ends[i:i + 1] = [p]
    return len(perm) - len(ends)


# (signal shape, n_fft, hop, center, normalized): log-mel's 400/160, a batch and none, torch's reflect padding
STFTS = [((2, 16000), 400, 160, False, False), ((3000,), 256, 64, True, False), ((3, 2048), 512, 128, True, True)]


@pytest.mark.parametrize(("shape", "n_fft", "hop", "center", "normalized"), STFTS)
def test_stft_leaves_the_stages_as_freq_by_frames(shape, n_fft, hop, center, normalized) -> None:
    """torch.stft's [B, freq, frames] comes straight out of the two stages (both from the left): two transposes,
    each moving one axis (ONNX Runtime's fast case), where the last-axis form and the part transposes cost four;
    within 2e-6 of torch in float64 and in ONNX Runtime."""
    g = torch.Generator().manual_seed(n_fft + hop)
    wav = torch.randn(*shape, generator=g)
    model = Stft(n_fft, hop, center, normalized).eval()
    with torch.no_grad():
        ref = model.double()(wav.double())
    ep = realify.lower(torch.export.export(model.float(), (wav,)), target="onnx")
    assert rel(ref, ep.module()(wav)) <= 2e-6
    proto = torch.onnx.export(ep, (wav,), dynamo=True, verbose=False).model_proto
    transposes = [n for n in proto.graph.node if n.op_type == "Transpose"]
    perms = [list(a.ints) for n in transposes for a in n.attribute if a.name == "perm"]
    assert len(perms) == 2 and all(moved_axes(p) == 1 for p in perms), perms
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {sess.get_inputs()[0].name: wav.numpy()})
    assert rel(ref, torch.from_numpy(out)) <= 2e-6
