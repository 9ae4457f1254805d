"""Checks derived from TritonGPU IR: what `layoutcheck verify kernel.ttgir` proves.

A module read by `checker.syntax.ttgir.read_ttgir` turns into obligations,
each tied to the source line and operation it comes from:

- every distinct (encoding, shape) of a ``tensor`` type, at its first use:
  ``well_formed`` (verifier rules, lowering, the module's threads-per-warp,
  warps and CTAs), ``surjective`` onto the shape and
  ``injective_up_to_broadcast`` (no accidental duplication);
- every distinct shared ``!ttg.memdesc`` (encoding, allocation shape):
  ``well_formed`` and ``invertible`` (each element has exactly one offset);
- ``ttg.convert_layout``: ``conversion`` (its level: register, warp, cta,
  cross_cta, and a witness of the data that moves) and, on NVIDIA targets,
  ``conversion_cost`` (how Triton lowers it, its scratch and wavefronts; a
  warning when a side of the round trip costs more than its minimum);
- ``ttg.local_alloc`` with a value, ``ttg.local_store``,
  ``ttg.async_copy_global_to_local``: ``bank_conflict_free`` of the store;
  ``ttg.local_load``: of the load (a warning, not an error: conflicts cost
  time, not correctness); ``ttg.local_alloc``: ``fits`` in the target's
  shared memory (an allocation of B buffers fits when one buffer fits in
  capacity // B);
- ``tt.dot`` / ``ttng.warp_group_dot``: ``dot_operands``.

A shared encoding whose rank is below its memdesc's (multi-buffering:
``3x128x64`` with a rank-2 ``#shared``) is checked on the trailing dims. An
access through a subslice view (``!ttg.memdesc<128x16xf16, #shared, #smem,
mutable, 128x32>``) is checked against the allocation's layout (parameter
``view_of``): the view starts at a multiple of its own shape, so its offsets
are the allocation's offsets of the view's coordinates XOR one constant, and a
constant XOR keeps which accesses share a word and which share a bank. The
hardware comes from ``ttg.target`` (``cuda:80`` -> sm80, ``hip:gfx942`` ->
gfx942, ...), or from ``--hardware``; with neither, bank and fits checks are
skipped and counted. Every other operation is counted by name, its types
still checked.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

from ..encodings import lower
from ..encodings.base import Encoding
from ..errors import CheckerError
from ..hardware import PRESETS, Hardware, hardware_for_target  # noqa: F401  (hardware_for_target: public here too)
from ..layout import LinearLayout
from ..spec import Check
from ..syntax.ttgir import Module, Operation, TypeRef, layout_tensors, partition_warps
from ..versions import NEWEST, Selection, VersionRequest, using

# A misaligned vector access faults on NVIDIA (cudaErrorMisalignedAddress, measured on an H100); AMD's LDS
# serves it in the unaligned access mode ROCm runs kernels in (LLVM selects ds_read/write_b128 at 8-byte
# alignment under unaligned-access-mode), split and slower: a defect there too, but not a crash.
MISALIGNED = {"nvidia": "error", "amd": "warning"}
STORES = ("ttg.local_alloc", "ttg.local_store", "ttg.async_copy_global_to_local", "amdg.buffer_load_to_local")
ASYNC_ACCESS = {"ttg.async_copy_global_to_local": "cp.async", "amdg.buffer_load_to_local": "direct_to_lds"}
LOADS = ("ttg.local_load",)
DOTS = ("tt.dot", "ttng.warp_group_dot")
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
        checked = sum(n for name, n in self.ops.items() if name in checked_ops())
        return {"file": self.file, "modules": self.modules, "operations": sum(self.ops.values()),
                "checked_operations": checked,
                "skipped_operations": dict(sorted((k, v) for k, v in self.ops.items() if k not in checked_ops())),
                "skipped_checks": dict(sorted(self.skipped.items())),
                "skips": sorted(self.skips, key=lambda k: k["line"]),
                "problems": [{"line": line, "message": msg} for line, msg in self.problems],
                "version_notes": [{"line": line, "severity": "note", "message": msg} for line, msg in self.notes]
                + [{"line": line, "severity": "warning", "message": msg} for line, msg in self.warnings]}


def kernel_checks(modules: list[Module], file: str, hardware: Hardware | None = None, *,
                  differential: bool = False, text: str | None = None,
                  version: VersionRequest = VersionRequest()) -> KernelChecks:
    """Every obligation of every module of one file (module docstring), in source order; differential:
    also ``matches_triton`` for every distinct (encoding, shape) (`checker.properties.matches_triton`).
    Each module is checked with the Triton version `version` asks for, or the one its syntax (in `text`)
    says it comes from (`checker.syntax.version_marks.choose`): its checks carry it, the module's summary
    says which and why, and a note or warning says where the syntax and the choice part."""
    from ..syntax.version_marks import choose, section_marks
    out = KernelChecks(file)
    sections = section_marks(text) if text is not None else []
    for module in modules:
        marks = next((mk for first, last, mk in sections if first <= module.line <= last), [])
        try:
            selection, notes, warnings = choose(marks, version.given, version.given_by, version.installed)
        except CheckerError as e:
            out.problems.append((e.line or module.line, e.message))
            continue
        out.notes += [(module.line, n) for n in notes]
        out.warnings += [(module.line, w) for w in warnings]
        with using(selection.version):
            Builder(module, file, hardware, out, differential=differential, selection=selection).build()
    return out


OpCheck = Callable[["Builder", Operation], None]
OP_CHECKS: dict[str, OpCheck] = {}
# operations of a kind that moves data but whose cost is not modelled yet: each is listed as skipped, with the
# check it would get and why, on its line (they count as skipped, not as checked)
NOT_MODELLED: dict[str, tuple[str, str]] = {
    "amdg.buffer_load": ("global_access", "the vector width of a buffer load or store is not modelled"),
    "amdg.buffer_store": ("global_access", "the vector width of a buffer load or store is not modelled"),
}


def op_check(*names: str) -> Callable[[OpCheck], OpCheck]:
    """Register a function deriving the checks of the operations `names` (one per op name)."""
    def register(fn: OpCheck) -> OpCheck:
        for name in names:
            if name in OP_CHECKS:
                raise ValueError(f"two checks registered for {name}")
            OP_CHECKS[name] = fn
        return fn
    return register


def checked_ops() -> frozenset[str]:
    """The operations that get checks of their own (beyond the checks of their types)."""
    return frozenset(OP_CHECKS)


class Builder:
    """Derives the checks of one module. Op-specific derivations are registered in `OP_CHECKS`
    (`op_check`) and get the builder: `add` a check, `skip` one with its reason, `warps_of` an
    operation, `lowers` (the encoding lowers at a shape), `defining_op` of an SSA value."""

    def __init__(self, module: Module, file: str, hardware: Hardware | None, out: KernelChecks, *,
                 differential: bool = False, selection: Selection = Selection(NEWEST, "default")):
        self.m, self.file, self.out = module, file, out
        self.selection = selection
        self.differential = differential
        self.hw = hardware or hardware_for_target(module.target)
        self.seen: set[tuple] = set()
        self.ids: Counter = Counter()
        self.defs: dict[str, Operation] = {}
        self.warps = tuple(sorted({module.num_warps} | set(_partition_warps(module)))) if module.num_warps else ()

    @cached_property
    def buffer_pairs(self):
        """The module's shared accesses and their pairing (`checker.synthesis.BufferPairs`), made once per
        module: every shared access asks it for its partner."""
        from ..synthesis import BufferPairs
        return BufferPairs(self.m.operations)

    @cached_property
    def unallocated(self) -> set[int]:
        """ids of the operations Triton erases before allocating shared memory (`allocation.unallocated`)."""
        from .allocation import unallocated
        return {id(self.m.operations[i]) for i in unallocated(self.m)}

    def build(self) -> None:
        m = self.m
        self.out.modules.append({"line": m.line, "target": m.target, "num_warps": m.num_warps,
                                 "threads_per_warp": m.threads_per_warp, "num_ctas": m.num_ctas,
                                 "hardware": self.hw.name if self.hw else None,
                                 "triton_version": self.selection.to_dict()})
        self.out.problems += [(p.line, p.message) for p in m.problems]
        for op in m.operations:
            for r in op.results:
                self.defs[r] = op
        for op in m.operations:
            self.out.ops[op.name] += 1
            for ref in op.types:
                self.type_checks(op, ref)
            derive = OP_CHECKS.get(op.name)
            if derive is not None:
                derive(self, op)
            elif op.name in NOT_MODELLED:
                check, reason = NOT_MODELLED[op.name]
                self.skip(op, reason, check)
        self.kernel_budget()

    def kernel_budget(self) -> None:
        """The whole kernel's shared memory (`checker.ttgir.allocation.budget`: every allocation with its
        buffering, every conversion, reduction and scan scratch, placed as Triton places them) against
        the target's capacity: one ``fits`` check per module, at its function (severity error)."""
        from .allocation import budget
        funcs = [op for op in self.m.operations if op.name == "tt.func"]
        if not funcs or self.hw is None:
            return
        b = budget(self.m, self.hw)
        entries = tuple(x.to_tuple() for x in sorted(b.buffers, key=lambda x: (x.offset, x.line)))
        params = (("capacity_bytes", self.hw.smem_bytes_per_block), ("kernel_bytes", b.total),
                  ("breakdown", entries)) + ((("uncertain", tuple(b.uncertain)),) if b.uncertain else ())
        # a figure the model does not reproduce exactly is an estimate: past the capacity it warns, never errs
        self.add(funcs[0], "fits", "kernel", [], [max(b.total, 1)], params=params,
                 severity="warning" if b.uncertain else "error")
    # ------------------------------------------------------------ helpers

    def add(self, op: Operation, prop: str, what: str, operands, shape, *, severity: str = "error",
            dtype: str | None = None, bits: int | None = None, params=()) -> None:
        base = f"{self.file}:{op.line}:{op.name}:{prop}" + (f"[{what}]" if what else "")
        self.ids[base] += 1
        ob_id = base if self.ids[base] == 1 else f"{base}#{self.ids[base]}"
        self.out.obligations.append(Check(
            id=ob_id, property=prop, operands=tuple(operands), shape=tuple(shape), layout_shape=None,
            dtype=dtype, dtype_bits=bits, hardware=self.hw, params=tuple(params), expect="holds",
            expect_conflicts=None, expect_level=None, file=self.file, line=op.line, op=op.name,
            severity=severity, python=getattr(op, "loc", None), triton_version=str(self.selection.version)))

    def skip(self, op: Operation, reason: str, check: str | None = None) -> None:
        self.out.skip(op.line, op.name, reason, check, getattr(op, "loc", None))

    def lowers(self, enc: Encoding, shape) -> bool:
        try:
            lower(enc, shape)
            return True
        except CheckerError:
            return False

    def defining_op(self, value: str) -> Operation | None:
        return self.defs.get(value)

    def warps_of(self, op: Operation) -> tuple[int, ...]:
        """The warp counts an operation may run with, as Triton's maybeLookupNumWarps finds them: the
        innermost enclosing ``ttg.warp_specialize`` partition's ``num_warps``, else the innermost
        enclosing operation with a ``ttg.num-warps`` attribute (a ``tt.func`` may carry its own), else the
        module's. The default region of a warp_specialize runs with the warps around it."""
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
        if (ref.memory_space or "").endswith(TMEM_SPACE) or enc.kind.startswith("tensor_memory"):
            return                      # tensor memory: the TMEM op checks read it (checker.ttgir.ops_nvidia)
        if ref.kind == "tensordesc":
            return                      # a TMA box, not a buffer: the TMA checks read it
        shape = layout_shape(ref)
        warps = () if enc.is_shared else self.warps_of(op)
        what = f"{_compact(ref.encoding_text)} {'x'.join(map(str, shape))}"
        formed = ("well_formed", ref.kind, enc, tuple(shape), warps)   # the warp count depends on the op
        if formed not in self.seen:
            self.seen.add(formed)
            params = (("threads_per_warp", self.m.threads_per_warp), ("warps", warps),
                      ("num_ctas", self.m.num_ctas))
            self.add(op, "well_formed", what, [("layout", enc)], shape, params=params)
        key = (ref.kind, enc, tuple(shape))
        if key in self.seen or not self.lowers(enc, shape):
            return
        self.seen.add(key)
        if self.differential and ref.kind in ("tensor", "memdesc"):
            params = (("element_type", ref.element_type if not ref.element_type.startswith("!") else "i64"),
                      ("target", self.m.target), ("num_warps", warps[0] if warps else self.m.num_warps),
                      ("threads_per_warp", self.m.threads_per_warp), ("num_ctas", self.m.num_ctas))
            self.add(op, "matches_triton", what, [("layout", enc)], shape, params=params)
        if enc.is_shared:
            self.add(op, "invertible", what, [("layout", enc)], shape)
        elif ref.kind == "tensor":
            self.add(op, "surjective", what, [("layout", enc)], shape)
            self.add(op, "injective_up_to_broadcast", what, [("layout", enc)], shape)


