"""A textual reader of TritonGPU IR (``.ttgir`` / ``.mlir``), with no MLIR dependency.

It reads what layout checking needs and skips the rest:

- alias definitions ``#name = #ttg.blocked<{...}>`` (over several lines, several
  on one line, later ones using earlier ones), each parsed and verified as
  Triton parses it; type aliases ``!name = tensor<...>``, expanded where used;
  ``#loc`` and other non-layout aliases are skipped;
- ``module attributes {...}``: every attribute (`Module.attributes`), with
  ``ttg.num-warps``, ``ttg.threads-per-warp``, ``ttg.num-ctas`` and
  ``ttg.target`` also as fields; several modules per file, split by lit's
  ``// -----`` lines;
- every operation, custom or generic form (``"ttg.convert_layout"(%0) : (...) -> ...``),
  at any nesting (``tt.func`` bodies, ``scf.for``/``scf.if`` regions,
  ``ttg.warp_specialize`` partitions, ``tt.reduce`` combiners): its name, lines,
  result and operand SSA names, the values it declares for its regions, its
  attribute dictionaries, and every ``tensor<...>``, ``!ttg.memdesc<...>`` and
  ``!tt.tensordesc<...>`` type it mentions; the arguments of a block header
  ``^bb0(%a: T):`` are arguments of the operation whose region it opens.

Statements. A section is a stream of statements. A statement ends at the end of
a line where no bracket is open, unless it ends with ``,``, ``->``, ``=`` or
``*`` or the next line continues it (it starts with ``:``, ``->``, ``*``, ``{``,
``loc(``, ``attributes``, ``else``, ``do``, ``default`` or ``partitionN``, or with a ``%value`` not
followed by ``=``). A
``{`` that ends a line outside any ``<``, ``[`` or ``{``
opens a region (unless the next line is an attribute entry ``key = ...``): the
statement waits while the region's statements are read, and the ``}`` that
closes the region resumes it (``} else {``, ``}) : (...) -> ...``).

Types. After the statement's last top-level `` : `` comes its signature: types
before its top-level ``->`` are operand types, after it result types, and a
signature without an arrow (``arith.addf %a, %b : tensor<...>``) gives operand
types. Before the signature, a type after a top-level ``->`` (``scf.for ... ->
(tensor<...>)``, a function's results) is a result type; a type in a parenthesized
declaration list ``(%a: T, ...)`` (function, block or partition arguments) is an
argument type; types inside attribute dictionaries are not types of the op.
A function (``tt.func``, ``*.func``) has its argument types as operand types too.

Locations. Each operation's own trailing ``loc(...)`` is resolved to the Python
``(file, line, col)`` it came from (`Operation.loc`): ``#loc`` aliases may be
defined anywhere in the section; a name is its inner location, ``fused`` its
first located element, ``callsite`` the innermost frame outside Triton's own
package (``triton/language/``, ``triton/experimental/``): a user helper's line,
or the user's call of a library function (`python_location`).

AMD's operations are named as Triton 3.6 and later name them: ``amdgpu.buffer_load`` (Triton <= 3.5)
is read as ``amdg.buffer_load``.

Encodings of other dialects (``#gluon.auto_encoding``, ``#ttig.dpas``, ...) give
``encoding=None`` and `TypeRef.unsupported` (the reason), not a problem.

A construct the reader cannot understand (an unknown alias, mismatched or
unclosed brackets, an attribute that does not parse or that Triton's verifier
rejects, an unclosed region at the end of the input, a tensor type of a higher
rank than its encoding, a dimension that is not ASCII digits) becomes a
`Problem` with its line; everything else is still read. A module of an older
Triton (the ``triton_gpu`` dialect, ``!tt.memdesc``, ``#ttg.shared``) is refused:
one problem naming the construct, `Module.refused`, and no operations.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..encodings.base import Encoding
from ..errors import CheckerError
from ..limits import check_characters
from .mlir_attr import parse_attribute

LAYOUT_DIALECTS = ("ttg", "triton_gpu", "ttng", "triton_nvidia_gpu")
NOT_LAYOUTS = frozenset({"shared_memory", "tensor_memory", "redOp"})   # ttg/ttng attributes that are no encoding
MEMORY_SPACES = ("#smem", "#ttg.shared_memory", "#triton_gpu.shared_memory", "#ttng.tensor_memory",
                 "#triton_nvidia_gpu.tensor_memory")


@dataclass
class Problem:
    line: int
    message: str


_FLOATS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64, "tf32": 32, "index": 64}
_ELEMENT = re.compile(r"[su]?i([1-9][0-9]?)|f([4-8])E[0-9]M[0-9]\w*")      # i8, ui32, f8E4M3FN, f4E2M1FN, ...


def element_bits(element: str) -> int | None:
    """The bits of an MLIR element type as TTGIR writes it (``f16``, ``f8E4M3FN``, ``i1``, ``!tt.ptr<f16>``: 64);
    None for anything else (``f17``, ``-1xf16``)."""
    if element in _FLOATS:
        return _FLOATS[element]
    if element.startswith(("!tt.ptr<", "!tt.ptr ")):
        return 64
    m = _ELEMENT.fullmatch(element)
    if m is None:
        return None
    bits = int(m.group(1) or m.group(2))
    return bits if bits <= 64 else None


@dataclass
class TypeRef:
    """One tensor, memdesc or tensor-descriptor type as written, with its encoding resolved when possible."""

    kind: str                     # "tensor" | "memdesc" | "tensordesc" (the block of a !tt.tensordesc)
    shape: list[int]
    element_type: str
    encoding_text: str | None
    encoding: Encoding | None
    memory_space: str | None = None
    mutable: bool = False
    alloc_shape: list[int] | None = None
    line: int = 0                 # the line the type starts on
    unsupported: str | None = None    # why its encoding is not checked (Gluon auto encodings, Intel layouts, ...)

    @property
    def element_bits(self) -> int | None:
        return element_bits(self.element_type)


@dataclass
class Operation:
    name: str
    line: int
    text: str                     # the statement on one line, its regions shown as {}
    operand_types: list[TypeRef] = field(default_factory=list)
    result_types: list[TypeRef] = field(default_factory=list)
    results: list[str] = field(default_factory=list)      # SSA values defined: %0, %a; `%0:2 =` gives %0#0, %0#1
    operands: list[str] = field(default_factory=list)     # SSA values used, in order (outside its regions)
    arguments: list[str] = field(default_factory=list)    # values declared for its regions: function, block and
    #                                                        partition arguments, scf.for induction variable, iter_args
    argument_types: list[TypeRef] = field(default_factory=list)   # types of the (%a: T) declarations
    attributes: dict[str, Any] = field(default_factory=dict)      # its {...}, <{...}> and `attributes {...}` entries
    parent: int | None = None     # index in Module.operations of the operation whose region holds it
    region: int | None = None     # which of the parent's regions holds it (0: the first)
    end_line: int = 0             # last line of its own text (the line of its closing `}` tail, if any)
    located: Any = field(default=None, repr=False)    # `loc`, or the `_Location` that gives it when first read

    @property
    def loc(self) -> Frame | None:
        """The Python source (file, line, col) of its ``loc(...)``, if known (resolved when first asked for: most
        operations get no check, and a location is read only where a check or a skip names it)."""
        got = self.located
        if type(got) is _Location:
            got = self.located = got.frame()
        return got

    @loc.setter
    def loc(self, frame: Frame | None) -> None:
        self.located = frame

    @property
    def types(self) -> list[TypeRef]:
        return self.operand_types + self.result_types

    @property
    def axis(self) -> int | None:
        """Its ``axis`` attribute (reduce, scan, gather, ...), or None when it has none."""
        a = self.attributes.get("axis")
        if isinstance(a, int):
            return a
        m = _AXIS.search(self.text)
        return int(m.group(1)) if m else None


_AXIS = re.compile(r"\baxis\s*=\s*(\d+)")


def layout_tensors(types: list[TypeRef]) -> list[TypeRef]:
    """The tensor types among ``types`` whose layout encoding was resolved."""
    return [t for t in types if t.kind == "tensor" and t.encoding is not None]


def partition_warps(op: Operation) -> list[int]:
    """The warp counts of a warp_specialize's partitions, in order: ``partitionNumWarps =
    array<i32: 4, 2>`` (generic form) or ``partitionN(...) num_warps(4)`` (custom form)."""
    m = re.search(r"partitionNumWarps\s*=\s*array<i32:\s*([\d,\s]+)>", op.text)
    if m:
        return [int(x) for x in m.group(1).split(",") if x.strip()]
    return [int(x) for x in re.findall(r"\bnum_warps\((\d+)\)", op.text)]


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
    attributes: dict[str, Any] = field(default_factory=dict)      # all module attributes, keys unquoted
    type_aliases: dict[str, TypeRef] = field(default_factory=dict)   # !name = tensor/memdesc type, by name
    refused: str | None = None    # why the module is not read: a construct of an older Triton (also a problem)


AttributeParser = Callable[[str, dict], Encoding]


def _default_parser() -> AttributeParser:
    """Parse as Triton's parsers do, and verify (Triton verifies every attribute as it parses it)."""
    def parse(text: str, aliases: dict) -> Encoding:
        enc = parse_attribute(text, aliases, lenient=True)
        enc.validate()
        return enc
    return parse


# ---------------------------------------------------------------- lexical helpers

