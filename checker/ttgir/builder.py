"""The `Builder` that derives the checks of one TTGIR module, and the registry of op rules.

`Builder.build` walks a module's operations in source order: every type gets its own checks
(`Builder.type_checks`: ``well_formed``, ``surjective`` and ``injective_up_to_broadcast`` of a tensor's
encoding, ``invertible`` of a shared memdesc, at its first use), an operation whose name has a rule
registered with `op_check` gets that rule's checks (the rules live in `ops_memory`, `ops_common`,
`ops_nvidia`, `ops_amd`; `checker.ttgir.kernel` imports them all), one of `NOT_MODELLED` is listed as
skipped with its reason, and the module ends with the whole kernel's shared memory (`Builder.kernel_budget`).
A rule calls `Builder.add` for each check and `Builder.skip` (with the reason) for a case the models do not
cover; `KernelChecks` collects a file's checks, skips, problems and notes.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from ..encodings import lower
from ..encodings.base import Encoding
from ..errors import CheckerError, bug_message
from ..hardware import Hardware, hardware_for_target
from ..spec import Check
from ..syntax.ttgir import Module, Operation, TypeRef, layout_shape, partition_warps
from ..versions import CHANGES, NEWEST, Selection, using

TMEM_SPACE = "tensor_memory"


@dataclass
class KernelChecks:
    """The obligations of one IR file, the reader's problems, and what was not checked: each skip
    with its line, operation and reason (`skips`), and their count by reason (`skipped`)."""

    file: str
    obligations: list[Check] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    skips: list[dict] = field(default_factory=list)
    ops: Counter = field(default_factory=Counter)
    modules: list[dict] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)       # (line, text): said, not failed
    warnings: list[tuple[int, str]] = field(default_factory=list)    # (line, text): the version in doubt

    def skip(self, line: int, op: str, reason: str, check: str | None = None,
             python: tuple[str, int, int] | None = None) -> None:
        """Record a check not made (the models do not cover it), with its reason and, when the module
        has locations, the Python source of the operation."""
        self.skipped[reason] += 1
        record = {"line": line, "op": op, "check": check, "reason": reason}
        if python is not None:
            record["python"] = {"file": python[0], "line": python[1], "col": python[2]}
        self.skips.append(record)

    def summary(self) -> dict:
        checked = sum(n for name, n in self.ops.items() if name in OP_CHECKS)
        return {"file": self.file, "modules": self.modules, "operations": sum(self.ops.values()),
                "checked_operations": checked,
                "skipped_operations": dict(sorted((k, v) for k, v in self.ops.items() if k not in OP_CHECKS)),
                "skipped_checks": dict(sorted(self.skipped.items())),
                "skips": sorted(self.skips, key=lambda k: k["line"]),
                "problems": [{"line": line, "message": msg} for line, msg in self.problems],
                "version_notes": [{"line": line, "severity": "note", "message": msg} for line, msg in self.notes]
                + [{"line": line, "severity": "warning", "message": msg} for line, msg in self.warnings]}


OpCheck = Callable[["Builder", Operation], None]
OP_CHECKS: dict[str, list[OpCheck]] = {}      # op name -> its rules, run in the order they were registered
# operations of a kind that moves data but whose cost is not modelled yet: each is listed as skipped, with the
# check it would get and why, on its line (they count as skipped, not as checked)
NOT_MODELLED: dict[str, tuple[str, str]] = {
    # op name -> (check, reason): listed as skipped. amdg.buffer_load / buffer_store left it when their
    # `coalesced` check landed (checker/ttgir/ops_amd.py, issue 30).
}


def op_check(*names: str) -> Callable[[OpCheck], OpCheck]:
    """Register a function deriving checks of the operations `names`. An op may have several rules (a copy's
    shared-memory checks and its global-memory one live in different modules); they run in the order they were
    registered, so a module that adds a rule to another's op imports that module first."""
    def register(fn: OpCheck) -> OpCheck:
        for name in names:
            rules = OP_CHECKS.setdefault(name, [])
            if any(r.__module__ == fn.__module__ and r.__qualname__ == fn.__qualname__ for r in rules):
                raise ValueError(f"{fn.__module__}.{fn.__qualname__} registered twice for {name}")
            rules.append(fn)
        return fn
    return register


DEFAULT_SELECTION = Selection(NEWEST, "default")      # the newest release, chosen by default


