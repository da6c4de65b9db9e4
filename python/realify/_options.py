"""One set of lowering options for every entry point: realify.lower, realify.export_onnx, the torch.compile backend
and the `realify` command all build a LowerOptions, which checks itself once, when it is made, and hand it down.

The names of targets, FFT strategies and division algorithms are the C core's (`_core.option_names()`, from
include/realify.h and src/lower/opset.c); this module adds only what Python decides: "auto" for fft, the receivers
with no op-set bit of their own, and the eager fallback.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from . import _core

_NAMES: dict[str, dict[str, int]] = _core.option_names()

# target= name -> the op-set bit the core checks emitted ops against (0: every op only has to be declared; Inductor
# takes any aten op). "core_aten" is a tag of the op set, not a receiver.
TARGETS: dict[str, int] = {
    "portable": 0,
    "inductor": 0,
    **{name: bit for name, bit in _NAMES["target"].items() if name != "core_aten"},
}
# Targets whose receiver runs no PyTorch: an op left to eager PyTorch (fallback="eager") could not run there.
DEPLOY_TARGETS = frozenset(name for name, bit in TARGETS.items() if bit)
# "auto" picks by receiver (LowerOptions.strategy); the others are the core's strategies.
STRATEGIES: tuple[str, ...] = ("auto", *_NAMES["fft"])
# "auto" is "native" for these inner compilers of the torch.compile backend: they can call a torch.library kernel.
NATIVE_INNER = ("inductor", "eager")
DIVISIONS: tuple[str, ...] = tuple(_NAMES["division"])
FALLBACKS = ("error", "eager")
# The multi-op patterns of the core (src/patterns/registry.c), by name.
PATTERNS: tuple[str, ...] = tuple(name for name, _on, _doc in _core.patterns())

# Which boundaries the C core may lay out planar [2, ...] (include/realify.h, RF_PLANAR_*).
PLANAR_CONSTS = 1
PLANAR_INPUTS = 2

_FLAGS = ("truncate_double", "planar", "planar_inputs", "rotary_op", "pair_words", "cleanup")


def check_flag(name: str, value: Any) -> None:
    if not isinstance(value, bool):  # truncate_double="no" must not read as True
        raise TypeError(f"realify: {name} must be True or False, not {value!r}")


def check_name(name: str, value: Any) -> None:
    """A name option is a string (None reaches the value check, which names the choices)."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"realify: {name} must be a string, not {value!r}")


def resolve_fft(fft: Any, inner: str | None) -> str:
    """The strategy the C core is asked for: "auto" is "native" where the inner compiler can call realify's FFT
    operators, "matmul" (DFT matmuls, which every compiler runs) otherwise and where the receiver is unknown."""
    if fft not in STRATEGIES:
        raise ValueError(f"fft must be one of {STRATEGIES}, got {fft!r}")
    if fft == "auto":
        return "native" if inner in NATIVE_INNER else "matmul"
    return str(fft)