_TOKEN = re.compile(r'[<>\[\](){}](?<!->)|"(?:[^"\\]|\\.)*"?')     # a bracket (not the > of ->) or a string
_BRACKETS = re.compile(r"->|[<>\[\](){}]")
_BRACKET_OR_COLON = re.compile(r"[<>\[\](){}:]")                     # (a > after a - is the end of a `->`)
_BRACKET = re.compile(r"[<>\[\](){}]")
_OPENING = re.compile(r"[<(\[{]")
_CLOSING = re.compile(r"(?<!-)>|[)\]}]")               # (the > of a `->` closes nothing)
_OPENERS = {"<": ">", "[": "]", "(": ")", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
_DICT_ENTRY = re.compile(r'("[^"]*"|[A-Za-z_][\w$.-]*)\s*(=(?!=)|,|\})')
_CONTINUATION = re.compile(r"(:(?!:)|->|[*{]|loc\(|attributes\b|else\b|do\b|default\b|partition\d+\b)")
_STATEMENT_START = re.compile(r"([#!][\w$.-]+\s*=(?!=)|module\b)")
_RESULTS_START = re.compile(r"%[\w$.-]+(?::\d+)?\s*(,\s*%[\w$.-]+(?::\d+)?\s*)*=(?!=)")
_HEAD = re.compile(r'\s*(?:(?P<res>%[\w$.-]+(?::\d+)?(?:\s*,\s*%[\w$.-]+(?::\d+)?)*)\s*=\s*)?'
                   r'(?:"(?P<q>[^"]*)"|(?P<n>\^?[A-Za-z_][\w$.-]*))')
_MODULE_HEAD = re.compile(r"\s*(?:builtin\.)?module\b")
_ALIAS_HEAD = re.compile(r"\s*([#!])([\w$.-]+)\s*=(?!=)\s*")
_DESCRIPTORS = ("!tt.tensordesc", "!ttng.tensordesc_im2col")      # a tiled descriptor's type, an im2col one's
_TYPE_START = re.compile(r"t(?<![\w!.$]t)ensor<|!ttg\.memdesc<|!triton_gpu\.memdesc<|!tt\.tensordesc<"
                         r"|!ttng\.tensordesc_im2col<")
#   (`tensor<` not preceded by [\w!.$]: the lookbehind comes after the `t`, so that re can skip to a `t` or `!`)
_VALUE_USE = re.compile(r"(%[\w$.-]+(?:#\d+)?)(=(?!=)|\s=(?!=)|\s\s=)?")    # a value, and an `=` declaring it:
#   the first of the 3 characters after it that is no blank is an `=`, and no `=` follows in those 3
_UNKNOWN_ALIAS = re.compile(r"unknown alias '#([\w$.-]+)'")
_OLDER_TRITON = [     # (pattern in masked text, what it is, since when it is spelled otherwise)
    (re.compile(r"[#!](?:triton_gpu|triton_nvidia_gpu)\.[\w$]+"),
     "the triton_gpu / triton_nvidia_gpu dialects are ttg / ttng since Triton 3.2"),
    (re.compile(r"!tt\.memdesc<"), "memory descriptors are !ttg.memdesc since Triton 3.2"),
    (re.compile(r"#(?:ttg|triton_gpu)\.shared<"),
     "split into #ttg.swizzled_shared and #ttg.nvmma_shared (hasLeadingOffset) in Triton 3.3"),
]   # (amd_mfma's versionMajor is not refused: today's Triton ignores it, and its own lit tests still write it)
_OLDER_HINTS = ("triton_", "!tt.memdesc<", ".shared<")     # each pattern of _OLDER_TRITON needs one of these
_OLDER_PREFIXES = ("triton_gpu.", "triton_nvidia_gpu.")
_BARE_OPS = ("return",)                  # op names printed without a dialect (func's return)
_FUNC_LIKE = re.compile(r"(?:\w+\.)?func")
_LOC_CALL = re.compile(r"l(?<![\w$.]l)oc\(")        # `loc(` not preceded by [\w$.] (lookbehind as in _TYPE_START)
_NOT_NEWLINE = re.compile(r"[^\n]")
_DIGITS = re.compile(r"[0-9]+")
_DIMS = re.compile(r"[0-9]+(x[0-9]+)*")
_STATIC_SHAPE = re.compile(r"((?:[0-9]+x)*)([A-Za-z!]\S*)")    # 4x8xf16: static dimensions, then the element
_COMMA = re.compile(r"\s*,\s*")
_DECLARATION = re.compile(r"\(\s*%[\w$.-]+\s*:(?!:)")               # a declaration list (%a: T, ...)
_SUCCESSOR_END = re.compile(r"\^[\w$.-]+\s*$")                     # ... preceded by a successor label
_TYPE_ALIAS_USE = re.compile(r"!([\w$.-]+)(?![\w$.<-])")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?')                        # a string literal (or an unclosed one)
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|//')
_ALIAS_DEFINITION = re.compile(r"[#!][\w$.-]+\s*=(?!=)")
_BARE_TYPE_BODY = re.compile(r"<\s*([0-9]+\s*x|[^,>]*,\s*#)")        # <4x8xf16, ...> or <f16, #enc...>
_INTEGER_VALUE = re.compile(r"(-?\d+)(?:\s*:\s*(?:[iu]\d+|index))?")
_ENTRY_KEY = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[^\s=]+)\s*(=?)')
_ATTRIBUTE_NAME = re.compile(r"#([A-Za-z_][\w$]*)\.([\w$]+)")       # #dialect.name
_LOC_BODY = re.compile(r"loc\s*\(")
_ALIAS_USE = re.compile(r"#([\w$.-]+)")


def _nested(depth: int) -> str:
    """A pattern of text whose brackets are ( and [ only, nested at most `depth` deep, closing in order outside
    its string literals (which must be closed). (Each repetition starts at a string or a bracket, so that a
    text that does not match fails at once.)"""
    string = r'"[^"\\]*(?:\\.[^"\\]*)*"'
    plain = r'[^"()\[\]<>{}]*'
    inner = rf"{plain}(?:{string}{plain})*"
    for _ in range(depth):
        inner = rf"{plain}(?:(?:{string}|\({inner}\)|\[{inner}\]){plain})*"
    return inner


_LOCATION_ALIAS = re.compile(rf"\s*#([\w$.-]+)\s*=(?!=)\s*(loc\({_nested(3)}\))\s*")   # #loc3 = loc(...)
_LOC_NAME = re.compile(r"#[\w$.-]+")


def _code(line: str) -> str:
    """line without its // comment (a // inside a string literal is kept)."""
    if "//" not in line:
        return line
    for m in _STRING_OR_COMMENT.finditer(line):
        if m.group() == "//":
            return line[:m.start()]
    return line


def _blank_strings(text: str) -> str:
    """text with the contents of its string literals blanked (an unclosed `"` blanked itself), same length."""
    if '"' not in text:
        return text
    return _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"' if len(m.group()) >= 2 else " ", text)


def _mask(text: str) -> str:
    """text with string contents and loc(...) trailers blanked, same length (offsets stay valid)."""
    out = _blank_strings(text)
    if "loc(" not in out:
        return out
    found = list(_LOC_CALL.finditer(out))
    spans = [(m.start(), _group_end(out, m.end() - 1)) for m in found]
    if all(b <= c for (_, b), (c, _) in zip(spans, spans[1:])):    # none inside another: blanked in one pass
        pieces, last = [], 0
        for a, b in spans:
            pieces += [out[last:a], _NOT_NEWLINE.sub(" ", out[a:b])]
            last = b
        return "".join(pieces) + out[last:]
    for m in reversed(found):                   # (each blanked after those after it, as they may end it)
        end = _group_end(out, m.end() - 1)
        out = out[:m.start()] + _NOT_NEWLINE.sub(" ", out[m.start():end]) + out[end:]
    return out


def _group_end(text: str, start: int) -> int:
    """Index just past the bracket closing text[start], or len(text) if it is not closed."""
    depth = 0
    for m in _BRACKETS.finditer(text, start):
        tok = m.group()
        if tok == "->":
            continue
        depth += 1 if tok in _OPENERS else -1
        if depth == 0:
            return m.end()
    return len(text)


_Outline = tuple[list[tuple[str, int, int]], list[tuple[int, int]], dict[int, int], list[int]]


def _outline(masked: str, closed: bool = False) -> _Outline | None:
    """The bracket structure of a masked statement text, as (top, braces, ends, marks): `top` the outermost
    bracket pairs (opening character, start, end) in order, `braces` every ``{...}`` pair's (start, end),
    `ends` every pair's end by its start, `marks` the positions of the `:` and `->` outside every pair, in
    order. A closer that does not close the innermost open bracket is ignored, and a bracket left open runs
    to the end of the text; with `closed`, None instead, unless every bracket closes in order."""
    top: list[tuple[str, int, int]] = []
    braces: list[tuple[int, int]] = []
    ends: dict[int, int] = {}
    marks: list[int] = []
    stack: list[int] = []                           # the starts of the open brackets
    for m in _BRACKET_OR_COLON.finditer(masked):
        pos = m.start()
        tok = masked[pos]
        if tok in _OPENERS:
            stack.append(pos)
        elif tok == ":" or (tok == ">" and masked[pos - 1:pos] == "-"):     # a `:` or the end of a `->`
            if not stack:
                marks.append(pos if tok == ":" else pos - 1)
        elif stack and masked[stack[-1]] == _CLOSERS[tok]:
            start = stack.pop()
            end = ends[start] = pos + 1
            if tok == "}":
                braces.append((start, end))
            if not stack:
                top.append((_CLOSERS[tok], start, end))
        elif closed:
            return None
    if stack:
        if closed:
            return None
        end = len(masked)
        for start in stack:
            ends[start] = end
            if masked[start] == "{":
                braces.append((start, end))
        top.append((masked[stack[0]], stack[0], end))
    return top, braces, ends, marks


def _top_level(masked: str, top: list[tuple[str, int, int]], pattern: re.Pattern) -> list[int]:
    """Positions of a pattern's matches outside every bracket pair (`top`: the outermost pairs, in order)."""
    if not top:
        return [m.start() for m in pattern.finditer(masked)]
    starts = [a for _, a, _ in top]
    out = []
    for m in pattern.finditer(masked):
        k = bisect.bisect_right(starts, m.start()) - 1
        if k < 0 or m.start() >= top[k][2]:
            out.append(m.start())
    return out