@op_check("ttg.convert_layout")
def convert(b: Builder, op: Operation) -> None:
    tensors = layout_tensors(op.types)
    if len(tensors) != 2:
        b.skip(op, "ttg.convert_layout without two typed tensors", "conversion")
        return
    src, dst = tensors
    if not (b.lowers(src.encoding, src.shape) and b.lowers(dst.encoding, dst.shape)):
        return
    what = f"{_compact(src.encoding_text)} -> {_compact(dst.encoding_text)}"
    b.add(op, "conversion", what, [("src", src.encoding), ("dst", dst.encoding)], dst.shape,
          params=(("triton", True),))         # the note says what Triton emits (details.triton_lowering)
    if b.hw is not None and b.hw.vendor == "nvidia" and src.element_bits:   # what Triton's lowering costs
        b.add(op, "conversion_cost", what, [("src", src.encoding), ("dst", dst.encoding)], dst.shape,
              severity="warning", dtype=src.element_type, bits=src.element_bits)


@op_check(*STORES, *LOADS)
def shared_access(b: Builder, op: Operation) -> None:
    mems = [t for t in op.types if t.kind == "memdesc" and t.encoding is not None and t.encoding.is_shared]
    regs = layout_tensors(op.types)
    if len(mems) != 1:
        b.skip(op, f"{op.name} without a shared memdesc type", "bank_conflict_free")
        return
    mem = mems[0]
    bits = mem.element_bits
    dtype = mem.element_type
    if b.hw is None:
        b.skip(op, "no hardware target (give --hardware)", "bank_conflict_free")
        return
    if op.name == "ttg.local_alloc":
        fits(b, op, mem, bits, dtype)
    if not regs:
        return
    reg = regs[0]
    alloc = layout_shape(mem)
    shape = list(mem.shape[len(mem.shape) - len(alloc):])
    if list(reg.shape) != shape or any(v > a for v, a in zip(shape, alloc)):
        b.skip(op, f"{op.name} whose register and memory shapes differ", "bank_conflict_free")
        return
    if not (b.lowers(reg.encoding, shape) and b.lowers(mem.encoding, alloc)):
        return
    view = (("view_of", alloc),) if shape != alloc else ()
    padded = not isinstance(lower(mem.encoding, alloc), LinearLayout)
    direction = "load" if op.name in LOADS else "store"
    access = ASYNC_ACCESS.get(op.name, "auto")
    if padded:  # the real addresses of a view of a padded allocation (checker.properties.padded_access)
        operand = op.operands[1] if op.name in ASYNC_ACCESS and len(op.operands) > 1 else \
            (op.operands[0] if op.operands and op.name != "ttg.local_alloc" else None)
        buffers, starts = padded_view(b, operand, mem, alloc, shape)
        view += (("padded_view", True), ("buffers", buffers), ("slice_starts", starts))
    pair = (_compact(reg.encoding_text), _compact(mem.encoding_text))
    what = " -> ".join(pair if direction == "store" else pair[::-1])
    b.add(op, "bank_conflict_free", what, [("reg", reg.encoding), ("shared", mem.encoding)], shape,
          severity="warning", dtype=dtype, bits=bits,
          params=(("direction", direction), ("access", access), ("model", "hardware")) + view
          + (() if view else _partner(b, op)))
    if op.name not in ASYNC_ACCESS:  # the ld/st.shared (or ld/stmatrix) Triton emits: aligned to its width?
        b.add(op, "aligned_access", what, [("reg", reg.encoding), ("shared", mem.encoding)], shape,
              severity=MISALIGNED.get(b.hw.vendor, "error"), dtype=dtype, bits=bits, params=(("direction", direction),) + view)
    elif padded:  # the direct-to-LDS write: aligned, and where the hardware puts each lane's vector
        b.add(op, "aligned_access", what, [("reg", reg.encoding), ("shared", mem.encoding)], shape,
              severity="error", dtype=dtype, bits=bits,
              params=(("direction", direction), ("access", access)) + view)
    if op.name in ASYNC_ACCESS and b.hw.vendor == "amd" and re.search(r"\bother\s+%", op.text):
        # AMD stores the `other` values of masked elements with a plain LDS store after each
        # direct-to-LDS load (`bank_conflicts._fill_plan`): a second access on the line
        b.add(op, "bank_conflict_free", f"{what} (fill store of `other`)", [("reg", reg.encoding),
              ("shared", mem.encoding)], shape, severity="warning", dtype=dtype, bits=bits,
              params=(("direction", "store"), ("access", "fill_store"), ("model", "hardware")) + view)