class Builder:
    """Derives the checks of one module. Op-specific derivations are registered in `OP_CHECKS`
    (`op_check`) and get the builder: `add` a check, `skip` one with its reason, `warps_of` an
    operation, `lowers` (the encoding lowers at a shape), `defining_op` of an SSA value."""

    def __init__(self, module: Module, file: str, hardware: Hardware | None, out: KernelChecks, *,
                 differential: bool = False, selection: Selection = DEFAULT_SELECTION):
        self.m, self.file, self.out = module, file, out
        self.selection = selection
        self._version = str(selection.version)          # what every check carries
        self.differential = differential
        self.hw = hardware or hardware_for_target(module.target)
        self.seen: set[tuple] = set()
        self.ids: Counter = Counter()
        self._block_warps: dict[tuple[int | None, int | None], tuple[int, ...]] = {}    # `warps_of`, per block
        self._typed: dict[tuple, Encoding] = {}         # the types `type_checks` has checked, by text and block
        self._lowers: dict[tuple, bool] = {}            # `lowers`, by (encoding, shape)

    @cached_property
    def defs(self) -> dict[str, Operation]:
        """Each SSA value's defining operation (`defining_op`; the last of a name defined twice), made when a
        rule first asks."""
        return {r: op for op in self.m.operations for r in op.results}

    @cached_property
    def users(self) -> dict[str, list[Operation]]:
        """Each SSA value's users, in module order (operands outside their regions), made when a rule first
        asks."""
        out: dict[str, list[Operation]] = {}
        for op in self.m.operations:
            for v in op.operands:
                out.setdefault(v, []).append(op)
        return out

    @cached_property
    def held(self) -> dict[int, list[Operation]]:
        """id of an operation -> the operations its regions hold directly, in order (a rule reading an op's body
        finds it here, not by a pass over the module)."""
        ops = self.m.operations
        out: dict[int, list[Operation]] = {}
        for op in ops:
            if op.parent is not None:
                out.setdefault(id(ops[op.parent]), []).append(op)
        return out

    @cached_property
    def warps(self) -> tuple[int, ...]:
        """Every warp count the module runs with: its own and its warp_specialize partitions' (`warps_of`)."""
        m = self.m
        return tuple(sorted({m.num_warps} | set(_partition_warps(m)))) if m.num_warps else ()

    @cached_property
    def analysis(self):
        """The module's allocation analysis (`checker.ttgir.allocation.Analysis`: the inlined module, each
        function's SSA resolution, control flow, dead code and aliases), made once per module and shared by
        `buffer_pairs`, `unallocated` and `kernel_budget`; it goes with this builder."""
        from .allocation import Analysis
        return Analysis(self.m)

    @cached_property
    def axis_analysis(self):
        """Triton's AxisInfo of the values the module's global accesses read (`checker.ttgir.axis_info.analyze`),
        computed once per module: each global access's `coalesced` check and each global-to-shared copy's
        vector (`checker.ttgir.ops_memory.copy_vector`) read it."""
        from .axis_info import access_reads, analyze
        return analyze(self.m, access_reads)

    @cached_property
    def buffer_pairs(self):
        """The module's shared accesses and their pairing (`checker.ttgir.pairing.BufferPairs`), made once per
        module: every shared access asks it for its partner."""
        from .pairing import BufferPairs
        return BufferPairs(self.m.operations, self.analysis)

    @cached_property
    def allocation(self):
        """The kernel's shared memory as Triton places it (`checker.ttgir.allocation.budget`), made once per module:
        `kernel_budget` reports it, `buffer_offsets` reads where each buffer starts."""
        from .allocation import budget
        return budget(self.m, self.hw, self.analysis)

    @cached_property
    def buffer_offsets(self) -> dict[int, int]:
        """id of a ``ttg.local_alloc`` -> the byte offset of its buffer in the kernel's shared memory, where the
        allocation is exact and the operation has one buffer (not inlined twice, not partitioned)."""
        b = self.allocation
        if not b.exact:
            return {}
        origin = self.analysis.inlined.origin
        found: dict[int, list[int]] = {}
        for x in b.buffers:
            if x.kind == "explicit" and x.op == "ttg.local_alloc" and 0 <= x.owner < len(origin) \
                    and not x.neighbours:
                found.setdefault(origin[x.owner], []).append(x.offset)
        ops = self.m.operations
        return {id(ops[i]): offs[0] for i, offs in found.items() if len(offs) == 1}

    @cached_property
    def unallocated(self) -> set[int]:
        """ids of the operations Triton erases before allocating shared memory (`allocation.unallocated`)."""
        from .allocation import unallocated
        return {id(self.m.operations[i]) for i in unallocated(self.m, self.analysis)}

    def build(self) -> None:
        m = self.m
        self.out.modules.append({"line": m.line, "target": m.target, "num_warps": m.num_warps,
                                 "threads_per_warp": m.threads_per_warp, "num_ctas": m.num_ctas,
                                 "hardware": self.hw.name if self.hw else None,
                                 "triton_version": self.selection.to_dict()})
        self.out.problems += [(p.line, p.message) for p in m.problems]
        counts, type_checks = self.out.ops, self.type_checks
        for op in m.operations:
            counts[op.name] += 1
            for ref in op.operand_types:        # op.types, without making that list
                type_checks(op, ref)
            for ref in op.result_types:
                type_checks(op, ref)
            rules = OP_CHECKS.get(op.name)
            if rules:
                for derive in rules:
                    try:
                        derive(self, op)
                    except CheckerError:
                        raise
                    except Exception as e:      # a bug in the rule: this op's check says so, the rest goes on
                        self.internal_error(op, "well_formed", derive.__name__.lstrip("_"), e)
            elif op.name in NOT_MODELLED:
                check, reason = NOT_MODELLED[op.name]
                self.skip(op, reason, check)
        for figure, what in ((self.kernel_budget, "kernel"), (self.kernel_tensor_memory, "tensor_memory")):
            try:
                figure()
            except CheckerError:
                raise
            except Exception as e:
                func = next((op for op in m.operations if op.name == "tt.func"), None)
                if func is None:
                    raise
                self.internal_error(func, "fits", what, e)

    def internal_error(self, op: Operation, prop: str, what: str, error: Exception) -> None:
        """A check of `op` that reports `error`, raised while its checks were derived, as what it is: a bug in
        layoutcheck (verdict ``error``, exit 3, `checker.run.runner.evaluate`), where the line and the code that
        raised it are named; the module's other checks are derived and proved as usual."""
        self.add(op, prop, what, [], [1], params=(("internal_error", bug_message(error)),))

    def kernel_budget(self) -> None:
        """The whole kernel's shared memory (`checker.ttgir.allocation.budget`: every allocation with its
        buffering, every conversion, reduction and scan scratch, placed as Triton places them) against
        the target's capacity: one ``fits`` check per module, at its function (severity error)."""
        func = next((op for op in self.m.operations if op.name == "tt.func"), None)
        if func is None or self.hw is None:
            return
        b = self._budget_across_conversion_rules(self._budget_of_any_allowed_version(self.allocation))
        entries = tuple(x.to_tuple() for x in sorted(b.buffers, key=lambda x: (x.offset, x.line)))
        params = (("capacity_bytes", self.hw.smem_bytes_per_block), ("kernel_bytes", b.total),
                  ("breakdown", entries)) + ((("uncertain", tuple(b.uncertain)),) if b.uncertain else ())
        # a figure the model does not reproduce exactly is an estimate: past the capacity it warns, never errs
        self.add(func, "fits", "kernel", [], [max(b.total, 1)], params=params,
                 severity="warning" if b.uncertain else "error")

    def kernel_tensor_memory(self) -> None:
        """The whole kernel's tensor memory (`checker.ttgir.tmem_allocation.tmem_budget`: every ``ttng.tmem_alloc``
        placed as Triton's TensorMemoryAllocation pass places it) against the 512 columns of an SM: one
        ``fits[tensor_memory]`` check per module that allocates any, at its function (severity error: past them
        Triton refuses to load the kernel; a warning where the figure is an estimate)."""
        from .tmem_allocation import CAPACITY_COLUMNS, tmem_budget
        func = next((op for op in self.m.operations if op.name == "tt.func"), None)
        if func is None or not any(op.name == "ttng.tmem_alloc" for op in self.m.operations):
            return
        b = tmem_budget(self.m, self.analysis)
        entries = tuple(c.to_tuple() for c in sorted(b.chunks, key=lambda c: (c.column, c.row, c.line)))
        params = (("capacity_columns", CAPACITY_COLUMNS), ("tmem_columns", b.columns), ("tmem_size", b.size),
                  ("tmem_breakdown", entries)) + ((("uncertain", tuple(b.uncertain)),) if b.uncertain else ())
        self.add(func, "fits", "tensor_memory", [], [max(b.columns, 1)], params=params,
                 severity="warning" if b.uncertain else "error")

    def _budget_of_any_allowed_version(self, b):
        """`b`, or where the module's syntax says it is older than the newest Triton without saying which release
        (detected: its marks bound it from above) and another release it allows sizes a reduction's scratch another
        way (change ``reduce_scratch_by_rounds``) and so needs more shared memory, that release's larger budget
        with the choice named in its ``uncertain`` (an estimate: a warning, never an error; give
        --triton-version for the exact figure). A module nothing bounds (default) keeps the newest's exact figure,
        and a note at the module says what the older releases would allocate."""
        from .allocation import Budget, budget, reductions_older_rule_larger
        since = CHANGES["reduce_scratch_by_rounds"].since
        chosen = self.selection.version
        others = [v for v in self.selection.allowed if (v >= since) != (chosen >= since)]
        if self.selection.reason not in ("detected", "default") or not others or \
                not any(op.name == "tt.reduce" for op in self.m.operations):
            return b
        if (chosen >= since) and not reductions_older_rule_larger(self.m, self.hw):
            return b
        with using(others[-1]):
            other = budget(self.m, self.hw, self.analysis)
        if other.total <= b.total:
            return b
        if self.selection.reason == "default":
            self._note_older_releases(others, other.total, b.total,
                                      "their reductions take more scratch: change reduce_scratch_by_rounds")
            return b
        why = (f"the module's syntax allows Triton {others[0]} to {others[-1]} as well as {chosen}, whose reductions "
               f"take more scratch: {other.total} bytes where {chosen} takes {b.total} (change "
               "reduce_scratch_by_rounds; give --triton-version for the exact figure)")
        return Budget(other.total, other.buffers, other.notes, other.uncertain + [why])

    def _budget_across_conversion_rules(self, b):
        """`b`, or where the module's syntax bounds its version without naming the release (detected) and a release
        it allows sizes a conversion's scratch by another rule (change ``cvt_matrix_keeps_vector_reps`` on NVIDIA:
        before Triton 3.6 every bit a matrix instruction could vectorise over becomes a rep, less scratch; change
        ``cvt_scratch_per_cta`` in a multi-CTA module: before 3.8 every CTA allocates the whole tensor's tile, more
        scratch; change ``cvt_shuffle_lanes_picked_by_warp``: before 3.9 a source broadcast over the warps its
        destination spreads over lanes goes through shared memory, not shuffles), and the module's figure differs
        there: the largest, an estimate naming the others (a warning, never an error; give --triton-version for the
        exact figure)."""
        from .allocation import Budget, budget
        names = ((["cvt_matrix_keeps_vector_reps"] if self.hw is not None and self.hw.vendor == "nvidia" else [])
                 + (["cvt_scratch_per_cta"] if (self.m.num_ctas or 1) > 1 else [])
                 + ["cvt_shuffle_lanes_picked_by_warp"])
        if self.selection.reason == "default":
            self._note_older_shuffles(b)
        if self.selection.reason != "detected" or not names or \
                not any(op.name == "ttg.convert_layout" for op in self.m.operations):
            return b

        def rules(v):
            return tuple(v >= CHANGES[n].since for n in names)
        chosen = self.selection.version
        classes: dict[tuple, list] = {}             # the allowed releases by the rules they follow, chosen's apart
        for v in self.selection.allowed:
            if rules(v) != rules(chosen):
                classes.setdefault(rules(v), []).append(v)
        figures = []
        for group in classes.values():
            with using(group[-1]):
                other = budget(self.m, self.hw, self.analysis)
            if other.total != b.total:
                figures.append((group, other))
        if not figures:
            return b
        merged: list[tuple[list, Budget]] = []      # neighbouring classes of one figure said once
        for g, o in sorted(figures, key=lambda x: x[0][0]):
            if merged and merged[-1][1].total == o.total:
                merged[-1] = (merged[-1][0] + g, merged[-1][1])
            else:
                merged.append((g, o))
        said = "; ".join(f"Triton {g[0]} takes {o.total} bytes" if len(g) == 1 else
                         f"Triton {g[0]} to {g[-1]} take {o.total} bytes" for g, o in merged)
        changed = [n for n in names if any(rules(g[0])[names.index(n)] != rules(chosen)[names.index(n)]
                                           for g, _ in figures)]
        why = (f"the module's syntax allows other releases than {chosen}, whose conversions through shared memory "
               f"take other scratch: {said}, where {chosen} takes {b.total} (change{'s' if len(changed) > 1 else ''} "
               f"{', '.join(changed)}; give --triton-version for the exact figure)")
        top = max([b] + [o for _, o in figures], key=lambda x: x.total)
        return Budget(top.total, top.buffers, top.notes, b.uncertain + [why])

    def _note_older_shuffles(self, b) -> None:
        """A module nothing bounds (default, checked as the newest release) keeps the newest's exact figure; where
        one of its conversions stays in the warps only by warp-dependent shuffles (change
        ``cvt_shuffle_lanes_picked_by_warp``), the older releases send it through shared memory: a note at the
        module says what they allocate, as `_budget_of_any_allowed_version` does for reductions."""
        from .allocation import budget, warp_selected_conversions
        since = CHANGES["cvt_shuffle_lanes_picked_by_warp"].since
        older = [v for v in self.selection.allowed if v < since]
        if not older or self.selection.version < since or not warp_selected_conversions(self.m):
            return
        with using(older[-1]):
            other = budget(self.m, self.hw, self.analysis)
        if other.total > b.total:
            v = self.selection.version
            self._note_older_releases(older, other.total, b.total, f"a conversion {v} keeps in the warps with "
                                      "warp-dependent shuffles goes through shared memory before: change "
                                      "cvt_shuffle_lanes_picked_by_warp")

    def _note_older_releases(self, releases: list, theirs: int, ours: int, why: str) -> None:
        """The note at a module nothing bounds (checked as the newest release, exactly) where older `releases` its
        syntax allows allocate more shared memory to it, and why."""
        self.out.notes.append((self.m.line, f"Triton {releases[0]} to {releases[-1]}, which this module's syntax "
                                            f"does not rule out, allocate {theirs} bytes of shared memory to it where "
                                            f"{self.selection.version} allocates {ours} ({why}); give "
                                            "--triton-version if it comes from one of them"))

    # ------------------------------------------------------------ helpers

    def add(self, op: Operation, prop: str, what: str, operands, shape, *, severity: str = "error",
            dtype: str | None = None, bits: int | None = None, params=()) -> None:
        base = f"{self.file}:{op.line}:{op.name}:{prop}" + (f"[{what}]" if what else "")
        n = self.ids[base] = self.ids.get(base, 0) + 1
        ob_id = base if n == 1 else f"{base}#{n}"
        self.out.obligations.append(_new_check({
            "id": ob_id, "property": prop, "operands": tuple(operands), "shape": tuple(shape), "layout_shape": None,
            "dtype": dtype, "dtype_bits": bits, "hardware": self.hw, "params": tuple(params), "expect": "holds",
            "expect_conflicts": None, "expect_level": None, "file": self.file, "line": op.line, "op": op.name,
            "severity": severity, "python": getattr(op, "loc", None), "operand_sources": (), "param_lines": (),
            "triton_version": self._version}))

    def skip(self, op: Operation, reason: str, check: str | None = None) -> None:
        self.out.skip(op.line, op.name, reason, check, getattr(op, "loc", None))

    def lowers(self, enc: Encoding, shape) -> bool:
        """Whether `enc` lowers at `shape` (`checker.encodings.lower`), found once per (encoding, shape) in the
        module: the rules ask it of every type they read, most of them asked before."""
        key = (enc, tuple(shape))
        got = self._lowers.get(key)
        if got is None:
            try:
                lower(enc, shape)
                got = True
            except CheckerError:
                got = False
            self._lowers[key] = got
        return got

    def defining_op(self, value: str) -> Operation | None:
        return self.defs.get(value)

    def warps_of(self, op: Operation) -> tuple[int, ...]:
        """The warp counts an operation may run with, as Triton's maybeLookupNumWarps finds them: the
        innermost enclosing ``ttg.warp_specialize`` partition's ``num_warps``, else the innermost
        enclosing operation with a ``ttg.num-warps`` attribute (a ``tt.func`` may carry its own), else the
        module's. The default region of a warp_specialize runs with the warps around it. They depend on the
        block holding the operation alone (its parent and region), so each block's are found once: every
        type of every operation asks (`type_checks`)."""
        block = (op.parent, getattr(op, "region", None))
        got = self._block_warps.get(block)
        if got is None:
            got = self._block_warps[block] = self._enclosing_warps(op)
        return got

    def _enclosing_warps(self, op: Operation) -> tuple[int, ...]:
        """`warps_of`, walking out from the operation."""
        ops = self.m.operations
        child, parent = op, op.parent
        while parent is not None:
            owner = ops[parent]
            region = getattr(child, "region", None)
            if owner.name in ("ttg.warp_specialize", "ttg.warp_specialize.partitions"):
                counts = partition_warps(owner)
                k = region - 1 if owner.name == "ttg.warp_specialize" and region is not None else region
                if k is not None and 0 <= k < len(counts):
                    return (counts[k],)
                if region is None:
                    return self.warps
            if isinstance(owner.attributes.get("ttg.num-warps"), int):
                return (owner.attributes["ttg.num-warps"],)
            child, parent = owner, owner.parent
        return (self.m.num_warps,) if self.m.num_warps else ()

    # ------------------------------------------------------------ per type

    def type_checks(self, op: Operation, ref: TypeRef) -> None:
        enc = ref.encoding
        if enc is None:
            unsupported = getattr(ref, "unsupported", None)
            if unsupported:
                self.skip(op, unsupported, "well_formed")
            return
        # most types repeat one met before in this block (so at the same warps): the same text, memory, shape
        # and encoding value. Such a type has nothing new to check: the first one made its checks, or was
        # left to the tensor-memory or TMA checks, or its encoding does not lower at its shape (nor does now)
        typed = (ref.kind, ref.encoding_text, ref.memory_space, tuple(ref.shape), tuple(ref.alloc_shape or ()),
                 op.parent, getattr(op, "region", None))
        if self._typed.get(typed) is enc:
            return
        self._typed[typed] = enc
        if (ref.memory_space or "").endswith(TMEM_SPACE) or enc.kind.startswith("tensor_memory"):
            return                      # tensor memory: the TMEM op checks read it (checker.ttgir.ops_nvidia)
        if ref.kind == "tensordesc":
            return                      # a TMA box, not a buffer: the TMA checks read it
        shape = tuple(layout_shape(ref))
        warps = () if enc.is_shared else self.warps_of(op)
        formed = ("well_formed", ref.kind, enc, shape, warps)   # the warp count depends on the op
        key = (ref.kind, enc, shape)
        if formed in self.seen and key in self.seen:
            return                      # a type seen before (most are): nothing new to check
        what = f"{_compact(ref.encoding_text)} {'x'.join(map(str, shape))}"
        layout = (("layout", enc),)     # the operands of each of its checks (one tuple for all)
        if formed not in self.seen:
            self.seen.add(formed)
            params = (("threads_per_warp", self.m.threads_per_warp), ("warps", warps),
                      ("num_ctas", self.m.num_ctas))
            self.add(op, "well_formed", what, layout, shape, params=params)
        if key in self.seen or not self.lowers(enc, shape):
            return
        self.seen.add(key)
        if self.differential and ref.kind in ("tensor", "memdesc"):
            params = (("element_type", ref.element_type if not ref.element_type.startswith("!") else "i64"),
                      ("target", self.m.target), ("num_warps", warps[0] if warps else self.m.num_warps),
                      ("threads_per_warp", self.m.threads_per_warp), ("num_ctas", self.m.num_ctas))
            self.add(op, "matches_triton", what, layout, shape, params=params)
        if enc.is_shared:
            self.add(op, "invertible", what, layout, shape)
        elif ref.kind == "tensor":
            self.add(op, "surjective", what, layout, shape)
            self.add(op, "injective_up_to_broadcast", what, layout, shape)


