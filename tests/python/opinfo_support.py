"""The OpInfo measurement shared by test_opinfo.py and `make coverage`.

For every OpInfo of torch's op_db that supports complex64 on CPU, and for each of its (capped) sample inputs:
trace the op with make_fx, realify.lower the graph, check that no complex dtype is left, run the lowered graph on
view_as_real inputs and compare with eager PyTorch. Three modes: complex64, complex128, and complex128 lowered with
truncate_double (compared with the complex128 eager result, at float32 tolerance).

One table, SKIPS, says which ops are not measured or not expected to pass, each with its kind and reason.
"""

from __future__ import annotations

import copy
import math
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import realify
import torch
from harness import assert_real_only, lowered_args
from torch.func import functionalize
from torch.fx.experimental.proxy_tensor import make_fx
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing._internal.opinfo.core import OpInfo, SampleInput
from torch.testing._utils import freeze_rng_state
from torch.utils import _pytree as pytree

MODES = ("c64", "c128", "trunc")
MODE_DTYPE = {"c64": torch.complex64, "c128": torch.complex128, "trunc": torch.complex128}
MAX_SAMPLES = 4  # per op and dtype, spread over the op's sample list

NOT_APPLICABLE = "not applicable"
ERROR_BY_DESIGN = "error by design"
KNOWN_GAP = "known gap"
OTHER_ISSUE = "other issue"  # the FFT family: measured by its own issue, outside this denominator


@dataclass(frozen=True)
class Skip:
    kind: str
    reason: str


def _same(kind: str, reason: str, *names: str) -> dict[str, Skip]:
    return {n: Skip(kind, reason) for n in names}


RANDOM = "random values: eager and the lowered graph draw different numbers"
SPARSE = "sparse layout: realify lowers strided tensors"
DATA_DEPENDENT = "make_fx cannot trace it: the result is a Python value read from tensor data"
CUDA_ONLY = "jiterator runs only on CUDA"
# Linear algebra that issue 17 leaves refused, each with why.
GENERAL_EIG = (
    "general (non-Hermitian) eigenvalues: the real embedding [[X, -Y], [Y, X]] has the spectrum of X + iY together "
    "with its conjugate and cannot tell the two apart, and no target has a general eigensolver: raises "
    "UnsupportedOpError"
)
PACKED_HOUSEHOLDER = (
    "LAPACK's packed Householder form (reflectors under the diagonal, plus tau) in or out: not lowered (linalg.qr "
    "is): raises UnsupportedOpError"
)
LDL = "Bunch-Kaufman LDL^H with LAPACK's 1x1 and 2x2 pivot blocks: not lowered: raises UnsupportedOpError"

SKIPS: dict[str, Skip] = {
    **_same(NOT_APPLICABLE, RANDOM, "normal.in_place", "uniform", "randn", "randn_like", "rand_like"),
    **_same(NOT_APPLICABLE, RANDOM + " (and it factorises a matrix)", "svd_lowrank", "pca_lowrank"),
    **_same(NOT_APPLICABLE, SPARSE, "to_sparse", "sparse.sampled_addmm"),
    **_same(NOT_APPLICABLE, DATA_DEPENDENT, "item", "allclose", "equal"),
    **_same(
        NOT_APPLICABLE,
        DATA_DEPENDENT + " (torch.cov checks its weights with aten.equal)",
        "cov",
        "corrcoef",
    ),
    **_same(
        NOT_APPLICABLE,
        CUDA_ONLY,
        "jiterator_unary",
        "jiterator_binary",
        "jiterator_4inputs_with_extra_args",
        "jiterator_binary_return_by_ref",
        "jiterator_2inputs_2outputs",
    ),
    **_same(ERROR_BY_DESIGN, GENERAL_EIG, "linalg.eig", "linalg.eigvals"),
    **_same(ERROR_BY_DESIGN, PACKED_HOUSEHOLDER, "geqrf", "ormqr", "linalg.householder_product"),
    **_same(ERROR_BY_DESIGN, LDL, "linalg.ldl_factor", "linalg.ldl_factor_ex", "linalg.ldl_solve"),
}