# A signature's tokens: a type start, with the rest of its type where that holds no type start and its
# brackets are <...> or <{...}> holding no bracket (`!tt.ptr<f16>`, `#ttg.slice<{...}>`): the type at once;
# else a bracket. (Each alternative starts with a literal: re skips to one.)
_PLAIN = r"[^<>(){}\[\]-]*"          # no bracket, no `-` (the start of a `->`)
_FLAT_BODY = rf"{_PLAIN}(?:(?<!tensor)(?<!desc)<(?:{_PLAIN}|\{{{_PLAIN}\}})>{_PLAIN})*>"
_SIGNATURE_TOKEN = re.compile(
    "|".join(rf"{start}({_FLAT_BODY})?" for start in _TYPE_START.pattern.split("|")) + r"|<|>|\[|\]|\(|\)|\{|\}")
_Signature = tuple[list[str], list[tuple[str, str | None, bool]]]    # `_signature`: dictionaries, types
_Split = tuple[int, _Outline, str, _Signature]    # a statement's signature: `_Reader.split_signature`
_NO_BRACKETS: _Outline = ([], [], {}, [])        # the outline of a text with no bracket (only read)
_UNSIGNED: _Signature = ([], [])                 # what a statement with no signature has in it (only read)
_BARE = "bare"      # a bare <...> type's kind in a _Signature: the operation's name decides it (`_bare_kind`)


def _signature(tail: str) -> _Signature | None:
    """What `_Reader.complete` reads in a one-line statement's signature, `tail`: its text from the signature's
    `:` (the statement's last `:`, blanks around it) to its end, its location cut off. The bodies of its
    attribute dictionaries, and its types as (text, kind, whether a result type), in order; None when it uses
    a value, or a bracket of it does not close in order on it.

    After a head whose brackets close in order, the pairs, top-level marks and types of a signature whose
    brackets close in order are those of the whole statement at the same places: its types are after the
    signature's `:`, results after its first top-level `->`, and no declaration list is in it (that needs a
    value). So a signature reads the same after every head, and each distinct one is read once per text
    (`_Reader.signatures`): Triton writes a few dozen, each on many lines.

    One pass over its brackets finds what `_outline` and `_find_types` would: a type starts at each
    `_TYPE_START` (outside braces; a !tt.tensordesc<tensor<...>>'s inner tensor is the descriptor's block)
    and ends where its `<` closes (a type of the common forms is one token: `_SIGNATURE_TOKEN`); a bare
    ``<`` at the top level after a separator is a memdesc (`_BARE`)."""
    if "%" in tail or tail.find(":", 1) >= 0:
        return None
    stack: list[tuple[str, int, int]] = []          # open brackets: (character, position, index in `found` or -1)
    found: list[tuple[int, str | None, str]] = []   # (start, kind, text) of each type, in order of start
    bodies = []                                     # top-level {...} and <{...}> bodies
    inner_desc = -1                                 # where the tensor<...> of a !tt.tensordesc<tensor<...>> starts
    braces = 0                                      # braces open
    arrow = None                                    # the first top-level `->`
    for m in _SIGNATURE_TOKEN.finditer(tail, 1):
        tok = m.group()
        pos = m.start()
        if m.lastindex is not None:                 # a whole type, its brackets closing in order
            if not braces:
                found.append((pos, "tensordesc" if pos == inner_desc else None, tok))
        elif len(tok) > 1:                          # a type start, and the `<` it opens
            slot = -1
            if tok[0] == "!" and tok.startswith("!tt.tensordesc") and tail.startswith("tensor<", m.end()):
                inner_desc = m.end()
            elif not braces:
                slot = len(found)
                found.append((pos, "tensordesc" if pos == inner_desc else None, ""))
            stack.append(("<", m.end() - 1, slot))
        elif tok in "<[({":
            slot = -1
            if tok == "{":
                braces += 1
            elif tok == "<" and not stack and _after_separator(tail, pos) and _BARE_TYPE_BODY.match(tail, pos):
                if tail.startswith("tensor<", pos + 1):      # Triton 3.7's made descriptor <tensor<...>>: its block
                    inner_desc = pos + 1
                else:
                    slot = len(found)
                    found.append((pos, _BARE, ""))
            stack.append((tok, pos, slot))
        elif tok == ">" and tail[pos - 1] == "-":   # the end of a `->`
            if not stack and arrow is None:
                arrow = pos - 1
        else:
            if not stack or stack[-1][0] != _CLOSERS[tok]:
                return None
            ch, opening, slot = stack.pop()
            if slot >= 0:
                start, kind, _ = found[slot]
                found[slot] = (start, kind, tail[start:pos + 1])
            if tok == "}":
                braces -= 1
                if not stack and pos - opening > 1:
                    bodies.append(tail[opening + 1:pos])
            elif tok == ">" and not stack and tail[opening + 1:opening + 2] == "{":
                bodies.append(tail[opening + 2:_group_end(tail, opening + 1) - 1])
    if stack:
        return None
    if arrow is None:
        return bodies, [(text, kind, False) for _, kind, text in found]
    return bodies, [(text, kind, start > arrow) for start, kind, text in found]


def _bare_kind(name: str) -> str:
    """The kind of a bare ``<...>`` type in an operation's signature: a descriptor's block where
    ``tt.make_tensor_descriptor`` makes one, else a memdesc (``ttg.async_copy_global_to_local``'s result)."""
    return "tensordesc" if name == "tt.make_tensor_descriptor" else "memdesc"


def _find_types(masked: str, text: str, ends: dict[int, int], top: list[tuple[str, int, int]], start: int,
                sig: int | None, end: int, bare_kind: str,
                type_texts: dict[str, str]) -> list[tuple[int, str | None, str]]:
    """(position, kind, text) of every type of interest from `start` to `end`, in order (`ends`, `top`: as
    `_outline` gives; `type_texts`: the type aliases, expanded where used)."""
    found = []
    inner_desc: set[int] = set()                # the tensor<...> of each !tt.tensordesc<tensor<...>>
    for m in _TYPE_START.finditer(masked, start, end):
        opening = m.end() - 1
        stop = ends.get(opening, len(masked))
        if m.group().startswith("!tt.tensordesc") and masked.startswith("tensor<", opening + 1):
            inner_desc.add(opening + 1)         # old spelling !tt.tensordesc<tensor<...>>
            continue
        kind = "tensordesc" if m.start() in inner_desc else None
        found.append((m.start(), kind, text[m.start():stop]))
    in_order = True                             # (what _TYPE_START finds comes in order)
    if sig is not None:                         # bare <...> in a signature: a memdesc or a descriptor
        for ch, a, b in top:
            if ch == "<" and a > sig and _after_separator(masked, a) and _BARE_TYPE_BODY.match(masked, a):
                if bare_kind == "tensordesc" and masked.startswith("tensor<", a + 1):
                    # Triton 3.7 writes a made descriptor's block <tensor<...>> (3.9: <...>): the tensor inside
                    found = [f for f in found if f[0] != a + 1]
                    found.append((a + 1, bare_kind, text[a + 1:b - 1]))
                else:
                    found.append((a, bare_kind, text[a:b]))
                in_order = False
    if type_texts and "!" in masked:            # type aliases used
        for m in _TYPE_ALIAS_USE.finditer(masked, start, end):
            if m.group(1) in type_texts:
                expanded = type_texts[m.group(1)]
                if _TYPE_START.match(expanded):
                    found.append((m.start(), None, expanded))
                    in_order = False
    return found if in_order else sorted(found, key=lambda f: f[0])


_SEPARATED = {",": re.compile(r'->|[<>\[\](){}]|,')}     # split_top's scanner of each separator used


def split_top(text: str, sep: str = ",") -> list[str]:
    """text split at the separators outside every bracket and string (empty parts dropped)."""
    if sep == "," and '"' not in text and "loc(" not in text:     # (what _mask would blank: none)
        return _split_commas(text)
    masked = _mask(text)
    cuts, depth = [], 0
    scanner = _SEPARATED.get(sep) or re.compile(r'->|[<>\[\](){}]|' + re.escape(sep))
    for m in scanner.finditer(masked):
        tok = m.group()
        if tok in _OPENERS:
            depth += 1
        elif tok in _CLOSERS:
            depth -= 1
        elif tok == sep and depth == 0:
            cuts.append(m.start())
    parts = [text[a + 1:b].strip() for a, b in zip([-1] + cuts, cuts + [len(text)])]
    return [p for p in parts if p]


def _split_commas(text: str) -> list[str]:
    """`split_top(text)` of a text with no string and no location, without a pass over its brackets: a comma
    is outside every bracket where as many openers as closers come before it (`split_top` counts each opener
    and each closer alike, and the `>` of a `->` is none)."""
    pieces = text.split(",")
    if len(pieces) > 1 and _BRACKET.search(text) is not None:
        parts, held, depth = [], [], 0
        for piece in pieces[:-1]:
            held.append(piece)
            depth += len(_OPENING.findall(piece)) - len(_CLOSING.findall(piece))
            if depth == 0:
                parts.append(",".join(held))
                held = []
        held.append(pieces[-1])
        parts.append(",".join(held))
        pieces = parts
    return [p for p in map(str.strip, pieces) if p]


def attribute_value(text: str) -> Any:
    """An attribute's value: "str" -> str, 4 : i32 -> 4, true/false -> bool, anything else its text."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] == '"':
        return t[1:-1]
    if t in ("true", "false"):
        return t == "true"
    m = _INTEGER_VALUE.fullmatch(t)
    return int(m.group(1)) if m else t


def attribute_entries(body: str) -> dict[str, Any]:
    """The entries of a dictionary body (the text between its braces); a unit attribute is True."""
    out: dict[str, Any] = {}
    for part in split_top(body):
        m = _ENTRY_KEY.match(part)
        if m is None:
            continue
        key = m.group(1)[1:-1] if m.group(1).startswith('"') else m.group(1)
        out[key] = attribute_value(part[m.end():]) if m.group(2) else True
    return out


# ---------------------------------------------------------------- locations

_LOC_TOKEN = re.compile(r'\s*("[^"\\]*(?:\\.[^"\\]*)*"|#[\w$.-]+|[A-Za-z_][\w$.-]*|\d+|\S)')
_FILE_LOCATION = re.compile(r'\s*loc\s*\(\s*("[^"\\]*(?:\\.[^"\\]*)*")\s*:\s*(\d+)\s*:\s*(\d+)\s*\)\s*')
#   loc("k.py":3:7), as its tokens read
TRITON_LIBRARY = re.compile(r"(?:^|[/\\])triton[/\\](?:language|experimental)[/\\]")
Frame = tuple[str, int, int]


def _unquote(text: str) -> str:
    """An MLIR string literal's value (escapes: \\\\, \\", and two hex digits)."""
    if "\\" not in text:
        return text[1:-1]
    return re.sub(r'\\([0-9A-Fa-f]{2}|.)', lambda m: chr(int(m.group(1), 16)) if len(m.group(1)) == 2
                  else m.group(1), text[1:-1])


