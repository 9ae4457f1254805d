"""A textual reader of TritonGPU IR (``.ttgir`` / ``.mlir``), with no MLIR dependency.

It recognizes what layout checking needs and skips the rest:

- alias definitions ``#name = #ttg.blocked<{...}>`` (possibly over several
  lines; later aliases may use earlier ones);
- ``module attributes {...}``: ``ttg.num-warps``, ``ttg.threads-per-warp``,
  ``ttg.num-ctas``, ``ttg.target`` (several modules per file, split by
  ``// -----`` as in Triton's lit tests);
- every operation line: its name, its source line, and every
  ``tensor<AxBxT, #enc>`` / ``!ttg.memdesc<AxBxT, #enc, #space[, mutable][, allocShape]>``
  type it mentions, split into operand and result types.

A construct the reader cannot understand (an unknown alias, mismatched
brackets, an attribute that does not parse) becomes a `Problem` with its line;
everything else in the module is still read.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from ..encodings.base import Encoding
from ..errors import CheckerError

_ALIAS_DEF = re.compile(r"^\s*#([A-Za-z_][\w$.-]*)\s*=\s*(.*)$")
_OP_NAME = re.compile(r"^\s*(?:(?:%[\w#:$.-]+(?::\d+)?\s*,\s*)*%[\w#:$.-]+(?::\d+)?\s*=\s*)?\"?([a-z_][\w]*\.[\w.]+)\"?")
_MODULE = re.compile(r"^\s*module\b")
_ELEMENT_TYPES = re.compile(r"^(?:[fiu]\d+|bf16|tf32|f8E\w+|f4E\w+|f6E\w+|index|!tt\.ptr<.*>|[a-z]\w*)$")


@dataclass
class Problem:
    line: int
    message: str


@dataclass
class TypeRef:
    """One tensor or memdesc type as written, with its encoding resolved when possible."""

    kind: str                     # "tensor" | "memdesc"
    shape: list[int]
    element_type: str
    encoding_text: str | None
    encoding: Encoding | None
    memory_space: str | None = None
    mutable: bool = False
    alloc_shape: list[int] | None = None

    @property
    def element_bits(self) -> int | None:
        m = re.search(r"(\d+)", self.element_type)
        if self.element_type.startswith("!tt.ptr"):
            return 64
        return int(m.group(1)) if m else None


@dataclass
class Operation:
    name: str
    line: int
    text: str
    operand_types: list[TypeRef] = field(default_factory=list)
    result_types: list[TypeRef] = field(default_factory=list)

    @property
    def types(self) -> list[TypeRef]:
        return self.operand_types + self.result_types


@dataclass
class Module:
    file: str
    line: int
    num_warps: int | None = None
    threads_per_warp: int | None = None
    num_ctas: int | None = None
    target: str | None = None
    aliases: dict[str, Encoding] = field(default_factory=dict)
    alias_lines: dict[str, int] = field(default_factory=dict)
    operations: list[Operation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    op_counts: Counter = field(default_factory=Counter)


AttributeParser = Callable[[str, dict], Encoding]


def _default_parser() -> AttributeParser:
    """Parse and verify (Triton verifies every attribute as it parses it)."""
    from .mlir_attr import parse_attribute

    def parse(text: str, aliases: dict) -> Encoding:
        enc = parse_attribute(text, aliases)
        enc.validate()
        return enc
    return parse


def balanced_end(text: str, start: int, open_ch: str = "<", close_ch: str = ">") -> int:
    """Index just past the bracket that closes text[start] (an open_ch), or -1.

    Only <>, {}, [] and () are tracked, and '->' is not a bracket.
    """
    pairs = {"<": ">", "{": "}", "[": "]", "(": ")"}
    stack = []
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "-" and text.startswith("->", i):
            i += 2
            continue
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch in ">}])":
            if not stack or stack[-1] != ch:
                return -1
            stack.pop()
            if not stack:
                return i + 1
        i += 1
    return -1


def _strip_comment(line: str) -> str:
    i = line.find("//")
    return line if i < 0 else line[:i]


def _scan(text: str, opening: str = "<{[(", closing: str = ">}])"):
    """(index, token, depth before it) for every character of text; an arrow '->' is one token
    and no bracket."""
    depth = 0
    i = 0
    while i < len(text):
        if text.startswith("->", i):
            yield i, "->", depth
            i += 2
            continue
        ch = text[i]
        yield i, ch, depth
        if ch in opening:
            depth += 1
        elif ch in closing:
            depth -= 1
        i += 1


def _split_top(text: str, sep: str = ",") -> list[str]:
    """text split at the separators outside every bracket."""
    cuts = [i for i, tok, depth in _scan(text) if tok == sep and depth == 0]
    parts = [text[a + 1:b].strip() for a, b in zip([-1] + cuts, cuts + [len(text)])]
    if not parts[-1]:
        parts.pop()                     # nothing after the last separator
    return parts


def parse_type(text: str, aliases: dict, parse_attr: AttributeParser) -> TypeRef:
    """`tensor<...>` or `!ttg.memdesc<...>` (the whole type text)."""
    kind = "memdesc" if text.startswith(("!ttg.memdesc", "<")) else "tensor"
    body = text[text.index("<") + 1:-1]
    parts = _split_top(body)
    dims = parts[0].split("x")
    shape = []
    for i, d in enumerate(dims):
        if d.strip().isdigit():
            shape.append(int(d))
        else:
            element = "x".join(dims[i:]).strip()
            break
    else:
        raise CheckerError(f"type '{text}' has no element type")
    enc_text = parts[1] if len(parts) > 1 and parts[1].startswith("#") else None
    ref = TypeRef(kind, shape, element, enc_text, None)
    if kind == "memdesc":
        for p in parts[2:]:
            if p.startswith("#"):
                ref.memory_space = p
            elif p == "mutable":
                ref.mutable = True
            elif re.fullmatch(r"\d+(x\d+)*", p):
                ref.alloc_shape = [int(x) for x in p.split("x")]
    if enc_text is not None and not _is_memory_space(enc_text):
        ref.encoding = parse_attr(enc_text, aliases)
    return ref


def _is_memory_space(text: str) -> bool:
    return text in ("#smem", "#ttg.shared_memory", "#ttng.tensor_memory") or text.endswith("shared_memory")


def _find_types(signature: str) -> list[tuple[int, str]]:
    """(position, text) of every tensor<...> / !ttg.memdesc<...> in a type signature; a bare
    <...> result (`-> <128x32xf16, #shared, #smem, mutable>`, as async copies print it) is a memdesc."""
    out = []
    for m in re.finditer(r"!ttg\.memdesc<|(?<![\w!.])tensor<|(?<=->\s)<", signature):
        start = m.start()
        end = balanced_end(signature, m.end() - 1)
        if end < 0:
            raise CheckerError(f"unbalanced brackets in type starting '{signature[start:start + 40]}'")
        out.append((start, signature[start:end]))
    return out


def _signature(op_text: str) -> str | None:
    """The text after the operation's last top-level ' : ' (its type signature)."""
    colons = [i for i, tok, depth in _scan(op_text)
              if tok == ":" and depth == 0 and 0 < i < len(op_text) - 1 and op_text[i - 1] == op_text[i + 1] == " "]
    return op_text[colons[-1] + 1:] if colons else None