def _partner(b: Builder, op: Operation) -> tuple:
    """The register layout of the other side of a local_store / local_load pair (`checker.synthesis.BufferPairs`),
    as the ``partner`` parameter: a conflicting access then gets a synthesized layout as a suggestion."""
    from ..syntax.mlir_attr import print_attribute
    found = b.buffer_pairs.partners(op)
    if not found:
        return ()
    other = found[0]
    out = (("partner", print_attribute(other.reg.encoding)),)
    return out + ((("partner_access", other.access),) if other.access != "auto" else ())


def padded_view(b: Builder, value: str | None, mem: TypeRef, alloc: list[int], shape: list[int]):
    """(buffers, subslice starts) of the memdesc an access of a padded layout goes through: the value is
    traced back through memdesc_subslice (its offsets, summed), memdesc_index (the buffer count of its
    source) and scf.for iter_args / results (their initial values). Without a memdesc_index on the way
    back to a local_alloc, the buffers are those of the module's multi-buffered allocations of the same
    encoding and buffer shape (1 if none); without a subslice, a view narrower than its allocation may
    start at any multiple of its shape (all listed), else None (the origin)."""
    rank = len(alloc)
    buffers, offsets, sliced, rooted = None, [0] * rank, False, False
    seen: set[str] = set()
    v = value
    while v and v not in seen:
        seen.add(v)
        op = b.defining_op(v)
        if op is None:
            v = _iter_init(b, v)
            continue
        if op.name == "ttg.memdesc_subslice":
            m = re.search(r"memdesc_subslice\s+%[\w#.]+\s*\[([-\d,\s]+)\]", op.text)
            if not m:
                break
            vals = [int(x) for x in m.group(1).split(",") if x.strip()]
            for i, x in enumerate(vals[len(vals) - rank:]):
                offsets[i] += x
            sliced, v = True, op.operands[0] if op.operands else None
        elif op.name == "ttg.memdesc_index":
            src = op.operand_types[0] if op.operand_types else None
            if src is not None and buffers is None:
                buffers = src.shape[len(src.shape) - rank - 1] if len(src.shape) > rank else 1
            v = op.operands[0] if op.operands else None
        elif op.name == "scf.for" and v in op.results:
            k = op.results.index(v)
            v = op.operands[3 + k] if 3 + k < len(op.operands) else None
        else:
            rooted = op.name == "ttg.local_alloc"
            break
    if buffers is None:
        buffers = 1 if rooted else _same_type_buffers(b, mem, alloc)
    if sliced:
        starts = (tuple(offsets),)
    elif shape != alloc:
        import itertools
        starts = tuple(itertools.product(*[range(0, a, s) for a, s in zip(alloc, shape)]))
    else:
        starts = None
    return int(buffers), starts


