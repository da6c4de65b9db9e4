"""Random small programs of complex ops for the differential test (test_random_programs.py).

A program is a list of steps over numbered values: the inputs first, then one value per step. The generator runs
every step eagerly as it draws it, so it knows each value's shape, dtype and contents and only draws steps that
apply. `Program.run` replays the steps on whatever it is given (real tensors, fakes, proxies), so the same program
is traced by torch.export, make_fx and dynamo."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from hypothesis import strategies as st

# Components on and around the branch cuts, and the ones whose arithmetic overflows or underflows.
EDGE = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-30, -1e-30, 1e30, -1e30, 1.0, -1.0, -2.0, 0.5]
# Values any mixing op (sum, matmul, fft) may see: there the order of summation decides overflow, cancellation and
# inf - inf, and eager's order (BLAS, pocketfft) is no contract, so mixing ops are drawn only on moderate operands.
MODERATE = 1e4


@dataclass(frozen=True)
class Op:
    name: str
    kinds: str  # one letter per tensor operand: c complex, r real
    fn: Callable[..., torch.Tensor]  # fn(param, *tensors)
    fmt: str  # source text: {0}, {1} operands, {p} the parameter
    params: Sequence[Any] = (None,)
    ok: Callable[..., bool] = lambda p, *xs: True  # applies to these eager operands
    mixing: bool = False  # sums over elements (drawn only on _moderate operands)
    same_shape: bool = True  # binary: operands of one shape


def _moderate(*xs: torch.Tensor) -> bool:
    return all(bool(torch.isfinite(x).all()) and float(x.abs().max()) <= MODERATE for x in xs)


def _transformable(*xs: torch.Tensor) -> bool:
    """Moderate and without zero parts. A zero output of an FFT or a matmul over zero terms (0 * -sin, -0 * w) is
    signed by the algorithm's order of butterflies or products: MKL, pocketfft and realify's DFT matrices differ, and
    eager on another build (torch 2.11 on AVX-512) signs rfft of zeros otherwise. Sums of zero terms are exact in
    any order, so sum and mean keep _moderate. The structurally real bins (rfft's DC and Nyquist) are pinned by
    test_edge_values and test_signed_zeros."""
    parts = [torch.view_as_real(x.resolve_conj()) if x.is_complex() else x for x in xs]
    return _moderate(*xs) and all(bool(p.ne(0).all()) for p in parts)


def _classes(t: torch.Tensor) -> torch.Tensor:
    """Per part: nan, inf, zero, and the sign bit where it means something."""
    t = torch.view_as_real(t.resolve_conj()) if t.is_complex() else t
    return torch.stack([torch.isnan(t), torch.isinf(t), t == 0, torch.signbit(t) & ~torch.isnan(t)])


BODY = 64  # a multiple of every vector width eager uses, in elements


def eager_agrees_with_itself(op: Op, param: Any, operands: list[torch.Tensor], result: torch.Tensor) -> bool:
    """Eager's vectorised body and its scalar tail (what a one-element tensor gets) can disagree on the sign of a
    zero, or on nan against a number: neg of a zero part is +0 in the body (0 - x) and -0 in the tail; sgn at an
    infinite part; division (body: scaled ac + bd, tail: Smith's); complex128 acos on the real axis (body:
    pi/2 - asin). No lowering can follow both, so elementwise steps are drawn only where the two agree. A small
    tensor may run wholly in the tail (sgn(inf + 0.8j) is nan + nan j there, nan + 0j in the body), so the body is
    asked too: every element repeated BODY times, which no vector width leaves to the tail."""
    flat = [x.reshape(-1) for x in operands]
    per_element = torch.stack([op.fn(param, *[x[i : i + 1] for x in flat])[0] for i in range(result.numel())])
    body = op.fn(param, *[x.repeat_interleave(BODY) for x in flat])[::BODY]
    want = _classes(result.reshape(-1))
    return bool(torch.equal(_classes(per_element), want) and torch.equal(_classes(body), want))


def _nudged(t: torch.Tensor, ulps: int, up: bool) -> torch.Tensor:
    """t with every finite nonzero part moved `ulps` ulps up or down (zeros, infinities and nans are exact)."""
    p = torch.view_as_real(t.resolve_conj()).clone() if t.is_complex() else t.clone()
    movable = torch.isfinite(p) & (p != 0)
    target = torch.full_like(p, math.inf if up else -math.inf)
    q = p
    for _ in range(ulps):
        q = torch.where(movable, torch.nextafter(q, target), q)
    return torch.view_as_complex(q) if t.is_complex() else q


def well_conditioned(op: Op, param: Any, operands: list[torch.Tensor], result: torch.Tensor,
                     computed: list[int]) -> bool:
    """A computed operand carries its ops' rounding, which eager and realify need not share to the last bit (eager's
    kernels contract into FMAs: a / a is 1 - 3e-47i there, 1 + 0i in realify). A step that turns a few ulps of its
    operand into a large change (atanh beside 1, log beside 0) would report that rounding as a mismatch, so it is
    drawn only where nudging each computed operand's parts by 2 ulps either way keeps its result's specials and
    moves its finite parts by less than a tenth of the comparison's tolerance."""
    if not computed or not (result.is_floating_point() or result.is_complex()):
        return True
    want = _classes(result)
    base = torch.view_as_real(result.resolve_conj()) if result.is_complex() else result
    scale = torch.where(torch.isfinite(base), base, 0.0).abs()
    if result.is_complex():
        scale = torch.hypot(scale[..., 0], scale[..., 1]).unsqueeze(-1)
    tol = (2e-5 if base.dtype == torch.float32 else 1e-10) * (scale + 1.0)  # a tenth of RTOL
    for up in (True, False):
        moved = [_nudged(x, 2, up) if j in computed else x for j, x in enumerate(operands)]
        with torch.no_grad():
            got = op.fn(param, *moved)
        if not torch.equal(_classes(got), want):
            return False
        g = torch.view_as_real(got.resolve_conj()) if got.is_complex() else got
        fin = torch.isfinite(base)
        if bool(((g - base).abs() > tol)[fin].any()):
            return False
    return True