def _module_attrs(text: str, module: Module) -> None:
    def grab(key: str):
        m = re.search(r'"?' + re.escape(key) + r'"?\s*=\s*("([^"]*)"|(\d+))', text)
        if not m:
            return None
        return m.group(2) if m.group(2) is not None else int(m.group(3))
    module.num_warps = grab("ttg.num-warps")
    module.threads_per_warp = grab("ttg.threads-per-warp")
    module.num_ctas = grab("ttg.num-ctas")
    module.target = grab("ttg.target")


def read_ttgir(text: str, file: str = "<stdin>", parse_attr: AttributeParser | None = None) -> list[Module]:
    """Read every module of a TTGIR text; problems are collected, never raised."""
    parse_attr = parse_attr or _default_parser()
    lines = text.splitlines()
    modules: list[Module] = []
    shared_aliases: dict[str, Encoding] = {}
    current = Module(file, 1)

    def new_module(line_no: int) -> Module:
        m = Module(file, line_no)
        m.aliases.update(shared_aliases)
        return m

    i = 0
    while i < len(lines):
        raw = lines[i]
        line_no = i + 1
        stripped = _strip_comment(raw).strip()
        if raw.strip().startswith("// -----"):
            if _has_content(current):
                modules.append(current)
            shared_aliases = {}
            current = new_module(line_no + 1)
            i += 1
            continue
        if not stripped:
            i += 1
            continue
        # gather a statement spanning several lines while brackets are open
        stmt, j = stripped, i
        while _open_brackets(stmt) > 0 and j + 1 < len(lines) and not _MODULE.match(stmt):
            j += 1
            nxt = _strip_comment(lines[j]).strip()
            if _ALIAS_DEF.match(nxt) or nxt.startswith("// -----"):
                j -= 1
                break
            stmt += " " + nxt
            if stmt.rstrip().endswith("{") and not _ALIAS_DEF.match(stmt):
                break
        m = _ALIAS_DEF.match(stmt)
        if m:
            name, body = m.group(1), m.group(2).strip()
            if _open_brackets(body) != 0:
                current.problems.append(Problem(line_no, f"alias #{name}: mismatched brackets"))
            elif body.startswith("#") and not _is_memory_space(body) and "." in body.split("<")[0]:
                try:
                    enc = parse_attr(body, current.aliases)
                    current.aliases[name] = enc
                    current.alias_lines[name] = line_no
                    shared_aliases[name] = enc
                except CheckerError as e:
                    current.problems.append(Problem(line_no, f"alias #{name}: {e.message}"))
                    current.op_counts["<unparsed alias>"] += 1
            i = j + 1
            continue
        if _MODULE.match(stmt):
            if current.operations or current.num_warps is not None:
                modules.append(current)
                current = new_module(line_no)
            current.line = line_no
            head = stmt
            k = i
            while "{" in head and balanced_end(head, head.index("{"), "{", "}") < 0 and k + 1 < len(lines) \
                    and "attributes" in head and not head.rstrip().endswith("{"):
                k += 1
                head += " " + _strip_comment(lines[k]).strip()
            _module_attrs(head, current)
            i = max(j, k) + 1
            continue
        om = _OP_NAME.match(stmt)
        if om:
            op = Operation(om.group(1), line_no, stmt)
            sig = _signature(stmt) if op.name != "tt.func" else _arguments(stmt)
            if sig is not None:
                try:
                    arrow = _top_level_arrow(sig)
                    for pos, ty in _find_types(sig):
                        ref = parse_type(ty, current.aliases, parse_attr)
                        (op.result_types if arrow is not None and pos > arrow else op.operand_types).append(ref)
                except CheckerError as e:
                    current.problems.append(Problem(line_no, f"{op.name}: {e.message}"))
            current.operations.append(op)
            current.op_counts[op.name] += 1
        i = j + 1
    if _has_content(current) or not modules:
        modules.append(current)
    return modules


def _arguments(func_text: str) -> str | None:
    """A tt.func's argument list (its types are the function's tensor arguments), or None."""
    start = func_text.find("(")
    end = balanced_end(func_text, start, "(", ")") if start >= 0 else -1
    return func_text[start + 1:end - 1] if end > 0 else None


def _has_content(m: Module) -> bool:
    """Anything read into a module: operations, problems, module attributes or its own aliases."""
    return bool(m.operations or m.problems or m.num_warps is not None or m.alias_lines)


def _open_brackets(text: str) -> int:
    """How many <, [ and ( are still open at the end of text (braces open regions, not types)."""
    return sum((tok in "<[(") - (tok in ">])") for _, tok, _ in _scan(text, "<[(", ">])") if tok != "->")


def _top_level_arrow(sig: str) -> int | None:
    return next((i for i, tok, depth in _scan(sig) if tok == "->" and depth == 0), None)