def _iter_init(b: Builder, value: str) -> str | None:
    """The initial value of an scf.for iter_arg (None: not one)."""
    for op in b.m.operations:
        if op.name == "scf.for" and value in op.arguments[1:]:
            k = op.arguments.index(value) - 1
            return op.operands[3 + k] if 3 + k < len(op.operands) else None
    return None


def _same_type_buffers(b: Builder, mem: TypeRef, alloc: list[int]) -> int:
    """The most buffers of a module allocation with this encoding and buffer shape (1 if none)."""
    most = 1
    for op in b.m.operations:
        if op.name != "ttg.local_alloc":
            continue
        for t in op.result_types:
            if t.kind == "memdesc" and t.encoding == mem.encoding and \
                    list(t.shape[len(t.shape) - len(alloc):]) == alloc and len(t.shape) > len(alloc):
                n = 1
                for x in t.shape[:len(t.shape) - len(alloc)]:
                    n *= x
                most = max(most, n)
    return most


VIEWS = {"ttg.memdesc_trans": "trans", "ttg.memdesc_reshape": "reshape", "ttg.memdesc_index": "index",
         "ttg.memdesc_subslice": "subslice"}


@op_check(*VIEWS, "ttg.memdesc_reinterpret")
def view(b: Builder, op: Operation) -> None:
    """A memdesc view: `view_consistent` of its result type's layout against its source's
    (checker.properties.views), when the two encodings differ or the view re-shapes them."""
    mems = [t for t in op.types if t.kind == "memdesc"]
    if len(mems) != 2 or any(t.encoding is None for t in mems):
        b.skip(op, f"{op.name} without two typed memdescs", "view_consistent")
        return
    src, dst = mems
    if not (src.encoding.is_shared and dst.encoding.is_shared):
        return                          # tensor-memory views: the TMEM checks read them
    if op.name == "ttg.memdesc_reinterpret":
        if (src.element_bits, layout_shape(src), src.encoding) != (dst.element_bits, layout_shape(dst), dst.encoding):
            b.skip(op, "memdesc_reinterpret to another element type, shape or layout (addresses not modelled)",
                   "view_consistent")
        return
    kind = VIEWS[op.name]
    src_shape, dst_shape = layout_shape(src), layout_shape(dst)
    if kind in ("index", "subslice"):
        if src.encoding == dst.encoding:
            return                      # one buffer or a sub-tile of the allocation, addressed with its layout
        if src_shape != dst_shape:
            b.skip(op, f"{op.name} to another encoding at another allocation shape (not modelled)",
                   "view_consistent")
            return
    if kind == "trans" and (src.encoding.rank != len(src.shape) or dst.encoding.rank != len(dst.shape)):
        b.skip(op, "memdesc_trans of a multi-buffered view (leading buffer dims)", "view_consistent")
        return
    if not (b.lowers(src.encoding, src_shape) and b.lowers(dst.encoding, dst_shape)):
        return
    params: tuple = (("kind", kind), ("source_shape", src_shape))
    if kind == "trans":
        m = re.search(r"order\s*=\s*array<i32:\s*([\d,\s]+)>", op.text)
        if not m:
            b.skip(op, "memdesc_trans without an order attribute", "view_consistent")
            return
        params += (("order", [int(x) for x in m.group(1).split(",") if x.strip()]),)
    what = f"{_compact(src.encoding_text)} -> {_compact(dst.encoding_text)}"
    b.add(op, "view_consistent", what, [("source", src.encoding), ("view", dst.encoding)], dst_shape,
          params=params)