class _LocParser:
    """The frames of one location, innermost first: a file location is one frame, ``callsite(A at B)``
    the frames of A (the callee) then of B (the caller), ``fused[...]`` the frames of its first element
    that has any, ``"name"(inner)`` those of inner, ``unknown`` none; ``#alias`` is looked up in `defs`
    (the section's ``#loc = loc(...)`` bodies), each alias resolved once (`memo`, shared by the parsers of
    one section: a chain of aliases that each name the next twice stays linear, and keeps its first
    `MAX_FRAMES` frames), an alias in a cycle or nested past `MAX_NESTING` gives no frames. Anything it cannot
    read gives no frames."""

    MAX_NESTING = 100                               # aliases and parentheses; Triton nests a few dozen at most
    MAX_FRAMES = 256                                # frames kept per location, innermost first

    def __init__(self, defs: dict[str, str], memo: dict[str, list[Frame]] | None = None):
        self.defs = defs
        self.memo = memo if memo is not None else {}
        self.nesting = 0

    def frames(self, text: str, depth: int = 0) -> list[Frame]:
        file = _FILE_LOCATION.fullmatch(text)
        if file is not None and depth + 2 <= self.MAX_NESTING:     # (what the tokens below read, at once)
            return [(_unquote(file.group(1)), int(file.group(2)), int(file.group(3)))]
        self.toks = _LOC_TOKEN.findall(text)
        self.pos = 0
        try:
            return self.loc(depth)
        except (IndexError, ValueError):
            return []

    def alias(self, name: str, depth: int) -> list[Frame]:
        if name in self.memo:                       # resolved, or in progress (a cycle: no frames)
            return self.memo[name]
        body = self.defs.get(name)
        if body is None or depth > self.MAX_NESTING:
            return []
        self.memo[name] = []
        self.memo[name] = _LocParser(self.defs, self.memo).frames(body, depth + 1)
        return self.memo[name]

    def next(self) -> str:
        self.pos += 1
        return self.toks[self.pos - 1]

    def peek(self) -> str | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def expect(self, tok: str) -> None:
        if self.next() != tok:
            raise ValueError(tok)

    def loc(self, depth: int) -> list[Frame]:
        self.nesting += 1
        try:
            if self.nesting + depth > self.MAX_NESTING:
                raise ValueError("nested too deep")
            return self._loc(depth)
        finally:
            self.nesting -= 1

    def _loc(self, depth: int) -> list[Frame]:
        tok = self.next()
        if tok == "loc" and self.peek() == "(":
            self.next()
            out = self.loc(depth)
            self.expect(")")
            return out
        if tok.startswith("#"):
            return self.alias(tok[1:], depth)
        if tok == "unknown":
            return []
        if tok == "callsite":
            self.expect("(")
            callee = self.loc(depth)
            self.expect("at")
            caller = self.loc(depth)
            self.expect(")")
            return (callee + caller)[:self.MAX_FRAMES]     # a frame list doubling per alias stays bounded
        if tok == "fused":
            if self.peek() == "<":                  # fused<metadata>[...]
                level = 0
                while True:
                    t = self.next()
                    level += (t == "<") - (t == ">")
                    if level == 0:
                        break
            self.expect("[")
            found: list[Frame] = []
            while self.peek() != "]":
                frames = self.loc(depth)
                found = found or frames
                if self.peek() == ",":
                    self.next()
            self.next()
            return found
        if tok.startswith('"'):
            if self.peek() == ":":                  # "file":line:col (a range `to ...` may follow)
                self.next()
                line = int(self.next())
                self.expect(":")
                col = int(self.next())
                if self.peek() == "to":
                    self.next()
                    while self.peek() not in (None, ")", ",", "]"):
                        self.next()
                return [(_unquote(tok), line, col)]
            if self.peek() == "(":                  # "name"(inner)
                self.next()
                out = self.loc(depth)
                self.expect(")")
                return out
            return []                               # "name" alone
        raise ValueError(tok)


def location_cycles(defs: dict[str, str], lines: dict[str, int]) -> list[tuple[str, int, list[str]]]:
    """Each cycle of ``#loc`` aliases once: (its first alias by line, that line, the aliases around it)."""
    refs = {n: list(dict.fromkeys(r for r in _ALIAS_USE.findall(body) if r in defs)) if "#" in body else []
            for n, body in defs.items()}
    state: dict[str, int] = {}                      # 1: on the current path, 2: done
    found = []
    for root in sorted(defs, key=lambda a: lines.get(a, 0)):
        if root in state:
            continue
        path, todo = [root], [iter(refs[root])]       # an explicit stack: chains may be long
        state[root] = 1
        while todo:
            r = next(todo[-1], None)
            if r is None:
                state[path.pop()] = 2
                todo.pop()
            elif state.get(r) == 1:
                cycle = path[path.index(r):]
                first = min(cycle, key=lambda a: lines.get(a, 0))
                k = cycle.index(first)
                found.append((first, lines.get(first, 0), cycle[k + 1:] + cycle[:k + 1]))
            elif r not in state:
                state[r] = 1
                path.append(r)
                todo.append(iter(refs[r]))
    return found


def python_location(frames: list[Frame]) -> Frame | None:
    """The frame a diagnostic should name: the innermost one outside Triton's own Python package
    (``triton/language/``, ``triton/experimental/``); the innermost one when all are inside it."""
    for f in frames:
        if not TRITON_LIBRARY.search(f[0]):
            return f
    return frames[0] if frames else None


def resolve_location(text: str, defs: dict[str, str], memo: dict[str, list[Frame]] | None = None) -> Frame | None:
    """The Python (file, line, col) of a location text (``loc(#loc3)``, ``loc("k.py":4:7)``, ...); `memo`: the
    aliases of `defs` already resolved (kept by the caller while `defs` does not change)."""
    return python_location(_LocParser(defs, memo).frames(text))


class _Location:
    """An operation's own ``loc(...)`` text, read when its frame is first asked for (`Operation.loc`) with the
    location aliases of its section (`resolve_location`); texts shared by several operations are resolved once
    (`cache`, one per section). Equal to another `_Location` or a frame when the frames are equal (a module
    compares equal before and after its locations are read)."""

    __slots__ = ("text", "defs", "memo", "cache")

    def __init__(self, text: str, defs: dict[str, str], memo: dict[str, list], cache: dict[str, Frame | None]):
        self.text, self.defs, self.memo, self.cache = text, defs, memo, cache

    def frame(self) -> Frame | None:
        if self.text not in self.cache:
            self.cache[self.text] = resolve_location(self.text, self.defs, self.memo)
        return self.cache[self.text]

    def __eq__(self, other: object) -> bool:
        return self.frame() == (other.frame() if type(other) is _Location else other)

    __hash__ = None         # type: ignore[assignment]   (compared by value, like the frame it stands for)


def _own_location(text: str) -> str | None:
    """The ``loc(...)`` that ends a statement (its own location), or None."""
    if "loc(" not in text:
        return None
    plain = _blank_strings(text)
    found = list(_LOC_CALL.finditer(plain))
    if not found:
        return None
    m = found[-1]
    end = _group_end(plain, m.end() - 1)
    return text[m.start():end] if not plain[end:].strip() else None


# ---------------------------------------------------------------- types

def parse_type(text: str, aliases: dict, parse_attr: AttributeParser, *, kind: str | None = None,
               line: int = 0, not_encodings=frozenset()) -> TypeRef:
    """``tensor<...>``, ``!ttg.memdesc<...>``, ``!tt.tensordesc<...>`` or a bare ``<...>`` (give `kind`).
    `not_encodings`: the aliases of attributes that are no layout layoutcheck reads (a mapping name ->
    definition gives the reason an encoding is unsupported, `TypeRef.unsupported`)."""
    if kind is None:
        kind = ("memdesc" if text.startswith(("!ttg.memdesc", "!triton_gpu.memdesc", "<"))
                else "tensordesc" if text.startswith(_DESCRIPTORS) else "tensor")
    if not text.endswith(">"):
        raise CheckerError(f"type '{text[:60]}' is not closed")
    parts = split_top(text[text.index("<") + 1:-1])
    if not parts:
        raise CheckerError(f"type '{text}' has no element type")
    shape: list[int] = []
    element = ""
    static = _STATIC_SHAPE.fullmatch(parts[0])     # (most types: what the loop below finds, at once)
    if static is not None:
        shape = [int(d) for d in static.group(1).split("x")[:-1]]
        element = static.group(2)
    dims = parts[0].split("x") if static is None else []
    for i, d in enumerate(dims):
        d = d.strip()
        if _DIGITS.fullmatch(d):
            shape.append(int(d))
        elif d == "?":
            raise CheckerError(f"type '{text[:60]}' has a dynamic dimension, which TritonGPU does not use")
        elif d[:1] in ("*", "?", "-", "+") or d[:1].isdigit() or d[:1].isnumeric():
            raise CheckerError(f"type '{text[:60]}': dimension '{d[:12]}' is not a static size "
                               "(decimal digits 0-9)")
        else:
            element = "x".join(dims[i:]).strip()
            break
    if not element:
        raise CheckerError(f"type '{text[:60]}' has no element type")
    if element_bits(element) is None:
        raise CheckerError(f"type '{text[:60]}': '{element[:24]}' is no element type (f16, bf16, f32, f64, tf32, "
                           "f8E4M3FN, f8E5M2, f4E2M1FN, ..., iN, !tt.ptr<...>)")
    enc_text = parts[1] if len(parts) > 1 and parts[1].startswith("#") else None
    ref = TypeRef(kind, shape, element, enc_text, None, line=line)
    if kind == "memdesc":
        for p in parts[2:]:
            if p.startswith("#"):
                ref.memory_space = p
            elif p == "mutable":
                ref.mutable = True
            elif _DIMS.fullmatch(p):
                ref.alloc_shape = [int(x) for x in p.split("x")]
    if enc_text is None or _is_memory_space(enc_text):
        return ref
    ref.unsupported = unsupported_encoding(enc_text, not_encodings)
    if ref.unsupported is None and enc_text[1:] not in not_encodings:
        ref.encoding = parse_attr(enc_text, aliases)
        if kind == "tensor":
            rank = getattr(ref.encoding, "rank", None)
            if isinstance(rank, int) and len(shape) > rank:
                raise CheckerError(f"type '{text[:60]}' has rank {len(shape)} but its encoding "
                                   f"{enc_text[:40]} has rank {rank}")
    return ref