_PLAIN_CHECK = not hasattr(Check, "__slots__") and not hasattr(Check, "__post_init__") and \
    all(f.init for f in dataclasses.fields(Check))
_CHECK_FIELDS = tuple(f.name for f in dataclasses.fields(Check))


def _new_check(fields: dict) -> Check:
    """``Check(**fields)``. While Check is a plain frozen dataclass (no slots, no __post_init__, every field set by
    __init__) and `fields` gives each of its fields in their order, the object its __init__ builds holds them, in
    that order, in its __dict__ and nothing else: adopting `fields` as that dict gives the same object at a third
    of the cost (a frozen __init__ sets each field through object.__setattr__; a kernel makes hundreds of checks)."""
    if not _PLAIN_CHECK or tuple(fields) != _CHECK_FIELDS:
        return Check(**fields)
    check = object.__new__(Check)
    object.__setattr__(check, "__dict__", fields)
    return check


def _compact(text: str) -> str:
    """Attribute text without blanks, for check ids: '#ttg.dot_op<{opIdx=0,parent=#mma,kWidth=2}>'."""
    return _BLANKS.sub("", text)


_BLANKS = re.compile(r"\s+")


def _partition_warps(module: Module) -> list[int]:
    """Warp counts of every ttg.warp_specialize partition of the module."""
    return [n for op in module.operations if op.name == "ttg.warp_specialize" for n in partition_warps(op)]


