"""Spec files: what `layoutcheck verify` proves, read into a flat list of checks (`Check`).

A spec (docs/spec-format.md) names a hardware target, encodings (included
from ``encodings/*.yaml``, declared inline in YAML, or written as Triton
attribute text) and a list of checks. Each check asks for one property of
its operands at one shape and states the expected verdict; a ``sweep``
turns one check into the product of its value lists:

    check  x  sweep {k1: [a, b], k2: [c, d]}  ->  [k1=a,k2=c], [k1=a,k2=d], [k1=b,k2=c], [k1=b,k2=d]

(the first key varies slowest; the id is ``<id>[<label>=<value>,...]``).

Loading is all-or-nothing: the YAML is read with the line of every key,
checked against ``checker/schemas/spec.schema.json``, every name resolved and
every encoding validated before anything is proved. Any problem raises
`CheckerError` with ``file:line`` and the field, so a bad spec verifies nothing.
Lowering each operand at its shape is the one step left to the run
(`lower_operands`, first in each check's work, in whichever worker proves it:
a sweep's points are lowered in parallel and once, not once more here); a
failure there is located at the operand's line as well, stops the run at the
first such check in input order, and nothing is reported.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import itertools
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .dtypes import DTYPES
from .encodings import lower
from .encodings.base import Encoding
from .errors import CheckerError, InternalError
from .hardware import Hardware, resolve
from .limits import INT_MAX, INT_MIN, MAX_DTYPE_BITS, MAX_SWEEP_POINTS, byte_count, clip, parse_shape_text
from .limits import shape as checked_shape
from .registry import SPEC_PROPERTIES, Property, full_schema
from .schema import path_field
from .syntax.mlir_attr import parse_attribute
from .versions import parse as parse_version

if TYPE_CHECKING:
    from .syntax.yaml_decl import YamlDocument

SCHEMA = "spec.schema.json"
LEVELS = ("register", "warp", "cta", "cross_cta")
LEVEL_ALIASES = {"shared_memory": "cta"}

# What each property takes (operand roles, dtype, parameters, layout_shape): the registry.
PROPERTIES: dict[str, Property] = SPEC_PROPERTIES
PropertyRule = Property


ROLES = ("layout", "src", "dst", "via", "reg", "shared")
LAYOUT_SHAPE_PROPERTIES = tuple(n for n, p in PROPERTIES.items() if p.layout_shape)
CHECK_PARAMS = tuple(dict.fromkeys(k for p in PROPERTIES.values() for k, _ in p.params))
SWEEP_LABELS = {"num_warps": "warps"}


@dataclass(frozen=True)
class Check:
    """One check, fully resolved: everything the runner needs and the report shows.

    ``operands`` are (role, encoding) in the property's role order, lowered at
    ``layout_shape`` when given (a layout built for another shape) else at ``shape``;
    ``params`` the property's extra arguments as (name, value);
    ``op`` names the IR operation a check was derived from (None for specs), ``python`` the
    Python source location of that operation's ``loc(...)`` (file, line, col) when known;
    ``severity`` is what a failure means: ``error`` (fails the run) or
    ``warning`` (reported; fails the run only under ``--werror``).
    """

    id: str
    property: str
    operands: tuple[tuple[str, Encoding], ...]
    shape: tuple[int, ...]
    layout_shape: tuple[int, ...] | None
    dtype: str | None
    dtype_bits: int | None
    hardware: Hardware | None
    params: tuple[tuple[str, Any], ...]
    expect: str
    expect_conflicts: int | None
    expect_level: str | None
    file: str
    line: int
    op: str | None = None
    severity: str = "error"
    python: tuple[str, int, int] | None = None      # the Python source (file, line, col) of the IR operation
    # where a spec writes each operand, (role, line, field): a failure to lower it is reported there
    operand_sources: tuple[tuple[str, int | None, str], ...] = ()
    # where a spec writes each parameter it gives, (key, line): a failure a property's decide names by that
    # key (its field: ``strides``, ``strides[1]``) is reported there
    param_lines: tuple[tuple[str, int | None], ...] = ()
    triton_version: str | None = None               # whose semantics (`checker.versions`); None: the newest

    def operand(self, role: str) -> Encoding | None:
        return dict(self.operands).get(role)

    def param(self, name: str) -> Any:
        return dict(self.params).get(name)


Obligation = Check          # the name this had before checks and SMT obligations were told apart


class _Where:
    """Raises errors located in one spec document (lines from `yaml_decl.YamlDocument`)."""

    def __init__(self, doc: YamlDocument):
        self.file, self.doc = doc.file, doc
        self._lines: dict[tuple, int | None] = {}      # every point of a sweep asks for its check's line

    def line(self, path: Sequence[Any]) -> int | None:
        path = tuple(path)
        got = self._lines.get(path, -1)
        if got == -1:
            got = self._lines[path] = self.doc.line_at(path)
        return got

    def error(self, path: Sequence[Any], message: str) -> CheckerError:
        return CheckerError(message, file=self.file, line=self.line(path), field=path_field(tuple(path)))

    def locate(self, e: CheckerError, path: Sequence[Any]) -> CheckerError:
        """Place an error raised by encoding code at `path` (kept as is when it is already placed)."""
        if e.file is None:
            where = path_field(tuple(path))
            e.file, e.line = self.file, self.line(path)
            e.field = f"{where}.{e.field}" if e.field and where else (e.field or where)
        return e


# ---------------------------------------------------------------- loading


SPEC_SUFFIXES = (".yaml", ".yml")
IR_SUFFIXES = (".ttgir", ".mlir")
STDIN = "-"


def find_inputs(paths: Iterable[str], suffixes: tuple[str, ...] = SPEC_SUFFIXES + IR_SUFFIXES) -> list[str]:
    """The input files named by paths: files as given (``-`` is stdin), folders searched
    (recursively, sorted) for files with one of `suffixes`."""
    out: list[str] = []
    for path in paths:
        if path == STDIN:
            out.append(path)
        elif os.path.isdir(path):
            found = []
            for root, dirs, files in os.walk(path):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files) if f.endswith(suffixes)]
            if not found:
                raise CheckerError(f"no input files ({', '.join('*' + x for x in suffixes)}) under {path}",
                                   file=path)
            out += found
        elif os.path.isfile(path):
            out.append(path)
        elif not path:
            raise CheckerError("an empty path names no file or folder", field="paths")
        else:
            raise CheckerError("no such file or folder", file=path)
    unique: dict[str, str] = {}
    for p in out:                       # a file named twice (or through a link) is read once
        unique.setdefault(p if p == STDIN else os.path.realpath(p), p)
    return list(unique.values())


def is_ir(path: str) -> bool:
    """TTGIR input (read by `checker.ttgir.kernel`) rather than a YAML spec."""
    return path == STDIN or path.endswith(IR_SUFFIXES)


def load_paths(paths: Iterable[str]) -> list[Check]:
    """Every obligation of every spec under paths, in file order then check order; ids unique."""
    obligations: list[Check] = []
    where: dict[str, Check] = {}
    for file in find_inputs(paths, SPEC_SUFFIXES):
        for ob in load_spec(file):
            if ob.id in where:
                first = where[ob.id]
                raise CheckerError(f"check id '{ob.id}' is already used at {first.file}:{first.line}",
                                   file=ob.file, line=ob.line, field="id")
            where[ob.id] = ob
            obligations.append(ob)
    return obligations


def load_spec(file: str) -> list[Check]:
    """The obligations of one spec file (see the module docstring)."""
    from .syntax.yaml_decl import check_schema, read_yaml  # lazy: here, so reading TTGIR alone never loads PyYAML
    doc = read_yaml(file)
    if not isinstance(doc.data, Mapping):
        raise CheckerError("a spec is a mapping with version, hardware, encodings and checks", file=file, line=1)
    w = _Where(doc)
    given = doc.data.get("triton_version")
    if isinstance(given, (int, float)) and not isinstance(given, bool):
        raise w.error(("triton_version",), f"write the Triton version as a string, triton_version: \"{given}\" "
                                           "(YAML reads an unquoted 3.10 as the number 3.1)")
    check_schema(doc, doc.data, schema=full_schema(SCHEMA))
    data = doc.data
    hardware = _hardware(w, data.get("hardware"), ("hardware",))
    table = _encodings(w, data)
    out: list[Check] = []
    for i, check in enumerate(data["checks"]):
        out += _expand(w, ("checks", i), check, table, hardware)
    if "triton_version" in data:
        try:
            version = str(parse_version(data["triton_version"]))
        except CheckerError as e:
            raise w.error(("triton_version",), e.message) from None
        out = [dataclasses.replace(ob, triton_version=version) for ob in out]
    return out


def select(obligations: Sequence[Check], only: Sequence[str] = (), skip: Sequence[str] = ()) -> list[Check]:
    """Checks whose id matches some --only pattern (all when none) and no --skip pattern (shell globs)."""
    def hit(patterns, ob):
        return any(fnmatch.fnmatchcase(ob.id, p) for p in patterns)
    return [ob for ob in obligations if (not only or hit(only, ob)) and not hit(skip, ob)]


def _hardware(w: _Where, value: Any, path: tuple) -> Hardware | None:
    if value is None:
        return None
    try:
        return resolve(value)
    except CheckerError as e:
        sub = tuple(e.field.split(".")[1:]) if e.field and e.field.startswith("hardware.") else ()
        raise w.error(path + sub, e.message) from None


def _encodings(w: _Where, data: Mapping) -> dict[str, Encoding]:
    """Included encodings, then the spec's own, each of which may name any encoding above it; no name twice."""
    from .syntax.yaml_decl import load_declarations  # lazy: YAML specs only (reading TTGIR never loads PyYAML)
    table: dict[str, Encoding] = {}
    origin: dict[str, str] = {}
    for i, inc in enumerate(data.get("include") or ()):
        path = os.path.normpath(os.path.join(os.path.dirname(w.file), inc))
        if not os.path.isfile(path):
            raise w.error(("include", i), f"cannot read the included file {clip(path, 120)}")
        for name, (enc, where) in load_declarations(path).items():
            # the same declaration reached through two includes is one name; two declarations are two,
            # even when they are identical (docs/spec-format.md: a name may not come from two files)
            if name in table and origin[name] != where:
                raise w.error(("include", i), f"the name '{clip(name, 40)}' is declared both at "
                                              f"{clip(origin[name], 80)} and at {clip(where, 80)}")
            table[name], origin[name] = enc, where
    for name, decl in (data.get("encodings") or {}).items():
        path = ("encodings", name)
        if name in table:
            raise w.error(path, f"the name '{clip(name, 40)}' is already declared at {clip(origin[name], 100)}")
        table[name] = _from_mapping(decl, table, w)
        origin[name] = f"{w.file}:{w.line(path)}"
    return table