def unsupported_encoding(text: str, others=frozenset(), depth: int = 0) -> str | None:
    """Why an encoding text names an attribute that is no layout layoutcheck supports (a Gluon
    encoding still to be chosen, an Intel or another dialect's layout), or None: a TritonGPU layout,
    a memory space, or an alias that is none of these (left to the attribute parser)."""
    name = text[1:]
    if name in others:
        body = others.get(name) if hasattr(others, "get") else None
        return unsupported_encoding(body, others, depth + 1) if body and depth < 32 else None
    m = _ATTRIBUTE_NAME.match(text)
    if m is None or m.group(1) in LAYOUT_DIALECTS or _is_memory_space(text):
        return None
    dialect, kind = m.groups()
    if dialect == "gluon" and kind in ("auto_encoding", "coalesced_encoding"):
        return f"a Gluon {kind.split('_')[0]} encoding: the layout is not chosen yet"
    if dialect == "gluon":
        return f"a Gluon encoding (#gluon.{kind}): not supported"
    if dialect in ("ttig", "triton_intel_gpu"):
        return f"an Intel encoding (#{dialect}.{kind}): not supported"
    if dialect in ("builtin", "loc"):
        return None
    return f"an encoding of the {dialect} dialect (#{dialect}.{kind}): not supported"


def _is_memory_space(text: str) -> bool:
    return text in MEMORY_SPACES


def layout_attribute(text: str) -> bool:
    """Whether an attribute text (``#ttg.blocked<...>``) names a TritonGPU layout rather than a memory space,
    a location or another dialect's attribute."""
    m = _ATTRIBUTE_NAME.match(text)
    return bool(m) and m.group(1) in LAYOUT_DIALECTS and m.group(2) not in NOT_LAYOUTS


# ---------------------------------------------------------------- statements

class _Stmt:
    """The text of one statement as it is gathered, with the line each stretch of it comes from."""

    __slots__ = ("line", "end_line", "parts", "offsets", "lines", "length", "stack", "error", "op", "module",
                 "region_line", "name_end", "index", "home", "blocks", "regions", "outline", "masked", "own_loc",
                 "signature")

    def __init__(self, line: int):
        self.line = line
        self.end_line = line
        self.parts: list[str] = []
        self.offsets: list[int] = [0]
        self.lines: list[int] = [line]
        self.length = 0
        self.stack: list[tuple[str, int, int, int]] = []    # open brackets: (char, line, column, offset)
        self.error: tuple[int, str] | None = None
        self.op: Operation | None = None                # set once it opens a region
        self.module: bool = False                       # a module header that opened its region
        self.region_line = 0
        self.name_end = 0                               # where an operation's operands start
        self.index: int | None = None                   # its operation's index in its module
        self.home: Module | None = None                 # ... and that module
        self.blocks: list[Operation] = []               # block headers ^bb(%a: T) of its regions
        self.regions = 0                                # regions it has opened so far
        self.outline: _Outline | None = None            # its _outline, if known (a one-line statement read
        #                                                 by `read_whole_line`)
        self.masked: str | None = None                  # ... and its masked text (`_mask` of its text)
        self.own_loc: str | None = None                 # ... and its own loc(...) (`_own_location` of its text)
        self.signature: _Split | None = None            # ... or, instead of its outline, its signature read by
        #                                                 its text and the outline before it (`split_signature`)

    def add(self, text: str, line: int) -> None:
        if not text:
            return
        if line != self.lines[-1]:
            self.offsets.append(self.length)
            self.lines.append(line)
        self.parts.append(text)
        self.length += len(text)
        if line > self.end_line:
            self.end_line = line

    def text(self) -> str:
        return "".join(self.parts)

    def line_at(self, offset: int) -> int:
        if len(self.lines) == 1:
            return self.line
        return self.lines[bisect.bisect_right(self.offsets, offset) - 1]


