"""Inductor for a lowered aot_autograd graph, without a second aot_autograd layer.

The backend has already run aot_autograd: the graph it lowers (an inference graph, or a training step's forward or
backward) is functional (input mutations, such as a KV-cache write, are copy_ nodes at its end) and holds no
autograd. compile_fx would trace it through aot_autograd again, which costs compile time, and every call would then
pass two layers of run-time wrappers (a few µs of host time per call, the cost that matters in a decode step). Here
the lowered graph is traced once more with Inductor's decomposition table, as that second aot_autograd would, and
handed to Inductor's graph compiler directly, flagged as compile_fx flags it: an inference graph, whatever its role
in the outer aot_autograd. (Flagged as a backward, the lowered backward of the corpus's complextorch Conv1d gave a
wrong weight gradient; the cause is not known, and donated buffers are not it.)

Only plain graphs take this path (no CUDA graphs, no freezing, no C++ wrapper, no mode): anything else, or a torch
release whose Inductor lacks one of the entry points used here, goes through compile_fx as before.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import torch
import torch.fx as fx


def available() -> bool:
    """Whether this torch's Inductor and its configuration allow the direct path."""
    try:
        from torch._inductor import config
        from torch._inductor.compile_fx import compile_fx_inner  # noqa: F401
        from torch._inductor.decomposition import select_decomp_table  # noqa: F401
        from torch._inductor.utils import BoxedBool  # noqa: F401
    except ImportError:
        return False
    return not (config.triton.cudagraphs or config.freezing or config.cpp_wrapper)


def _lifted_constants(gm: fx.GraphModule) -> tuple[fx.GraphModule, list[torch.Tensor]]:
    """A copy of gm whose tensor attributes (folded constants, DFT matrices, parameters) are trailing placeholders
    instead, and those tensors in order: Inductor's graph compiler takes only fake-traced inputs, as aot_autograd
    hands them over with the module's tensors lifted. gm itself is left as it is."""
    graph = fx.Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    placeholders = graph.find_nodes(op="placeholder")
    constants: list[torch.Tensor] = []
    for node in list(graph.find_nodes(op="get_attr")):
        value = operator.attrgetter(node.target)(gm)
        if not isinstance(value, torch.Tensor):
            continue
        first = next(iter(graph.nodes))
        with graph.inserting_after(placeholders[-1]) if placeholders else graph.inserting_before(first):
            lifted = graph.placeholder(f"realify_constant_{len(constants)}")
        lifted.meta.update(node.meta)
        node.replace_all_uses_with(lifted)
        graph.erase_node(node)
        placeholders.append(lifted)
        constants.append(value)
    return fx.GraphModule(gm, graph), constants


def _decomposed(gm: fx.GraphModule, example_inputs: list[Any], fake_mode: Any) -> fx.GraphModule:
    """gm traced again with Inductor's decompositions (the realify.fft_* operators' included, where the lowering
    registered them), under the fake mode of the example inputs."""
    from torch._inductor.decomposition import select_decomp_table
    from torch.fx.experimental.proxy_tensor import make_fx

    with fake_mode, torch.no_grad():
        traced = make_fx(gm, decomposition_table=select_decomp_table())(*example_inputs)
    output = traced.graph.find_nodes(op="output")[0]
    results = output.args[0] if isinstance(output.args[0], (list, tuple)) else (output.args[0],)
    # Every result reaches the caller: Inductor keeps their strides as traced (compile_fx marks them so too).
    output.meta["user_visible_output_idxs"] = [i for i, n in enumerate(results) if isinstance(n, fx.Node)]
    return traced


def compile_inference(gm: fx.GraphModule, example_inputs: list[Any]) -> Callable[..., Any]:
    """The lowered graph compiled by Inductor's graph compiler as an inference graph, called in aot_autograd's boxed
    convention (one list of arguments, marked `_boxed_call` and `realify_boxed`)."""
    from torch._guards import detect_fake_mode
    from torch._inductor.compile_fx import compile_fx_inner
    from torch._inductor.utils import BoxedBool

    lifted, constants = _lifted_constants(gm)
    fake_mode = detect_fake_mode(example_inputs)
    if fake_mode is None:
        raise RuntimeError("the direct Inductor path needs fake example inputs")
    inputs = [*example_inputs, *(fake_mode.from_tensor(c, static_shapes=True) for c in constants)]
    traced = _decomposed(lifted, inputs, fake_mode)
    compiled = compile_fx_inner(traced, inputs, cudagraphs=BoxedBool(False), is_inference=True)
    if not constants and getattr(compiled, "_boxed_call", False):
        # nothing to append: Inductor's compiled graph is called as it is, one Python frame less on every call
        compiled.realify_boxed = True  # type: ignore[attr-defined]
        return compiled

    def run(args: list[Any]) -> Any:
        args.extend(constants)
        return compiled(args)

    run._boxed_call = True  # type: ignore[attr-defined]  # aot_autograd's convention: one list, which it may clear
    run.realify_boxed = True  # type: ignore[attr-defined]  # ComplexAdapter trusts this mark, not _boxed_call
    return run


__all__ = ["available", "compile_inference"]
