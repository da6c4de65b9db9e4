"""Run-time adapters: complex arguments in, real arguments to the compiled
graph, complex results back out."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from ._signature import Boundary, Signature
from ._tensor_key import data_key
from .errors import RealifyError

if TYPE_CHECKING:
    from ._hoist import HoistedInputs


def unpack(x: torch.Tensor, real_dtype: torch.dtype) -> torch.Tensor:
    """Complex tensor -> real [..., 2] tensor: realify's one packing helper
    (arguments, constants, fake values).

    A zero-copy view (any strides) unless the conj bit is set, which must be
    resolved first, or a dtype change (complex128 truncated to float32) forces
    a copy.
    """
    if x.is_conj():
        x = x.resolve_conj()
    r = torch.view_as_real(x)
    return r if r.dtype == real_dtype else r.to(real_dtype)


def unpack_storage(x: torch.Tensor, real_dtype: torch.dtype) -> torch.Tensor:
    """The [..., 2] form of an input the lowered graph reads through its storage (`Boundary.storage`: as_strided
    at twice x's offset and strides): a view, with x's own geometry, of the real form of x's whole storage.

    view_as_real(x) already is one (zero copy). A dtype change (complex128 truncated to float32) or a conj or neg
    bit makes a copy: of the whole storage, from offset 0 to its end, since as_strided may read any of it (eager
    as_strided of a conj view reads the conjugated storage, so the whole storage is conjugated alike).
    """
    if not (x.is_conj() or x.is_neg()):
        r = torch.view_as_real(x)
        if r.dtype == real_dtype:
            return r
    n = x.untyped_storage().nbytes() // x.element_size()
    whole = torch.as_strided(x, (n,), (1,), 0).resolve_conj().resolve_neg()
    buf = torch.view_as_real(whole).to(real_dtype)
    return torch.as_strided(buf, (*x.shape, 2), (*(2 * s for s in x.stride()), 1), 2 * x.storage_offset())


def planar_real(x: torch.Tensor, real_dtype: torch.dtype) -> torch.Tensor:
    """The planar [2, ...] real form of a complex tensor: real part at [0], imaginary at [1], contiguous."""
    return torch.stack([x.real, x.imag]).to(real_dtype)


def real_input(x: torch.Tensor, b: Boundary) -> torch.Tensor:
    """What the lowered graph takes for the complex argument x at boundary b: planar [2, ...], the view of the
    converted whole storage (b.storage), or view_as_real(x) converted to b.real_dtype."""
    if b.planar:
        return planar_real(x, b.real_dtype)
    if b.storage:
        return unpack_storage(x, b.real_dtype)
    return unpack(x, b.real_dtype)


def real_arguments(sig: Signature, args: Sequence[Any]) -> list[Any]:
    """The arguments of a lowered graph for the original ones: each complex input of `sig` in the form its
    boundary asks for (real_input), each float64 one that truncate_double narrowed as float32; every other
    argument as it is. A lowered GraphModule carries its
    signature in `gm.meta["realify_report"].signature`."""
    real = list(args)
    for b in sig.inputs:
        i = int(b.position)
        if i < len(real) and isinstance(real[i], torch.Tensor) and real[i].is_complex() == b.packed:
            real[i] = to_lowered(real[i], b)
    return real


class PlanarCache:
    """The planar [2, ...] split of one complex input, reused while the caller passes the same tensor with
    the same data: the same object (held weakly) and data_key. A table such as freqs_cis is passed unchanged on
    every call, so it is split once; a new or modified tensor is split again. Inference tensors (no version
    counter) and tensors that need a gradient are split every call."""

    def __init__(self, real_dtype: torch.dtype) -> None:
        self.real_dtype = real_dtype
        self.ref: weakref.ref[torch.Tensor] | None = None
        self.key: tuple[Any, ...] = ()
        self.value: torch.Tensor | None = None
        self.splits = 0  # how many times a split was computed (tests read it)

    def get(self, x: torch.Tensor) -> torch.Tensor:
        # Checked on every call (a decode step's host time), so the cheap tests come first: identity (the cached
        # tensor was no inference tensor), then a gradient wanted (never cached), then the key.
        ref = self.ref
        if (
            ref is not None
            and ref() is x
            and (not x.requires_grad or not torch.is_grad_enabled())
            and self.key == (x._version, x.data_ptr(), x.shape, x.stride())  # data_key, inlined: one call less
        ):
            return self.value  # type: ignore[return-value]
        self.splits += 1
        value = planar_real(x, self.real_dtype)
        if not (x.requires_grad and torch.is_grad_enabled()) and not x.is_inference():
            self.ref, self.key, self.value = weakref.ref(x), data_key(x), value
        return value


def to_lowered(x: torch.Tensor, b: Boundary) -> torch.Tensor:
    """The caller's tensor as the lowered graph takes it at boundary b: packed [..., 2] or planar [2, ...] for a
    complex one, a float32 copy for a float64 one that truncate_double narrowed."""
    if not b.packed:
        return x.to(b.real_dtype)
    return real_input(x, b)


def from_lowered(r: torch.Tensor, b: Boundary) -> torch.Tensor:
    """An output of the lowered graph in the caller's dtype: complex again, or float64 again where truncate_double
    narrowed a float64 result (the surrounding program was traced with float64 and computes on in float64)."""
    return pack(r, b.complex_dtype) if b.packed else r.to(b.complex_dtype)


def pack(r: torch.Tensor, complex_dtype: torch.dtype) -> torch.Tensor:
    """Real [..., 2] tensor -> complex tensor of `complex_dtype` (a view when layout allows)."""
    want = complex_dtype.to_real()
    if r.dtype != want:
        r = r.to(want)
    if r.stride(-1) != 1 or any(s % 2 for s in r.stride()[:-1]) or r.storage_offset() % 2:
        r = r.contiguous()
    return torch.view_as_complex(r)


def _describe(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        return f"a {x.dtype} tensor of shape {tuple(x.shape)}"
    return f"a {type(x).__name__}"


def _shape_text(shape: Sequence[Any]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class _ShapeText:
    """An expected shape, formatted when an error message is built (the check runs on every call)."""

    def __init__(self, shape: Sequence[int | None]) -> None:
        self.shape = shape

    def __str__(self) -> str:
        return _shape_text(["?" if d is None else d for d in self.shape])


class PackedArgCheck:
    """A forward pre-hook of a lowered GraphModule: each argument that carries a complex tensor
    must be its real [..., 2] form, and no tensor argument may be complex. Without it a wrong
    argument fails deep inside the graph (an IndexError on the missing last axis)."""

    def __init__(self, sig: Signature, placeholders: Sequence[Any], expected: Sequence[Any]) -> None:
        self.packed = {int(b.position): b for b in sig.inputs}
        self.names = [str(p) for p in placeholders]
        # expected shapes as ints, None for symbolic sizes; None for a non-tensor argument
        self.shapes = [
            [d if isinstance(d, int) else None for d in v.shape] if isinstance(v, torch.Tensor) else None
            for v in expected
        ]
        # per checked position: the real dtype a packed argument must have (None: a real argument, which must not
        # be complex) and its shape when every size is static (None: symbolic, left to the full check)
        self.quick: list[tuple[int, torch.dtype | None, tuple[int, ...] | None]] = []
        for i, shape in enumerate(self.shapes):
            if shape is not None:
                b = self.packed.get(i)
                static = tuple(shape) if all(d is not None for d in shape) else None
                self.quick.append((i, b.real_dtype if b is not None else None, static))

    def passes_quickly(self, args: Sequence[Any]) -> bool:
        """True when every argument is exactly as expected: the common call, without building any message."""
        n = len(args)
        for i, dtype, shape in self.quick:
            a = args[i] if i < n else None
            if not isinstance(a, torch.Tensor):
                continue
            if dtype is None:
                if a.is_complex():
                    return False
            elif shape is None or a.dtype != dtype or a.shape != shape:
                return False
        return True

    def check(self, args: Sequence[Any]) -> None:
        if self.passes_quickly(args):
            return
        for i, (a, shape) in enumerate(zip(args, self.shapes, strict=False)):
            if shape is None or not isinstance(a, torch.Tensor):
                continue
            b = self.packed.get(i)
            want = _ShapeText(shape)  # formatted only into an error message
            if b is None:
                if a.is_complex():
                    raise RealifyError(
                        f"argument {i} ({self.names[i]}) of the lowered graph is real: expected a real tensor of "
                        f"shape {want}, got {_describe(a)}"
                    )
                continue
            dims_ok = a.dim() == len(shape) and all(
                d is None or not isinstance(s, int) or s == d for s, d in zip(a.shape, shape, strict=True)
            )
            if not b.packed and (a.dtype != b.real_dtype or not dims_ok):
                raise RealifyError(
                    f"argument {i} ({self.names[i]}) of the lowered graph is a {b.complex_dtype} tensor that "
                    f"truncate_double narrowed: expected a {b.real_dtype} tensor of shape {want}, got {_describe(a)}"
                )
            if b.packed and (a.is_complex() or a.dtype != b.real_dtype or not dims_ok):
                hint = " (pass realify.runtime.unpack(x, dtype) of the complex tensor)" if a.is_complex() else ""
                raise RealifyError(
                    f"argument {i} ({self.names[i]}) of the lowered graph carries a {b.complex_dtype} tensor as "
                    f"real [..., 2]: expected a {b.real_dtype} tensor of shape {want}, got {_describe(a)}{hint}"
                )

    def __call__(self, module: torch.nn.Module, args: tuple[Any, ...]) -> None:
        self.check(args)


class ComplexAdapter:
    """Wraps a callable compiled from a lowered graph so callers use complex tensors."""

    def __init__(
        self,
        compiled: Callable[..., Any],
        sig: Signature,
        views: tuple[list[int], Callable[..., Any] | None] = ([], None),
        hoisted: HoistedInputs | None = None,
    ) -> None:
        """views: the output positions that are views of complex inputs, and a callable computing them from the
        caller's own arguments (realify._aliases); those outputs are taken from it, not from the real graph.
        hoisted: the compiled graph's trailing inputs computed from complex parameters (realify._hoist)."""
        self.compiled = compiled
        # realify's own boxed functions (one list argument) are called so. Not any `_boxed_call` callable: the one
        # aot_autograd's aot_module_simplified returns (compile_fx's result) copies that mark but takes *args.
        self.compiled_boxed = bool(getattr(compiled, "realify_boxed", False))
        self.view_positions, self.view_fn = views
        # inputs only a hoisted prologue reads are converted by it, when it runs, and not passed to the graph
        dropped = set(hoisted.prologue.dropped) if hoisted is not None else set()
        self.in_plan = [b for b in sig.inputs if not b.planar and int(b.position) not in dropped]
        self.planar = {
            int(b.position): PlanarCache(b.real_dtype)
            for b in sig.inputs
            if b.planar and int(b.position) not in dropped
        }
        self.planar_items = tuple(self.planar.items())  # read on every call: a tuple iterates fastest
        self.out_plan = [b for b in sig.outputs if int(b.position) not in views[0]]
        self.adapts_outputs = bool(self.out_plan) or self.view_fn is not None
        self.hoisted = hoisted
        self.dropped = sorted(dropped)

    def _convert_inputs(self, real: list[Any]) -> None:
        for b in self.in_plan:
            i = int(b.position)
            if i >= len(real) or not isinstance(real[i], torch.Tensor) or real[i].is_complex() != b.packed:
                got = _describe(real[i]) if i < len(real) else "nothing"
                want = f"a complex tensor ({b.real_dtype} pairs inside)" if b.packed else f"a {b.complex_dtype} tensor"
                raise RealifyError(f"argument {i} must be {want}, got {got}")
            real[i] = to_lowered(real[i], b)

    def adapt_outputs(self, outs: Any, args: Sequence[Any] = ()) -> Any:
        if not self.adapts_outputs:
            return outs
        single = not isinstance(outs, (list, tuple))
        res = [outs] if single else list(outs)
        for b in self.out_plan:
            res[int(b.position)] = from_lowered(res[int(b.position)], b)
        if self.view_fn is not None:
            for j, v in zip(self.view_positions, self.view_fn(*args), strict=True):
                res[j] = v
        if single:
            return res[0]
        return type(outs)(res) if isinstance(outs, tuple) else res

    def __call__(self, *args: Any) -> Any:
        return self.boxed(args)

    def boxed(self, args: Sequence[Any]) -> Any:
        """The call in aot_autograd's boxed convention (the backend hands this to aot_autograd); the caller's
        sequence is only read. Run on every call, so the common case (no input to convert, cached tables, no result
        to convert: a decode step) costs as few Python calls as it can."""
        real = list(args)
        if self.in_plan:
            self._convert_inputs(real)
        for i, cache in self.planar_items:
            real[i] = cache.get(real[i])
        if self.hoisted is not None:
            extra = self.hoisted.get(args)
            for i in reversed(self.dropped):
                del real[i]
            real += extra
        outs = self.compiled(real) if self.compiled_boxed else self.compiled(*real)
        return self.adapt_outputs(outs, args) if self.adapts_outputs else outs


ComplexAdapter.boxed._boxed_call = True  # type: ignore[attr-defined]  # read by aot_autograd