# Samples make_fx cannot trace, per op: (reason, predicate on the sample). Any other trace failure fails the test.
def _tensor_in_args(sample: SampleInput) -> bool:
    return any(isinstance(a, torch.Tensor) for a in pytree.tree_leaves(sample.args))


TENSOR_INT = "an int argument given as a tensor: make_fx cannot trace its value (data-dependent)"
UNTRACEABLE_SAMPLES: dict[str, tuple[str, Callable[[SampleInput], bool]]] = {
    "narrow": (TENSOR_INT, _tensor_in_args),
    "tensor_split": (TENSOR_INT, _tensor_in_args),
}

# Tolerances beyond BASE_TOL, per op and mode, each with its reason (none is needed today).
TOLERANCES: dict[str, tuple[dict[str, dict[str, float]], str]] = {}

BASE_TOL: dict[str, dict[str, float]] = {
    "c64": dict(rtol=1e-5, atol=1e-5),
    "c128": dict(rtol=1e-10, atol=1e-10),
    "trunc": dict(rtol=1e-5, atol=1e-5),
}

# Ops whose outputs hold uninitialised memory: only shapes and dtypes are compared.
UNDEFINED_VALUES = {
    "empty",
    "empty_like",
    "empty_permuted",
    "empty_strided",
    "new_empty",
    "new_empty_strided",
}


def full_name(op: OpInfo) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def in_other_issue(name: str) -> bool:
    return name.startswith("fft.") or name in ("stft", "istft")


def measured(name: str) -> bool:
    """Whether the OpInfo test runs the op (everything but other issues and not-applicable ops)."""
    return kind_of(name) not in (OTHER_ISSUE, NOT_APPLICABLE)


def in_denominator(name: str) -> bool:
    return kind_of(name) in (None, KNOWN_GAP)


def complex_opinfos() -> list[OpInfo]:
    """Every OpInfo that supports complex64 on CPU, FFT family included (reported apart)."""
    return [op for op in op_db if torch.complex64 in op.supported_dtypes("cpu")]


def kind_of(name: str) -> str | None:
    if in_other_issue(name):
        return OTHER_ISSUE
    skip = SKIPS.get(name)
    return skip.kind if skip else None


@dataclass
class SampleResult:
    status: str  # "pass", "unsupported", "untraceable", "mismatch", "complex-left", "error"
    detail: str = ""


@dataclass
class OpResult:
    name: str
    modes: dict[str, list[SampleResult]] = field(default_factory=dict)
    ops: set[str] = field(default_factory=set)  # aten ops of the traced graphs
    export: list[SampleResult] = field(default_factory=list)  # complex64 through torch.export (opinfo_export.py)
    export_ops: set[str] = field(default_factory=set)  # ops of the exported programs

    def counts(self, mode: str) -> tuple[int, int]:
        rs = [r for r in self.modes.get(mode, []) if r.status != "untraceable"]
        return sum(r.status == "pass" for r in rs), len(rs)

    def mode_status(self, mode: str) -> str:
        rs = [r for r in self.modes.get(mode, []) if r.status != "untraceable"]
        if not rs:
            return "no sample"
        if all(r.status == "pass" for r in rs):
            return "pass"
        bad = [r for r in rs if r.status != "pass"]
        if all(r.status == "unsupported" for r in bad):
            return "unsupported"
        return "FAIL"

    @property
    def passed(self) -> bool:
        return all(self.mode_status(m) == "pass" for m in MODES)

    def first_problem(self) -> str:
        for m in MODES:
            for r in self.modes.get(m, []):
                if r.status not in ("pass", "untraceable"):
                    return f"{m}: {r.status}: {r.detail}"
        return ""

    def untraceable(self) -> int:
        return sum(r.status == "untraceable" for m in MODES for r in self.modes.get(m, []))


