"""The torch.compile backend "realify".

It always runs through aot_autograd, which turns DTensor and other subclass
inputs into plain tensors and lifts complex buffers such as Llama's freqs_cis
into graph inputs. The forward (and backward) graph is lowered to real ops and
handed to an inner compiler; a run-time adapter converts complex arguments and
results, so callers keep using complex tensors.
"""

from __future__ import annotations

import functools
import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch.fx as fx
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

from . import _hoist, _inductor_direct, _precision
from ._aliases import input_view_outputs
from ._lowering import LoweringReport, lower_graph_module
from ._options import USER_OPTIONS, LowerOptions, check_flag, check_name
from ._out_strides import outer_output_strides, own_output_strides, report_outer_strides
from ._threads import torch_lock
from .runtime import ComplexAdapter, PackedArgCheck, real_arguments, to_lowered

InnerCompiler = Callable[[fx.GraphModule, list[Any]], Callable[..., Any]]
# The target= a named inner compiler implies when options carry none.
DEFAULT_TARGETS = {"torch_tensorrt": "tensorrt", "onnxrt": "onnx", "inductor": "inductor"}


@dataclass
class CompileEvent:
    """One graph the backend lowered: handed to options["on_lowered"]."""

    graph_before: fx.GraphModule
    graph_after: fx.GraphModule
    report: LoweringReport
    inner: str