def _from_mapping(decl: Mapping, table: Mapping[str, Encoding], w: _Where) -> Encoding:
    from .syntax.yaml_decl import encoding_from_mapping  # lazy: YAML specs only (TTGIR never loads PyYAML)
    return encoding_from_mapping(decl, names=table, source=w.doc)


def _operand(w: _Where, path: tuple, value: Any, table: Mapping[str, Encoding]) -> Encoding:
    """A check operand: an encoding's name, attribute text ('#ttg.blocked<...>', '#name') or a declaration."""
    if isinstance(value, Mapping):
        return _from_mapping(value, table, w)
    if value.startswith("#"):
        return _attribute(w, path, value, table)
    if value not in table:
        known = ", ".join(sorted(table)) or "none"
        raise w.error(path, f"no encoding named '{clip(value, 40)}' (declared: {clip(known, 120)})")
    return table[value]


def _attribute(w: _Where, path: tuple, text: str, table: Mapping[str, Encoding]) -> Encoding:
    try:
        enc = parse_attribute(text, table)
        enc.validate()
    except CheckerError as e:
        raise w.locate(e, path) from None
    return enc


def _shape(w: _Where, path: tuple, value: Any) -> tuple[int, ...]:
    """[128, 64] or '128x64' -> (128, 64)."""
    try:
        if isinstance(value, str):
            return parse_shape_text(value, "shape")
        return checked_shape(value)
    except CheckerError as e:
        raise w.error(path, e.message) from None