@dataclass(frozen=True)
class LowerOptions:
    """How realify lowers a graph: every option of the C core (rf_lower_options), and the fallback.

    truncate_double: no float64 is left anywhere: complex128 becomes float32 pairs, and real float64 inputs,
        parameters, buffers, constants, intermediate values and dtype=float64 arguments become float32 (the lowered
        graph takes and returns float32 there; the backend's adapter and realify.load cast back for the caller).
    fft: "auto", "matmul" (DFTs as real matmuls), "native" (realify.fft_* operators over the platform FFT) or
        "onnx-dft" (realify.dft, exported as ONNX DFT); `strategy` is what "auto" resolves to.
    planar: a complex buffer or constant read only as its two parts (RoPE's freqs_cis) is folded, once, at lowering
        into one contiguous real [2, ...] tensor instead of [..., 2].
    planar_inputs: the same for a complex graph input read like a table; the caller must then pass it split
        (the torch.compile backend's adapter does, and caches the split; a graph from realify.lower is called with
        view_as_real inputs, so realify.lower never sets it). The backend's option `planar` sets both.
    rotary_op: each RoPE becomes one realify.rotary_embedding op (ONNX RotaryEmbedding, opset >= 23).
    target: who receives the graph; every op realify emits is checked against that target's op set.
    fallback: "error" (an op with no rule raises UnsupportedOpError) or "eager" (GraphModules only, and not for a
        deploy target: the op runs as the original complex op in a graph break).
    division: complex division, "c10" (Smith's algorithm, as eager PyTorch on the CPU) or "scaled" (both operands
        scaled by max(|c|, |d|), as ATen's vectorised kernels).
    pair_words: bfloat16 RoPE reads and writes each pair as one int32 word (contiguous loads and stores, for
        Inductor; no deploy target's op set has the bitcasts).
    cleanup: the core's peephole and dead-node passes (turn off only to read the rules' raw output).
    disable_patterns: names of multi-op patterns (src/patterns/, `PATTERNS`) the core must not try; the lowering
        report lists the patterns that fired.
    inner: the torch.compile backend's inner compiler, when it lowers (None: realify.lower and exports, whose
        receiver is known only by target); "auto" resolves by it.
    """

    truncate_double: bool = False
    fft: str = "auto"
    planar: bool = False
    planar_inputs: bool = False
    rotary_op: bool = False
    target: str = "portable"
    fallback: str = "error"
    division: str = "c10"
    pair_words: bool = False
    cleanup: bool = True
    disable_patterns: tuple[str, ...] = ()
    inner: str | None = None

    def __post_init__(self) -> None:
        """The one check of every option: by type first, so that no value of the wrong type is read as another."""
        for name in _FLAGS:
            check_flag(name, getattr(self, name))
        for name in ("fft", "target", "division", "inner"):
            check_name(name, getattr(self, name))
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r}; choose one of {', '.join(TARGETS)}")
        if not isinstance(self.fallback, str) or self.fallback not in FALLBACKS:
            raise ValueError(f"fallback must be one of {', '.join(map(repr, FALLBACKS))}, got {self.fallback!r}")
        resolve_fft(self.fft, self.inner)
        if self.division not in DIVISIONS:
            raise ValueError(f"division must be one of {', '.join(map(repr, DIVISIONS))}, got {self.division!r}")
        names = self.disable_patterns
        if isinstance(names, str) or not isinstance(names, (tuple, list)) or not all(isinstance(x, str) for x in names):
            raise TypeError(f"realify: disable_patterns must be a tuple of pattern names, not {names!r}")
        unknown = [x for x in names if x not in PATTERNS]
        if unknown:
            raise ValueError(f"unknown pattern {unknown[0]!r}; the patterns are {', '.join(PATTERNS)}")
        object.__setattr__(self, "disable_patterns", tuple(names))

    @property
    def strategy(self) -> str:
        """The FFT strategy the core gets ("auto" resolved)."""
        return resolve_fft(self.fft, self.inner)

    @property
    def eager_fallback(self) -> bool:
        """Whether an op the core cannot lower runs eagerly: asked for, and the receiver runs PyTorch."""
        return self.fallback == "eager" and self.target not in DEPLOY_TARGETS

    def core_kwargs(self) -> dict[str, Any]:
        """The keywords of _core.lower: each option as the core's code."""
        return {
            "truncate_double": self.truncate_double,
            "fft": _NAMES["fft"][self.strategy],
            "planar": (PLANAR_CONSTS if self.planar else 0) | (PLANAR_INPUTS if self.planar_inputs else 0),
            "rotary_op": self.rotary_op,
            "target": TARGETS[self.target],  # its op-set bit: the core checks what it emitted against it
            "pair_words": self.pair_words,
            "division": _NAMES["division"][self.division],
            "cleanup": self.cleanup,
            "disable": self.disable_patterns,
        }


# The options a user names (realify.lower's keywords, the backend's options, the CLI's flags); `inner` is set by the
# backend itself and `planar_inputs` by its `planar`.
USER_OPTIONS = tuple(f.name for f in fields(LowerOptions) if f.name not in ("inner", "planar_inputs"))