def _inductor(
    gm: fx.GraphModule,
    example_inputs: list[Any],
    mode: str | None = None,
    direct: bool = False,
    config: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """Inductor on a lowered graph. `direct`: a graph aot_autograd handed over (and no mode) goes to Inductor's graph
    compiler without a second aot_autograd layer (realify._inductor_direct), where this torch and its configuration
    allow.
    `config`: Inductor settings for this compile (torch._inductor.config names, as torch.compile's options)."""
    from torch._inductor import config as inductor_config
    from torch._inductor import list_mode_options
    from torch._inductor.compile_fx import compile_fx

    patches = {**(list_mode_options(mode) if mode else {}), **(config or {})}
    with warnings.catch_warnings():
        # The FFT operators decompose to aten calls that hold complex buffers inside Inductor's extern kernels (the
        # lowering registered them in Inductor's table: native_fft.register_inductor_decompositions); Inductor warns
        # about complex code generation, which the lowered graph no longer needs.
        warnings.filterwarnings("ignore", message="Torchinductor does not support code generation for complex")
        if direct and mode is None:
            with inductor_config.patch(patches):
                if _inductor_direct.available():
                    return _inductor_direct.compile_inference(gm, example_inputs)
        # compile_fx applies the patches to the compiles it defers too (a training graph's backward)
        return compile_fx(gm, example_inputs, config_patches=patches or None)


def _eager(gm: fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
    return gm


def _torch_tensorrt(
    gm: fx.GraphModule, example_inputs: list[Any], options: dict[str, Any] | None = None
) -> Callable[..., Any]:
    """Torch-TensorRT's dynamo backend; `options` are its compile settings (realify._precision.tensorrt_options)."""
    try:
        import torch_tensorrt  # noqa: F401  (registers the "torch_tensorrt" dynamo backend)
    except ImportError as e:  # TensorRT ships only on NVIDIA's package index
        raise RuntimeError(
            "options['backend']='torch_tensorrt' needs the torch_tensorrt package, which is not installed"
        ) from e
    from torch._dynamo.backends.registry import lookup_backend

    return lookup_backend("torch_tensorrt")(gm, example_inputs, options=options or {})


def _onnxrt(gm: fx.GraphModule, example_inputs: list[Any], use_tf32: bool = False) -> Callable[..., Any]:
    """ONNX Runtime (realify._onnxrt; torch's own "onnxrt" backend is gone)."""
    from ._onnxrt import compile_onnxrt

    return compile_onnxrt(gm, example_inputs, use_tf32=use_tf32)


INNER_COMPILERS: dict[str, InnerCompiler] = {
    "inductor": _inductor,
    "eager": _eager,
    "torch_tensorrt": _torch_tensorrt,
    "onnxrt": _onnxrt,
}


# torch.compile's modes, which the inductor inner backend takes (torch._inductor.list_mode_options).
INDUCTOR_MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")

# Inductor settings realify gives an inference graph unless options["inductor_config"] says otherwise. Combo kernels
# launch a graph's independent kernels as one (a decode step: RoPE of q, RoPE of k with its cache write, the v write:
# 3 launches become 1, which the host time of a step follows; docs/benchmarks.md). They act on GPU code only.
INFERENCE_INDUCTOR_CONFIG: dict[str, Any] = {"combo_kernels": True}


def _resolve_inner(
    choice: str | InnerCompiler,
    mode: str | None = None,
    direct: bool = False,
    config: dict[str, Any] | None = None,
) -> tuple[str, InnerCompiler]:
    if mode is not None and (choice != "inductor" or mode not in INDUCTOR_MODES):
        raise ValueError(f"mode {mode!r} needs backend 'inductor' and one of {INDUCTOR_MODES}, got {choice!r}")
    if config and choice != "inductor":
        raise ValueError(f"inductor_config needs backend 'inductor', got {choice!r}")
    if callable(choice):
        return getattr(choice, "__name__", "callable"), choice
    if choice not in INNER_COMPILERS:
        raise ValueError(
            f"unknown realify inner backend {choice!r}; pick one of {sorted(INNER_COMPILERS)} or a callable"
        )
    if choice == "inductor" and (mode is not None or direct or config):
        return choice, functools.partial(_inductor, mode=mode, direct=direct, config=config)
    return choice, INNER_COMPILERS[choice]


def lower_options(name: str, given: dict[str, Any] | None = None) -> LowerOptions:
    """The LowerOptions of a backend compile for the inner compiler `name`, from the options that name LowerOptions
    fields (`given`, taken out of it). Where the backend's defaults differ from realify.lower's, it is because the
    backend owns the call: `planar` (default True) covers complex table inputs as well as buffers, since the adapter
    splits them once and caches the split; `target` defaults to the inner compiler's (DEFAULT_TARGETS); bfloat16
    RoPE pairs go as int32 words to Inductor (`pair_words`, docs/benchmarks.md), whose op set alone has the
    bitcasts."""
    given = given if given is not None else {}
    kw = {k: given.pop(k) for k in USER_OPTIONS if k in given}
    planar = kw.pop("planar", True)
    target = kw.pop("target", None)
    if target is None:
        target = DEFAULT_TARGETS.get(name, "portable")
    kw.setdefault("pair_words", name == "inductor" and target == "inductor")
    return LowerOptions(**kw, planar=planar, planar_inputs=planar, target=target, inner=name)  # checks them all


def compile_lowered(
    gm: fx.GraphModule,
    example_inputs: list[Any],
    *,
    inner: str | InnerCompiler = "inductor",
    options: LowerOptions | None = None,
    on_lowered: Callable[[CompileEvent], None] | None = None,
    input_views: bool = True,
    mode: str | None = None,
    direct: bool = False,
    static_inputs: frozenset[int] = frozenset(),
    inductor_config: dict[str, Any] | None = None,
    tensorrt_options: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """Lower an aten graph, compile it with `inner`, and wrap it with the complex adapter.

    `options`: how to lower (default: lower_options(inner's name), the backend's defaults for that compiler).

    With `input_views` (forward graphs), outputs that are views of complex inputs are the caller's tensors seen
    through the traced view chain, as aot_autograd needs them (realify._aliases).

    With `options.planar_inputs`, complex tables (freqs_cis lifted into an input) may cross as contiguous [2, ...]
    real tensors; the C core picks which, and the adapter splits each once and caches the split.

    `direct`: gm is a graph aot_autograd handed over (inference, or a training step's forward or backward); Inductor
    may compile it without a second aot_autograd layer.

    `static_inputs`: positions of gm's inputs that are parameters or buffers, given for an inference graph: what the
    lowered graph computes from complex ones alone moves into a prologue that the adapter runs once and caches
    (realify._hoist); not under a CUDA-graph mode, whose replays copy every input that is not a parameter.

    `inductor_config`: Inductor settings (torch._inductor.config names) for the inner compile, over the mode's.

    `tensorrt_options`: Torch-TensorRT settings for backend "torch_tensorrt", over realify's TF32 choice
    (realify._precision.tensorrt_options). Under the other backends, DFT matmuls that TF32 would reach on CUDA
    raise a Tf32DftWarning.

    `options.fallback`: "eager" runs an op realify cannot lower as the original complex op, in a graph break
    (realify._fallback), except for a deploy target."""
    name, inner_fn = _resolve_inner(inner, mode, direct, inductor_config)
    opts = options if options is not None else lower_options(name)
    if opts.inner != name:  # "auto" and the defaults were chosen for another compiler
        raise ValueError(f"compile_lowered: options were made for inner compiler {opts.inner!r}, not {name!r}")
    real_gm, report = lower_graph_module(gm, opts)
    sources = frozenset(int(b.position) for b in report.signature.inputs if b.packed) & static_inputs
    prologue = _hoist.hoist(real_gm, sources) if sources and mode is None else None
    if prologue is not None:  # the lowering's argument check speaks of positions the hoisted graph no longer has
        for key, hook in list(real_gm._forward_pre_hooks.items()):
            if isinstance(hook, PackedArgCheck):
                del real_gm._forward_pre_hooks[key]
    if on_lowered is not None:
        on_lowered(CompileEvent(gm, real_gm, report, name))
    dfts = report.dft_matmul_sources
    if name == "torch_tensorrt":
        inner_fn = functools.partial(inner_fn, options=_precision.tensorrt_options(dfts, tensorrt_options))
    elif name == "onnxrt":  # its CUDA provider: TF32 as for TensorRT
        inner_fn = functools.partial(inner_fn, use_tf32=_precision.runtime_tf32(dfts))
    elif dfts and _precision.on_cuda(example_inputs) and _precision.cuda_matmul_tf32():
        _precision.warn_tf32_dfts(dfts, name)
    real_args = real_arguments(report.signature, example_inputs)
    hoisted = None
    if prologue is not None:
        extra = _hoist.run_prologue(prologue, real_args)
        real_args = [a for i, a in enumerate(real_args) if i not in prologue.dropped] + extra
        bounds = {int(b.position): b for b in report.signature.inputs}
        hoisted = _hoist.HoistedInputs(prologue, lambda i, x: to_lowered(x, bounds[i]))
    with own_output_strides():
        compiled = inner_fn(real_gm, real_args)
    views = input_view_outputs(gm) if input_views else ([], None)
    report_outer_strides(outer_output_strides(real_gm, report.signature, views[0]))
    if not report.signature.inputs and not report.signature.outputs:
        return compiled
    return ComplexAdapter(compiled, report.signature, views, hoisted)


def _checked_inductor_config(config: Any) -> dict[str, Any] | None:
    """options["inductor_config"] checked before tracing: a dict of torch._inductor.config names."""
    if config is None:
        return None
    if not isinstance(config, dict) or not all(isinstance(k, str) for k in config):
        raise ValueError(f"inductor_config must be a dict of torch._inductor.config names, got {config!r}")
    from torch._inductor import config as inductor_config

    try:
        with inductor_config.patch(config):
            pass
    except AttributeError as e:
        raise ValueError(f"inductor_config: {e}") from None
    return dict(config)


def _checked_tensorrt_options(options: Any, inner: Any) -> dict[str, Any] | None:
    """options["tensorrt_options"] checked before tracing: Torch-TensorRT settings by name, for its backend only."""
    if options is None:
        return None
    if inner != "torch_tensorrt" or not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise ValueError(
            f"tensorrt_options needs backend 'torch_tensorrt' and a dict of Torch-TensorRT settings, got "
            f"{options!r} with backend {inner!r}"
        )
    return dict(options)


def realify_backend(
    gm: fx.GraphModule, example_inputs: list[Any], options: dict[str, Any] | None = None, **_: Any
) -> Callable[..., Any]:
    """torch.compile(model, backend="realify", options={"backend": "inductor"}).

    options:
      backend: "inductor" (default), "eager", "torch_tensorrt", "onnxrt" (ONNX Runtime, realify._onnxrt; static
        shapes), or a callable(gm, inputs).
      mode: torch.compile's mode for the inductor backend ("reduce-overhead" replays CUDA graphs, which removes
        the host's per-call cost where small kernels leave the GPU waiting).
      on_lowered: callable receiving a CompileEvent for every lowered graph.
      direct: the graphs aot_autograd hands over (inference, and a training step's forward and backward) go to
        Inductor's graph compiler without a second aot_autograd layer, which saves compile time and host time on
        every call (default True; realify._inductor_direct says when it applies).
      inductor_config: Inductor settings for the inner compile, by torch._inductor.config name (as torch.compile's
        options for Inductor), over the mode's settings; needs backend "inductor". Inference graphs get
        INFERENCE_INDUCTOR_CONFIG (combo kernels) under these ({"combo_kernels": False} turns them off).
      hoist: in inference graphs, what is computed from complex parameters and buffers alone (the real embedding
        of complex weights) runs once, in the adapter, and is reused while their data is unchanged (default True;
        realify._hoist).
      tensorrt_options: Torch-TensorRT compile settings for backend "torch_tensorrt" (its torch.compile options).
        realify sets disable_tf32: True where the graph holds DFT matmuls (TensorRT builds with TF32 by default,
        about 4e-4 off torch.fft), else torch's own CUDA matmul setting; these settings go over that.
      The lowering options, realify.LowerOptions's fields with realify.lower's meaning (lower_options picks the
      backend's defaults):
      truncate_double: no float64 left anywhere: complex128 as float32 pairs, real float64 values as float32; the
        adapter casts float64 arguments down and results back up (default False).
      fft: "auto" (default: the platform FFT behind realify.fft_* operators for inductor and eager, DFT
           matmuls for the others), "matmul", "native" or "onnx-dft".
      planar: let complex tables such as freqs_cis cross as contiguous [2, ...] real tensors: buffers folded at
        lowering, as realify.lower(planar=True) does, and, unlike there, table inputs too, split once by the adapter
        and cached (default True; False keeps every complex value a [..., 2] view).
      target: the op set the lowered graph is checked against (realify.targets.TARGETS); default: the inner
        compiler's ("tensorrt" for torch_tensorrt, "onnx" for onnxrt, "inductor" for inductor), else "portable".
      division: "c10" (default, eager PyTorch's) or "scaled".
      rotary_op, pair_words (default: on for inductor with target inductor), cleanup: as realify.LowerOptions.
      fallback: "error" (default) or "eager": an op realify cannot lower runs as the original complex op in a
        graph break (realify._fallback), listed in the CompileEvent's report and named by an EagerFallbackWarning;
        under a deploy target (torch_tensorrt, onnxrt, or target= one of them) it still raises UnsupportedOpError.
    """
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"realify: options must be a dict, not {type(options).__name__}")
    opts = dict(options or {})
    inner = opts.pop("backend", "inductor")
    on_lowered = opts.pop("on_lowered", None)
    mode = opts.pop("mode", None)
    direct = opts.pop("direct", True)
    hoist = opts.pop("hoist", True)
    if on_lowered is not None and not callable(on_lowered):  # by type, before tracing
        raise TypeError(f"realify: on_lowered must be a callable taking a CompileEvent, not {on_lowered!r}")
    check_name("mode", mode)
    check_flag("direct", direct)
    check_flag("hoist", hoist)
    inductor_config = _checked_inductor_config(opts.pop("inductor_config", None))
    tensorrt_options = _checked_tensorrt_options(opts.pop("tensorrt_options", None), inner)
    name, _ = _resolve_inner(inner, mode, config=inductor_config)  # a bad mode fails here, before tracing
    lowering = lower_options(name, opts)  # every lowering option checked here, once, before tracing
    if opts:
        raise ValueError(f"unknown realify options: {sorted(opts)}")
    static = _hoist.static_positions(example_inputs) if hoist else frozenset()

    def compiler(
        fx_gm: fx.GraphModule, inputs: list[Any], input_views: bool = True, inference: bool = False
    ) -> Callable[..., Any]:
        fn = compile_lowered(
            fx_gm,
            inputs,
            inner=inner,
            options=lowering,
            on_lowered=on_lowered,
            input_views=input_views,
            mode=mode,
            direct=direct,
            static_inputs=static if inference and len(inputs) == len(example_inputs) else frozenset(),
            inductor_config={**INFERENCE_INDUCTOR_CONFIG, **(inductor_config or {})}
            if inference and inner == "inductor"
            else inductor_config,
            tensorrt_options=tensorrt_options,
        )
        if isinstance(fn, ComplexAdapter):
            return fn.boxed
        return fn if getattr(fn, "realify_boxed", False) else make_boxed_func(fn)

    def bw_compiler(fx_gm: fx.GraphModule, inputs: list[Any]) -> Callable[..., Any]:
        return compiler(fx_gm, inputs, input_views=False)  # gradients are fresh tensors, never the caller's views

    def inference_compiler(fx_gm: fx.GraphModule, inputs: list[Any]) -> Callable[..., Any]:
        return compiler(fx_gm, inputs, inference=True)

    return aot_autograd(
        fw_compiler=compiler,
        bw_compiler=bw_compiler,
        inference_compiler=inference_compiler,
        keep_inference_input_mutations=True,
    )(gm, example_inputs)


def _loaded_by_dynamo() -> bool:
    """Whether this import is dynamo's lookup_backend loading the entry point (it registers the result itself)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "lookup_backend" and code.co_filename.endswith(os.path.join("backends", "registry.py")):
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def register() -> None:
    """Register "realify" with dynamo, once, whichever threads ask (`import realify` does; without the import
    dynamo loads the entry point). Registered on import, "realify" is found by every later torch.compile without
    dynamo's own check-then-register, which two threads can race ("duplicate name: realify")."""
    from torch._dynamo.backends.registry import _COMPILER_FNS, register_backend

    with torch_lock():
        if "realify" not in _COMPILER_FNS and not _loaded_by_dynamo():
            register_backend(name="realify")(realify_backend)


__all__ = ["CompileEvent", "compile_lowered", "realify_backend", "register"]
