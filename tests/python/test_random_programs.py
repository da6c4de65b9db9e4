"""Random differential test (issue 13): random small programs of complex ops, on inputs with ±0, ±inf, nan, tiny and
huge parts, through every way realify captures a graph (torch.export + lower, make_fx + lower, torch.compile static
and dynamic), compared with eager PyTorch on the original complex program, the sign of zero parts included.

`make test` runs a fixed, derandomized set. REALIFY_RANDOM_PROGRAMS=5000 runs that many instead, without shrinking,
and lists every mismatch at the end; REALIFY_RANDOM_REPORT=path also appends them (and the progress) to a file, and
REALIFY_RANDOM_SEED=n draws another fixed sequence (for shards run side by side; `make random-programs` shards).
Hypothesis runs exactly N programs (the body never rejects one); a long run is bounded by time, about 1.2 s a
program on a free core, most of it in torch.export and dynamo."""

from __future__ import annotations

import math
import os
import traceback
from collections.abc import Callable
from typing import Any

import realify
import torch
from harness import to_real
from hypothesis import HealthCheck, Phase, given, note, seed, settings
from random_programs import OP_BY_NAME, Program, Step, eager_agrees_with_itself, programs, well_conditioned
from test_edge_values import assert_same_specials, grid, lowered_result
from torch.fx.experimental.proxy_tensor import make_fx

CI_EXAMPLES = 12
LONG = int(os.environ.get("REALIFY_RANDOM_PROGRAMS", "0"))
# Relative to the size of the complex result (a tiny part beside a large one carries the large one's error).
RTOL = {torch.float32: 2e-4, torch.float64: 1e-9}


def _complexify(out: Any, like: torch.Tensor) -> torch.Tensor:
    """A lowered graph returns a complex result as [..., 2] reals."""
    if like.is_complex() and isinstance(out, torch.Tensor) and not out.is_complex():
        return torch.view_as_complex(out.to(like.real.dtype).contiguous())
    return out


def via_make_fx(prog: Program) -> tuple[Any, ...]:
    gm = make_fx(prog.function())(*prog.inputs)
    return realify.lower(gm)(*[to_real(a) for a in prog.inputs])


class _Module(torch.nn.Module):
    def __init__(self, prog: Program) -> None:
        super().__init__()
        self.prog = prog

    def forward(self, *xs: torch.Tensor) -> tuple[Any, ...]:
        return self.prog.run(*xs)


def via_export(prog: Program) -> tuple[Any, ...]:
    ep = realify.lower(torch.export.export(_Module(prog), tuple(prog.inputs)))
    return ep.module()(*[to_real(a) for a in prog.inputs])


class Documented(Exception):
    """A path refused the program with an error the design documents (not a mismatch)."""


# realify lowers FFTs only over static sizes (DESIGN.md; the error says so). Under dynamic=True a transformed dim
# of size > 1 is symbolic, and that clear refusal is the expected outcome.
STATIC_FFT = "realify lowers FFTs whose transformed dims are static"
FFT_OPS = {"fft", "ifft", "fft2", "rfft", "irfft", "ihfft"}


def aliases_an_input(prog: Program) -> bool:
    """Some eager output is a view of a complex input (a slice, a transpose)."""
    ptrs = {x.untyped_storage().data_ptr() for x in prog.inputs if x.is_complex()}
    outs = prog.run(*prog.inputs)
    return any(isinstance(o, torch.Tensor) and o.untyped_storage().data_ptr() in ptrs for o in outs)


def _compiled(dynamic: bool) -> Callable[[Program], tuple[Any, ...]]:
    def run(prog: Program) -> tuple[Any, ...]:
        torch._dynamo.reset()
        fn = torch.compile(
            prog.function(), backend="realify", fullgraph=True, dynamic=dynamic, options={"backend": "eager"}
        )
        try:
            return fn(*prog.inputs)
        except Exception as e:
            if dynamic and STATIC_FFT in str(e) and any(s.op in FFT_OPS for s in prog.steps):
                raise Documented(STATIC_FFT) from e
            raise

    return run


PATHS: dict[str, Callable[[Program], tuple[Any, ...]]] = {
    "export": via_export,
    "make_fx": via_make_fx,
    "compile": _compiled(False),
    "compile_dynamic": _compiled(True),
}