def _ndim(n: int) -> Callable[..., bool]:
    return lambda p, *xs: all(x.dim() >= n for x in xs)


def _slice(p: tuple[int, int, int], z: torch.Tensor) -> torch.Tensor:
    # plain subscripts: torch 2.11's dynamo cannot trace a tuple of slices built at run time under dynamic=True
    dim, start, step = p
    return z[start::step] if dim == 0 else z[:, start::step]


def _where(p: Any, c: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.where(c > 0, a, b)


UNARY_C = {
    "neg": torch.neg, "conj": torch.conj, "conj_physical": torch.conj_physical, "sqrt": torch.sqrt, "log": torch.log,
    "exp": torch.exp, "reciprocal": torch.reciprocal, "sgn": torch.sgn, "tanh": torch.tanh, "sigmoid": torch.sigmoid,
    "acos": torch.acos, "asin": torch.asin, "atanh": torch.atanh, "square": torch.square,
}
TO_REAL = {"abs": torch.abs, "angle": torch.angle, "real": torch.real, "imag": torch.imag}
SCALARS_MUL = [2.5, -1.0, 0.0, -0.0, 1j, 0.5 - 2j]
SCALARS_ADD = [0.0, -0.0, 1.0, 1j, -0.0j]
EXPONENTS = [0.5, 2, -1, 3, -0.5, 2.5, 1j]

# C99 leaves the sign of the infinite (or zero) part of asin, acos and atan at +-inf + i nan unspecified; glibc
# and realify pick differently (catanh(nan +- i inf) signs its zero real part by the nan). tanh(+-inf + i nan) is
# +-1 + 0i, exp(-inf + i nan) is 0 + 0i (so sigmoid and cpow too) and sqrt(-inf + i nan) is nan + inf i, with
# glibc taking the sign of that zero or infinity from the nan's sign bit, which no op documents (an invalid
# operation's nan is negative on x86, positive on CUDA) and which no comparison can read (the deployment op sets
# have no signbit or bit cast).
def _no_inf_nan_pair(p: Any, z: torch.Tensor) -> bool:
    re, im = z.real, z.imag
    return not bool(((torch.isinf(re) & torch.isnan(im)) | (torch.isnan(re) & torch.isinf(im))).any())


# pow by an exponent outside eager's special cases (2, 3, 0.5, -1, ...) is cpow = cexp(y clog(x)); at x = 0 that is
# cexp(-inf + i nan), whose zero glibc signs by the nan's sign bit, which only a bit cast can read (no comparison
# sees the sign of a nan, and the deployment op sets have no bit cast or signbit).
POW_SPECIAL = {0, 1, 2, 3, 0.5, -0.5, -1, -2}


def _no_zero_base_cpow(p: Any, z: torch.Tensor) -> bool:
    return _no_inf_nan_pair(p, z) and (p in POW_SPECIAL or not bool((z == 0).any()))


NAN_SIGNED = ("acos", "asin", "atanh", "tanh", "exp", "sigmoid", "sqrt")
NARROWED: dict[str, Callable[..., bool]] = dict.fromkeys(NAN_SIGNED, _no_inf_nan_pair)

OPS: list[Op] = (
    [Op(n, "c", lambda p, z, f=f: f(z), f"torch.{n}({{0}})", ok=NARROWED.get(n, lambda p, *xs: True))
     for n, f in UNARY_C.items()]
    + [Op(n, "c", lambda p, z, f=f: f(z), f"torch.{n}({{0}})") for n, f in TO_REAL.items()]
    + [
        Op("pow_scalar", "c", lambda p, z: z**p, "{0} ** {p!r}", EXPONENTS, ok=_no_zero_base_cpow),
        Op("mul_scalar", "c", lambda p, z: z * p, "{0} * {p!r}", SCALARS_MUL),
        Op("add_scalar", "c", lambda p, z: z + p, "{0} + {p!r}", SCALARS_ADD),
        Op("sub_scalar", "c", lambda p, z: z - p, "{0} - {p!r}", SCALARS_ADD),
        Op("rsub_scalar", "c", lambda p, z: p - z, "{p!r} - {0}", SCALARS_ADD),
        Op("div_scalar", "c", lambda p, z: z / p, "{0} / {p!r}", [3.0, -2.0, 1j]),
        Op("mul_size", "c", lambda p, z: z * z.shape[0], "{0} * {0}.shape[0]"),
        Op("add", "cc", lambda p, a, b: a + b, "{0} + {1}"),
        Op("sub", "cc", lambda p, a, b: a - b, "{0} - {1}"),
        Op("mul", "cc", lambda p, a, b: a * b, "{0} * {1}"),
        Op("div", "cc", lambda p, a, b: a / b, "{0} / {1}"),
        Op("mul_real", "cr", lambda p, a, b: a * b, "{0} * {1}"),
        Op("add_real", "cr", lambda p, a, b: a + b, "{0} + {1}"),
        Op("sub_real", "rc", lambda p, a, b: a - b, "{0} - {1}"),
        Op("div_real", "cr", lambda p, a, b: a / b, "{0} / {1}"),
        Op("rdiv_real", "rc", lambda p, a, b: a / b, "{0} / {1}"),
        Op("complex", "rr", lambda p, a, b: torch.complex(a, b), "torch.complex({0}, {1})"),
        Op("polar", "rr", lambda p, a, b: torch.polar(a, b), "torch.polar({0}, {1})"),
        Op("promote", "r", lambda p, r: r.to(p), "{0}.to({p})", [torch.complex64, torch.complex128]),
        Op("view_as_real", "c", lambda p, z: torch.view_as_real(z), "torch.view_as_real({0})",
           ok=lambda p, z: not z.is_conj()),
        Op("view_as_complex", "r", lambda p, r: torch.view_as_complex(r), "torch.view_as_complex({0})",
           ok=lambda p, r: r.dim() >= 1 and r.shape[-1] == 2 and r.is_contiguous()),
        Op("where", "rcc", _where, "torch.where({0} > 0, {1}, {2})"),
        Op("where_scalar", "rc", lambda p, c, a: torch.where(c > 0, a, 0), "torch.where({0} > 0, {1}, 0)"),
        Op("sum", "c", lambda p, z: z.sum(p[0], keepdim=p[1]), "{0}.sum({p[0]}, keepdim={p[1]})",
           [(d, k) for d in (0, -1) for k in (False, True)], ok=lambda p, z: z.dim() >= 1 and _moderate(z),
           mixing=True),
        Op("mean", "c", lambda p, z: z.mean(p), "{0}.mean({p})", [0, -1], ok=lambda p, z: z.dim() >= 1 and _moderate(z),
           mixing=True),
        Op("reshape", "c", lambda p, z: z.reshape(-1), "{0}.reshape(-1)"),
        Op("transpose", "c", lambda p, z: z.transpose(0, 1), "{0}.transpose(0, 1)", ok=_ndim(2)),
        Op("mT", "c", lambda p, z: z.mT, "{0}.mT", ok=_ndim(2)),
        Op("slice", "c", _slice, "{0}[{p[0]}*(slice(None),) + (slice({p[1]}, None, {p[2]}),)]",
           [(d, s, k) for d in (0, 1) for s in (0, 1) for k in (1, 2)], ok=lambda p, z: z.dim() > p[0]
           and z.shape[p[0]] > p[1]),
        Op("flip", "c", lambda p, z: z.flip(-1), "{0}.flip(-1)", ok=_ndim(1)),
        Op("cat", "cc", lambda p, a, b: torch.cat([a, b], p), "torch.cat([{0}, {1}], {p})", [0, -1], ok=_ndim(1)),
        Op("matmul", "cc", lambda p, a, b: a @ b.mT, "{0} @ {1}.mT", ok=lambda p, a, b: a.dim() == 2
           and _transformable(a, b), mixing=True),
        Op("einsum", "cc", lambda p, a, b: torch.einsum("ij,kj->ik", a, b), "torch.einsum('ij,kj->ik', {0}, {1})",
           ok=lambda p, a, b: a.dim() == 2 and _transformable(a, b), mixing=True),
        Op("fft", "c", lambda p, z: torch.fft.fft(z, norm=p), "torch.fft.fft({0}, norm={p!r})",
           [None, "ortho", "forward"], ok=lambda p, z: z.dim() >= 1 and _transformable(z), mixing=True),
        Op("ifft", "c", lambda p, z: torch.fft.ifft(z, dim=0), "torch.fft.ifft({0}, dim=0)",
           ok=lambda p, z: z.dim() >= 1 and _transformable(z), mixing=True),
        Op("fft2", "c", lambda p, z: torch.fft.fft2(z), "torch.fft.fft2({0})",
           ok=lambda p, z: z.dim() >= 2 and _transformable(z), mixing=True),
        Op("rfft", "r", lambda p, r: torch.fft.rfft(r), "torch.fft.rfft({0})",
           ok=lambda p, r: r.dim() >= 1 and _transformable(r), mixing=True),
        Op("irfft", "c", lambda p, z: torch.fft.irfft(z), "torch.fft.irfft({0})",
           ok=lambda p, z: z.dim() >= 1 and z.shape[-1] >= 2 and _transformable(z), mixing=True),
        Op("ihfft", "r", lambda p, r: torch.fft.ihfft(r), "torch.fft.ihfft({0})",
           ok=lambda p, r: r.dim() >= 1 and _transformable(r), mixing=True),
    ]
)
OP_BY_NAME = {op.name: op for op in OPS}
ELEMENTWISE = {*UNARY_C, *TO_REAL, "pow_scalar", "mul_scalar", "add_scalar", "sub_scalar", "rsub_scalar"}
ELEMENTWISE |= {"div_scalar", "add", "sub", "mul", "div", "mul_real", "add_real", "sub_real", "div_real", "rdiv_real"}
ELEMENTWISE |= {"complex", "polar"}


@dataclass(frozen=True)
class Step:
    op: str
    args: tuple[int, ...]
    param: Any


@dataclass
class Program:
    inputs: list[torch.Tensor]
    steps: list[Step] = field(default_factory=list)
    outputs: tuple[int, ...] = ()

    def run(self, *xs: Any) -> tuple[Any, ...]:
        return self.function()(*xs)

    def function(self) -> Callable[..., tuple[Any, ...]]:
        """The program as a plain function of its inputs. It holds the steps only: dynamo, handed a bound method
        of an object that also holds the input tensors, lifts the argument from there and then rebuilds a
        returned view of it with the view_as_complex of its fake (dynamic shapes), which fails."""
        steps = [(OP_BY_NAME[s.op].fn, s.param, s.args) for s in self.steps]
        outputs = self.outputs

        def program(*xs: Any) -> tuple[Any, ...]:
            vals = list(xs)
            for fn, param, args in steps:
                vals.append(fn(param, *[vals[i] for i in args]))
            return tuple(vals[i] for i in outputs)

        return program

    def source(self) -> str:
        shown = [f"v{i}: {tuple(t.shape)} {t.dtype} = {t.tolist()}" for i, t in enumerate(self.inputs)]
        n = len(self.inputs)
        for j, s in enumerate(self.steps):
            op = OP_BY_NAME[s.op]
            shown.append(f"v{n + j} = " + op.fmt.format(*[f"v{i}" for i in s.args], p=s.param))
        shown.append("return " + ", ".join(f"v{i}" for i in self.outputs))
        return "\n".join(shown)


def _tensor(draw: st.DrawFn, shape: tuple[int, ...], dtype: torch.dtype, edges: bool) -> torch.Tensor:
    n = math.prod(shape) * (2 if dtype.is_complex else 1)
    comp = st.sampled_from(EDGE) if edges else st.floats(-3.0, 3.0, width=32)
    if edges:
        comp = st.one_of(comp, st.floats(-3.0, 3.0, width=32), st.floats(-3.0, 3.0, width=32))
    vals = draw(st.lists(comp, min_size=n, max_size=n))
    t = torch.tensor(vals, dtype=dtype.to_real()).reshape(*shape, *((2,) if dtype.is_complex else ()))
    # A clone, not a view: fakifying a view_as_complex input replays the view on its flat base, which fails.
    return torch.view_as_complex(t).clone() if dtype.is_complex else t


@st.composite
def programs(draw: st.DrawFn, max_steps: int = 6) -> Program:
    cdtype = draw(st.sampled_from([torch.complex64, torch.complex128]))
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    edges = draw(st.booleans())
    n_c = draw(st.integers(1, 2))
    inputs = [_tensor(draw, shape, cdtype, edges) for _ in range(n_c)]
    inputs.append(_tensor(draw, shape, cdtype.to_real(), edges))
    prog = Program(inputs)
    vals = list(inputs)
    for _ in range(draw(st.integers(1, max_steps))):
        op = draw(st.sampled_from(OPS))
        args: list[int] = []
        for k in op.kinds:
            cands = [
                i for i, v in enumerate(vals)
                if v.is_complex() == (k == "c")
                and (not (op.same_shape and args) or v.shape == vals[args[0]].shape)
            ]
            if not cands:
                break
            args.append(draw(st.sampled_from(cands)))
        if len(args) < len(op.kinds):
            continue
        param = draw(st.sampled_from(list(op.params)))
        operands = [vals[i] for i in args]
        if not op.ok(param, *operands):
            continue
        if op.name == "promote" and param.to_real() != operands[0].dtype:
            continue
        with torch.no_grad():
            result = op.fn(param, *operands)
        if op.name in ELEMENTWISE and not eager_agrees_with_itself(op, param, operands, result):
            continue
        computed = [j for j, i in enumerate(args) if i >= len(inputs)]
        if op.name in ELEMENTWISE and not well_conditioned(op, param, operands, result, computed):
            continue
        vals.append(result)
        prog.steps.append(Step(op.name, tuple(args), param))
    if not prog.steps:
        prog.steps.append(Step("conj_physical", (0,), None))
        vals.append(torch.conj_physical(vals[0]))
    last = len(vals) - 1
    extra = draw(st.sampled_from(range(len(inputs), last + 1)))
    prog.outputs = (last,) if extra == last else (last, extra)
    return prog
