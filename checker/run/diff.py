"""``layoutcheck diff OLD NEW``: what changes in a kernel's layouts, shared-memory accesses and costs between two
compiles of it (two Triton versions, two configs, before and after an edit), each change classed.

    d = diff(["old/"], ["new/"], old_triton_version="3.6", new_triton_version="3.9")
    d["summary"]["counts"]        # {"regression": 1, "improvement": 0, "neutral": 2}
    d["changes"][0]               # {"python", "ttgir_old", "ttgir_new", "op", "what", "old", "new", "class", ...}

Modules. Each side is TTGIR files or folders of them (a Triton cache folder too); every module is known by its
kernel (the public ``tt.func``) and its ``ttg.target``; where a kernel has several modules for one target (the
autotune configs in a Triton cache), by its warps and tensor and buffer shapes too, then by file name. A module
of one side without its match on the other is listed (`modules.added`, `modules.removed`), never dropped.

Both sides are verified as ``layoutcheck verify`` verifies them, each with its own Triton semantics (given, or
each module's detected version: `checker.versions`). Operations are matched by their Python source line and kind
(a file inside an environment's site-packages by its path there: a library installed beside each Triton),
in order (a source line that runs several ops of one kind pairs those naming the same layouts and shapes,
then the same shapes, then in TTGIR order; columns are not compared, Triton releases point at other columns),
then what is left by kind and order; what is still left is an added or removed operation.

What is compared, per matched operation (its checks, `checker.run.runner.record`):

- its layouts: where an operand's encoding text differs, whether the two lower to the same LinearLayout (the
  bases of every input dimension equal, each side lowered with its version); when not, the hardware bits
  whose image moved (``register=2: (0, 0) -> (0, 4)``). The same text is no change of the kernel's: what a
  Triton version does differently with it shows in the costs below;
- a shared-memory access (``bank_conflict_free``): the instruction and its wavefronts (against the minimum);
- a ``convert_layout``: its proven level (``conversion``) and Triton's lowering (``conversion_cost``: register
  moves, shuffles or a round trip through shared memory, its scratch bytes and wavefronts);
- alignment (``aligned_access``), and every check's pass/fail: a warning or error that appears or goes;
- per kernel: its whole shared memory (``fits[kernel]``) and how many conversions go through shared memory.

Classes (`classify`): more wavefronts, a new round trip through shared memory, a conversion at a higher level,
more scratch or kernel shared memory, a new failure: ``regression``; the reverse: ``improvement``; anything else
that changed (an encoding written differently, an instruction with the same cost): ``neutral``.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..encodings import lower
from ..errors import CheckerError
from ..hardware import resolve
from ..limits import read_text
from ..padded import linear_part
from ..spec import IR_SUFFIXES, find_inputs
from ..syntax.mlir_attr import parse_attribute
from ..versions import VersionRequest, using
from ..versions import parse as parse_version
from .verification import load_inputs, verify_inputs

REGRESSION, IMPROVEMENT, NEUTRAL = "regression", "improvement", "neutral"
CLASSES = (REGRESSION, IMPROVEMENT, NEUTRAL)
FAIL_ON = ("regression", "change", "never")
LEVELS = ("register", "warp", "cta", "cross_cta")
_FUNC = re.compile(r"tt\.func\s+(?:public\s+)?@([\w$.-]+)")
_SHAPE = re.compile(r"(?:tensor|memdesc)<(\d+(?:x\d+)*)x")
_TYPE_CHECKS = ("well_formed", "surjective", "injective_up_to_broadcast", "invertible")


@dataclass
class Side:
    """One side's modules: (kernel, target) -> its module, with the records of its checks."""

    label: str
    modules: dict[tuple, Module] = field(default_factory=dict)
    versions: set[str] = field(default_factory=set)
    found: list[Module] = field(default_factory=list)

    def key(self, twice: set, thrice: set) -> None:
        """Key each module by (kernel, target); where a kernel has several modules for one target on either side
        (`twice`: the autotune configs of one kernel, a Triton cache), by its shapes too (`Module.shapes`: warps
        and every tensor and buffer shape), and where those repeat as well (`thrice`), by its file name."""
        for mod in self.found:
            key: tuple = (mod.kernel, mod.target)
            if key in twice:
                key += (mod.shapes,)
                if key in thrice:
                    key += (os.path.basename(mod.file),)
            if key in self.modules:
                raise CheckerError(f"two modules of kernel {mod.kernel} for {mod.target or 'no target'} in files of "
                                   f"one name on the {self.label} side ({self.modules[key].where} and {mod.where})",
                                   file=mod.file, line=mod.line)
            self.modules[key] = mod


