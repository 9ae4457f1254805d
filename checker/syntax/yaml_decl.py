"""Encoding declarations in YAML: the ``encodings/*.yaml`` library format (docs/encodings.md).

    version: 1
    include: [common.yaml]                 # other files' names become usable here
    encodings:
      mma:                                 # snake_case keys = Triton's parameter names
        kind: nvidia_mma
        version_major: 2
        version_minor: 0
        warps_per_cta: [2, 2]
        instr_shape: [16, 8]
      a_operand: {kind: dot_op, op_idx: 0, parent: mma, k_width: 2}
      b_operand: {attr: "#ttg.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>"}

A file is checked against ``checker/schemas/encoding.schema.json`` (types,
keys, kinds), then each declaration is built into the dataclass of its kind
(``checker.encodings.ENCODING_CLASSES``) field by field, as the fields'
metadata says (`checker.encodings.base.param`: the YAML key, its default):
lists become tuples, a ``parent``/``partition_layout`` given as a name,
attribute text or inline mapping becomes an encoding, a key left out takes
the field's default. Conversions that are not one-to-one:

- ``ctas_per_cga, cta_split_num, cta_order`` (legacy) -> ``cga_layout``;
- ``rank`` left out -> deduced (`checker.encodings.base.implied_rank`);
- padded_shared ``order, shape`` -> identity ``offset_bases`` over ``shape``;
- shared_linear ``alignment`` -> the field ``alignment_bytes``.

Normal forms are the encodings' own (amd_mfma ``tiles_per_warp`` of all ones
is ``()``, as Triton stores it).

Last, ``validate()`` applies Triton's verifier rules. Every error is one
line naming the file, the line and the YAML key:
``encodings/ampere.yaml:12: field 'threads_per_warp': blocked: every entry must be a power of two, got [6, 4]``.
Lines come from a SafeLoader that records where each key and list item starts.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

import yaml

from ..encodings import ENCODING_CLASSES
from ..encodings.base import RANK, REQUIRED, Encoding, field_by_triton_name, implied_rank, params_of
from ..encodings.cga import cga_bases_from_split_params
from ..encodings.padded_shared import identity_offsets
from ..errors import CheckerError, EncodingError, InternalError, ParseError
from ..layout import is_power_of_two
from ..limits import MAX_INCLUDE_DEPTH, MAX_NESTING, MAX_YAML_NODES, check_characters, check_depth, clip, read_text
from ..schema import Schema, path_field, show
from .mlir_attr import parse_attribute

SCHEMA = "encoding.schema.json"
LEGACY_CGA = ("ctas_per_cga", "cta_split_num", "cta_order")
_LEGACY_TRITON = dict(zip(("CTAsPerCGA", "CTASplitNum", "CTAOrder"), LEGACY_CGA))
_ALIAS_REF = re.compile(r"#([A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_.$])")


# ---------------------------------------------------------------- YAML with lines

@dataclass
class YamlDocument:
    """Loaded YAML data plus the line (1-based) where each mapping key and list item starts."""

    file: str | None
    data: Any
    key_lines: dict[int, dict[Any, int]] = dc_field(default_factory=dict)    # id(mapping) -> key -> line
    item_lines: dict[int, list[int]] = dc_field(default_factory=dict)        # id(list) -> lines
    node_lines: dict[int, int] = dc_field(default_factory=dict)              # id(mapping or list) -> line

    def line_at(self, path: tuple, root: Any = None) -> int | None:
        """The line of the deepest key or item along `path` from `root` (default: the document)."""
        node = self.data if root is None else root
        line = self.node_lines.get(id(node), 1 if node is self.data else None)
        for step in path:
            if isinstance(node, Mapping) and step in node:
                line = self.key_lines.get(id(node), {}).get(step, line)
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                line = self.item_lines.get(id(node), [line] * len(node))[step]
            else:
                break
            node = node[step]
        return line


class _LineLoader(yaml.SafeLoader):
    """A SafeLoader that records lines in side tables and rejects duplicate keys, and reads only what
    the schemas speak of (docs/spec-format.md, "Values"): mapping keys are text; integers are decimal
    (YAML 1.1's ``0100`` = 64, ``0x40``, ``1_0``, ``1:30`` are refused); booleans are ``true`` /
    ``false`` (not ``yes``, ``on``); no timestamps, binary, sets or ordered maps; collections nest at
    most ``MAX_NESTING`` deep and expand (aliases included) to at most ``MAX_YAML_NODES`` nodes."""

    def __init__(self, stream):
        super().__init__(stream)
        self.doc = YamlDocument(None, None)
        self._depth = 0

    def compose_node(self, parent, index):
        self._depth += 1
        try:
            if self._depth > MAX_NESTING:
                raise yaml.composer.ComposerError(None, None, f"the YAML nests more than {MAX_NESTING} levels "
                                                              f"deep (the limit)", self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_data(self):
        node = self.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return self.construct_document(node)

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, KeyError, TypeError, OverflowError, ArithmeticError) as e:
            raise yaml.constructor.ConstructorError(None, None, f"cannot read {_tag(node)} {_scalar(node)}: "
                                                                f"{type(e).__name__}", node.start_mark) from None

    def _int(self, node):
        text = self.construct_scalar(node)
        if not _DECIMAL_INT.fullmatch(text):
            raise yaml.constructor.ConstructorError(
                None, None, f"write integers in decimal: {_scalar(node)} (YAML 1.1 reads 0100 as 64, 0x40 as "
                            f"64; quote it to mean text)", node.start_mark)
        return int(text)

    def _bool(self, node):
        text = self.construct_scalar(node)
        if text.lower() not in ("true", "false"):
            raise yaml.constructor.ConstructorError(
                None, None, f"write booleans as true or false, got {_scalar(node)} (quote it to mean text)",
                node.start_mark)
        return text.lower() == "true"

    def _float(self, node):
        value = super().construct_yaml_float(node)
        if value != value or value in (float("inf"), float("-inf")):
            raise yaml.constructor.ConstructorError(None, None, f"{_scalar(node)} is not a finite number",
                                                    node.start_mark)
        return value

    def _refused(self, node):
        raise yaml.constructor.ConstructorError(
            None, None, f"{_tag(node)} values are not accepted here (quote a date or write text)",
            node.start_mark)

    def _mapping(self, node):
        data: dict = {}
        self.doc.node_lines[id(data)] = node.start_mark.line + 1
        yield data
        own = {id(k) for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge"}
        self.flatten_mapping(node)      # merged (<<) entries first; the mapping's own keys override them
        lines, seen = {}, set()
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise yaml.constructor.ConstructorError(None, None, f"a mapping key must be text, got "
                                                                    f"{_scalar(key_node)} (quote it)",
                                                        key_node.start_mark) from None
            if id(key_node) in own:
                if key in seen:
                    raise yaml.constructor.ConstructorError(None, None, f"duplicate key {show(key)}",
                                                            key_node.start_mark)
                seen.add(key)
            data[key] = self.construct_object(value_node, deep=True)
            lines[key] = key_node.start_mark.line + 1
        self.doc.key_lines[id(data)] = lines

    def _sequence(self, node):
        data: list = []
        self.doc.node_lines[id(data)] = node.start_mark.line + 1
        yield data
        data.extend(self.construct_object(item, deep=True) for item in node.value)
        self.doc.item_lines[id(data)] = [item.start_mark.line + 1 for item in node.value]


_LineLoader.add_constructor("tag:yaml.org,2002:map", _LineLoader._mapping)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _LineLoader._sequence)
_LineLoader.add_constructor("tag:yaml.org,2002:int", _LineLoader._int)
_LineLoader.add_constructor("tag:yaml.org,2002:bool", _LineLoader._bool)
_LineLoader.add_constructor("tag:yaml.org,2002:float", _LineLoader._float)
for _tag_name in ("timestamp", "binary", "set", "omap", "pairs"):
    _LineLoader.add_constructor(f"tag:yaml.org,2002:{_tag_name}", _LineLoader._refused)
_LineLoader.add_constructor(None, _LineLoader._refused)          # an unknown tag (!foo)
_DECIMAL_INT = re.compile(r"[-+]?(0|[1-9][0-9]*)")


def _tag(node) -> str:
    tag = node.tag or ""
    return "!!" + tag.rsplit(":", 1)[-1] if tag.startswith("tag:yaml.org,2002:") else (tag or "untagged")


def _scalar(node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return repr(clip(node.value, 40))
    return "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"


def _check_expansion(root) -> None:
    """Refuse a document whose aliases expand it past MAX_YAML_NODES nodes or MAX_NESTING levels, or
    refer to themselves, without expanding it: sizes and depths are counted once per node."""
    size: dict[int, int] = {}
    deep: dict[int, int] = {}
    stack = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = ([c for pair in node.value for c in pair] if isinstance(node, yaml.MappingNode)
                    else node.value if isinstance(node, yaml.SequenceNode) else [])
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size[id(c)] for c in children)
            deep[key] = 1 + max((deep[id(c)] for c in children), default=0)
            if size[key] > MAX_YAML_NODES:
                raise yaml.composer.ComposerError(None, None, f"the YAML expands (aliases included) to more than "
                                                              f"{MAX_YAML_NODES} nodes (the limit)", node.start_mark)
            if deep[key] > MAX_NESTING:
                raise yaml.composer.ComposerError(None, None, f"the YAML nests (aliases included) more than "
                                                              f"{MAX_NESTING} levels deep (the limit)", node.start_mark)
            continue
        if key in size:
            continue
        if key in on_path:
            raise yaml.composer.ComposerError(None, None, "an alias refers to the collection it is in",
                                              node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in size)


def parse_yaml(text: str, file: str | None = None) -> YamlDocument:
    """YAML text -> YamlDocument; malformed YAML is a ParseError at the line where it breaks."""
    if not isinstance(text, str):
        raise ParseError(f"expected YAML text, got {type(text).__name__}", file=file, field=None if file else "text")
    check_characters(text, file)
    loader = None
    try:
        loader = _LineLoader(text)
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        what = e.problem or e.context or "cannot be read"
        context = ""
        if e.context and e.problem:
            started = e.context_mark.line + 1 if e.context_mark else None
            context = f" ({e.context} started at line {started})" if started and mark and started != mark.line + 1 \
                else f" ({e.context})"
        raise ParseError(f"invalid YAML: {what}{context}", file=file,
                         line=mark.line + 1 if mark else None) from None
    except yaml.YAMLError as e:
        raise ParseError(f"invalid YAML: {e}", file=file, field=None if file else "text") from None
    finally:
        if loader is not None:
            loader.dispose()
    loader.doc.file, loader.doc.data = file, data
    return loader.doc


def read_yaml(path: str | os.PathLike) -> YamlDocument:
    """A YAML file (UTF-8 text only: `checker.limits.read_text`) -> YamlDocument."""
    path = os.fspath(path)
    return parse_yaml(read_text(path), path)


def check_schema(doc: YamlDocument | None, data: Any, pointer: str = "#", *, file: str | None = None,
                 schema: str | Schema = SCHEMA) -> None:
    """Raise the first schema violation of `data` (the earliest in the file) as a located ParseError; `schema`:
    a shipped schema's name, or a `Schema`."""
    violations = (Schema.load(schema) if isinstance(schema, str) else schema).validate(data, pointer)
    if not violations:
        return
    if doc is not None:
        first = min(violations, key=lambda v: doc.line_at(v.path, data) or 0)
        line = doc.line_at(first.path, data)
    else:
        first, line = violations[0], None
    raise ParseError(first.message, file=file or (doc.file if doc else None), line=line, field=first.field)


# ---------------------------------------------------------------- names

class _Names:
    """Encodings a declaration may refer to by name: fixed ones, plus (for a file) its own, built lazily."""

    def __init__(self, known: Mapping[str, Encoding] | None = None, doc: YamlDocument | None = None,
                 declarations: Mapping[str, Any] | None = None):
        self.known = dict(known or {})
        self.doc = doc
        self.declarations = declarations or {}
        self.building: list[str] = []

    def defines(self, name: str) -> bool:
        return name in self.known or name in self.declarations

    def get(self, name: str, where: _Builder, path: tuple) -> Encoding:
        if name in self.known:
            return self.known[name]
        if name not in self.declarations:
            close = difflib.get_close_matches(name, [*self.known, *self.declarations], n=1)
            hint = f"; did you mean '{close[0]}'?" if close else " (none is declared or included)"
            raise where.error(f"no encoding named '{name}'{hint}", path)
        if name in self.building:
            cycle = " -> ".join(self.building[self.building.index(name):] + [name])
            raise where.error(f"the encodings refer to each other in a cycle: {clip(cycle, 160)}", path)
        if len(self.building) >= MAX_NESTING:
            raise where.error(f"the encodings refer to each other more than {MAX_NESTING} deep (the limit)", path)
        self.building.append(name)
        try:
            enc = _Builder(self, self.doc, self.doc.file, self.doc.data).build(self.declarations[name],
                                                                               ("encodings", name))
        finally:
            self.building.pop()
        self.known[name] = enc
        return enc


# ---------------------------------------------------------------- building

class _Builder:
    """Builds declarations found under `root` of `doc` (paths are relative to `root`)."""

    def __init__(self, names: _Names, doc: YamlDocument | None, file: str | None, root: Any):
        self.names, self.doc, self.file, self.root = names, doc, file, root

    def line(self, path: tuple) -> int | None:
        return self.doc.line_at(path, self.root) if self.doc is not None else None

    def error(self, message: str, path: tuple) -> ParseError:
        return ParseError(message, file=self.file, line=self.line(path), field=path_field(path))

    def locate(self, e: CheckerError, path: tuple, field: str | None) -> CheckerError:
        """Place an error raised by encoding code at `path` (kept as is if already placed)."""
        if e.file is None and e.line is None:
            e.field = field
            e.located(file=self.file, line=self.line(path))
        return e

    def build(self, decl: Mapping[str, Any], path: tuple) -> Encoding:
        if "attr" in decl:
            return self._attribute(decl["attr"], path + ("attr",))
        kind = decl["kind"]
        cls = ENCODING_CLASSES.get(kind)
        if cls is None:
            raise self.error(f"the encoding kind '{kind}' is not available in this layoutcheck "
                             f"(available: {', '.join(sorted(ENCODING_CLASSES))})", path + ("kind",))
        values = self._field_values(decl, cls, path)
        try:
            enc = cls(**values)
        except TypeError as e:
            raise InternalError(f"{SCHEMA} and {cls.__name__} disagree on the fields of '{kind}': {e}") from None
        try:
            enc.validate()
        except EncodingError as e:
            key = _yaml_key(e.field, decl)
            raise self.locate(e, path + (key,) if key else path, key) from None
        return enc

    def _field_values(self, decl: Mapping[str, Any], cls: type, path: tuple) -> dict[str, Any]:
        """Dataclass field -> value: the keys given (converted), the conversions, then the defaults."""
        field_of = {p.yaml: name for name, p in params_of(cls)}
        values: dict[str, Any] = {}
        for key, value in decl.items():
            if key in field_of:
                values[field_of[key]] = self._value(value, path + (key,))
        if any(k in decl for k in LEGACY_CGA):
            values["cga_layout"] = self._legacy_cga(decl, path)
        if decl["kind"] == "padded_shared" and "order" in decl:
            values["offset_bases"] = self._identity_offsets(decl, path)
        for name, p in params_of(cls):
            if name not in values and p.yaml_default is not REQUIRED:
                values[name] = implied_rank(cls, values, decl.get("cta_order")) if p.form == RANK else p.yaml_default
        return values

    def _value(self, value: Any, path: tuple) -> Any:
        if isinstance(value, Mapping):
            return self.build(value, path)
        if isinstance(value, str):
            return self._attribute(value, path) if value.startswith("#") else self.names.get(value, self, path)
        if isinstance(value, list):
            return tuple(self._value(v, path + (i,)) if isinstance(v, list) else v for i, v in enumerate(value))
        return value

    def _attribute(self, text: str, path: tuple) -> Encoding:
        """Triton attribute text; ``#name`` refers to a declared or included encoding."""
        aliases = {n: self.names.get(n, self, path) for n in _ALIAS_REF.findall(text) if self.names.defines(n)}
        try:
            enc = parse_attribute(text, aliases)
            enc.validate()
        except CheckerError as e:
            where = path_field(path)
            raise self.locate(e, path, f"{where}.{e.field}" if e.field else where) from None
        return enc

    def _legacy_cga(self, decl: Mapping[str, Any], path: tuple) -> tuple:
        try:
            return cga_bases_from_split_params(decl["ctas_per_cga"], decl["cta_split_num"], decl["cta_order"],
                                               decl["kind"])
        except EncodingError as e:
            key = _yaml_key(e.field, decl)
            raise self.locate(e, path + (key,), key) from None

    def _identity_offsets(self, decl: Mapping[str, Any], path: tuple) -> tuple:
        """padded_shared ``order, shape``: offsets enumerate ``shape`` along order[0] first."""
        order, shape = decl["order"], decl["shape"]
        if len(order) != len(shape) or sorted(order) != list(range(len(shape))):
            raise self.error(f"must be a permutation of 0..{len(shape) - 1} (one entry per dim of 'shape'), "
                             f"got {show(order)}", path + ("order",))
        if not all(is_power_of_two(s) for s in shape):
            raise self.error(f"every entry must be a power of two, got {show(shape)}", path + ("shape",))
        return identity_offsets(shape, order)


def _yaml_key(triton_field: str | None, decl: Mapping[str, Any]) -> str | None:
    """The YAML key of a Triton parameter name (warpsPerCTA -> warps_per_cta): the declared kind's field of
    that name, else any kind's, else a legacy CGA key, else the name in snake_case."""
    if triton_field is None or triton_field in decl:
        return triton_field
    own = ENCODING_CLASSES.get(decl.get("kind"))
    for cls in ([own] if own else []) + list(ENCODING_CLASSES.values()):
        name = field_by_triton_name(cls, triton_field)
        if name is not None:
            return dict(params_of(cls))[name].yaml
    return _LEGACY_TRITON.get(triton_field) or re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", triton_field).lower()


# ---------------------------------------------------------------- entry points

def encoding_from_mapping(mapping: Mapping[str, Any], *, names: Mapping[str, Encoding] | None = None,
                          source: YamlDocument | str | None = None) -> Encoding:
    """One declaration (``{kind: ..., ...}`` or ``{attr: ...}``), checked, built and validated.

    `names` are the encodings a ``parent`` may name. `source` is the YamlDocument
    the mapping was loaded from (errors then carry its file and lines) or a
    file name for the messages.
    """
    doc = source if isinstance(source, YamlDocument) else None
    file = source if isinstance(source, str) else (doc.file if doc else None)
    if doc is None:                     # a YAML document was checked as it was read
        check_depth(mapping, None if file else "encoding", what="the declaration", error=ParseError)
        _check_keys(mapping, file)
    check_schema(doc, mapping, "#/$defs/declaration", file=file)
    return _Builder(_Names(names), doc, file, mapping).build(mapping, ())


def _check_keys(value: Any, file: str | None) -> None:
    """API mappings: every key is text, as in a YAML file (iteratively; the depth is checked first)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            for k, v in node.items():
                if not isinstance(k, str):
                    raise ParseError(f"a mapping key must be text, got {clip(k)}", file=file,
                                     field=None if file else "encoding")
                stack.append(v)
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def load_encodings(path: str | os.PathLike) -> dict[str, Encoding]:
    """Every encoding a file declares or includes, by name (included files' names first)."""
    return {name: enc for name, (enc, _) in _load(os.fspath(path), (), {}).items()}


def load_declarations(path: str | os.PathLike) -> dict[str, tuple[Encoding, str]]:
    """`load_encodings` with where each encoding is declared: name -> (encoding, 'file:line')."""
    return dict(_load(os.fspath(path), (), {}))


def _load(file: str, chain: tuple[tuple[str, str], ...], done: dict) -> dict[str, tuple[Encoding, str]]:
    """name -> (encoding, 'file:line' of its declaration); `chain` is the includes being loaded."""
    real = os.path.realpath(file)
    if real in done:
        return done[real]
    doc = read_yaml(file)
    check_schema(doc, doc.data)
    chain = chain + ((real, file),)
    imported: dict[str, tuple[Encoding, str]] = {}
    for i, entry in enumerate(doc.data.get("include") or ()):
        target = os.path.normpath(os.path.join(os.path.dirname(file), entry))
        here = {"file": file, "line": doc.line_at(("include", i)), "field": "include"}
        if os.path.realpath(target) in (r for r, _ in chain):
            cycle = [label for r, label in chain][[r for r, _ in chain].index(os.path.realpath(target)):]
            raise ParseError(f"include cycle: {clip(' -> '.join(cycle + [target]), 200)}", **here)
        if len(chain) >= MAX_INCLUDE_DEPTH:
            raise ParseError(f"includes nest more than {MAX_INCLUDE_DEPTH} files deep (the limit): "
                             f"{clip(chain[0][1], 60)} -> ... -> {clip(file, 60)} -> {clip(target, 60)}", **here)
        if not os.path.isfile(target):
            raise ParseError(f"cannot read the included file {target}", **here)
        for name, (enc, origin) in _load(target, chain, done).items():
            if name in imported and imported[name][1] != origin:
                raise ParseError(f"the name '{name}' is declared twice: at {imported[name][1]} and at {origin}",
                                 **here)
            imported[name] = (enc, origin)
    declarations = doc.data.get("encodings") or {}
    for name in declarations:
        if name in imported:
            raise ParseError(f"the name '{name}' is already declared at {imported[name][1]}", file=file,
                             line=doc.line_at(("encodings", name)), field=name)
    names = _Names({n: e for n, (e, _) in imported.items()}, doc, declarations)
    result = dict(imported)
    for name in declarations:
        result[name] = (names.get(name, _Builder(names, doc, file, doc.data), ("encodings", name)),
                        f"{file}:{doc.line_at(('encodings', name))}")
    done[real] = result
    return result


__all__ = ["load_encodings", "load_declarations", "encoding_from_mapping", "parse_yaml", "read_yaml", "check_schema",
           "YamlDocument"]