class _Reader:
    def __init__(self, file: str, parse_attr: AttributeParser):
        self.file = file
        self.parse_attr = parse_attr
        self.modules: list[Module] = []
        self.bodies: dict[str, dict[str, Any]] = {}     # dictionary body -> its attribute_entries (only read)
        self.signatures: dict[str, _Signature | None] = {}     # signature text -> `_signature` of it

    # -- sections and modules

    def section(self, lines: list[str], first: int) -> None:
        """Read lines (the first is line `first`) as one lit section."""
        self.aliases: dict[str, Encoding] = {}
        self.type_texts: dict[str, str] = {}
        self.failed: dict[str, int] = {}            # alias name -> line of its rejected definition
        self.other: dict[str, str] = {}             # aliases of non-layout attributes (memory spaces, other
        #                                             dialects' attributes) -> their definitions
        self.loc_defs: dict[str, str] = {}          # #loc aliases -> their loc(...) text (defined anywhere)
        self.loc_memo: dict[str, list] = {}          # aliases resolved so far (cleared when one is defined)
        self.loc_lines: dict[str, int] = {}          # where each #loc alias is defined
        self.op_locs: list[tuple[Operation, str]] = []   # each operation's own loc(...), given it at the end
        self.parsed: dict[str, Encoding] = {}       # encoding text -> encoding, until the next alias definition
        self.types: dict[tuple, TypeRef] = {}       # (type text, kind) -> its TypeRef, until the next alias definition
        self.reads: dict[tuple[str, str], list[tuple[TypeRef, bool]]] = {}    # (bare kind, signature text) -> its
        #                                             types as read and whether each is a result, as long as `types`
        self.module = Module(self.file, first)
        self.header = False                         # the current module has its `module` line
        self.closed = False                         # ... and its region has been closed
        self.owners: list[_Stmt] = []
        self.cur: _Stmt | None = None
        code = [s if "//" not in s else _code(s) for s in lines]
        joined = "\n".join(lines)
        self.older_hints = any(h in joined for h in _OLDER_HINTS)     # (if not, no line has one to look at)
        stripped = [s.strip() for s in code]
        following = [""] * (len(code) + 1)          # the next non-blank code line after each line
        for k in range(len(code) - 2, -1, -1):
            following[k] = stripped[k + 1] or following[k + 1]
        for k, line in enumerate(code):
            if not self.read_whole_line(line, first + k, following[k]):
                self.scan_line(line, first + k, following[k])
        self.end_of_input()
        for name, line, path in location_cycles(self.loc_defs, self.loc_lines):
            self.module_at(line).problems.append(Problem(
                line, f"location #{name} refers to itself through {' -> '.join('#' + p for p in path)}: a cycle "
                      f"(no location is taken from it)"))
        resolved: dict[str, Frame | None] = {}     # location text -> its frame (most ops share a few texts)
        for op, text in self.op_locs:
            op.located = _Location(text, self.loc_defs, self.loc_memo, resolved)
        if self.has_content(self.module):
            self.modules.append(self.module)

    def has_content(self, m: Module) -> bool:
        return bool(m.operations or m.problems or m.alias_lines or m.type_aliases or m.attributes
                    or m is self.module and self.header)

    def target(self, line: int) -> Module:
        """The module a statement on `line` belongs to (a new one after a closed module)."""
        if self.closed:
            if self.has_content(self.module):
                self.modules.append(self.module)
            self.module = Module(self.file, line, aliases=dict(self.aliases))
            self.header = self.closed = False
        return self.module

    def begin_module(self, stmt: _Stmt, masked: str) -> None:
        m = self.target(stmt.line)
        if self.header or m.operations:
            self.modules.append(m)
            m = self.module = Module(self.file, stmt.line, aliases=dict(self.aliases))
        self.header = True
        m.line = stmt.line
        text = stmt.text()
        for ch, a, b in _outline(masked)[0]:
            if ch == "{" and b - a > 2:
                m.attributes.update(attribute_entries(text[a + 1:b - 1]))
                break
        a = m.attributes
        self.older_triton(stmt, masked)
        old = next((k for k in a if k.startswith(_OLDER_PREFIXES)), None)
        if old is not None:
            self.refuse(stmt.line, f"module attribute '{old}'",
                        "the triton_gpu / triton_nvidia_gpu dialects are ttg / ttng since Triton 3.2")

        def get(key: str, kind: type):
            v = a.get(f"ttg.{key}", a.get(f"triton_gpu.{key}"))
            return v if isinstance(v, kind) and not isinstance(v, bool) else None
        m.num_warps, m.threads_per_warp = get("num-warps", int), get("threads-per-warp", int)
        m.num_ctas, m.target = get("num-ctas", int), get("target", str)

    def module_at(self, line: int) -> Module:
        """The module read so far whose text holds `line` (the last one starting at or before it), else the first:
        where a problem found after reading belongs (aliases may be defined before or after their module)."""
        read = [m for m in self.modules + [self.module] if self.has_content(m)] or [self.module]
        before = [m for m in read if m.line <= line]
        return before[-1] if before else read[0]

    def problem(self, line: int, message: str) -> None:
        self.target(line).problems.append(Problem(line, message))

    def older_triton(self, stmt: _Stmt, masked: str) -> None:
        """Refuse the module at a construct of an older Triton (module docstring)."""
        if "triton_" not in masked and "!tt.memdesc<" not in masked and ".shared<" not in masked:
            return                                  # (each pattern of _OLDER_TRITON needs one of these)
        for pattern, why in _OLDER_TRITON:
            m = pattern.search(masked)
            if m:
                construct = re.sub(r"[<{].*", "", m.group()).rstrip()
                self.refuse(stmt.line_at(m.start()), f"'{construct}'", why)
                return

    def refuse(self, line: int, what: str, why: str) -> None:
        module = self.target(line)
        if module.refused is None:
            module.refused = (f"IR from an older Triton: {what} ({why}); the module is not checked "
                              "(compile it with a current Triton)")
            module.problems.append(Problem(line, module.refused))

    # -- gathering statements

    def read_whole_line(self, code: str, ln: int, following: str) -> bool:
        """Read at once the most common line: one that starts a statement, with no string, at most one
        `loc(` (Triton writes one ``loc(#locN)`` at the end of nearly every line), no brace that could open a
        region and brackets that all close in order on the line. What it does is what `scan_line` does with
        it, and the statement keeps its masked text and its bracket pairs (`_Stmt.masked`, `_Stmt.outline`),
        or those before its signature and the signature read by its text (`_Stmt.signature`), for `finish`
        and `complete`, which need not scan it again. False, having done nothing, for any other line (but a
        location alias, `read_location_alias`).

        With a `loc(...)`, the brackets of the line close in order when those of its masked text do (the
        location blanked) and those of the location itself do: then the location is a well-nested group
        put back into a well-nested text."""
        if self.cur is not None:
            return False
        text = code.lstrip()
        if '"' in code or (text.startswith("#") and "loc(" in text):
            if self.read_location_alias(code, ln, following):
                return True
            if '"' in code:
                return False
        if not text or text[0] == "}" or text.rstrip().endswith("{"):
            return False
        masked, own, end = text, None, len(text)
        if "loc(" in text:
            a = text.find("loc(")
            b = len(text.rstrip())
            if a == text.rfind("loc(") and text.endswith(")", 0, b) and _LOC_NAME.fullmatch(text, a + 4, b - 1) \
                    and _LOC_CALL.match(text, a):   # the common case, ` loc(#loc3)` at the end: as below
                masked, own, end = text[:a] + " " * (b - a) + text[b:], text[a:b], a
            elif text.count("loc(") > 1:
                return False
            elif (m := _LOC_CALL.search(text)) is not None:
                a, b = m.start(), _group_end(text, m.end() - 1)
                if _outline(text[a:b], closed=True) is None:
                    return False
                masked = text[:a] + " " * (b - a) + text[b:]       # what `_mask` gives (no string, no newline)
                own = text[a:b] if not text[b:].strip() else None  # what `_own_location` gives
                end = a if own is not None else -1
        outline: _Outline | None = None
        signature = self.split_signature(masked, end) if end >= 0 else None
        if signature is None:
            outline = _outline(masked, closed=True)
            if outline is None:
                return False
        continues = _continues(text, following)
        if not continues:                           # the commonest statements, read at once
            if text[0] in "#!":
                if self.read_alias(text, masked, ln):
                    return True
            elif signature is not None:
                if self.read_operation(text, masked, own, ln, *signature):
                    return True
            elif outline is not None and self.read_operation(text, masked, own, ln, None, outline, "", _UNSIGNED):
                return True
        cur = self.cur = _Stmt(ln)
        cur.add(text, ln)
        if continues:
            cur.add("\n", ln)
        else:
            cur.outline, cur.masked, cur.own_loc, cur.signature = outline, masked, own, signature
            self.finish(cur)
        return True

    def split_signature(self, masked: str, end: int) -> _Split | None:
        """A one-line statement's signature, read by its text: (where its `:` is, the outline of the masked
        text before it, its text up to `end`, where its location starts, and `_signature` of that); None where
        its last `:` has no blank on either side, or where it or the text before it has a bracket that does not
        close in order on it (or uses a value, or a type alias may be used: `_signature`)."""
        if self.type_texts:
            return None
        sig = masked.rfind(":", 0, end)
        if sig <= 0 or not masked[sig - 1].isspace() or not (sig + 1 == len(masked) or masked[sig + 1].isspace()):
            return None
        tail = masked[sig:end]
        signature = self.signatures.get(tail)
        if signature is None and tail not in self.signatures:
            signature = self.signatures[tail] = _signature(tail)
        if signature is None:
            return None
        if _BRACKET.search(masked, 0, sig) is None:
            return sig, _NO_BRACKETS, tail, signature
        head = _outline(masked[:sig], closed=True)
        return None if head is None else (sig, head, tail, signature)

    def read_alias(self, text: str, masked: str, ln: int) -> bool:
        """Read at once a one-line statement that defines one alias, ``#blocked = #ttg.blocked<{...}>``, as
        `finish` and `alias_statement` read it (no other definition is on the line). False, having done
        nothing, for any other line (or where a construct of an older Triton may be on it: `older_triton`)."""
        m, head = _ALIAS_HEAD.match(masked), _ALIAS_HEAD.match(text)     # (masked, a loc(...) body is blank)
        if m is None or head is None or self.older_hints or _ALIAS_DEFINITION.search(masked, 1) is not None:
            return False
        body = text[head.end():].strip()
        (self.define_alias if m.group(1) == "#" else self.define_type_alias)(m.group(2), body, ln)
        return True

    def read_location_alias(self, code: str, ln: int, following: str) -> bool:
        """Read at once a line that defines a location alias, ``#loc3 = loc("k.py":12:8)`` (what Triton writes
        at the end of a module, one line per location), as `scan_line` and `alias_statement` read it: its
        brackets close in order outside its strings, and its masked text is the alias's name (the rest is
        strings and a location). False, having done nothing, for any other line."""
        m = _LOCATION_ALIAS.fullmatch(code)
        if m is None or "triton_" in m.group(1) or _continues(code.lstrip(), following):
            return False
        self.define_alias(m.group(1), m.group(2), ln)
        return True

    def scan_line(self, code: str, ln: int, following: str) -> None:
        """Add one code line to the statements being gathered, tracking its brackets. The text between
        two bracket events is added to the statement in one piece (`added`: where the text not yet
        added starts); a bracket's offset in the statement is where it will land."""
        pos = 0
        while True:
            if self.cur is None:
                pos = len(code) - len(code[pos:].lstrip())     # (at the next non-blank character)
                if pos >= len(code):
                    return
                if code[pos] == "}":
                    self.close_region(ln)
                    pos += 1
                    continue
                self.cur = _Stmt(ln)
            cur, stack, added, resume = self.cur, self.cur.stack, pos, None
            for m in _TOKEN.finditer(code, pos):
                tok = m.group()
                if tok[0] == '"':
                    continue
                if tok in "<[(":
                    stack.append((tok, ln, m.start() + 1, cur.length + m.start() - added))
                elif tok == "{":
                    if self.opens_region(cur, code, m.end(), following):
                        cur.add(code[added:m.end()], ln)
                        self.open_region(cur, ln)
                        return                      # (nothing but blanks follows the brace)
                    stack.append((tok, ln, m.start() + 1, cur.length + m.start() - added))
                elif stack and stack[-1][0] == _CLOSERS[tok]:
                    stack.pop()
                elif tok == "}" and not stack and self.owners:
                    cur.add(code[added:m.start()], ln)
                    self.finish(cur)                # the '}' closes the enclosing region: it is read next
                    resume = m.start()
                    break
                else:
                    what = (f"does not close '{stack[-1][0]}' (line {stack[-1][1]}, column {stack[-1][2]})"
                            if stack else "closes nothing")
                    cur.error = (ln, f"mismatched brackets: '{tok}' at column {m.start() + 1} {what}")
                    cur.add(code[added:], ln)
                    if code.rstrip().endswith("{") and not _DICT_ENTRY.match(following):
                        stack.clear()
                        self.open_region(cur, ln)
                    break
            else:
                cur.add(code[added:], ln)
            if resume is None:
                break
            pos = resume
        cur = self.cur
        if cur is None:
            return
        if cur.error:
            self.finish(cur)
        elif not cur.stack:
            if _continues(cur.text(), following):
                cur.add("\n", ln)
            else:
                self.finish(cur)
        elif _STATEMENT_START.match(following) or (cur.stack[-1][0] == "<" and _RESULTS_START.match(following)):
            cur.error = _unclosed(cur, "the next line starts a new statement")
            self.finish(cur)
        else:
            cur.add("\n", ln)

    def opens_region(self, cur: _Stmt, code: str, pos: int, following: str) -> bool:
        """Whether the `{` just before pos opens a region: it ends the line (the next character, then all
        of the rest, blank), outside every bracket but `(`, and the next line is no dictionary entry."""
        return (not code[pos:pos + 1].strip() and not code[pos:].strip() and all(b[0] == "(" for b in cur.stack)
                and not _DICT_ENTRY.match(following))

    def open_region(self, cur: _Stmt, ln: int) -> None:
        cur.region_line = ln
        if cur.op is None and not cur.module:
            text = cur.text()
            masked = _mask(text)
            if _MODULE_HEAD.match(masked):
                cur.module = True
                self.begin_module(cur, masked)
            else:
                cur.op = self.new_op(cur, text, masked)
        cur.regions += 1
        self.owners.append(cur)
        self.cur = None

    def close_region(self, ln: int) -> None:
        if not self.owners:
            self.problem(ln, "'}' closes no region or bracket")
            return
        owner = self.owners.pop()
        owner.add("}", ln)
        self.cur = owner

    def end_of_input(self) -> None:
        """An unterminated statement is the problem; failing that, the innermost unclosed region."""
        cur, reported = self.cur, False
        if cur is not None:
            if cur.stack and not cur.error:
                cur.error = _unclosed(cur, "unexpected end of input")
            reported = cur.error is not None
            self.finish(cur)
        while self.owners:
            owner = self.owners.pop()
            if not reported:
                what = "module" if owner.module else owner.op.name if owner.op else "statement"
                self.problem(owner.region_line,
                             f"{what}: unexpected end of input: the region opened on this line is not closed")
                reported = True
            self.finish(owner)
        self.cur = None

    # -- reading finished statements

    def finish(self, stmt: _Stmt) -> None:
        self.cur = None
        if stmt.module:
            if stmt.error:
                self.problem(stmt.error[0], f"module: {stmt.error[1]}")
            self.closed = True
            return
        text = stmt.text()
        masked = stmt.masked if stmt.masked is not None else _mask(text)
        self.older_triton(stmt, masked)
        op = stmt.op
        if op is None:
            head = masked.lstrip()
            if head.startswith(("#", "!")) and _ALIAS_HEAD.match(masked):
                self.alias_statement(stmt, text, masked)
                return
            if head.startswith(("module", "builtin.")) and _MODULE_HEAD.match(masked):
                self.begin_module(stmt, masked)
                self.closed = True
                return
            if head.startswith("^"):
                self.block_header(stmt, text, masked)
                return
            op = self.new_op(stmt, text, masked)
            if op is None:
                return
        self.complete(stmt, op, text, masked)
        for block in stmt.blocks:
            op.arguments += block.arguments
            op.argument_types += block.argument_types

    def block_header(self, stmt: _Stmt, text: str, masked: str) -> None:
        """``^bb0(%a: T, ...):``: its arguments are declared by the operation whose region it opens
        (outside every operation it is an operation of its own, named by its label)."""
        owner = self.owner()
        m = _HEAD.match(masked)
        if owner is None or owner.module or m is None or m.group("n") is None:
            op = self.new_op(stmt, text, masked)
            if op is None:
                return
        else:
            op = Operation(m.group("n"), stmt.line, "")
            stmt.name_end = m.end()
            owner.blocks.append(op)
        self.complete(stmt, op, text, masked)

    def alias_statement(self, stmt: _Stmt, text: str, masked: str) -> None:
        """One or more definitions `#a = ...` / `!t = ...` (several may share a line)."""
        if stmt.error:
            m = _ALIAS_HEAD.match(masked)
            message = "mismatched brackets" if stmt.stack else stmt.error[1]
            self.problem(stmt.line, f"alias {m.group(1)}{m.group(2)}: {message}")
            return
        top = (stmt.outline or _outline(masked))[0]
        cuts = [0] + [p for p in _top_level(masked, top, _ALIAS_DEFINITION) if p > 0 and masked[:p].strip()]
        for a, b in zip(cuts, cuts[1:] + [len(text)]):
            m = _ALIAS_HEAD.match(masked, a)
            if m is None:
                self.problem(stmt.line_at(a), f"cannot read '{text[a:b].strip()[:60]}'")
                continue
            body = text[_ALIAS_HEAD.match(text, a).end():b].strip()     # (masked, a loc(...) body is blank)
            line = stmt.line_at(a)
            if m.group(1) == "#":
                self.define_alias(m.group(2), body, line)
            else:
                self.define_type_alias(m.group(2), body, line)

    def define_alias(self, name: str, body: str, line: int) -> None:
        module = self.target(line)
        self.types.clear()                          # what a type's encoding text means may change
        self.reads.clear()
        if _LOC_BODY.match(body):
            self.loc_defs[name] = body
            self.loc_lines[name] = line
            self.loc_memo.clear()
            return
        ref = _ALIAS_USE.match(body)
        if ref is None or (not layout_attribute(body) and ref.group(1) not in self.aliases
                           and ref.group(1) not in self.failed):
            self.other[name] = body                 # memory spaces, other dialects' attributes
            return
        self.parsed.clear()
        try:
            enc = self.parse_attr(body, self.aliases)
        except CheckerError as e:
            module.problems.append(Problem(line, f"alias #{name}: {self.explain(e)}"))
            self.failed[name] = line
            return
        self.aliases[name] = module.aliases[name] = enc
        module.alias_lines[name] = line

    def define_type_alias(self, name: str, body: str, line: int) -> None:
        module = self.target(line)
        self.types.clear()
        self.reads.clear()
        expanded = self.expand(body)
        self.type_texts[name] = expanded
        if not _TYPE_START.match(expanded):
            return                                  # a type alias of another kind (!llvm.struct<...>)
        try:
            module.type_aliases[name] = parse_type(expanded, self.aliases, self.encoding, line=line,
                                                   not_encodings=self.other)
        except CheckerError as e:
            module.problems.append(Problem(line, f"type alias !{name}: {self.explain(e)}"))

    def entries(self, body: str) -> dict[str, Any]:
        """`attribute_entries(body)`, each distinct body read once (the dict it gives must only be read)."""
        entries = self.bodies.get(body)
        if entries is None:
            entries = self.bodies[body] = attribute_entries(body)
        return entries

    def encoding(self, text: str, aliases: dict) -> Encoding:
        """The encoding of a type's encoding text (each distinct text is parsed once)."""
        enc = self.parsed.get(text)
        if enc is None:
            enc = self.parsed[text] = self.parse_attr(text, aliases)
        return enc

    def expand(self, text: str) -> str:
        """text with the type aliases it uses written out."""
        return re.sub(r"!([\w$.-]+)(?![\w$.<-])", lambda m: self.type_texts.get(m.group(1), m.group()), text)

    def explain(self, e: CheckerError) -> str:
        m = _UNKNOWN_ALIAS.search(e.message)
        if m and m.group(1) in self.failed:
            name = m.group(1)
            return f"alias '#{name}' cannot be used: its definition on line {self.failed[name]} was rejected"
        return e.message

    def owner(self) -> _Stmt | None:
        """The innermost open region's operation (or module header) statement, if any."""
        for o in reversed(self.owners):
            if o.op is not None or o.module:
                return o
        return None

    def new_op(self, stmt: _Stmt, text: str, masked: str) -> Operation | None:
        m = _HEAD.match(masked)
        module = self.target(stmt.line)
        results, quoted, plain_name = m.groups() if m is not None else (None, None, None)
        bare = plain_name is not None and "." not in plain_name
        if m is None or (bare and plain_name not in _BARE_OPS and not plain_name.startswith("^")):
            module.problems.append(Problem(stmt.line, f"cannot read '{' '.join(text.split())[:60]}' as an operation"))
            return None
        name = text[m.start("q"):m.end("q")] if quoted is not None else plain_name
        if name.startswith(_OLDER_PREFIXES):
            self.refuse(stmt.line, f"operation '{name}'",
                        "the triton_gpu / triton_nvidia_gpu dialects are ttg / ttng since Triton 3.2")
        stmt.name_end, stmt.index, stmt.home = m.end(), len(module.operations), module
        return self.add_operation(module, name, stmt.line, results)

    def add_operation(self, module: Module, name: str, line: int, results: str | None) -> Operation:
        """A new operation of `module` named `name`, in the innermost region open in it, with the values its head
        defines (`results`: the text before its `=`, if any)."""
        if name.startswith("amdgpu."):      # Triton <= 3.5's prefix of AMD's ops (amdg. from 3.6, PR #8675)
            name = "amdg." + name[len("amdgpu."):]
        op = Operation(name, line, "")
        if results:                         # (`_HEAD` gives them with no blank around)
            if "," not in results and ":" not in results:
                op.results.append(results)
            else:
                for r in _COMMA.split(results) if "," in results else [results]:
                    base, _, count = r.partition(":")
                    op.results += [f"{base}#{i}" for i in range(int(count))] if count else [base]
        owner = self.owner()
        if owner is not None and owner.home is module:
            op.parent, op.region = owner.index, owner.regions - 1
        module.operations.append(op)
        module.op_counts[name] += 1
        return op

    def read_operation(self, text: str, masked: str, own: str | None, ln: int, sig: int | None,
                       head: _Outline, tail: str, signature: _Signature) -> bool:
        """Read at once a one-line operation whose signature (from `sig`) was read by its text, or which has
        none, and whose head (before `sig`, with its outline `head`) holds no declaration list, type or `->`:
        most of what Triton writes, ``%r = name %a, %b {attributes} : types``. What `finish`, `new_op` and
        `complete` do with it: its head holds values, used or declared (followed by `=`), and attribute
        dictionaries, whose values are not the operation's. False, having done nothing, where another case
        applies (an alias, a module, a block header, a name `new_op` reports, a construct of an older Triton,
        a type alias, a signature that is not after the name, a top-level `:` in a statement without one)."""
        top, braces, _, marks = head
        if not (text[0] == "%" or text[0].isalpha()) or masked[0] != text[0] or text.startswith(("module", "builtin.")):
            return False
        if self.type_texts or self.older_hints and any(h in masked for h in _OLDER_HINTS):
            return False                            # (type aliases, and what `older_triton` looks at)
        m = _HEAD.match(masked)
        if m is None:
            return False
        results, quoted, name = m.groups()
        if quoted is not None or ("." not in name and name not in _BARE_OPS) or name.startswith(_OLDER_PREFIXES):
            return False
        if sig is not None and m.end() >= sig:
            return False
        end = len(masked) if sig is None else sig
        if top and (masked.find("->", 0, end) >= 0 or _TYPE_START.search(masked, 0, end)
                    or _DECLARATION.search(masked, 0, end)):
            return False                            # (a head with no bracket has none of these)
        if sig is None and any(masked[p] == ":" for p in marks if p >= m.end()):
            return False                            # (a signature `complete` would look for)
        module = self.target(ln)
        op = self.add_operation(module, name, ln, results)
        op.text = " ".join(text.split())
        op.end_line = ln
        if own is not None:
            self.op_locs.append((op, own))
        for ch, a, b in top:
            if ch == "{" and b - a > 2:
                op.attributes.update(self.entries(text[a + 1:b - 1]))
            elif ch == "<" and masked[a + 1:a + 2] == "{":
                op.attributes.update(self.entries(text[a + 2:_group_end(masked, a + 1) - 1]))
        for body in signature[0]:
            op.attributes.update(self.entries(body))
        if braces:
            for v in _VALUE_USE.finditer(masked, m.end()):
                if not _within(braces, v.start()):
                    (op.operands if v.group(2) is None else op.arguments).append(v.group(1))
        else:
            for value, declared in _VALUE_USE.findall(masked, m.end()):
                (op.arguments if declared else op.operands).append(value)
        if signature[1]:                            # its types: those of its signature's text, once read
            bare = _bare_kind(op.name)
            reads = self.reads.get((bare, tail))
            if reads is not None:
                for read, result in reads:
                    (op.result_types if result else op.operand_types).append(_occurrence(read, ln))
            else:
                reads, complete = [], True
                for type_text, kind, result in signature[1]:
                    first = self.read_type(module, op, type_text, bare if kind is _BARE else kind, ln)
                    if first is None:
                        complete = False
                        continue
                    (op.result_types if result else op.operand_types).append(_occurrence(first, ln))
                    reads.append((first, result))
                if complete:
                    self.reads[(bare, tail)] = reads
        return True

    def complete(self, stmt: _Stmt, op: Operation, text: str, masked: str) -> None:
        module = self.target(stmt.line)
        op.text = " ".join(text.split())
        op.end_line = stmt.end_line
        own = stmt.own_loc if stmt.masked is not None else _own_location(text)
        if own is not None:
            self.op_locs.append((op, own))
        if stmt.error:
            module.problems.append(Problem(stmt.error[0], f"{op.name}: {stmt.error[1]}"))
            return
        start = stmt.name_end
        sig: int | None = None                      # the last top-level ` : ` (blanks around it)
        signature = None                            # what follows it, when read by its text (`_signature`)
        if stmt.signature is not None and stmt.signature[0] > start:
            sig, outline, _, signature = stmt.signature     # (the outline of the head, before `sig`)
            end = sig
        else:
            outline, end = stmt.outline or _outline(masked), len(masked)
        top, braces, ends, top_marks = outline

        # attribute dictionaries: {...}, <{...}> and `attributes {...}` (empty braces are elided regions)
        decls = []                                  # declaration lists (%a: T, ...), not after a successor label
        for ch, a, b in top:
            if a < start:
                continue
            if ch == "{" and b - a > 2:
                op.attributes.update(self.entries(text[a + 1:b - 1]))
            elif ch == "<" and masked[a + 1:a + 2] == "{":
                op.attributes.update(self.entries(text[a + 2:_group_end(masked, a + 1) - 1]))
            elif ch == "(" and _DECLARATION.match(masked, a) \
                    and not (_SUCCESSOR_END.search(masked, 0, a) and a > start):
                decls.append((a, b))
        if signature is not None:
            for body in signature[0]:
                op.attributes.update(self.entries(body))

        arrows: list[int] = []                      # the top-level `->`
        for p in top_marks:
            if p < start:
                continue
            if masked[p] == "-":
                arrows.append(p)
            elif signature is None and masked[p - 1:p].isspace() and (p + 1 == len(masked) or masked[p + 1].isspace()):
                sig = p
        head_arrow = sig_arrow = None               # the first `->` before the signature, and in it
        for p in arrows:
            if sig is None or p < sig:
                if head_arrow is None:
                    head_arrow = p
            elif sig_arrow is None:
                sig_arrow = p

        # names (a value followed by `=` is declared, as `%i = %lb to %ub` declares %i)
        for v in _VALUE_USE.finditer(masked, start):
            pos = v.start()
            if braces and _within(braces, pos):
                continue
            if v.group(2) is not None or (decls and _within(decls, pos)):
                op.arguments.append(v.group(1))
            else:
                op.operands.append(v.group(1))

        # types
        bare = _bare_kind(op.name)
        for pos, kind, type_text in _find_types(masked, text, ends, top, start, sig, end, bare, self.type_texts):
            if braces and _within(braces, pos):
                continue
            line = stmt.line_at(pos)
            read = self.read_type(module, op, type_text, kind, line)
            if read is None:
                continue
            ref = _occurrence(read, line)
            if decls and _within(decls, pos):
                op.argument_types.append(ref)
                if op.name.startswith("^") or _FUNC_LIKE.fullmatch(op.name):
                    op.operand_types.append(ref)
            elif sig is not None and pos > sig:
                (op.result_types if sig_arrow is not None and pos > sig_arrow else op.operand_types).append(ref)
            elif head_arrow is not None and pos > head_arrow:
                op.result_types.append(ref)
            else:
                op.operand_types.append(ref)
        if signature is not None:
            line = stmt.line_at(end)
            for type_text, kind, result in signature[1]:
                read = self.read_type(module, op, type_text, bare if kind is _BARE else kind, line)
                if read is not None:
                    (op.result_types if result else op.operand_types).append(_occurrence(read, line))

    def read_type(self, module: Module, op: Operation, type_text: str, kind: str | None, line: int) -> TypeRef | None:
        """A type of `op` on `line`, as read (each distinct text of each kind parsed once, until the next alias
        definition: `_occurrence` copies it for each place it occurs), or None, the problem recorded, where it
        does not parse."""
        read = self.types.get((type_text, kind))
        if read is None:
            try:
                read = self.types[(type_text, kind)] = parse_type(
                    type_text, self.aliases, self.encoding, kind=kind, line=line, not_encodings=self.other)
            except CheckerError as e:
                module.problems.append(Problem(line, f"{op.name}: {self.explain(e)}"))
                return None
        return read