def pick_samples(op: OpInfo, dtype: torch.dtype) -> list[SampleInput]:
    torch.manual_seed(zlib.crc32(full_name(op).encode()))
    samples = list(op.sample_inputs("cpu", dtype, requires_grad=False))
    if len(samples) <= MAX_SAMPLES:
        return samples
    step = (len(samples) - 1) / (MAX_SAMPLES - 1)
    return [samples[round(i * step)] for i in range(MAX_SAMPLES)]


def _is_mutating(gm: torch.fx.GraphModule) -> bool:
    return any(
        n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) and n.target._schema.is_mutable
        for n in gm.graph.nodes
    )


class _Bound:
    """The op applied to one sample, with the sample's tensors as the only inputs."""

    def __init__(self, op: OpInfo, sample: SampleInput) -> None:
        self.op = op
        self.leaves, self.spec = pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
        self.slots = [i for i, x in enumerate(self.leaves) if isinstance(x, torch.Tensor)]

    def tensors(self) -> list[torch.Tensor]:
        return [copy.deepcopy(self.leaves[i]) for i in self.slots]

    def __call__(self, *ts: torch.Tensor) -> Any:
        leaves = list(self.leaves)
        for i, t in zip(self.slots, ts, strict=True):
            leaves[i] = t
        inp, args, kwargs = pytree.tree_unflatten(leaves, self.spec)
        return self.op.op(inp, *args, **kwargs)


def trace(fn: _Bound, args: list[torch.Tensor]) -> torch.fx.GraphModule:
    """make_fx; a graph that mutates is retraced in functional form, as export and aot_autograd give it."""
    gm = make_fx(fn)(*[copy.deepcopy(a) for a in args])
    if _is_mutating(gm):
        gm = make_fx(functionalize(gm, remove="mutations"))(*[copy.deepcopy(a) for a in args])
    return gm


def _close(out: Any, ref: Any, tol: dict[str, float], values: bool) -> None:
    outs, refs = pytree.tree_leaves(out), pytree.tree_leaves(ref)
    assert len(outs) == len(refs), f"{len(outs)} outputs, eager gives {len(refs)}"
    for o, r in zip(outs, refs, strict=True):
        if isinstance(r, torch.Tensor):
            assert isinstance(o, torch.Tensor), f"got {type(o).__name__}, eager gives a tensor"
            if r.is_complex():
                assert not o.is_complex() and o.shape == r.shape + (2,), (o.dtype, o.shape, r.shape)
                o = torch.view_as_complex(o.to(r.real.dtype).contiguous())
            assert o.shape == r.shape, (o.shape, r.shape)
            if not values:
                continue
            if o.dtype != r.dtype:
                assert o.is_floating_point() == r.is_floating_point() or o.is_complex() == r.is_complex(), (
                    o.dtype,
                    r.dtype,
                )
                o = o.to(r.dtype)
            torch.testing.assert_close(o, r, equal_nan=True, check_stride=False, **tol)
        elif isinstance(r, float) and math.isnan(r):
            assert isinstance(o, float) and math.isnan(o)
        else:
            assert o == r, (o, r)