@dataclass
class Module:
    kernel: str
    target: str
    file: str
    line: int
    triton_version: str
    shapes: str = ""                 # warps and the distinct tensor and buffer shapes: a config's fingerprint
    records: list[dict] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def _modules_of(report: dict[str, Any], label: str) -> Side:
    """The modules of a verify report, each with the records whose line falls in it."""
    side = Side(label)
    spans: dict[str, list[tuple[int, Module]]] = {}
    found: list[Module] = []
    for t in report["summary"].get("ttgir", ()):
        text = _read(t["file"])
        starts = [m["line"] for m in t["modules"]]
        for i, m in enumerate(t["modules"]):
            end = starts[i + 1] if i + 1 < len(starts) else None
            body = "\n".join(text.splitlines()[m["line"] - 1:(end - 1) if end else None])
            name = _FUNC.search(body)
            kernel = name.group(1) if name else os.path.basename(t["file"]).split(".")[0]
            version = (m.get("triton_version") or {}).get("version", "")
            shapes = f"{m.get('num_warps')} warps, " + ", ".join(sorted(set(_SHAPE.findall(body))))
            mod = Module(kernel, m.get("target") or "", t["file"], m["line"], version, shapes)
            found.append(mod)
            side.versions.add(version)
            spans.setdefault(t["file"], []).append((m["line"], mod))
    side.found = found
    for rec in report["checks"]:
        owners = spans.get(rec["source"]["file"], [])
        owner = None
        for start, mod in owners:
            if start <= rec["source"]["line"] or owner is None:
                owner = mod
        if owner is not None:
            owner.records.append(rec)
    return side


def _read(path: str) -> str:
    return read_text(path)


def verify_side(paths: Sequence[str], label: str, *, triton_version: str | None, hardware: str | None,
                engine: str, jobs: int | None, timeout_ms: int) -> Side:
    """Verify every TTGIR module under `paths` (one side), as `layoutcheck verify` does."""
    files = find_inputs(paths, IR_SUFFIXES)
    if any(f == "-" for f in files):
        raise CheckerError("diff reads files and folders, not stdin", field=label)
    request = VersionRequest(parse_version(triton_version, field=f"--{label}-triton-version")
                             if triton_version else None)
    inputs = load_inputs(files, resolve(hardware) if hardware else None, version=request)
    problems = [(k.file, line, msg) for k in inputs.kernels for line, msg in k.problems]
    if problems:
        f, line, msg = problems[0]
        raise CheckerError(f"{msg} (the {label} side; {len(problems)} problem(s) in its TTGIR)", file=f, line=line)
    done = verify_inputs(inputs, engine=engine, jobs=jobs, timeout_ms=timeout_ms)
    return _modules_of(done.report, label)


# ------------------------------------------------------------------ matching


def _op_key(rec: dict) -> tuple:
    """(python file, line, op kind): columns are left out (Triton releases point at other columns of a line)."""
    py = rec["source"].get("python")
    return (installed_path(py["file"]), py["line"], rec["source"]["op"]) if py else (None, None, rec["source"]["op"])


_PACKAGES = re.compile(r".*[/\\](?:site|dist)-packages[/\\]")