def _within(spans: list[tuple[int, int]], pos: int) -> bool:
    """Whether pos lies strictly inside one of the (start, end) spans."""
    for a, b in spans:
        if a < pos < b:
            return True
    return False


def _occurrence(read: TypeRef, line: int) -> TypeRef:
    """A type read once (the reader parses each type text once) as it occurs on `line`: a copy with lists
    of its own (what `dataclasses.replace(read, line=line)` gives, with the lists copied, without its cost)."""
    return TypeRef(read.kind, list(read.shape), read.element_type, read.encoding_text, read.encoding,
                   read.memory_space, read.mutable, None if read.alloc_shape is None else list(read.alloc_shape),
                   line, read.unsupported)


def _after_separator(masked: str, pos: int) -> bool:
    """Whether the text before pos ends, blanks aside, with `:`, `,` or `->` (a type may start at pos)."""
    before = masked[pos - 1:pos]
    if before not in (":", ",", ">") and not before.isspace():
        return False                                # (at once: the `<` of `tensor<`)
    end = pos
    while end > 0 and masked[end - 1].isspace():
        end -= 1
    return masked.endswith((":", ",", "->"), 0, end)


def _continues(text: str, following: str) -> bool:
    """Whether a statement whose text so far (no bracket open) is `text` goes on at the next code line,
    `following` (module docstring: Statements)."""
    tail = text.rstrip() if text[-1:].isspace() else text
    if tail.endswith((",", "->", "=", "*")) or (tail.endswith(":") and not tail.lstrip().startswith("^")):
        return True
    if following.startswith("%"):   # operands on the next line, unless it defines values (no mark starts with %)
        return not _RESULTS_START.match(following)
    return bool(following) and bool(_CONTINUATION.match(following))


