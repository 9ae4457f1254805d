"""Whatever a Triton user has in front of them, read as one layout (for lower / show / prove / smt).

    read_pasted('#ttg.blocked<{...}>')                                  -> Pasted(encoding, shape=None)
    read_pasted('#blocked = #ttg.blocked<{...}>')                       -> the alias's layout
    read_pasted('tensor<64x64xf16, #ttg.blocked<{...}>> loc(#loc3)')    -> shape [64, 64], 16-bit elements
    read_pasted('!ttg.memdesc<64x64xf16, #shared, #smem, mutable>')     -> (aliases from the lines above)
    read_pasted('#blocked = ...\\n#shared = ...\\n#smem = ...\\n!ttg.memdesc<64x64xf16, #shared, #smem>')

Accepted forms:

- Triton attribute text ``#ttg.xxx<...>`` (also ``#triton_gpu.`` / ``#ttng.``);
- an alias definition line ``#name = #ttg.xxx<...>`` (that layout);
- a type ``tensor<SHAPE x ELEM, #enc>``, ``!ttg.memdesc<SHAPE x ELEM, #enc, #smem[, mutable][, ALLOC]>``
  or ``!tt.tensordesc<tensor<...>>``: the layout, and the shape and element type of the type
  (a memdesc's allocation shape, trailing dims when its encoding has fewer, as the TTGIR checks do);
- any of these after the alias lines of a TTGIR file (``#name = ...``, ``!name = type``,
  ``#loc3 = loc(...)``), which are resolved; several alias lines and nothing after them
  name their one layout (several layouts: name the one to use on a last line, ``#shared``);
- each with a trailing ``loc(#loc3)`` / ``loc("f.py":1:2)``; ``//`` comments are skipped.

What is no layout gets a one-line `ParseError` saying what it is: a location (``#loc3``,
``loc(...)``), a memory space (``#ttg.shared_memory``, ``#smem``), an encoding layoutcheck does
not support (`checker.syntax.ttgir.unsupported_encoding`: ``#ttig.dpas`` is an Intel encoding,
``#gluon.auto_encoding`` a Gluon encoding whose layout is not chosen yet), another attribute.
Attribute text is read strictly (`parse_attribute`); validation is the caller's (``enc.validate()``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..encodings.base import Encoding
from ..errors import CheckerError, ParseError
from .mlir_attr import parse_attribute
from .ttgir import LAYOUT_DIALECTS, MEMORY_SPACES, NOT_LAYOUTS, layout_attribute, parse_type, unsupported_encoding

_TYPE_HEAD = re.compile(r"(tensor|!ttg\.memdesc|!triton_gpu\.memdesc|!tt\.tensordesc)<")
_ALIAS_HEAD = re.compile(r"([#!])([\w$.-]+)\s*=(?!=)\s*")
_ALIAS_USE = re.compile(r"#([\w$.-]+)$")
_TYPE_ALIAS_USE = re.compile(r"!([\w$.-]+)(?![\w$.<-])")
_LOC_NAME = re.compile(r"loc\d*$")
_DEPTH = 32


@dataclass(frozen=True)
class Pasted:
    """One layout read from pasted text, with what a type around it said."""

    encoding: Encoding
    form: str = "attribute"             # "attribute" | "alias" | "tensor" | "memdesc" | "tensordesc"
    shape: tuple[int, ...] | None = None     # the shape the layout is lowered at (from a type)
    element_type: str | None = None     # "f16", "bf16", "!tt.ptr<f32>", ... (from a type)
    element_bits: int | None = None
    text: str = ""                      # the type or attribute as pasted (aliases not expanded), for messages

    def describe(self) -> str:
        """The pasted type or attribute, shortened for a message."""
        t = re.sub(r"\s+", " ", self.text).strip()
        return t if len(t) <= 70 else t[:67] + "..."


def read_pasted(text: str) -> Pasted:
    """The layout a pasted text names (module docstring); a `ParseError` for anything else.

    The common case, one TritonGPU attribute on one line with nothing around it, goes straight to the
    attribute parser (`_plain_attribute`); everything else, and every error, takes the general path, so
    that its messages are the same."""
    if not isinstance(text, str):
        raise ParseError(f"expected text, got {type(text).__name__}")
    plain = plain_encoding(text)
    if plain is not None:
        return Pasted(plain, "attribute", text=text)
    statements = _statements(text)
    if not statements:
        raise ParseError("empty layout text: give attribute text such as '#ttg.blocked<{...}>', "
                         "a tensor<...> or !ttg.memdesc<...> type, or alias lines")
    table: dict[str, Encoding] = {}       # layout aliases
    others: dict[str, str] = {}           # every other `#name = body` (memory spaces, locations, ...)
    types: dict[str, str] = {}            # `!name = type`
    rest: list[tuple[int, str]] = []
    defined: list[str] = []
    for line, stmt in statements:
        m = _ALIAS_HEAD.match(stmt)
        if m is None:
            rest.append((line, stmt))
            continue
        sigil, name, body = m.group(1), m.group(2), _strip_loc(stmt[m.end():].strip())
        if sigil == "!":
            types[name] = _expand_types(body, types)
            continue
        defined.append(name)
        ref = _ALIAS_USE.match(body)
        if layout_attribute(body) or (ref and ref.group(1) in table):
            try:
                table[name] = parse_attribute(body, table)
            except CheckerError as e:
                raise ParseError(f"alias #{name} (line {line}): {e.message}", field=e.field) from None
        else:
            others[name] = body
    if len(rest) > 1:
        line, stmt = rest[1]
        raise ParseError(f"give one type or attribute after the alias lines, got a second one on line {line}: "
                         f"'{_short(stmt)}' (to check a whole TTGIR module, use layoutcheck verify)")
    if rest:
        subject, form = _strip_loc(rest[0][1]), None
    else:
        layouts = [n for n in defined if n in table]
        if len(layouts) == 1 or len(defined) == 1:
            subject = "#" + (layouts[0] if len(layouts) == 1 else defined[0])
        else:
            raise ParseError(f"the text defines {len(layouts)} layouts ({', '.join('#' + n for n in layouts)}): "
                             "add a last line naming the one to use, e.g. '#" + layouts[0] + "'")
        form = "alias"
    return _subject(subject, form, table, others, types)


_PLAIN = ("#ttg.", "#triton_gpu.", "#ttng.")


def plain_encoding(text: str) -> Encoding | None:
    """The encoding of one TritonGPU attribute alone on a line (``#ttg.blocked<{...}>``: no alias line, type,
    location, comment or line break), straight from the attribute parser; None for anything else and for
    text the parser refuses (`read_pasted`'s general path then reads it, or says why not)."""
    if not text.startswith(_PLAIN) or "\n" in text or "//" in text or "loc(" in text:
        return None
    try:
        return parse_attribute(text, {})
    except CheckerError:
        return None


def _subject(text: str, form: str | None, table: Mapping[str, Encoding], others: Mapping[str, str],
             types: Mapping[str, str]) -> Pasted:
    shown = text
    use = _TYPE_ALIAS_USE.fullmatch(text)
    if use and use.group(1) in types:
        text = types[use.group(1)]
    text = _expand_types(text, types)
    head = _TYPE_HEAD.match(text)
    if head:
        return _typed(text, shown, table, others)
    if text.startswith("#"):
        enc = _attribute(text, table, others)
        return Pasted(enc, form or ("alias" if _ALIAS_USE.match(text) else "attribute"), text=shown)
    if re.match(r"loc\s*\(", text):
        raise ParseError(not_a_layout(text))
    if text.startswith("!"):
        raise ParseError(f"'{_short(text)}' is not a tensor<...>, !ttg.memdesc<...> or !tt.tensordesc<...> type "
                         "(or a type alias defined above)")
    raise ParseError(f"attribute text starts with '#' ('#ttg.blocked<{{...}}>'; or give a tensor<...> or "
                     f"!ttg.memdesc<...> type, or alias lines), got '{_short(text)}'")


def _attribute(text: str, table: Mapping[str, Encoding], others: Mapping[str, str]) -> Encoding:
    reason = not_a_layout(text, others, table)
    if reason:
        raise ParseError(reason)
    use = _ALIAS_USE.match(text)
    if use and use.group(1) not in table and f"#{use.group(1)}" not in table:
        raise ParseError(f"unknown alias '{text}': paste its definition line ('{text} = #ttg....') above it, "
                         "or the attribute itself")
    return parse_attribute(text, table)


def _typed(text: str, shown: str, table: Mapping[str, Encoding], others: Mapping[str, str]) -> Pasted:
    kind = "memdesc" if "memdesc" in text[:20] else "tensordesc" if text.startswith("!tt.tensordesc") else "tensor"
    inner = text
    if kind == "tensordesc":        # !tt.tensordesc<tensor<...>>: the block's type
        if not text.endswith(">") or not text[len("!tt.tensordesc<"):].startswith("tensor<"):
            raise ParseError(f"'{_short(text)}' is not of the form !tt.tensordesc<tensor<...>>")
        inner = text[len("!tt.tensordesc<"):-1].strip()
    try:
        ref = parse_type(inner, dict(table), lambda t, a: _attribute(t, a, others), kind=kind,
                         not_encodings=others)
    except ParseError:
        raise
    except CheckerError as e:
        raise ParseError(e.message, field=e.field) from None
    if ref.unsupported:
        raise ParseError(f"{ref.encoding_text}: {ref.unsupported}")
    if ref.encoding is None:
        if ref.encoding_text is None:
            raise ParseError(f"the type '{_short(text)}' has no layout encoding")
        raise ParseError(not_a_layout(ref.encoding_text, others, table)
                         or f"{ref.encoding_text} is not a layout")
    shape = list(ref.alloc_shape or ref.shape) if kind == "memdesc" else list(ref.shape)
    rank = getattr(ref.encoding, "rank", None)
    if isinstance(rank, int) and 0 < rank < len(shape):
        shape = shape[len(shape) - rank:]
    return Pasted(ref.encoding, kind, tuple(shape), ref.element_type, ref.element_bits, text=shown)


def not_a_layout(text: str, others: Mapping[str, str] = {}, layouts: Mapping[str, Encoding] = {}) -> str | None:
    """Why an attribute text (or ``#alias`` defined in `others`) is no layout layoutcheck reads, as one
    line naming it ("#smem (= #ttg.shared_memory): a memory space, not a layout"), or None (a TritonGPU
    layout, or text left to the attribute parser)."""
    text = text.strip()
    shown, body = _short(text, 50), text
    for _ in range(_DEPTH):                 # follow `#a = #b` definitions
        use = _ALIAS_USE.match(body)
        if not use or use.group(1) not in others:
            break
        body = others[use.group(1)].strip()
    if body != text:
        shown += f" (= {_short(body, 50)})"
    why = _why(body, layouts)
    return f"{shown}: {why}" if why else None


def _why(text: str, layouts: Mapping[str, Encoding]) -> str | None:
    use = _ALIAS_USE.match(text)
    if use and (use.group(1) in layouts or f"#{use.group(1)}" in layouts):
        return None
    if use and _LOC_NAME.match(use.group(1)):
        return "a location (an alias of loc(...)), not a layout"
    if re.match(r"loc\s*\(", text):
        return "a location, not a layout"
    if text in MEMORY_SPACES:
        return "a memory space, not a layout"
    why = unsupported_encoding(text)
    if why:
        return why
    m = re.match(r"#([A-Za-z_][\w$]*)\.([\w$]+)", text)
    if m and m.group(1) in LAYOUT_DIALECTS and m.group(2) in NOT_LAYOUTS:
        return "an attribute that is not a layout"
    if m and m.group(1) not in LAYOUT_DIALECTS:
        return f"an attribute of the {m.group(1)} dialect, not a layout"
    return None


def _statements(text: str) -> list[tuple[int, str]]:
    """The text's statements with their first line: a statement ends at a line end outside brackets
    (``<[{(``, quoted strings masked, ``->`` ignored) unless it ends with ``=``; ``//`` comments dropped."""
    out: list[tuple[int, str]] = []
    cur: list[str] = []
    first = 0
    depth = 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = _code(raw)
        if not line.strip() and not cur:
            continue
        if not cur:
            first = n
        cur.append(line.strip())
        masked = re.sub(r'"(?:[^"\\]|\\.)*"?', '""', line).replace("->", "  ")
        depth += sum(masked.count(c) for c in "<[{(") - sum(masked.count(c) for c in ">]})")
        if depth <= 0 and not line.rstrip().endswith("="):
            out.append((first, " ".join(c for c in cur if c)))
            cur, depth = [], 0
    if cur:
        out.append((first, " ".join(c for c in cur if c)))
    return out


def _code(line: str) -> str:
    """line without its ``//`` comment (outside quoted strings)."""
    if "//" not in line:
        return line
    i, quoted = 0, False
    while i < len(line):
        ch = line[i]
        if ch == "\\" and quoted:
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def _strip_loc(text: str) -> str:
    """text without a trailing ``loc(...)``."""
    masked = re.sub(r'"(?:[^"\\]|\\.)*"?', lambda m: '"' + " " * (len(m.group()) - 2) + '"'
                    if len(m.group()) >= 2 else " ", text)
    for m in reversed(list(re.finditer(r"(?<![\w$.])loc\s*\(", masked))):
        depth, end = 0, None
        for i in range(m.end() - 1, len(masked)):
            depth += masked[i] == "("
            depth -= masked[i] == ")"
            if depth == 0:
                end = i + 1
                break
        if end is not None and not masked[end:].strip() and masked[:m.start()].strip():
            return text[:m.start()].rstrip()
    return text.strip()


def _expand_types(text: str, types: Mapping[str, str]) -> str:
    return _TYPE_ALIAS_USE.sub(lambda m: types.get(m.group(1), m.group()), text)


def _short(text: str, limit: int = 60) -> str:
    t = re.sub(r"\s+", " ", text).strip()
    return t if len(t) <= limit else t[:limit - 3] + "..."


__all__ = ["Pasted", "read_pasted", "plain_encoding", "not_a_layout"]