def installed_path(file: str) -> str:
    """A kernel's Python file as both sides name it: a package installed in each side's environment (two
    virtual environments, one per Triton) is known by its path inside site-packages, so that
    ``/venv-old/lib/python3.11/site-packages/pkg/ops.py`` and ``/venv-new/.../site-packages/pkg/ops.py`` are one
    file; any other path is kept as it is."""
    return _PACKAGES.sub("", file)


def _ops(mod: Module) -> dict[tuple, list[tuple[int, list[dict]]]]:
    """Per (python location, op kind): the operations in TTGIR order, each (its line, its records)."""
    by_line: dict[int, list[dict]] = defaultdict(list)
    for rec in mod.records:
        if rec["source"].get("op") and rec["source"]["op"] != "tt.func":
            by_line[rec["source"]["line"]].append(rec)
    out: dict[tuple, list[tuple[int, list[dict]]]] = defaultdict(list)
    for line in sorted(by_line):
        out[_op_key(by_line[line][0])].append((line, by_line[line]))
    return out


def _operands_of(op: tuple[int, list[dict]]) -> tuple:
    """The layouts an operation's checks name, as a hashable value."""
    return tuple(sorted({(role, text) for rec in op[1] for role, text in rec["operands"].items()}))


def _shapes_of(op: tuple[int, list[dict]]) -> tuple:
    """The shapes an operation's checks name, as a hashable value."""
    return tuple(sorted({tuple(rec["shape"]) for rec in op[1]}))


def _record_key(rec: dict) -> tuple:
    p = rec.get("parameters") or {}
    d = rec.get("details") or {}
    if rec["property"] in _TYPE_CHECKS:      # one per type of the op, paired in order; a new shape is a change
        return (rec["property"],)
    return (rec["property"], p.get("direction") or d.get("direction"), p.get("access"))


def _pairs(old: list, new: list, key) -> tuple[list[tuple[Any, Any]], list, list]:
    """Items paired by key, in order within each key; (pairs, only old, only new)."""
    groups: dict[Any, list] = defaultdict(list)
    for x in new:
        groups[key(x)].append(x)
    pairs, removed = [], []
    for x in old:
        g = groups.get(key(x))
        if g:
            pairs.append((x, g.pop(0)))
        else:
            removed.append(x)
    left = {id(y) for g in groups.values() for y in g}
    return pairs, removed, [x for x in new if id(x) in left]


# ------------------------------------------------------------------ comparing


@dataclass
class Change:
    kernel: str
    target: str
    python: dict | None
    ttgir_old: str | None
    ttgir_new: str | None
    op: str
    what: str
    old: Any
    new: Any
    cls: str
    note: str = ""

    def to_dict(self) -> dict:
        return {"kernel": self.kernel, "target": self.target, "python": self.python, "ttgir_old": self.ttgir_old,
                "ttgir_new": self.ttgir_new, "op": self.op, "what": self.what, "old": self.old, "new": self.new,
                "class": self.cls, "note": self.note}


def classify(what: str, old: Any, new: Any) -> str:
    """The class of a change (module docstring): numbers where more is worse, levels, failures."""
    if what in ("wavefronts", "scratch_bytes", "kernel_shared_bytes", "kernel_tmem_columns", "shared_conversions",
                "shuffles"):
        return REGRESSION if (new or 0) > (old or 0) else IMPROVEMENT if (new or 0) < (old or 0) else NEUTRAL
    if what == "level":
        return REGRESSION if LEVELS.index(new) > LEVELS.index(old) else IMPROVEMENT
    if what == "lowering":
        rank = {"register": 0, "shuffle": 1, "shared": 2}
        return REGRESSION if rank.get(new, 0) > rank.get(old, 0) else IMPROVEMENT
    if what in ("error", "warning"):
        return REGRESSION if new == "fails" else IMPROVEMENT
    if what == "aligned":
        return REGRESSION if new == "misaligned" else IMPROVEMENT
    return NEUTRAL