def fits(b: Builder, op: Operation, mem: TypeRef, bits: int, dtype: str) -> None:
    if id(op) in b.unallocated:
        b.skip(op, "Triton erases this allocation before allocating shared memory (nothing that stays uses "
                   "it): it takes no space", "fits")
        return
    shape = layout_shape(mem)
    if not b.lowers(mem.encoding, shape):
        return
    full = mem.alloc_shape or mem.shape
    buffers = 1
    for n in full[:len(full) - len(shape)]:
        buffers *= n
    capacity = b.hw.smem_bytes_per_block // buffers
    what = f"{_compact(mem.encoding_text)} {'x'.join(map(str, full))}"
    b.add(op, "fits", what, [("layout", mem.encoding)], shape, dtype=dtype, bits=bits,
          params=(("capacity_bytes", capacity), ("base_bytes", 0), ("alignment_bytes", None),
                  ("buffers", buffers)))


@op_check(*DOTS)
def dot(b: Builder, op: Operation) -> None:
    types = op.types
    if len(types) < 3 or any(t.encoding is None for t in types[:2] + types[-1:]):
        b.skip(op, f"{op.name} without typed operands", "dot_operands")
        return
    a, bb, acc = types[0], types[1], types[-1]
    b.add(op, "dot_operands", "", [("a", a.encoding), ("b", bb.encoding), ("acc", acc.encoding)],
          acc.shape, params=(("a_shape", list(a.shape)), ("b_shape", list(bb.shape))))


