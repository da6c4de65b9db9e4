"""Parse the lowered text IR and rebuild it as an FX graph."""

from __future__ import annotations

import operator
import re
import sys
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.fx as fx
from torch._subclasses.fake_tensor import unset_fake_temporarily

from ._fx_to_ir import DTYPES_BY_NAME, TAGS

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<value>%[A-Za-z0-9_.]+)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<number>-?(?:inf|nan)(?![A-Za-z0-9_])|-?\d[\d.]*(?:[eE][+-]?\d+)?)
  | (?P<word>[A-Za-z_][A-Za-z0-9_.:]*)
  | (?P<punct>[\[\](),=:!{}?])
)""",
    re.VERBOSE,
)


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


@dataclass
class IRNode:
    outs: list[Decl]
    op: str
    args: list[tuple[str, Any]]


@dataclass
class IRConst:
    decl: Decl
    kind: str
    target: str
    data: str | None = None  # kind "data": the elements as hex of their little-endian bytes


@dataclass
class IRGraph:
    inputs: list[Decl] = field(default_factory=list)
    consts: list[IRConst] = field(default_factory=list)
    nodes: list[IRNode] = field(default_factory=list)
    outputs: list[tuple[Any, str | None]] = field(default_factory=list)


class _Line:
    def __init__(self, text: str) -> None:
        self.toks: list[tuple[str, str]] = []
        pos = 0
        text = text.rstrip()
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise ValueError(f"cannot tokenize IR line: {text!r}")
            kind = m.lastgroup
            assert kind is not None
            self.toks.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def accept(self, text: str) -> bool:
        tok = self.peek()
        if tok and tok[1] == text:
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        if not self.accept(text):
            raise ValueError(f"expected {text!r} in IR at token {self.peek()}")

    def decl(self) -> Decl:
        kind, name = self.take()
        assert kind == "value", name
        self.expect(":")
        _, dtype = self.take()
        shape: list[int | str] | None = []
        if self.accept("["):
            while not self.accept("]"):
                kind, text = self.take()
                if text == "?":
                    shape = None
                elif kind == "number":
                    assert shape is not None
                    shape.append(int(text))
                elif kind in ("word", "string"):
                    assert shape is not None
                    shape.append(_unquote(text) if kind == "string" else text)
        packed = self.take()[1] if self.accept("!") else None
        planar = packed is not None and self.accept("planar")
        return Decl(name[1:], dtype, packed, shape, planar)

    def attr(self) -> Any:
        kind, text = self.take()
        if kind == "value":
            return Ref(text[1:])
        if kind == "string":
            return _unquote(text)
        if kind == "number":
            if text in ("inf", "-inf", "nan", "-nan") or any(c in text for c in ".eE"):
                return float(text)
            return int(text)
        if text == "[":
            items = []
            if not self.accept("]"):
                items.append(self.attr())
                while self.accept(","):
                    items.append(self.attr())
                self.expect("]")
            return items
        if text == "none":
            return None
        if text in ("true", "false"):
            return text == "true"
        if text == "complex":
            self.expect("(")
            re_part = float(self.take()[1])
            self.expect(",")
            im_part = float(self.take()[1])
            self.expect(")")
            return complex(re_part, im_part)
        if text in DTYPES_BY_NAME:
            return DTYPES_BY_NAME[text]
        raise ValueError(f"unexpected IR token {text!r}")


def _unquote(text: str) -> Any:
    s = re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text[1:-1])
    if s.startswith("@@"):
        return s[1:]
    if s.startswith("@"):
        tag, _, value = s[1:].partition(":")
        if tag == "device":
            return torch.device(value)
        if tag in ("layout", "memory_format"):
            obj = getattr(torch, value)
            assert isinstance(obj, next(t for t, n in TAGS.items() if n == tag))
            return obj
    return s


def parse_ir(text: str) -> IRGraph:
    g = IRGraph()
    for line in text.splitlines():
        if not line.strip() or line.strip() in ("graph {", "}"):
            continue
        ln = _Line(line)
        head = ln.peek()
        assert head is not None
        if head[1] == "input":
            ln.take()
            g.inputs.append(ln.decl())
        elif head[1] == "const":
            ln.take()
            d = ln.decl()
            ln.expect("=")
            kind = ln.take()[1]
            target = _unquote(ln.take()[1])
            data = ln.take()[1][1:-1] if kind == "data" else None
            g.consts.append(IRConst(d, kind, target, data))
        elif head[1] == "output":
            ln.take()
            ln.expect("(")
            if not ln.accept(")"):
                while True:
                    a = ln.attr()
                    mark = ln.take()[1] if ln.accept("!") else None
                    g.outputs.append((a, mark))
                    if ln.accept(")"):
                        break
                    ln.expect(",")
        else:
            outs: list[Decl] = []
            if ln.accept("("):
                ln.expect(")")
            else:
                outs.append(ln.decl())
                while ln.accept(","):
                    outs.append(ln.decl())
            ln.expect("=")
            op = ln.take()[1]
            ln.expect("(")
            args: list[tuple[str, Any]] = []
            if not ln.accept(")"):
                while True:
                    name = ln.take()[1]
                    ln.expect("=")
                    args.append((name, ln.attr()))
                    if ln.accept(")"):
                        break
                    ln.expect(",")
            g.nodes.append(IRNode(outs, op, args))
    return g


def const_tensor(c: IRConst, device: torch.device | None = None) -> torch.Tensor:
    """The tensor of an inline "data" constant: its bytes, read in its dtype and shape."""
    assert c.data is not None and c.decl.shape is not None
    dtype = DTYPES_BY_NAME[c.decl.dtype]
    shape = [int(d) for d in c.decl.shape]
    data = bytearray.fromhex(c.data)
    with unset_fake_temporarily():  # a real tensor, also while a compiler's fake mode is active
        raw = torch.frombuffer(data, dtype=torch.uint8) if data else torch.empty(0, dtype=torch.uint8)
        if sys.byteorder != "little":
            raw = raw.view(-1, dtype.itemsize).flip(1).reshape(-1)
        t = raw.view(dtype).reshape(shape)
        return t.to(device) if device is not None else t


def resolve_target(op: str, callables: dict[str, Any]) -> Any:
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

    def arg(self, a: Any) -> Any:
        if isinstance(a, Ref):
            return self.env[a.name]
        if isinstance(a, list):
            return [self.arg(x) for x in a]
        return a

    def call(self, n: IRNode) -> None:
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
        name = _fx_name(n.outs[0].name) if len(n.outs) == 1 else None
        node = self.graph.create_node("call_function", target, tuple(args), kwargs, name=name)
        if len(n.outs) == 1 and not _returns_sequence(target):
            self.env[n.outs[0].name] = node
        else:
            for i, d in enumerate(n.outs):
                self.env[d.name] = self.graph.create_node(
                    "call_function", operator.getitem, (node, i), {}, name=_fx_name(d.name)
                )


def _returns_sequence(target: Any) -> bool:
    if isinstance(target, torch._ops.OpOverload):
        rets = target._schema.returns
        return len(rets) > 1 or (len(rets) == 1 and isinstance(rets[0].type, torch.ListType))
    return False