class _Comparer:
    def __init__(self, old: Module, new: Module):
        self.old, self.new = old, new
        self.changes: list[Change] = []

    def add(self, py, line_old, line_new, op, what, a, b, note="") -> None:
        self.changes.append(Change(self.new.kernel, self.new.target, py,
                                   f"{self.old.file}:{line_old}" if line_old else None,
                                   f"{self.new.file}:{line_new}" if line_new else None, op, what, a, b,
                                   classify(what, a, b), note))

    def run(self) -> list[Change]:
        """Operations paired by (Python line, kind) in TTGIR order, then what is left by kind in order; the rest
        is added or removed."""
        old_ops, new_ops = _ops(self.old), _ops(self.new)
        left_a: dict[str, list] = defaultdict(list)
        left_b: dict[str, list] = defaultdict(list)
        for key in list(dict.fromkeys(list(old_ops) + list(new_ops))):
            pairs, a, b = _pairs(old_ops.get(key, []), new_ops.get(key, []),
                                 lambda op: (_operands_of(op), _shapes_of(op)))                # the same op first
            same, a, b = _pairs(a, b, _shapes_of)                                           # then same shapes
            more, a, b = _pairs(a, b, lambda op: 0)                                          # then in order
            for (la, ra), (lb, rb) in pairs + same + more:
                self.op(la, ra, lb, rb)
            left_a[key[2]] += a
            left_b[key[2]] += b
        for kind in list(dict.fromkeys(list(left_a) + list(left_b))):
            a, b = sorted(left_a[kind], key=lambda x: x[0]), sorted(left_b[kind], key=lambda x: x[0])
            for (la, ra), (lb, rb) in zip(a, b):
                self.op(la, ra, lb, rb)
            for la, ra in a[len(b):]:
                self.add(ra[0]["source"].get("python"), la, None, kind, "operation", "present", "removed")
            for lb, rb in b[len(a):]:
                self.add(rb[0]["source"].get("python"), None, lb, kind, "operation", "absent", "added")
        self.kernel()
        return self.changes

    def op(self, la: int, ra: list[dict], lb: int, rb: list[dict]) -> None:
        py = ra[0]["source"].get("python")
        op = ra[0]["source"]["op"]
        pairs, gone, came = _pairs(ra, rb, _record_key)
        seen_layouts: set = set()
        for x, y in pairs:
            if x["shape"] != y["shape"] and ("shape", tuple(x["shape"]), tuple(y["shape"])) not in seen_layouts:
                seen_layouts.add(("shape", tuple(x["shape"]), tuple(y["shape"])))
                self.add(py, la, lb, op, "shape", "x".join(map(str, x["shape"])), "x".join(map(str, y["shape"])))
            self.layouts(py, la, lb, op, x, y, seen_layouts)
            before = len(self.changes)
            self.costs(py, la, lb, op, x, y)
            if x["passed"] != y["passed"] and x["property"] != "fits" and len(self.changes) == before:
                sev = y["severity"] if not y["passed"] else x["severity"]
                self.add(py, la, lb, op, sev, "holds" if x["passed"] else "fails", "holds" if y["passed"] else "fails",
                         f"{x['property']}: {(y if not y['passed'] else x).get('failure') or ''}".strip())
        for x in gone:
            self.add(py, la, lb, op, f"check {x['property']}", "made", "not made")
        for y in came:
            self.add(py, la, lb, op, f"check {y['property']}", "not made", "made")

    def layouts(self, py, la, lb, op, x, y, seen: set) -> None:
        for role, text in x["operands"].items():
            other = y["operands"].get(role)
            key = (role, text, other)
            if other is None or key in seen:
                continue
            seen.add(key)
            if text == other:       # the same encoding: what a version change does to it shows in the costs
                continue
            moved = _moved_bits(text, other, x["shape"], y["shape"], x.get("layout_shape"), self.old.triton_version,
                                self.new.triton_version)
            note = "the same LinearLayout" if not moved else "; ".join(moved[:4]) + (
                f"; {len(moved) - 4} more" if len(moved) > 4 else "")
            self.add(py, la, lb, op, f"layout {role}", text, other, note)

    def costs(self, py, la, lb, op, x, y) -> None:
        prop, dx, dy = x["property"], x.get("details") or {}, y.get("details") or {}
        if prop == "bank_conflict_free" and dx and dy:
            if dx.get("wavefronts") != dy.get("wavefronts"):
                self.add(py, la, lb, op, "wavefronts", dx.get("wavefronts"), dy.get("wavefronts"),
                         f"{_access(dx)} -> {_access(dy)}")
            elif dx.get("asm") != dy.get("asm"):
                self.add(py, la, lb, op, "instruction", dx.get("asm"), dy.get("asm"))
        elif prop == "conversion" and dx.get("level") and dy.get("level") and dx["level"] != dy["level"]:
            self.add(py, la, lb, op, "level", dx["level"], dy["level"])
        elif prop == "conversion_cost" and dx and dy:
            if dx.get("lowering") != dy.get("lowering"):
                self.add(py, la, lb, op, "lowering", dx.get("lowering"), dy.get("lowering"))
            for what in ("scratch_bytes", "shuffles"):
                if dx.get(what) != dy.get(what) and (dx.get(what) or dy.get(what)):
                    self.add(py, la, lb, op, what, dx.get(what), dy.get(what))
            for side in ("store", "load"):
                sx, sy = dx.get(side) or {}, dy.get(side) or {}
                if sx.get("wavefronts") != sy.get("wavefronts") and (sx or sy):
                    self.add(py, la, lb, op, "wavefronts", sx.get("wavefronts"), sy.get("wavefronts"),
                             f"scratch {side}: {_access(sx)} -> {_access(sy)}")
        elif prop == "aligned_access" and x["passed"] != y["passed"]:
            self.add(py, la, lb, op, "aligned", "aligned" if x["passed"] else "misaligned",
                     "aligned" if y["passed"] else "misaligned")

    def kernel(self) -> None:
        def totals(m: Module) -> tuple[int | None, int, int | None, int | None]:
            fits = next((r for r in m.records if r["property"] == "fits" and "kernel_bytes" in r["parameters"]), None)
            tmem = next((r for r in m.records if r["property"] == "fits" and "tmem_columns" in r["parameters"]), None)
            shared = sum(1 for r in m.records if r["property"] == "conversion_cost"
                         and (r.get("details") or {}).get("lowering") == "shared")
            return (fits["parameters"]["kernel_bytes"] if fits else None, shared,
                    fits["source"]["line"] if fits else None, tmem["parameters"]["tmem_columns"] if tmem else None)
        (ka, sa, la, ta), (kb, sb, lb, tb) = totals(self.old), totals(self.new)
        if ka != kb:
            self.add(None, la, lb, "kernel", "kernel_shared_bytes", ka, kb)
        if ta != tb and ta is not None and tb is not None:
            self.add(None, la, lb, "kernel", "kernel_tmem_columns", ta, tb)
        if sa != sb:
            self.add(None, la, lb, "kernel", "shared_conversions", sa, sb)