def _dtype(w: _Where, path: tuple, value: Any) -> tuple[str, int]:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_DTYPE_BITS:
        return f"b{value}", value
    if isinstance(value, str) and value.lower() in DTYPES:
        return value.lower(), DTYPES[value.lower()]
    raise w.error(path, f"unknown dtype {clip(repr(value), 40)} (known: {', '.join(DTYPES)}, "
                        f"or a number of bits up to {MAX_DTYPE_BITS})")


# ---------------------------------------------------------------- sweeps


def _sweep_value_text(value: Any) -> str:
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return "x".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _as_field_value(value: Any) -> Any:
    """YAML lists become the tuples encoding fields hold (nested for bases)."""
    if isinstance(value, list):
        return tuple(_as_field_value(v) for v in value)
    return value


def _override(enc: Encoding, name: str, value: Any) -> Encoding | None:
    """enc with field `name` set (on enc, else on its parent, recursively); None when neither has it."""
    names = {f.name for f in dataclasses.fields(enc)}
    if name in names:
        _conforms(getattr(enc, name), value, name)
        return dataclasses.replace(enc, **{name: value})
    parent = getattr(enc, "parent", None)
    if isinstance(parent, Encoding):
        new = _override(parent, name, value)
        return None if new is None else dataclasses.replace(enc, parent=new)
    return None