# linalg spectral family: ops whose vectors torch defines only up to a phase per vector (eigh, svd). Compared the
# way torch documents them, gauge-invariantly: the values as they are; each of the first k vectors after turning
# its phase onto eager's (svd: one phase for the pair u_j, v_j, so U diag(S) V^H is checked too); the vectors
# beyond k (full_matrices) through the projector onto their span, which is all that torch fixes of them.
def _phases(o: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    c = (r.conj() * o).sum(-2, keepdim=True)
    a = c.abs()
    return torch.where(a > 0, c / torch.where(a > 0, a, 1), 1)


def _gauge_eigh(out: tuple[torch.Tensor, ...], ref: tuple[torch.Tensor, ...]) -> tuple[tuple[Any, ...], ...]:
    (lo, qo), (lr, qr) = out, ref
    return (lo, qo * _phases(qo, qr).conj()), (lr, qr)


def _gauge_svd(vh: bool) -> Callable[[Any, Any], tuple[tuple[Any, ...], ...]]:
    def views(out: tuple[torch.Tensor, ...], ref: tuple[torch.Tensor, ...]) -> tuple[tuple[Any, ...], ...]:
        k = ref[1].shape[-1]
        (uo, so, vo), (ur, sr, vr) = out, ref
        vo, vr = (vo.mH, vr.mH) if vh else (vo, vr)
        ph = _phases(uo[..., :k], ur[..., :k]).conj()

        def proj(x: torch.Tensor) -> torch.Tensor:
            return x[..., k:] @ x[..., k:].mH

        o = (uo[..., :k] * ph, so, vo[..., :k] * ph, proj(uo), proj(vo))
        r = (ur[..., :k], sr, vr[..., :k], proj(ur), proj(vr))
        return o, r

    return views


# The linear algebra family of issue 17: every op refused before it (decompositions, solvers, and the norms and
# powers that need them). The coverage doc reports how many of these pass.
LINALG_FAMILY: tuple[str, ...] = (
    "cholesky", "cholesky_inverse", "cholesky_solve", "geqrf", "logdet", "lu", "lu_solve", "lu_unpack", "ormqr",
    "pinverse", "qr", "svd", "triangular_solve", "linalg.cholesky", "linalg.cholesky_ex", "linalg.cond",
    "linalg.det", "linalg.eig", "linalg.eigh", "linalg.eigvals", "linalg.eigvalsh", "linalg.householder_product",
    "linalg.inv", "linalg.inv_ex", "linalg.ldl_factor", "linalg.ldl_factor_ex", "linalg.ldl_solve", "linalg.lstsq",
    "linalg.lstsq.grad_oriented", "linalg.lu", "linalg.lu_factor", "linalg.lu_factor_ex", "linalg.lu_solve",
    "linalg.matrix_rank", "linalg.matrix_rank.hermitian", "linalg.pinv", "linalg.pinv.hermitian",
    "linalg.pinv.singular", "linalg.qr", "linalg.slogdet", "linalg.solve", "linalg.solve_ex",
    "linalg.solve_triangular", "linalg.svd", "linalg.svdvals", "linalg.tensorinv", "linalg.tensorsolve",
    "norm.nuc", "linalg.norm", "linalg.norm.subgradients_at_zero", "linalg.matrix_norm", "linalg.matrix_power",
)  # fmt: skip

# linalg family notes: how each op is lowered, its cost against the complex op and what is compared (the
# coverage doc's notes). A complex flop is about 4 real ones, so a real problem of twice the size (8x the real
# flops) costs about 2x the complex op.
_EMB = "through the real 2m x 2n embedding [[X, -Y], [Y, X]], about 2x the complex op's flops"
LINALG_NOTES: dict[str, str] = {
    **dict.fromkeys(("linalg.eigvalsh", "linalg.matrix_rank.hermitian"), f"eigvalsh {_EMB}; every other value"),
    "linalg.eigh": f"eigh {_EMB}, plus O(n^3) to pick orthonormal complex vectors; vectors compared up to a phase",
    **dict.fromkeys(
        ("linalg.svd", "svd"),
        f"svd {_EMB}, plus O(mn min(m,n)) to pick the vectors; compared up to one phase per pair u_j, v_j",
    ),
    **dict.fromkeys(
        ("linalg.svdvals", "linalg.matrix_rank", "linalg.cond", "linalg.matrix_norm", "linalg.norm", "norm.nuc"),
        f"singular values (2-norm, nuclear norm, rank, cond) {_EMB}",
    ),
    "linalg.norm.subgradients_at_zero": f"singular values (2-norm, nuclear norm) {_EMB}",
    **dict.fromkeys(
        ("linalg.pinv", "linalg.pinv.hermitian", "linalg.pinv.singular", "pinverse"),
        f"pinv {_EMB} (the embedding of the pinv; same cut-offs)",
    ),
    **dict.fromkeys(("linalg.lstsq", "linalg.lstsq.grad_oriented"), f"the same least-squares problem {_EMB}"),
    # linalg solve family (src/rules/linalg_solve.c, linalg_export.c)
    **dict.fromkeys(
        (
            "linalg.solve",
            "linalg.solve_ex",
            "linalg.inv",
            "linalg.inv_ex",
            "linalg.solve_triangular",
            "triangular_solve",
            "linalg.tensorinv",
            "linalg.tensorsolve",
            "linalg.matrix_power",
        ),
        f"one real solve or inverse of size 2n {_EMB} (8x its multiply-adds; a triangular matrix's embedding is "
        "not triangular, so triangular solves lose their O(n^2 k) cost)",
    ),
    **dict.fromkeys(
        ("cholesky_solve", "cholesky_inverse", "lu_solve", "linalg.lu_solve"),
        f"A rebuilt from its factors (complex matmuls), then one real solve of size 2n {_EMB}",
    ),
    **dict.fromkeys(
        (
            "lu",
            "linalg.lu",
            "linalg.lu_factor",
            "linalg.lu_factor_ex",
            "linalg.det",
            "linalg.slogdet",
            "logdet",
        ),
        "complex LU with torch's pivots (|re| + |im|, as LAPACK's izamax), unrolled over the static n <= 64 with "
        "masked elementwise steps (~5x LAPACK's flops); det and slogdet keep the phase",
    ),
    **dict.fromkeys(
        ("cholesky", "linalg.cholesky", "linalg.cholesky_ex"),
        "complex Cholesky unrolled over the static n <= 64 with elementwise steps",
    ),
    "linalg.matrix_sqrth": f"eigh {_EMB}, then Q diag(sqrt(max(w, 0))) Q^T: no vectors to pick (torch 2.15)",
    "linalg.polar": f"thin svd {_EMB}, then U = W V^H, H = V S V^H: no vectors to pick (torch 2.15)",
    **dict.fromkeys(
        ("linalg.qr", "qr"),
        "complex Householder in real arithmetic with LAPACK's reflectors, 1x the complex op's flops, unrolled over "
        "min(m, n): Q and R equal torch's",
    ),
}

GAUGE_VIEWS: dict[str, Callable[[Any, Any], tuple[tuple[Any, ...], ...]]] = {
    "linalg.eigh": _gauge_eigh,
    "linalg.svd": _gauge_svd(vh=True),
    "svd": _gauge_svd(vh=False),
}


def _gauge_compare(name: str, out: Any, ref: Any) -> tuple[Any, Any]:
    """The gauge-invariant views of a lowered result (packed) and eager's; the lowered views packed again."""
    cx = [
        torch.view_as_complex(o.to(r.real.dtype).contiguous()) if r.is_complex() else o
        for o, r in zip(out, ref, strict=True)
    ]
    o, r = GAUGE_VIEWS[name](tuple(cx), tuple(ref))
    return tuple(torch.view_as_real(x) if x.is_complex() else x for x in o), r


# Random ops. torch 2.15 lets the dropout family take complex input (the mask is drawn in the real dtype), and
# these OpInfos draw under torch.manual_seed(SEED) (torch.testing._utils.wrapper_set_seed). Their values are
# compared only where the random stream is provably shared: the lowered graph must make the same draws as the
# traced eager program (same seeded ops, in order, with the same shapes and arguments), and then runs under the same
# seed. The dtype is left out: the CPU bernoulli kernel draws the same for every float dtype (truncate_double turns
# float64 masks into float32), which test_opinfo.py checks on the running torch.
SEED = 42
SEEDED = {
    "nn.functional.dropout",
    "nn.functional.dropout2d",
    "nn.functional.dropout3d",
    "nn.functional.alpha_dropout",
    "nn.functional.feature_alpha_dropout.with_train",
}


def rng_calls(gm: torch.fx.GraphModule) -> list[tuple[Any, ...]]:
    """The graph's draws from the global generator, in order: (op, its arguments by schema name), with each tensor
    argument given by its shape; an in-place op draws as its functional form does (bernoulli_ as bernoulli)."""
    calls: list[tuple[Any, ...]] = []
    for n in gm.graph.nodes:
        t = n.target
        if n.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
            continue
        if torch.Tag.nondeterministic_seeded not in t.tags:
            continue
        args = []
        for i, a in enumerate(t._schema.arguments):
            dflt = a.default_value if a.has_default_value() else None
            v = n.args[i] if i < len(n.args) else n.kwargs.get(a.name, dflt)
            if isinstance(v, torch.fx.Node):
                val = v.meta.get("val")
                v = tuple(val.shape) if isinstance(val, torch.Tensor) else ("?", v.name)
            args.append((a.name, v))
        calls.append((t._schema.name.removesuffix("_"), tuple(args)))
    return calls


def seeded_call(fn: Callable[..., Any], *args: Any) -> Any:
    """fn under the OpInfos' seed, leaving the global generator as it was (as wrapper_set_seed does)."""
    with freeze_rng_state():
        torch.manual_seed(SEED)
        return fn(*args)


def shared_stream(name: str, gm: torch.fx.GraphModule, lowered: torch.fx.GraphModule) -> str:
    """Why the lowered graph's random draws cannot be compared with eager's ("" when they can, or none are made)."""
    drawn = rng_calls(gm)
    if not drawn:
        return ""
    if name not in SEEDED:
        return f"draws random numbers ({drawn[0][0]}) but its OpInfo does not seed them"
    low = rng_calls(lowered)
    if low != drawn:
        return f"the lowered graph draws {low}, eager draws {drawn}"
    return ""


def tolerance(name: str, mode: str) -> dict[str, float]:
    over = TOLERANCES.get(name)
    if over and mode in over[0]:
        return over[0][mode]
    return BASE_TOL[mode]


def run_sample(name: str, fn: _Bound, gm: torch.fx.GraphModule, args: list[torch.Tensor], mode: str) -> SampleResult:
    trunc = mode == "trunc"
    try:
        lowered = realify.lower(gm, truncate_double=trunc)
    except realify.UnsupportedOpError as e:
        return SampleResult("unsupported", e.op)
    except Exception as e:  # any other failure is a finding, reported with its type
        return SampleResult("error", f"lower: {type(e).__name__}: {str(e)[:300]}")
    try:
        assert_real_only(lowered)
    except AssertionError as e:
        return SampleResult("complex-left", str(e)[:300])
    why = shared_stream(name, gm, lowered)
    if why:
        return SampleResult("mismatch", why[:400])
    try:
        out = seeded_call(lowered, *lowered_args(lowered, copy.deepcopy(args)))
    except Exception as e:
        return SampleResult("error", f"run: {type(e).__name__}: {str(e)[:300]}")
    ref = fn(*[copy.deepcopy(a) for a in args])
    try:
        if name in GAUGE_VIEWS:
            out, ref = _gauge_compare(name, out, ref)
        _close(out, ref, tolerance(name, mode), name not in UNDEFINED_VALUES)
    except AssertionError as e:
        return SampleResult("mismatch", str(e)[:400])
    return SampleResult("pass")


def measure(op: OpInfo) -> OpResult:
    name = full_name(op)
    res = OpResult(name)
    for dtype in (torch.complex64, torch.complex128):
        modes = [m for m in MODES if MODE_DTYPE[m] == dtype]
        for m in modes:
            res.modes[m] = []
        for sample in pick_samples(op, dtype):
            fn = _Bound(op, sample)
            args = fn.tensors()
            try:
                gm = trace(fn, [copy.deepcopy(a) for a in args])
            except Exception as e:
                allowed = UNTRACEABLE_SAMPLES.get(name)
                if allowed and allowed[1](sample):
                    for m in modes:
                        res.modes[m].append(SampleResult("untraceable", allowed[0]))
                    continue
                for m in modes:
                    res.modes[m].append(SampleResult("error", f"make_fx: {type(e).__name__}: {str(e)[:300]}"))
                continue
            res.ops |= {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
            for m in modes:
                res.modes[m].append(run_sample(name, fn, gm, args, m))
    return res