def _access(d: dict) -> str:
    """``ldmatrix.x4.trans, 2x the minimum`` of an access's details."""
    if not d:
        return "none"
    ratio = (d.get("wavefronts") or 0) / d["min_wavefronts"] if d.get("min_wavefronts") else None
    cost = "conflict-free" if ratio == 1 else f"{ratio:g}x the minimum" if ratio else ""
    return ", ".join(x for x in (d.get("asm") or d.get("instruction"), cost) if x)


def _moved_bits(a: str, b: str, shape_a, shape_b, layout_shape, version_a: str, version_b: str) -> list[str]:
    """The in-dim bits whose image differs between layout text `a` (lowered with version_a) and `b` (with
    version_b), as ``register=2: (0, 0) -> (0, 4)``; [] when the LinearLayouts are the same."""
    try:
        with using(version_a or None):
            la = linear_part(lower(parse_attribute(a), list(layout_shape or shape_a)))
        with using(version_b or None):
            lb = linear_part(lower(parse_attribute(b), list(layout_shape or shape_b)))
    except CheckerError:
        return [] if a == b else ["not comparable (one side does not lower)"]
    out = []
    for dim in dict.fromkeys(la.in_dims + lb.in_dims):
        ba = la.in_bases(dim) if la.has_in_dim(dim) else ()
        bb = lb.in_bases(dim) if lb.has_in_dim(dim) else ()
        for i in range(max(len(ba), len(bb))):
            x, y = (ba[i] if i < len(ba) else None), (bb[i] if i < len(bb) else None)
            if x != y:
                out.append(f"{dim}={1 << i}: {_vec(x)} -> {_vec(y)}")
    if not out and la.out_dim_sizes != lb.out_dim_sizes:
        out.append(f"out sizes {dict(la.out_dim_sizes)} -> {dict(lb.out_dim_sizes)}")
    return out