def assert_matches(got: torch.Tensor, want: torch.Tensor) -> None:
    """Same NaN places, same infinities, finite parts close relative to |result|, and zeros with the same sign."""
    assert isinstance(got, torch.Tensor), type(got)
    got = _complexify(got, want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    g = torch.view_as_real(got.resolve_conj()) if got.is_complex() else got
    w = torch.view_as_real(want.resolve_conj()) if want.is_complex() else want
    finite = torch.isfinite(w) & torch.isfinite(g)
    torch.testing.assert_close(g[~finite], w[~finite], equal_nan=True, rtol=0, atol=0)
    wf = torch.where(torch.isfinite(w), w, 0.0).abs()
    scale = torch.hypot(wf[..., 0], wf[..., 1]).unsqueeze(-1) if want.is_complex() else wf
    rtol = RTOL[w.dtype]
    torch.testing.assert_close(
        torch.where(finite, (g - w).abs() / (scale + 1.0), 0.0), torch.zeros_like(w), rtol=0, atol=rtol
    )
    zeros = (g == 0) & (w == 0)
    bad = zeros & (torch.signbit(g) != torch.signbit(w))
    assert not bad.any(), f"sign of zero differs at {torch.nonzero(bad).tolist()}: got {got} want {want}"


def assert_same_aliasing(got: Any, want: torch.Tensor, inputs: list[torch.Tensor]) -> None:
    """torch.compile hands back the caller's tensors: an eager output that is a view of an input must be a view of
    the same input, with the same strides and offset."""
    for x in inputs:
        ptr = x.untyped_storage().data_ptr()
        if want.untyped_storage().data_ptr() == ptr:
            shared = isinstance(got, torch.Tensor) and got.untyped_storage().data_ptr() == ptr
            assert shared, "an output that is a view of an input does not share its storage"
            layout = (got.dtype, got.shape, got.stride(), got.storage_offset())
            assert layout == (want.dtype, want.shape, want.stride(), want.storage_offset()), layout


def check_program(prog: Program) -> list[str]:
    """Every path's mismatches with eager, as text (empty: all agree)."""
    want = prog.run(*prog.inputs)
    failures = []
    for name, path in PATHS.items():
        got = None
        try:
            got = path(prog)
            assert len(got) == len(want), (len(got), len(want))
            for g, w in zip(got, want, strict=True):
                assert_matches(g, w)
                if name.startswith("compile"):
                    assert_same_aliasing(g, w, prog.inputs)
        except Documented:
            continue
        except Exception as e:  # noqa: BLE001 - every failure of a path is a finding
            if name == "compile_dynamic" and torch_compile_agrees(prog, got, want):
                continue
            failures.append(f"[{name}] {type(e).__name__}: {str(e)[:1500]}")
    return failures


def torch_compile_agrees(prog: Program, got: Any, want: tuple[Any, ...]) -> bool:
    """torch.compile(dynamic=True) of the complex program itself, without realify, differs from eager the same
    way: dynamo passes a float constant as a symbolic float that forgets the sign of -0.0 (`-0.0 - z` computes
    `0.0 - z`), so realify receives the program torch.compile would run (torch 2.11 and 2.13 alike)."""
    if got is None:
        return False
    torch._dynamo.reset()
    try:
        ref = torch.compile(prog.function(), backend="aot_eager", fullgraph=True, dynamic=True)(*prog.inputs)
    except Exception:  # noqa: BLE001 - no reference: the finding stands
        return False
    return not _all_match(ref, want) and _all_match(got, ref)


def _all_match(got: Any, want: tuple[Any, ...]) -> bool:
    try:
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_matches(g, w.resolve_conj() if isinstance(w, torch.Tensor) else w)
    except AssertionError:
        return False
    return True


FOUND: list[str] = []
SEEN = [0]
REPORT = os.environ.get("REALIFY_RANDOM_REPORT")
SEED = os.environ.get("REALIFY_RANDOM_SEED")


def _log(text: str) -> None:
    """The long run writes as it goes, so a run stopped early still leaves its figures."""
    if REPORT:
        with open(REPORT, "a") as f:
            f.write(text + "\n")


def _run(prog: Program) -> None:
    note(prog.source())
    SEEN[0] += 1
    failures = check_program(prog)
    if SEEN[0] % 100 == 0:
        _log(f"# {SEEN[0]} programs, {len(FOUND)} differ")
    if not failures:
        return
    text = prog.source() + "\n" + "\n".join(failures)
    if not LONG:
        raise AssertionError(text)
    FOUND.append(text)
    _log(f"## program {SEEN[0]}\n{text}\n")


_SETTINGS = settings(
    max_examples=LONG or CI_EXAMPLES,
    phases=[Phase.generate] if LONG else list(Phase),
    deadline=None,
    database=None,
    derandomize=SEED is None,
    suppress_health_check=list(HealthCheck),
)


def _body(prog: Program) -> None:
    try:
        _run(prog)
    except AssertionError:
        raise
    except Exception:  # noqa: BLE001 - the generator's own eager run must not fail either
        raise AssertionError(traceback.format_exc()) from None


_differential = _SETTINGS(given(programs())(_body))
if SEED is not None:
    _differential = seed(int(SEED))(_differential)


def test_random_programs_match_eager() -> None:
    FOUND.clear()
    SEEN[0] = 0
    _differential()
    _log(f"# done: {SEEN[0]} programs, {len(FOUND)} differ")
    assert not FOUND, f"{len(FOUND)} of {SEEN[0]} programs differ from eager\n\n" + "\n\n".join(FOUND)[:20000]


def test_checker_catches_a_flipped_zero_and_a_moved_nan() -> None:
    want = torch.tensor([complex(0.0, -0.0), complex(float("nan"), 1.0)])
    flipped = torch.tensor([complex(0.0, 0.0), complex(float("nan"), 1.0)])
    moved = torch.tensor([complex(0.0, -0.0), complex(1.0, float("nan"))])
    assert_matches(want.clone(), want)
    for bad in (flipped, moved):
        try:
            assert_matches(bad, want)
        except AssertionError:
            continue
        raise AssertionError(f"{bad} passed as {want}")


def test_dynamic_view_of_input_output() -> None:
    """Found by the random test: under dynamic=True aot_autograd rebuilt an output that is a view of a complex
    input from the real graph's fresh result (wrong storage, or setStorage out of bounds); now the adapter applies
    the view chain to the caller's tensor, as eager does."""
    z = torch.randn(3, 4, dtype=torch.complex64, generator=torch.Generator().manual_seed(0))
    r = torch.randn(3, 4, generator=torch.Generator().manual_seed(1))
    cases = [
        ([Step("transpose", (0,), None), Step("slice", (2,), (1, 1, 2))], (3,)),
        ([Step("reshape", (0,), None)], (2,)),
        ([Step("slice", (0,), (0, 0, 1))], (2,)),
        ([Step("mT", (0,), None), Step("view_as_real", (2,), None)], (3,)),
        ([Step("flip", (0,), None), Step("transpose", (0,), None)], (3, 2)),  # a view and a computed result
    ]
    for steps, outs in cases:
        prog = Program([z, r], steps, outs)
        assert aliases_an_input(prog), prog.source()
        got, want = _compiled(True)(prog), prog.run(z, r)  # static shapes: the random test's compile path
        for g, w in zip(got, want, strict=True):
            assert_matches(g, w)
            assert_same_aliasing(g, w, [z, r])
    expand = torch.compile(lambda x: x.expand(2, 3, 4), backend="realify", dynamic=True, options={"backend": "eager"})
    e = expand(z)
    assert e.stride() == (0, 4, 1) and e.untyped_storage().data_ptr() == z.untyped_storage().data_ptr()


def test_dynamic_view_of_a_real_input_through_view_as_complex() -> None:
    """Found by the random campaign (every element off, by up to 1.46): `v2 = view_as_complex(x)` of a real input, a
    reduction of v2 beside the output `v2[1:]`. Under dynamic=True the slice's start and step are symbolic, so the
    lowered graph computes the slice as a fresh stack of parts, and aot_autograd rebuilt the output, a view of the
    real input, from that result's strides and offset (0, not 1). The adapter now applies the view chain to the
    caller's real tensor, as it does for complex inputs. Several shapes, and mark_dynamic as well as dynamic=True."""
    for rows, dtype in [(1, torch.complex64), (2, torch.complex64), (3, torch.complex128), (4, torch.complex64)]:
        g = torch.Generator().manual_seed(rows)
        z = torch.randn(rows, 2, dtype=dtype, generator=g)
        x = torch.randn(rows, 2, dtype=dtype.to_real(), generator=g)
        for sl in [(0, 1, 1), (0, 0, 2), (0, 1, 2)]:
            steps = [Step("view_as_complex", (1,), None), Step("sum", (2,), (-1, True)), Step("conj", (3,), None)]
            prog = Program([z, x], [*steps, Step("slice", (2,), sl)], (4, 5))
            assert not check_program(prog), prog.source()
        torch._dynamo.reset()

        def fn(z: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            v2 = torch.view_as_complex(x)
            return torch.conj(v2.sum(-1, keepdim=True)), v2[1:]

        xd = x.clone()
        if rows > 2:  # a dim of 1 or 2 (the pair dim's size) is specialized, which mark_dynamic refuses
            torch._dynamo.mark_dynamic(xd, 0)
        got = torch.compile(fn, backend="realify", fullgraph=True, options={"backend": "eager"})(z, xd)
        for g_, w in zip(got, fn(z, xd), strict=True):
            assert_matches(g_, w.resolve_conj())
            assert_same_aliasing(g_, w, [z, xd])


def test_symint_operand_and_exact_zero_folds() -> None:
    """Found by the random test: z * z.shape[0] under dynamic shapes had no lowering; x + 0.0 kept a -0 imaginary
    part that eager turns into +0; (2z) / (2z) came out 1 - 0i where c10 gives 1 + 0i; torch.square had no rule
    under export."""
    z = torch.tensor([[complex(-0.0, -0.0), complex(1.5, -0.0)], [complex(0.0, 2.5), complex(-3.0, 1.0)]])
    r = torch.tensor([[1.0, -2.0], [0.5, 3.0]])
    w = torch.tensor([[complex(0.5, 0.25), complex(1.5, 2.0)], [complex(0.0, 2.5), complex(-3.0, 1.0)]])
    assert not check_program(Program([w, r], [Step("mul_size", (0,), None)], (2,)))
    for steps, out in (
        ([Step("add_scalar", (0,), 0.0)], (2,)),
        ([Step("rsub_scalar", (0,), 0.0)], (2,)),
        ([Step("add", (0, 0), None), Step("div", (2, 2), None)], (3,)),
        ([Step("square", (0,), None)], (2,)),
    ):
        prog = Program([z, r], steps, out)
        assert not check_program(prog), prog.source()


def test_elementary_functions_at_infinite_tiny_and_huge_parts() -> None:
    """Found by the random test: asinh/acosh/atanh (and asin, acos, atan through them) gave nan or the wrong
    quadrant at infinite parts, overflowed at |z| = 1e30 in complex64 and lost tiny z, where eager (glibc) is
    exact; exp(-inf + iy) and tanh(inf + iy) had zeros of the wrong sign."""
    for dtype in (torch.complex64, torch.complex128):
        z = grid(dtype)
        bad_pair = (z.real.isinf() & z.imag.isnan()) | (z.real.isnan() & z.imag.isinf())
        z = z[~bad_pair]  # asin/acos/atan there: C99 leaves the sign unspecified (random_programs.NARROWED)
        for fn in (torch.asinh, torch.acosh, torch.atanh, torch.asin, torch.acos, torch.atan, torch.exp, torch.tanh):
            got, want = lowered_result(fn, (z,)), fn(z)
            assert_same_specials(got, want, (z,))
            assert_matches(got, want)


def test_sgn_at_an_infinite_part_is_drawn_only_where_body_and_tail_agree() -> None:
    """Found by the random test: sgn(inf + 0.8j) is nan + nan j in eager's scalar tail, which a two-element
    complex64 tensor runs wholly in, and nan + 0j in its vector body; realify follows the body. The generator
    now asks the body too, so such a step is not drawn, and the body's answer is what realify gives."""
    z = torch.tensor([[complex(math.inf, 0.796875)], [complex(math.nan, math.nan)]], dtype=torch.complex64)
    assert not eager_agrees_with_itself(OP_BY_NAME["sgn"], None, [z], torch.sgn(z))
    # The same for neg of a zero imaginary part (-0 in the tail, +0 in the body), which an ifft over a dim of size 1
    # then passed through unchanged: promote -> neg -> ifft(dim=0) of a (1, 3) tensor.
    w = torch.tensor([[1.0, -2.0, 0.5]]).to(torch.complex64)
    assert not eager_agrees_with_itself(OP_BY_NAME["neg"], None, [w], torch.neg(w))
    big = z.repeat(32, 1)
    assert_matches(lowered_result(torch.sgn, (big,)), torch.sgn(big))


def test_compile_dynamic_is_excused_only_where_torch_compile_differs_too() -> None:
    """`-0.0 - z` under dynamic=True: torch.compile without realify loses the sign of the constant too, so
    realify's identical result is no finding; a result that differs from torch.compile's still is."""
    z = torch.tensor([[0j, complex(-0.0, 1.0)]])
    prog = Program(inputs=[z], steps=[Step("rsub_scalar", (0,), -0.0)], outputs=(1,))
    want = prog.run(z)
    got = _compiled(True)(prog)
    assert torch_compile_agrees(prog, got, want) or _all_match(got, want)
    flipped = (torch.view_as_complex(-torch.view_as_real(got[0])),)
    assert not torch_compile_agrees(prog, flipped, want)


def test_ill_conditioned_steps_on_computed_operands_are_not_drawn() -> None:
    """atanh beside 1 turns eager's FMA-rounded 1 - 3e-47i (realify: 1 + 0i) into 53.8 - 0.79i against inf: such a
    step is not drawn on a computed operand; a well-conditioned one is, and an input operand is never nudged."""
    near_one = torch.tensor([complex(1.0, -3.443704360715749e-47)], dtype=torch.complex128)
    atanh, mul = OP_BY_NAME["atanh"], OP_BY_NAME["mul"]
    assert not well_conditioned(atanh, None, [near_one], torch.atanh(near_one), computed=[0])
    assert well_conditioned(atanh, None, [near_one], torch.atanh(near_one), computed=[])
    z = torch.tensor([complex(0.5, -2.0), complex(3.0, 0.25)], dtype=torch.complex64)
    assert well_conditioned(mul, None, [z, z], z * z, computed=[0, 1])