_TYPE_BEFORE = re.compile(r"(?:(?<![\w!.$])tensor|![\w.]+|(?<=-> ))$")


def _type_before(text: str, offset: int, window: int = 256) -> int | None:
    """Where the type name an '<' at `offset` opens starts (``tensor``, ``!name``, after ``-> ``), or None.
    Only the characters just before it are searched (a search over the whole prefix for each of n unclosed
    brackets is quadratic); a match at the window's edge is searched again over the whole prefix."""
    lo = max(0, offset - window)
    m = _TYPE_BEFORE.search(text, lo, offset)
    if m is not None and m.start() == lo and lo > 0:
        m = _TYPE_BEFORE.search(text, 0, offset)
    return m.start() if m else None


def _unclosed(stmt: _Stmt, why: str) -> tuple[int, str]:
    """The problem of a statement whose brackets are still open: the outermost unclosed type if there
    is one, else the innermost open bracket."""
    text = stmt.text()
    for ch, _line, _col, offset in stmt.stack:
        start = _type_before(text, offset) if ch == "<" else None
        if start is not None:
            shown = re.sub(r"\s*\n\s*", " ", text[start:])[:40].rstrip()
            return stmt.line_at(start), f"unbalanced brackets in type starting '{shown}'"
    ch, line, col, _ = stmt.stack[-1]
    return line, f"{why}: '{ch}' at column {col} is not closed"


def read_ttgir(text: str, file: str = "<stdin>", parse_attr: AttributeParser | None = None) -> list[Module]:
    """Read every module of a TTGIR text; problems are collected, never raised (but text that is no text,
    with NUL or other control characters, is a ParseError naming the file and line)."""
    check_characters(text, file)
    reader = _Reader(file, parse_attr or _default_parser())
    lines = text.splitlines()
    if "// -----" not in text:              # (one section: no line to look at)
        reader.section(lines, 1)
    else:
        first = 0
        for k, line in enumerate(lines + ["// -----"]):
            if "// -----" in line and line.strip().startswith("// -----"):
                reader.section(lines[first:k], first + 1)
                first = k + 1
    if not reader.modules:
        reader.modules.append(Module(file, 1))
    for m in reader.modules:
        if m.refused is not None:           # one problem, nothing to check
            m.problems = [p for p in m.problems if p.message == m.refused][:1]
            m.operations, m.op_counts, m.aliases, m.alias_lines, m.type_aliases = [], Counter(), {}, {}, {}
        m.problems.sort(key=lambda p: p.line)
    return reader.modules


def layout_shape(ref: TypeRef) -> list[int]:
    """The shape an encoding is lowered at: a tensor's shape; a memdesc's allocation shape
    (its own shape when it has none), trailing dims when the encoding has fewer."""
    shape = list(ref.alloc_shape or ref.shape) if ref.kind == "memdesc" else list(ref.shape)
    rank = ref.encoding.rank if ref.encoding is not None else len(shape)
    return shape[len(shape) - rank:] if rank < len(shape) else shape