def _vec(b) -> str:
    return "none" if b is None else "(" + ", ".join(map(str, b)) + ")"


# ------------------------------------------------------------------ the whole diff


def diff(old: str | os.PathLike | Iterable[str | os.PathLike], new: str | os.PathLike | Iterable[str | os.PathLike], *,
         old_triton_version: str | None = None, new_triton_version: str | None = None, hardware: str | None = None,
         engine: str = "both", jobs: int | None = 1, timeout_ms: int = 10_000) -> dict[str, Any]:
    """The diff of two compiles (module docstring) as JSON data: ``{"schema_version", "summary", "changes"}``
    (docs/diff.md). Raises `CheckerError` for bad input (exit 2 on the command line)."""
    if engine not in ("f2", "z3", "both", "all"):
        raise CheckerError(f"engine must be 'f2', 'z3', 'both' or 'all', got {engine!r}", field="engine")
    sides = []
    for label, paths, version in (("old", old, old_triton_version), ("new", new, new_triton_version)):
        items = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
        if not items:
            raise CheckerError(f"give the {label} side's TTGIR files or folders", field=label)
        sides.append(verify_side(items, label, triton_version=version, hardware=hardware, engine=engine, jobs=jobs,
                                 timeout_ms=timeout_ms))
    a, b = sides
    twice, thrice = set(), set()
    for side in sides:
        twice |= {k for k, n in Counter((m.kernel, m.target) for m in side.found).items() if n > 1}
        thrice |= {k for k, n in Counter((m.kernel, m.target, m.shapes) for m in side.found).items() if n > 1}
    for side in sides:
        side.key(twice, thrice)
    changes: list[Change] = []
    matched = [k for k in a.modules if k in b.modules]
    for key in matched:
        changes += _Comparer(a.modules[key], b.modules[key]).run()
    removed = [f"{m.kernel} ({m.target}) {m.where}" for k, m in a.modules.items() if k not in b.modules]
    added = [f"{m.kernel} ({m.target}) {m.where}" for k, m in b.modules.items() if k not in a.modules]
    counts = {c: sum(ch.cls == c for ch in changes) for c in CLASSES}
    return {"schema_version": 1,
            "summary": {"counts": counts, "changes": len(changes),
                        "triton_versions": {"old": ", ".join(sorted(a.versions)), "new": ", ".join(sorted(b.versions))},
                        "modules": {"matched": len(matched), "removed": removed, "added": added}, "engine": engine},
            "changes": [c.to_dict() for c in changes]}


def exit_status(result: dict[str, Any], fail_on: str = "regression") -> int:
    """1 when a change of the kind `fail_on` names is there (``regression``; ``change``: any change or an
    unmatched module), else 0; ``never``: 0."""
    if fail_on not in FAIL_ON:
        raise CheckerError(f"must be one of {', '.join(FAIL_ON)}, got {fail_on!r}", field="--fail-on")
    s = result["summary"]
    if fail_on == "regression":
        return int(s["counts"][REGRESSION] > 0)
    if fail_on == "change":
        return int(bool(s["changes"] or s["modules"]["added"] or s["modules"]["removed"]))
    return 0


__all__ = ["diff", "exit_status", "classify", "Change", "CLASSES", "FAIL_ON"]
