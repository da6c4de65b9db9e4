"""Read the lowered IR (through the C parser) and rebuild it as an FX graph."""

from __future__ import annotations

import operator
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx as fx
from torch._subclasses.fake_tensor import unset_fake_temporarily

from . import _core
from ._fx_to_ir import DTYPES_BY_NAME, TAGS


@dataclass
class Ref:
    name: str


@dataclass
class Decl:
    name: str
    dtype: str
    packed_from: str | None = None
    shape: list[int | str] | None = None  # None: unknown rank; str: a symbolic size
    planar: bool = False  # with packed_from: laid out [2, ...] (real at [0], imaginary at [1])
    storage: bool = False  # with packed_from: read through its storage (as_strided), passed as a view of all of it


@dataclass
class IRNode:
    outs: list[Decl]
    op: str
    args: list[tuple[str, Any]]
    origin: int | None = None  # index of the input-graph node this node was lowered from


@dataclass
class IRConst:
    decl: Decl
    kind: str
    target: str
    data: bytes | None = None  # kind "data": the elements as little-endian bytes


@dataclass
class IRGraph:
    inputs: list[Decl] = field(default_factory=list)
    consts: list[IRConst] = field(default_factory=list)
    nodes: list[IRNode] = field(default_factory=list)
    outputs: list[tuple[Any, str | None]] = field(default_factory=list)


@dataclass
class GraphRef:
    """A higher-order op's body, by its attribute path ("@graph:<target>" in the IR)."""

    target: str


def _decode_str(s: str) -> Any:
    """A string attribute: "@tag:value" strings carry torch objects, "@@..." escapes a leading "@"."""
    if s.startswith("@@"):
        return s[1:]
    if s.startswith("@"):
        tag, _, value = s[1:].partition(":")
        if tag == "graph":
            return GraphRef(value)
        if tag == "device":
            return torch.device(value)
        if tag in ("layout", "memory_format"):
            obj = getattr(torch, value)
            assert isinstance(obj, next(t for t, n in TAGS.items() if n == tag))
            return obj
    return s


def _attr(a: Any) -> Any:
    if isinstance(a, tuple):  # ("value", name) or ("dtype", name), as the binding gives them
        kind, name = a
        return Ref(name) if kind == "value" else DTYPES_BY_NAME[name]
    if isinstance(a, list):
        return [_attr(x) for x in a]
    if isinstance(a, str):
        return _decode_str(a)
    return a


def _decl(d: tuple[str, str, str | None, list[int | str] | None, bool, bool]) -> Decl:
    name, dtype, packed_from, shape, planar, storage = d
    return Decl(name, dtype, packed_from, shape, planar, storage)


def read_graph(g: dict[str, Any]) -> IRGraph:
    """An IRGraph from the Python values the C binding returns for a graph."""
    return IRGraph(
        inputs=[_decl(d) for d in g["inputs"]],
        consts=[IRConst(_decl(d), kind, target, data) for d, kind, target, data in g["consts"]],
        nodes=[
            IRNode([_decl(d) for d in outs], op, [(k, _attr(a)) for k, a in args], origin)
            for outs, op, args, origin in g["nodes"]
        ],
        outputs=[(_attr(a), mark) for a, mark in g["outputs"]],
    )


def parse_ir(text: str) -> IRGraph:
    """Parse text IR with the C core's parser."""
    return read_graph(_core.parse(text))