def _compact(text: str) -> str:
    """Attribute text without blanks, for check ids: '#ttg.dot_op<{opIdx=0,parent=#mma,kWidth=2}>'."""
    return re.sub(r"\s+", "", text)


def layout_shape(ref: TypeRef) -> list[int]:
    """The shape an encoding is lowered at: a tensor's shape; a memdesc's allocation shape
    (its own shape when it has none), trailing dims when the encoding has fewer."""
    shape = list(ref.alloc_shape or ref.shape) if ref.kind == "memdesc" else list(ref.shape)
    rank = ref.encoding.rank if ref.encoding is not None else len(shape)
    return shape[len(shape) - rank:] if rank < len(shape) else shape


def _partition_warps(module: Module) -> list[int]:
    """Warp counts of every ttg.warp_specialize partition of the module."""
    return [n for op in module.operations if op.name == "ttg.warp_specialize" for n in partition_warps(op)]


def read_ir_file(path: str, hardware: Hardware | None = None, *, differential: bool = False,
                 version: VersionRequest = VersionRequest()) -> KernelChecks:
    """Read one TTGIR file (``-``: stdin, named ``<stdin>``) and derive its checks."""
    from ..limits import read_stdin, read_text
    from ..syntax.ttgir import read_ttgir
    name = "<stdin>" if path == "-" else path
    text = read_stdin("-") if path == "-" else read_text(path)     # UTF-8 text only, else one line, exit 2
    return kernel_checks(read_ttgir(text, name), name, hardware, differential=differential, text=text,
                         version=version)


from . import ops_amd, ops_common, ops_nvidia  # noqa: E402,F401  (they register their op checks)