def _conforms(old: Any, new: Any, name: str) -> None:
    """A swept value has the type of the field it replaces: an integer for an integer (not a boolean), a
    boolean for a boolean, a list (of lists) of integers for a list; encodings and text are not swept."""
    def ints(v, depth=0):
        if isinstance(v, tuple):
            return depth < 3 and all(ints(x, depth + 1) for x in v)
        return isinstance(v, int) and not isinstance(v, bool) and INT_MIN <= v <= INT_MAX
    if isinstance(old, bool):
        ok, want = isinstance(new, bool), "true or false"
    elif isinstance(old, int):
        ok, want = isinstance(new, int) and not isinstance(new, bool) and INT_MIN <= new <= INT_MAX, \
            "a 32-bit integer"
    elif isinstance(old, tuple):
        ok, want = isinstance(new, tuple) and ints(new), "a list of 32-bit integers (or of such lists)"
    else:
        ok, want = False, "not a value a sweep can set"
    if not ok:
        raise CheckerError(f"{name} must be {want}, got {clip(new)}")


def _with_num_warps(enc: Encoding, n: int) -> Encoding | None:
    """warps_per_cta with product n: dimension 0 absorbs the change, the other dimensions keep theirs."""
    names = {f.name for f in dataclasses.fields(enc)}
    if "warps_per_cta" in names:
        rest = 1
        for x in enc.warps_per_cta[1:]:
            rest *= x
        if n % rest:
            raise CheckerError(f"num_warps {n} is not a multiple of {rest} (warps_per_cta "
                               f"{list(enc.warps_per_cta)} beyond dimension 0)")
        return dataclasses.replace(enc, warps_per_cta=(n // rest,) + tuple(enc.warps_per_cta[1:]))
    parent = getattr(enc, "parent", None)
    if isinstance(parent, Encoding):
        new = _with_num_warps(parent, n)
        return None if new is None else dataclasses.replace(enc, parent=new)
    return None


def _expand(w: _Where, path: tuple, check: Mapping, table: Mapping[str, Encoding],
            hardware: Hardware | None) -> list[Check]:
    """The obligations of one check: one, or one per point of its sweep."""
    prop = check["prove"]
    rule = PROPERTIES[prop]
    roles = dict(rule.all_roles)
    for role in ROLES:
        if role in check and role not in roles:
            raise w.error(path + (role,), f"prove: {prop} takes no operand '{role}' "
                                          f"(it takes {', '.join(roles)})")
    for role, _ in rule.required:
        if role not in check:
            raise CheckerError(f"check '{check['id']}': prove: {prop} needs operand '{role}'", file=w.file,
                               line=w.line(path), field=role)
    param_names = dict(rule.params)
    for key in CHECK_PARAMS:
        if key in check and key not in param_names:
            raise w.error(path + (key,), f"does not apply to prove: {prop}")
    if "expect_conflicts" in check and prop != "bank_conflict_free":
        raise w.error(path + ("expect_conflicts",), "applies to prove: bank_conflict_free only")
    if "expect_level" in check and prop != "conversion":
        raise w.error(path + ("expect_level",), "applies to prove: conversion only")
    if "triton" in check and not rule.triton_figures:
        raise w.error(path + ("triton",), f"applies to prove: "
                                          f"{', '.join(n for n, p in PROPERTIES.items() if p.triton_figures)} only")
    if "dtype" in check and not rule.needs_dtype:
        raise w.error(path + ("dtype",), f"does not apply to prove: {prop}")
    if "layout_shape" in check and prop not in LAYOUT_SHAPE_PROPERTIES:
        raise w.error(path + ("layout_shape",), f"applies to prove: {', '.join(LAYOUT_SHAPE_PROPERTIES)} only")
    conflicts = check.get("expect_conflicts")
    if conflicts is not None and (_expectation(check) == "holds") != (conflicts == 0):
        raise w.error(path + ("expect",), f"expect: {_expectation(check)} contradicts expect_conflicts: {conflicts}")
    operands = {role: _operand(w, path + (role,), check[role], table) for role in roles if role in check}

    sweep = check.get("sweep") or {}
    keys = list(sweep)
    count = 1
    for key in keys:
        if not isinstance(key, str) or not isinstance(sweep[key], list) or not sweep[key]:
            raise w.error(path + ("sweep", key), f"a sweep maps a key (text) to a non-empty list of values, got "
                                                 f"{clip(key, 40)}: {clip(sweep[key], 60)}")
        _check_sweep_key(w, path + ("sweep", key), key, prop, rule, operands)
        count *= len(sweep[key])
        if count > MAX_SWEEP_POINTS:
            raise w.error(path + ("sweep",), f"the sweep has {count if key == keys[-1] else 'over ' + str(count)} "
                                             f"points; the limit is {MAX_SWEEP_POINTS} per check (split the check)")
    # each value with its label part, written once per value rather than once per point
    labelled = [[(i, v, f"{SWEEP_LABELS.get(k, k)}={_sweep_value_text(v)}") for i, v in enumerate(sweep[k])]
                for k in keys]
    points = itertools.product(*labelled) if keys else [()]
    plan = _Points(w, path, check, rule, operands, hardware, keys)
    out = []
    for point in points:
        label = ",".join([text for _, _, text in point])
        ob_id = f"{check['id']}[{label}]" if label else check["id"]
        try:
            out.append(plan.check(ob_id, point))
        except CheckerError as e:
            if e.file is None:
                e = w.locate(e, path)
            if keys and f"[{label}]" not in e.message:
                e.message = f"check '{ob_id}': {e.message}"
            raise e
    return out


def _check_sweep_key(w: _Where, path: tuple, key: str, prop: str, rule: Property,
                     operands: Mapping[str, Encoding]) -> None:
    if key in ("shape", "hardware"):
        return
    if key == "layout_shape":
        if prop not in LAYOUT_SHAPE_PROPERTIES:
            raise w.error(path, f"applies to prove: {', '.join(LAYOUT_SHAPE_PROPERTIES)} only")
        return
    if key == "dtype":
        if not rule.needs_dtype:
            raise w.error(path, f"does not apply to prove: {prop}")
        return
    if key in CHECK_PARAMS:
        if key not in dict(rule.params):
            raise w.error(path, f"does not apply to prove: {prop}")
        return
    role, dot, name = key.rpartition(".")
    if dot and role not in operands:
        raise w.error(path, f"'{role}' is not an operand of this check (operands: {', '.join(operands)})")
    targets = [operands[role]] if dot else list(operands.values())
    field = "warps_per_cta" if name == "num_warps" else name
    if not any(_probe_field(e, field) for e in targets):
        raise w.error(path, f"no operand of this check has a field '{name}' (sweep keys: shape, dtype, "
                            f"num_warps, a parameter, or an encoding field such as warps_per_cta)")


def _probe_field(enc: Encoding, name: str) -> bool:
    if name in {f.name for f in dataclasses.fields(enc)}:
        return True
    parent = getattr(enc, "parent", None)
    return isinstance(parent, Encoding) and _probe_field(parent, name)


class _Points:
    """The points of one check: each resolved into a `Check` (`check`). What a point takes from its
    values (its operands at a combination of encoding fields, a shape, a dtype, a hardware target, the
    parameters) is resolved once per combination of the swept values it depends on, and shared by the
    points that have that combination."""

    def __init__(self, w: _Where, path: tuple, check: Mapping, rule: Property,
                 operands: Mapping[str, Encoding], hardware: Hardware | None, keys: Sequence[str]):
        self.w, self.path, self.spec, self.rule, self.operands = w, path, check, rule, operands
        self.hardware = hardware
        self.field_keys = [k for k in keys if k.rpartition(".")[2] not in
                           ("shape", "layout_shape", "dtype", "hardware", *CHECK_PARAMS)]
        self.swept = frozenset(keys)
        self.keys = keys
        shapes = ("shape", "layout_shape")
        depends = {"operands": self.field_keys, "shapes": shapes,
                   "settings": ["dtype", "hardware"] + [k for k, _ in rule.params]}
        # per kind of value, in the order a point resolves them: the positions of the swept keys it depends on
        self.kinds = [(kind, [keys.index(k) for k in ks if k in self.swept]) for kind, ks in depends.items()]
        self.memo: dict = {}
        self.sources = tuple((role, w.line(path + (role,)), role) for role, _ in rule.all_roles if role in check)
        self.param_lines = tuple((k, w.line(self.where(k))) for k, _ in rule.params
                                 if k in check or k in self.swept)
        self.expectation = _expectation(check)
        level = check.get("expect_level")
        self.level = LEVEL_ALIASES.get(level, level)
        self.line = w.line(path)

    def where(self, key: str) -> tuple:
        return self.path + (("sweep", key) if key in self.swept else (key,))

    def check(self, ob_id: str, point: Sequence[tuple[int, Any, str]]) -> Check:
        """The point (per swept key: the index of its value, the value, its label) resolved but for the
        lowering of its operands, which the run does (`lower_operands`). Each kind of value is made
        once per combination of the indices of the swept keys it depends on."""
        memo, parts = self.memo, []
        for kind, positions in self.kinds:
            key = (kind, *[point[i][0] for i in positions])
            got = memo.get(key, memo)
            if got is memo:
                got = memo[key] = self._make(kind, ob_id, point, parts)
            parts.append(got)
        (ops, operands), (shape, layout_shape), (dtype, bits, hw, params) = parts
        fit = ("fit", operands, len(shape))
        if fit not in memo:
            memo[fit] = self._fit(ops, shape)
        return Check(id=ob_id, property=self.spec["prove"], operands=operands, shape=shape,
                     layout_shape=layout_shape, dtype=dtype, dtype_bits=bits, hardware=hw, params=params,
                     expect=self.expectation, expect_conflicts=self.spec.get("expect_conflicts"),
                     expect_level=self.level, file=self.w.file, line=self.line, operand_sources=self.sources,
                     param_lines=self.param_lines)

    def _make(self, kind: str, ob_id: str, point: Sequence[tuple[int, Any, str]], parts: Sequence[Any]) -> Any:
        """One kind of value of a point, from its values and the kinds resolved before it (`parts`)."""
        values = {k: v for k, (_, v, _) in zip(self.keys, point)}

        def value(key):
            return values[key] if key in values else self.spec.get(key)
        if kind == "operands":
            ops = self._operands([(key, values[key]) for key in self.field_keys], [i for i, _, _ in point])
            return ops, tuple((r, ops[r]) for r, _ in self.rule.all_roles if r in ops)
        if kind == "shapes":
            return self._shapes(ob_id, value("shape"), value("layout_shape"))
        if kind == "settings":
            dtype = self._dtype(ob_id, value("dtype"))
            hw = self._hardware(ob_id, value("hardware"))
            return (*dtype, hw, self._params([value(key) for key, _ in self.rule.params], hw))
        raise InternalError(f"no kind of value {kind!r}")

    def _operands(self, fields: Sequence[tuple[str, Any]], at: Sequence[int]) -> dict[str, Encoding]:
        """The operands with the point's encoding fields set in turn (the operands after the first n fields
        are shared by the points that agree on those n values), then validated; when they are invalid, the
        error is placed at the first key after which an operand is invalid."""
        steps = [self.operands]
        positions = dict(self.kinds)["operands"]
        for n, (key, v) in enumerate(fields, 1):
            prefix = ("fields", *[at[i] for i in positions[:n]])
            ops = self.memo.get(prefix)
            if ops is None:
                try:
                    ops = self.memo[prefix] = _with_field(steps[-1], key, v)
                except CheckerError as e:
                    raise self.w.error(self.where(key), e.message) from None
            steps.append(ops)
        try:
            all(enc.validated for enc in steps[-1].values())
        except CheckerError:
            for (key, _), ops in zip(fields, steps[1:]):
                try:
                    all(enc.validated for enc in ops.values())
                except CheckerError as e:
                    raise self.w.error(self.where(key), e.message) from None
            raise
        return steps[-1]

    def _shapes(self, ob_id: str, shape_value: Any, layout_value: Any) -> tuple:
        w = self.w
        if shape_value is None:
            raise CheckerError(f"check '{ob_id}' needs a shape", file=w.file, line=w.line(self.path), field="shape")
        shape = _shape(w, self.where("shape"), shape_value)
        layout_shape = layout_value and _shape(w, self.where("layout_shape"), layout_value)
        if layout_shape is not None and len(layout_shape) != len(shape):
            raise w.error(self.where("layout_shape"), f"layout_shape {list(layout_shape)} and shape {list(shape)} "
                                                      f"differ in rank")
        return shape, layout_shape

    def _dtype(self, ob_id: str, value: Any) -> tuple[str | None, int | None]:
        if not self.rule.needs_dtype:
            return None, None
        if value is None:
            raise CheckerError(f"check '{ob_id}': prove: {self.spec['prove']} needs a dtype (f16, bf16, f32, "
                               f"i8, ... or a number of bits)", file=self.w.file, line=self.w.line(self.path),
                               field="dtype")
        return _dtype(self.w, self.where("dtype"), value)

    def _hardware(self, ob_id: str, value: Any) -> Hardware | None:
        hw = _hardware(self.w, value, self.where("hardware")) if value is not None else self.hardware
        prop = self.spec["prove"]
        if prop in ("bank_conflict_free", "aligned_access", "fits") and hw is None:
            raise CheckerError(f"check '{ob_id}': prove: {prop} needs a hardware target (hardware: sm90 "
                               f"at the top of the spec, or in the check)", file=self.w.file,
                               line=self.w.line(self.path), field="hardware")
        return hw

    def _params(self, settings: Sequence[Any], hw: Hardware | None) -> tuple:
        params = []
        for (key, default), v in zip(self.rule.params, settings):
            if key == "capacity_bytes" and v is None:
                v = hw.smem_bytes_per_block
            if key.endswith("_bytes") and v is not None:
                try:
                    v = byte_count(v, key, low=1 if key == "alignment_bytes" else 0)
                except CheckerError as e:
                    raise self.w.error(self.where(key), e.message) from None
            params.append((key, default if v is None else v))
        if self.spec.get("triton"):          # Triton's own figures, on request (Property.triton_figures)
            params.append(("triton", True))
        return tuple(params)

    def _fit(self, ops: Mapping[str, Encoding], shape: tuple[int, ...]) -> None:
        """Each operand is of the kind its role takes and of the shape's rank."""
        for role, kind in self.rule.all_roles:
            if role not in ops:
                continue
            enc = ops[role]
            if kind != "any" and enc.is_shared != (kind == "shared"):
                raise self.w.error(self.path + (role,), f"operand '{role}' must be a {kind} encoding, "
                                                        f"got {enc.kind}")
            if len(shape) != enc.rank:
                raise self.w.error(self.where("shape"), f"shape {list(shape)} has rank {len(shape)} but operand "
                                                        f"'{role}' ({enc.kind}) has rank {enc.rank}")


def lower_operands(ob: Check) -> None:
    """Lower each operand of a spec's check at its shape (``layout_shape`` when given, else ``shape``), or
    raise the failure as a `CheckerError` at the line and field of the operand (`Check.operand_sources`).
    The run does this first for each check it proves (`checker.run.runner`); the lowerings stay cached for
    the proof."""
    shape = ob.layout_shape or ob.shape
    for role, line, field in ob.operand_sources:
        enc = ob.operand(role)
        if enc is None:
            continue
        try:
            lower(enc, shape)
        except CheckerError as e:
            if e.file is None:
                e.file, e.line = ob.file, line
                e.field = f"{field}.{e.field}" if e.field else field
            if f"check '{ob.id}'" not in e.message:
                e.message = f"check '{ob.id}': {e.message}"
            raise e


def _with_field(operands: Mapping[str, Encoding], key: str, v: Any) -> dict[str, Encoding]:
    """The operands with one swept encoding field set (``role.name``: on that operand; ``name``: on every
    operand that has it, or whose parent has it): the value checked, the encodings not validated."""
    ops = dict(operands)
    role, dot, name = key.rpartition(".")
    for r in ([role] if dot else list(ops)):
        if name == "num_warps" and (isinstance(v, bool) or not isinstance(v, int) or v <= 0):
            raise CheckerError(f"num_warps must be a positive integer, got {clip(v)}")
        new = (_with_num_warps(ops[r], v) if name == "num_warps"
               else _override(ops[r], name, _as_field_value(v)))
        if new is not None:
            ops[r] = new
    return ops


def _expectation(check: Mapping) -> str:
    """`expect`, defaulting to fails when a positive conflict count is expected, else holds."""
    return check.get("expect") or ("fails" if check.get("expect_conflicts") else "holds")