def const_tensor(c: IRConst, device: torch.device | None = None) -> torch.Tensor:
    """The tensor of an inline "data" constant: its bytes, read in its dtype and shape."""
    assert c.data is not None and c.decl.shape is not None
    dtype = DTYPES_BY_NAME[c.decl.dtype]
    shape = [int(d) for d in c.decl.shape]
    data = bytearray(c.data)
    with unset_fake_temporarily():  # a real tensor, also while a compiler's fake mode is active
        raw = torch.frombuffer(data, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
        if sys.byteorder != "little":
            raw = raw.view(-1, dtype.itemsize).flip(1).reshape(-1)
        t = raw.view(dtype).reshape(shape)
        return t.to(device) if device is not None else t


def resolve_target(op: str, callables: dict[str, Any]) -> Any:
    if op.startswith("py:_operator.") and op not in callables:  # one of Python's operators, made by the core
        return getattr(operator, op.removeprefix("py:_operator."))
    if op.startswith("py:"):
        return callables[op]
    ns, name, overload = op.split(".", 2)
    return getattr(getattr(getattr(torch.ops, ns), name), overload)


def _fx_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


class Rebuilder:
    """Builds FX nodes for IR nodes, one graph at a time."""

    def __init__(self, graph: fx.Graph, callables: dict[str, Any]) -> None:
        self.graph = graph
        self.callables = callables
        self.env: dict[str, fx.Node] = {}
        self.bodies: dict[str, fx.Node] = {}

    def arg(self, a: Any) -> Any:
        if isinstance(a, Ref):
            return self.env[a.name]
        if isinstance(a, GraphRef):  # one get_attr per body, made where first read
            if a.target not in self.bodies:
                self.bodies[a.target] = self.graph.get_attr(a.target)
            return self.bodies[a.target]
        if isinstance(a, list):
            return [self.arg(x) for x in a]
        return a

    def call(self, n: IRNode) -> list[fx.Node]:
        """Emit n; returns the FX nodes made (the call, and a getitem per output of a sequence)."""
        target = resolve_target(n.op, self.callables)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        if isinstance(target, torch._ops.OpOverload):
            given = dict(n.args)
            positional = True
            for sa in target._schema.arguments:
                if sa.name not in given:
                    positional = False
                    continue
                value = self.arg(given.pop(sa.name))
                if positional and not sa.kwarg_only:
                    args.append(value)
                else:
                    positional = False
                    kwargs[sa.name] = value
            if given:
                raise ValueError(f"{n.op} has no arguments named {sorted(given)}")
        else:
            for name, a in n.args:
                if re.fullmatch(r"arg\d+", name):
                    args.append(self.arg(a))
                else:
                    kwargs[name] = self.arg(a)
        name = _fx_name(n.outs[0].name) if len(n.outs) == 1 else _multi_output_name(n.outs)
        node = self.graph.create_node("call_function", target, tuple(args), kwargs, name=name)
        if isinstance(target, torch._ops.OpOverload) and torch.Tag.dynamic_output_shape in target.tags:
            # fake tensors cannot run it (linalg_lstsq); the C core knows its output shapes
            node.meta["realify_out_decls"] = [(DTYPES_BY_NAME[d.dtype], d.shape) for d in n.outs]
        if len(n.outs) == 1 and not _returns_sequence(target):
            self.env[n.outs[0].name] = node
            return [node]
        made = [node]
        for i, d in enumerate(n.outs):
            item = self.graph.create_node("call_function", operator.getitem, (node, i), {}, name=_fx_name(d.name))
            self.env[d.name] = item
            made.append(item)
        return made


def _multi_output_name(outs: Sequence[Any]) -> str | None:
    """A multi-output node's own name: its outputs are NAME_0, NAME_1, ... (realify._fx_to_ir), so a node copied
    from the input graph gets its input name back (a name only: the C core marks what it copied). A node
    without outputs gets a fresh one."""
    return _fx_name(outs[0].name[:-2]) if outs and outs[0].name.endswith("_0") else None


def _returns_sequence(target: Any) -> bool:
    if isinstance(target, torch._ops.HigherOrderOperator):
        return True  # the HOPs realify copies return tuples (realify._fx_to_ir checks)
    if isinstance(target, torch._ops.OpOverload):
        rets = target._schema.returns
        return len(rets) > 1 or (len(rets) == 1 and isinstance(rets[0].type, torch.ListType))
    return False
