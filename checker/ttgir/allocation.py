"""The shared memory a kernel needs, exactly as Triton 3.9's allocation analysis gives it
(lib/Analysis/Allocation.cpp, Alias.cpp, MLIR's Liveness; the scratch sizes of each target's
``AllocationAnalysisScratchSizeFn``).

`budget(module)` returns, for the kernel, every buffer with its size, alignment, live range and offset,
and the total (Triton's ``shared``: the largest over the functions no other calls); `function_budgets` every
function's. What the Gluon inliner (run before allocation) removes is gone first: a private function nothing
calls, and every operation `erased_before_allocation` finds dead (MLIR's trivially-dead rule and region DCE).
One function:

- **Explicit buffers**: each ``ttg.local_alloc`` in shared memory, ``prod(allocation shape per CTA) x
  element bytes`` (a ``padded_shared`` layout: its padded size; ``partitioned_shared``: one buffer per
  partition of ``groups x piece`` bytes, the partitions *neighbours*), aligned as
  ``getAlignmentOrDefault`` says (the ``alignment`` attribute, else the encoding's, else 16).
- **Aliases** (``SharedMemoryAliasAnalysis``, a forward data flow): a value aliases the allocations it
  may point into: a ``local_alloc``'s result itself; a view (``memdesc_*``) its source's; ``arith.select``
  both choices'; a region's block argument or result every value that flows into it (``scf.for`` /
  ``scf.if`` / ``scf.while`` / ``ttg.warp_specialize`` operands, yields and conditions).
- **Live ranges**: operations are numbered in post-order (an operation after everything it holds). The
  range of a value is MLIR's ``Liveness::resolveLiveness``: in the block that defines it, from its
  definition (a block argument: the block's first operation) to the last operation of that block that
  is or holds a user; in every other block with a direct user, from the block's first operation to its
  last user there; the range is ``[smallest id, largest id + 1)`` over those operations. A buffer is
  live over the hull of the ranges of its allocation and of every value aliasing it.
- **Scratch buffers**, live at their operation only (``[id, id + 1)``), 128-byte aligned:
  ``ttg.convert_layout`` through shared memory: the elements of the swizzled tile over its reps and CTAs
  (NVIDIA: ``optimalSwizzling`` with the target's ld/st-matrix tiles; AMD: the ld/st-only swizzle;
  `properties.conversion_cost.scratch_elements`); ``tt.reduce``: its largest cross-warp round, every
  input side by side (`properties.reduction.scratch_bytes`); ``tt.scan`` (blocked layouts, warps along
  the axis): ``sum(bytes) x warps x non-axis lanes x non-axis elements per thread x blocks`` (blocks of
  one CTA's part of the shape);
  ``tt.histogram``: ``max(bins, lanes) x bytes``; ``tt.gather`` not local to a warp: the source;
  ``tt.atomic_rmw`` / ``tt.atomic_cas`` / ``ttg.local_atomic_scatter_rmw`` (and AMD's buffer atomics)
  whose result is used: one element of the pointee's bits (a tensor result that broadcasts: all of them);
  ``ttng.tensormap_create``: 128;
  ``ttg.warp_specialize``: its captures packed (scalars their bytes, pointers and descriptors 8, a shared
  memdesc ``8 + 4 x rank``, another memdesc 8), 8-byte aligned; ``tt.call``: the callee's total (a
  *virtual* buffer). The function itself, when it holds warp-specialized code: one byte per partition
  warp of its largest ``warp_specialize``, live throughout, 4-byte aligned.
- **Placement** (``computeOffsets``): explicit buffers, then scratch, then virtual ones, stably sorted
  largest first; first fit over a map of (offset, live range) triples (``calculateStarts``); then an
  interference graph (live at once and overlapping; or owned by operations in different regions of one
  ``warp_specialize``, which run at once, and overlapping: regions as ``scf-to-cf`` leaves them,
  `lowered_region`; or partition neighbours in one 64 KiB partition of a gfx1250 LDS) coloured greedily, each
  coloured buffer moved past its neighbours, until nothing interferes. The total is the largest ``offset + size``.

The kernel's figure is the largest total over the functions no other calls; a module that allocates tensor
memory has at least 4 bytes, where ``tcgen05.alloc`` writes the address of its allocation (the
TensorMemoryAllocation pass raises ``ttg.shared`` to 4).

Whatever the model does not reproduce exactly (an operation producing a shared memdesc it does not know,
a scratch size it could not compute, a call to a function it does not have) is listed in
``Budget.uncertain``; the total is then an estimate, and the ``fits`` check says so (a warning, never an
error). docs/ttgir.md ("Whole-kernel shared memory") compares the total with the ``shared`` Triton records
in each kernel's metadata.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..encodings import lower
from ..errors import CheckerError
from ..hardware import Hardware, hardware_for_target
from ..padded import linear_part
from ..properties.conversion import triton_view
from ..syntax.ttgir import (
    Module,
    Operation,
    TypeRef,
    _group_end,
    element_bits,
    layout_tensors,
    partition_warps,
    split_top,
)
from ..versions import active as active_version
from ..versions import follows
from .liveness import ControlFlow

SCRATCH_ALIGN = 128
FUNCTION_SCRATCH_ALIGN = 4          # Allocation::BufferT's default alignment
CAPTURE_ALIGN = 8
LDS_PARTITION_BYTES = {"gfx1250": 64 * 1024}    # AMD TargetInfo::getSharedMemoryPartitionSize
FOREVER = (0, 1 << 64)              # the live range of a buffer owned by the function (Interval's default)
VIEWS = ("ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape",
         "ttg.memdesc_reinterpret", "ttg.memdesc_subview", "ttng.memdesc_subslice", "amdg.memdesc_reinterpret")
YIELDS = ("scf.yield", "scf.condition", "ttg.warp_yield")
_FLOWS = frozenset(VIEWS + YIELDS + ("arith.select", "scf.for", "scf.while", "ttg.warp_specialize"))
"""The operations `aliases` follows a memdesc through (besides ``ttg.memdesc_*`` ones and branches)."""


@dataclass(eq=False)
class Buffer:
    line: int
    op: str
    kind: str                 # "explicit" | "scratch" | "virtual"
    size: int
    alignment: int
    start: int                # live range over post-order operation ids, [start, end)
    end: int
    offset: int = 0
    what: str = ""
    owner: int = -1           # index in Module.operations of the operation that owns it
    neighbours: list[Buffer] = field(default_factory=list, repr=False)    # other partitions of one allocation

    def to_tuple(self) -> tuple:
        return (self.line, self.op, self.kind, self.size, self.alignment, self.offset, self.what)


@dataclass
class Budget:
    total: int
    buffers: list[Buffer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)    # why the total may not be Triton's ("line N: ...")

    @property
    def exact(self) -> bool:
        return not self.uncertain


def _shared_memdesc(t: TypeRef) -> bool:
    return t.kind == "memdesc" and not (t.memory_space or "").endswith("tensor_memory") and \
        (t.encoding is None or t.encoding.is_shared)


# ------------------------------------------------------------------ the function's structure


def argument_region(op: Operation, k: int) -> int:
    """The region of `op` whose block declares its k-th argument: scf.while's first ``len(operands)`` are its
    ``before`` region's, the rest its ``do`` region's; a warp_specialize repeats its captures once per
    partition (regions 1, 2, ...); every other op has its arguments in region 0."""
    if op.name == "scf.while":
        return 0 if k < len(op.operands) else 1
    if op.name == "ttg.warp_specialize":
        return 1 + k // max(1, len(op.operands))
    return 0


Block = tuple  # (index of the op holding it, region)
Value = tuple  # ("result", op index, name) | ("argument", op index, region, name)


class Function:
    """The operations of one function (its tt.func first) with every SSA use resolved to its definition
    through the scopes it sits in (partition regions may repeat names), and its control-flow graph
    (`liveness.ControlFlow`: post-order ids and live ranges)."""

    def __init__(self, ops: Sequence[Operation], members: Sequence[int]):
        self.ops = ops
        self.members = list(members)
        self.used: set[Value] = set()          # the values some operation of the function uses
        self.operand_values: dict[int, list[Value | None]] = {}
        scopes: dict[Block, dict[str, Value]] = {}

        def scope(block: Block) -> dict[str, Value]:
            if block not in scopes:
                p, r = block
                scopes[block] = {} if p is None else {
                    a: ("argument", p, r, a) for k, a in enumerate(ops[p].arguments)
                    if argument_region(ops[p], k) == r}
            return scopes[block]

        # the scopes an operand is looked up in, innermost first (its own block's, where its results go, first):
        # those of `chain`, which depends on the block holding the operation alone (each scope a dict that grows
        # as the block's results are defined)
        visible: dict[Block, list[dict[str, Value]]] = {}
        used, operand_values = self.used, self.operand_values
        for i in self.members:
            op = ops[i]
            block = (op.parent, op.region)
            chain = visible.get(block)
            if chain is None:
                chain = visible[block] = [scope(b) for b in self.chain(i)]
            resolved: list[Value | None] = []
            for name in op.operands:
                v = None
                for names in chain:
                    v = names.get(name)
                    if v is not None:
                        break
                resolved.append(v)
                if v is not None:
                    used.add(v)
            operand_values[i] = resolved
            if op.results:
                names = chain[0]
                for r in op.results:
                    names[r] = ("result", i, r)
        self.flow = ControlFlow(ops, self.members, self.operand_values.__getitem__, argument_region)
        self.ids = self.flow.ids

    def chain(self, i: int) -> list[Block]:
        """The blocks around operation i, innermost first."""
        out, op = [], self.ops[i]
        while True:
            out.append((op.parent, op.region))
            if op.parent is None:
                return out
            op = self.ops[op.parent]

    def live_range(self, v: Value) -> tuple[int, int] | None:
        """[first, last + 1) of the ids of the operations v is live at, over the function's control-flow graph
        (`checker.ttgir.liveness`); None for a value that graph does not hold."""
        return self.flow.live_range(v)

    def values(self, i: int) -> list[Value]:
        return [("result", i, r) for r in self.ops[i].results]

    def argument_values(self, i: int, region: int | None = None) -> list[Value]:
        op = self.ops[i]
        return [("argument", i, argument_region(op, k), a) for k, a in enumerate(op.arguments)
                if region is None or argument_region(op, k) == region]


class Analysis:
    """The allocation analysis of one module, made once and shared by everything that reads that module
    (`budget`, `unallocated`, `checker.ttgir.pairing.BufferPairs`; `checker.ttgir.builder.Builder` holds one
    per module, so it lives as long as the module's checks are built): the module the inliner leaves
    (`inline_calls`), and per function (its operations and members) its `Function`, the operations
    `erased_before_allocation` finds dead, and its `aliases`. None of these is changed once made (a
    `Function` is read, never written, after its construction; callers copy what they alter), so every
    reader gets the same objects and the same results as when it made its own.

    `scratch_sizes` keeps the scratch of conversions and reductions (`scratch`) by what it is computed from
    (the layouts, shapes, axis, element bits, target and Triton version): a kernel reduces or converts the
    same tensors several times (a softmax's max, then its sum), and each distinct one is sized once."""

    def __init__(self, module: Module):
        self.module = module
        self._inlined: Inlined | None = None
        # (id(ops), members) -> (ops, its Function): ops is kept so that its id is not reused
        self._functions: dict[tuple[int, tuple[int, ...]], tuple[Sequence[Operation], Function]] = {}
        self._dead: dict[int, tuple[Function, set[int]]] = {}                       # id(Function) -> ...
        self._aliases: dict[int, tuple[Function, dict[Value, set[int]]]] = {}        # id(Function) -> ...
        self._symbols: dict[int, tuple[Sequence[Operation], dict[str, int], set[str]]] = {}     # id(ops) -> ...
        self._members: dict[tuple[int, int], tuple[Sequence[Operation], list[int]]] = {}     # (id(ops), root) -> ...
        self.scratch_sizes: dict[tuple, tuple[int, str]] = {}

    @property
    def inlined(self) -> Inlined:
        if self._inlined is None:
            self._inlined = inline_calls(self.module, self)
        return self._inlined

    def symbols(self, ops: Sequence[Operation]) -> tuple[dict[str, int], set[str]]:
        """The functions of `ops` by name (the index of each top-level tt.func) and the names its tt.calls call
        (not to be changed by the caller)."""
        got = self._symbols.get(id(ops))
        if got is None or got[0] is not ops:
            funcs = {_symbol(op): i for i, op in enumerate(ops) if op.name == "tt.func" and op.parent is None}
            got = self._symbols[id(ops)] = (ops, funcs, {_symbol(op) for op in ops if op.name == "tt.call"})
        return got[1], got[2]

    def members(self, ops: Sequence[Operation], root: int) -> list[int]:
        """`_members(ops, root)` (not to be changed by the caller)."""
        key = (id(ops), root)
        got = self._members.get(key)
        if got is None or got[0] is not ops:
            got = self._members[key] = (ops, _members(ops, root))
        return got[1]

    def function(self, ops: Sequence[Operation], members: Sequence[int]) -> Function:
        key = (id(ops), tuple(members))
        got = self._functions.get(key)
        if got is None or got[0] is not ops:
            got = self._functions[key] = (ops, Function(ops, members))
        return got[1]

    def dead(self, fn: Function) -> set[int]:
        """`erased_before_allocation(fn)` (not to be changed by the caller)."""
        got = self._dead.get(id(fn))
        if got is None or got[0] is not fn:
            got = self._dead[id(fn)] = (fn, erased_before_allocation(fn))
        return got[1]

    def aliases(self, fn: Function) -> dict[Value, set[int]]:
        """`aliases(fn)` (not to be changed by the caller)."""
        got = self._aliases.get(id(fn))
        if got is None or got[0] is not fn:
            got = self._aliases[id(fn)] = (fn, aliases(fn))
        return got[1]


# ------------------------------------------------------------------ aliases


def aliases(fn: Function) -> dict[Value, set[int]]:
    """Every value that may point into a shared allocation -> those allocations (op indices of their
    local_alloc), by Triton's SharedMemoryAliasAnalysis run to its fixed point."""
    ops = fn.ops
    out: dict[Value, set[int]] = {}

    def flow(targets: Sequence[Value], sources: Sequence[Value | None]) -> bool:
        got: set[int] = set()
        for s in sources:
            if s is not None:
                got |= out.get(s, set())
        changed = False
        for t in targets:
            have = out.setdefault(t, set())
            if not got <= have:
                have |= got
                changed = True
        return changed

    # Which values flow into which depends on the function alone, not on what is found so far: the flows are
    # collected once, in the order the analysis visits them, then run in that order until nothing changes.
    edges: list[tuple[Sequence[Value], Sequence[Value | None]]] = []

    def edge(targets: Sequence[Value], sources: Sequence[Value | None]) -> bool:
        edges.append((targets, sources))
        return False

    def shared_results(i: int) -> list[Value]:
        """The results of operation i that may point into shared memory: not a type the reader knows to be
        something else (`arith.select ... : T` writes one type for all, which the reader may not give the
        result)."""
        res = fn.values(i)
        known = ops[i].result_types if len(ops[i].result_types) == len(res) else [None] * len(res)
        return [v for v, t in zip(res, known) if t is None or _shared_memdesc(t)]

    branches = fn.flow.branches
    for i in fn.members:
        op = ops[i]
        name = op.name
        if name == "ttg.local_alloc":           # an allocation: the values it starts with
            if op.results and op.result_types and _shared_memdesc(op.result_types[0]):
                out[("result", i, op.results[0])] = {i}
            continue
        if name not in _FLOWS and not name.startswith("ttg.memdesc") and i not in branches:
            continue                            # (most operations: no memdesc flows through them)
        src = fn.operand_values[i]
        if name in VIEWS or name.startswith("ttg.memdesc"):
            edge(shared_results(i), src[:1])
        elif name == "arith.select":
            edge(shared_results(i), src[1:3])
        elif name == "scf.for":
            iter_args, res = fn.argument_values(i), fn.values(i)
            for k, init in enumerate(src[3:]):
                edge(iter_args[1 + k:2 + k] + res[k:k + 1], [init])
        elif name == "scf.while":
            before = fn.argument_values(i, 0)
            for k, init in enumerate(src):
                edge(before[k:k + 1], [init])
        elif name == "ttg.warp_specialize":
            n = len(src)
            args = fn.argument_values(i)
            for k, capture in enumerate(src):
                edge(args[k::n] if n else [], [capture])
        elif name in YIELDS and op.parent is not None:
            _flow_yield(fn, i, edge)
        elif i in branches:                          # cf.br / cf.cond_br: operands -> successor arguments
            for arguments, passed in branches[i]:
                for a, v in zip(arguments, passed):
                    edge([a], [v])
    changed = True
    while changed:
        changed = False
        for targets, sources in edges:
            changed |= flow(targets, sources)
    return out


def _flow_yield(fn: Function, i: int, flow) -> bool:
    """What a region's terminator hands on: scf.for's yield to its iter_args and results; scf.if's and
    warp_yield's to the results; scf.while's ``do`` yield to its ``before`` arguments; scf.condition's
    values (after the condition) to the ``do`` arguments and the results."""
    op = fn.ops[i]
    holder_index = op.parent
    holder = fn.ops[holder_index]
    src = fn.operand_values[i]
    res = fn.values(holder_index)
    changed = False
    if op.name == "scf.condition":
        after = fn.argument_values(holder_index, 1)
        for k, v in enumerate(src[1:]):
            changed |= flow(after[k:k + 1] + res[k:k + 1], [v])
    elif holder.name == "scf.for":
        args = fn.argument_values(holder_index)
        for k, v in enumerate(src):
            changed |= flow(args[1 + k:2 + k] + res[k:k + 1], [v])
    elif holder.name == "scf.while":
        before = fn.argument_values(holder_index, 0)
        for k, v in enumerate(src):
            changed |= flow(before[k:k + 1], [v])
    elif holder.name in ("scf.if", "ttg.warp_specialize", "scf.execute_region", "scf.index_switch"):
        for k, v in enumerate(src):
            changed |= flow(res[k:k + 1], [v])
    return changed


# ------------------------------------------------------------------ the budget


def budget(module: Module, hardware: Hardware | None = None, analysis: Analysis | None = None) -> Budget:
    """The kernel's shared memory as Triton allocates it (module docstring): the largest total over the
    functions no other function calls, with that function's buffers. `analysis`: the module's (`Analysis`),
    when the caller shares one."""
    analysis = analysis if analysis is not None else Analysis(module)
    inlined = analysis.inlined
    functions = _budgets(inlined, hardware or hardware_for_target(module.target), analysis)
    called = analysis.symbols(inlined.module.operations)[1]
    roots = [n for n in functions if n not in called] or list(functions)
    if not roots:
        return Budget(0)
    return _with_tmem_address(max((functions[n] for n in roots), key=lambda b: b.total), module, analysis)


TMEM_ADDRESS_BYTES = 4


def _with_tmem_address(b: Budget, module: Module, analysis: Analysis) -> Budget:
    """A kernel that allocates tensor memory has at least TMEM_ADDRESS_BYTES of shared memory: ``tcgen05.alloc``
    writes the base address of the allocation there (Triton's TensorMemoryAllocation pass raises ``ttg.shared``
    to 4 once the module's tensor memory is not empty, since Gluon's tensor memory, #6985). A kernel with
    shared buffers of its own reuses them for it: its total stays."""
    if b.total >= TMEM_ADDRESS_BYTES:
        return b
    gone = unallocated(module, analysis)
    alloc = next((op for i, op in enumerate(module.operations) if op.name == "ttng.tmem_alloc" and i not in gone),
                 None)
    if alloc is None:
        return b
    address = Buffer(alloc.line, alloc.name, "scratch", TMEM_ADDRESS_BYTES, TMEM_ADDRESS_BYTES, 0, 0,
                     what="the TMEM base address tcgen05.alloc writes")
    return Budget(TMEM_ADDRESS_BYTES, b.buffers + [address], b.notes, b.uncertain)


def function_budgets(module: Module, hardware: Hardware | None = None) -> dict[str, Budget]:
    """Every function Triton allocates, by name, with its buffers and total, once the inliner has run
    (`inline_calls`): a call it leaves (``noinline``) is a virtual buffer of the callee's total; a private
    function nothing calls any more is erased and not among them."""
    analysis = Analysis(module)
    return _budgets(analysis.inlined, hardware or hardware_for_target(module.target), analysis)


def _budgets(inlined: Inlined, hw: Hardware | None, analysis: Analysis) -> dict[str, Budget]:
    module = inlined.module
    ops = module.operations
    funcs, called = analysis.symbols(ops)
    done: dict[str, Budget] = {}
    for name in funcs:
        _callee_budget(module, name, funcs, hw, done, (), analysis)
    for name, notes in inlined.uncertain.items():
        if name in done:
            done[name].uncertain += notes
    return {n: done[n] for n in funcs
            if n in called or not re.match(r"tt\.func\s+private\b", ops[funcs[n]].text)}


def unallocated(module: Module, analysis: Analysis | None = None) -> set[int]:
    """The operations of `module` (indices in its ``operations``) of which no copy is left when Triton
    allocates: erased as dead (`erased_before_allocation`), in a private function erased after inlining, or
    inside such an operation. `analysis`: the module's (`Analysis`), when the caller shares one."""
    analysis = analysis if analysis is not None else Analysis(module)
    inlined = analysis.inlined
    ops = inlined.module.operations
    funcs, called = analysis.symbols(ops)
    kept: set[int] = set()
    for name, root in funcs.items():
        if name not in called and re.match(r"tt\.func\s+private\b", ops[root].text):
            continue
        members = analysis.members(ops, root)
        gone = _gone(ops, members, analysis.dead(analysis.function(ops, members)))
        kept |= {inlined.origin[i] for i in members if i not in gone}
    return set(range(len(module.operations))) - kept


def _symbol(op: Operation) -> str:
    m = re.search(r"@([\w$.]+)", op.text)
    return m.group(1) if m else ""


def _members(ops: Sequence[Operation], root: int) -> list[int]:
    out, inside = [root], {root}
    for i in range(root + 1, len(ops)):
        if ops[i].parent in inside:
            out.append(i)
            inside.add(i)
    return out


def _callee_budget(module, name, funcs, hw, done, stack, analysis: Analysis) -> Budget:
    if name in done:
        return done[name]
    if name in stack or name not in funcs:
        return Budget(0, uncertain=[f"tt.call @{name}: " + ("a recursive call" if name in stack
                                                            else "the callee is not in the module")])
    calls: dict[str, Budget] = {}
    members = analysis.members(module.operations, funcs[name])
    for i in members:
        op = module.operations[i]
        if op.name == "tt.call":
            callee = _symbol(op)
            calls[callee] = _callee_budget(module, callee, funcs, hw, done, stack + (name,), analysis)
    done[name] = _function_budget(module, members, hw, calls, analysis)
    return done[name]


# ------------------------------------------------------------------ the inliner


INLINABLE_DIALECTS = ("tt", "ttg", "ttng", "amdg", "tti", "gluon", "proton", "arith", "math", "scf", "cf", "ub",
                      "llvm")
"""The dialects whose operations MLIR's inliner may move into a caller: those that register an inliner
interface (Triton's ``TritonInlinerInterface``, Proton's, and MLIR's own for arith, math, scf, cf, ub and llvm).
A callee holding an operation of another dialect (``builtin.unrealized_conversion_cast``, ``gpu``, ``nvvm``)
is not inlined."""


@dataclass
class Inlined:
    """A module as the Gluon inliner leaves it: every inlined call replaced by its callee's body (operations
    copied with SSA names made unique per call), `origin[i]` the index in the original module of the
    operation copied to `module.operations[i]`, and per function what the copy may not reproduce."""
    module: Module
    origin: list[int]
    uncertain: dict[str, list[str]] = field(default_factory=dict)


def inline_calls(module: Module, analysis: Analysis | None = None) -> Inlined:
    """What MLIR's inliner, run by the Gluon inliner before allocation, makes of the module: a ``tt.call`` of
    a function of the module whose ``noinline`` attribute is not true (``TritonInlinerInterface::
    isLegalToInline``), whose body only holds operations of dialects that can be inlined and which is not
    part of a recursion, is replaced by that function's body, itself inlined first (the inliner walks the
    call graph bottom-up). The callee's arguments become the call's operands and the call's results the
    values its ``tt.return`` returns (a one-block body spliced in place; the simplifier merges the blocks a
    body of several splits off). Each copied operation keeps its own line: Triton's operations keep the
    callee's location (inside a ``callsite``). `analysis`: the module's (`Analysis`), when the caller has one."""
    ops = module.operations
    funcs, called = (analysis if analysis is not None else Analysis(module)).symbols(ops)
    if not any(_inlinable(ops, funcs, name) for name in called):
        return Inlined(module, list(range(len(ops))))
    bodies: dict[str, list[tuple[Operation, int]]] = {}
    notes: dict[str, list[str]] = {}
    counter = [0]

    def expand(name: str, stack: tuple) -> list[tuple[Operation, int]]:
        """The function's operations (its tt.func first, parents as indices into this list) with every
        inlinable call replaced."""
        if name in bodies:
            return bodies[name]
        members = _members(ops, funcs[name])
        new: list[tuple[Operation, int]] = []
        where: dict[int, int] = {}              # original index -> index in `new`
        rename: dict[str, str] = {}             # a call's result -> the value replacing it
        for i in members:
            op = ops[i]
            parent = where.get(op.parent) if op.parent is not None else None
            callee = _symbol(op) if op.name == "tt.call" else ""
            if callee and callee not in stack + (name,) and _inlinable(ops, funcs, callee):
                body = expand(callee, stack + (name,))
                counter[0] += 1
                tag = f"@{counter[0]}"
                head = body[0][0]
                params = head.arguments[:_signature_count(head)]
                given = [rename.get(v, v) for v in op.operands]
                renamed = dict(zip(params, given))
                returns = [k for k, (o, _) in enumerate(body) if o.name == "tt.return" and o.parent == 0]
                if len(returns) != 1 or any(o.name.startswith("cf.") for o, _ in body):
                    notes.setdefault(name, []).append(
                        f"line {op.line}: @{callee} is inlined from several blocks; the model splices its "
                        f"operations in place of the call")
                placed: dict[int, int] = {0: parent} if parent is not None else {}
                for k, (o, origin) in enumerate(body):
                    if k == 0 or k in returns:
                        continue
                    copy = replace(o, operands=[renamed.get(v) or _tagged(v, tag) for v in o.operands],
                                   results=[_tagged(v, tag) for v in o.results],
                                   arguments=[_tagged(v, tag) for v in o.arguments],
                                   parent=placed.get(o.parent) if o.parent != 0 else parent,
                                   region=o.region if o.parent != 0 else op.region)
                    placed[k] = len(new)
                    new.append((copy, origin))
                if returns:
                    back = body[returns[0]][0]
                    for r, v in zip(op.results, back.operands):
                        rename[r] = renamed.get(v) or _tagged(v, tag)
                continue
            where[i] = len(new)
            new.append((replace(op, operands=[rename.get(v, v) for v in op.operands], parent=parent), i))
        bodies[name] = new
        return new

    operations: list[Operation] = []
    origin: list[int] = []
    for name in funcs:
        body = expand(name, ())
        base = len(operations)
        for o, k in body:
            operations.append(replace(o, parent=None if o.parent is None else o.parent + base))
            origin.append(k)
    return Inlined(replace(module, operations=operations), origin, notes)


def _tagged(v: str, tag: str) -> str:
    return v + tag


def _inlinable(ops: Sequence[Operation], funcs: dict[str, int], name: str) -> bool:
    i = funcs.get(name)
    if i is None or re.search(r"\bnoinline\s*=\s*true\b", ops[i].text):
        return False
    members = _members(ops, i)
    return len(members) > 1 and all(ops[j].name.split(".")[0] in INLINABLE_DIALECTS for j in members[1:])


def _signature_count(func: Operation) -> int:
    """How many of a tt.func's arguments its signature declares (the rest are its blocks' arguments)."""
    m = re.search(r"@[\w$.]+\s*\(", func.text)
    if m is None:
        return len(func.arguments)
    inside = func.text[m.end():_group_end(func.text, m.end() - 1) - 1]
    return min(len(func.arguments), len(re.findall(r"%[\w$.#-]+\s*:", inside)))


def branch_inflows(fn: Function) -> dict[Value, list[Value]]:
    """A block argument of the function's branches (``cf.br`` / ``cf.cond_br``) -> the values they pass it."""
    passed_to: dict[Value, list[Value]] = {}
    for targets in fn.flow.branches.values():
        for successor_arguments, passed in targets:
            for a, v in zip(successor_arguments, passed):
                if v is not None:
                    passed_to.setdefault(a, []).append(v)
    return passed_to


def _gone(ops: Sequence[Operation], members: Sequence[int], dead: set[int]) -> set[int]:
    """The dead operations and everything inside them (an erased operation takes its regions with it)."""
    gone = set(dead)
    if gone:                        # (most functions: nothing is dead)
        for i in members:
            if ops[i].parent in gone:
                gone.add(i)
    return gone


def allocated_function(ops: Sequence[Operation], members: Sequence[int], analysis: Analysis) -> Function:
    """The function of `members` as Triton allocates it: without the operations `erased_before_allocation` finds
    dead (an erased op takes its regions with it)."""
    fn = analysis.function(ops, members)
    dead = analysis.dead(fn)
    if dead:
        gone = _gone(ops, members, dead)
        fn = analysis.function(ops, [i for i in members if i not in gone])
    return fn


def allocated_functions(module: Module, analysis: Analysis) -> dict[str, Function]:
    """Every function of the inlined module (`Analysis.inlined`) Triton allocates, by name, in module order: a
    private function nothing calls any more is erased."""
    ops = analysis.inlined.module.operations
    funcs, called = analysis.symbols(ops)
    return {name: allocated_function(ops, analysis.members(ops, root), analysis) for name, root in funcs.items()
            if name in called or not re.match(r"tt\.func\s+private\b", ops[root].text)}


def _function_budget(module: Module, members: list[int], hw: Hardware | None, calls: dict[str, Budget],
                     analysis: Analysis) -> Budget:
    ops = module.operations
    fn = allocated_function(ops, members, analysis)
    members = fn.members
    out = Budget(0)
    if fn.flow.unread:
        out.uncertain.append(f"{fn.flow.unread}: the function's blocks cannot be read (already unstructured); "
                             f"the model follows it as one block")
    alias = analysis.aliases(fn)
    ranges: dict[int, tuple[int, int]] = {}          # alloc op -> hull of the ranges of everything aliasing it
    for v, allocs in alias.items():
        if not allocs or not (v[0] == "result" or v in fn.used):
            continue
        r = fn.live_range(v)
        if r is None:
            continue
        lo, hi = r
        for a in allocs:
            r = ranges.get(a)
            ranges[a] = (lo, hi) if r is None else (min(r[0], lo), max(r[1], hi))
    explicit, scratch_buffers, virtual = [], [], []
    for i in fn.members:
        op = ops[i]
        if op.name not in _BUFFER_OWNERS:
            continue                # nothing below gives it a buffer
        if op.name == "ttg.local_alloc" and op.result_types and _shared_memdesc(op.result_types[0]) and op.results:
            t = op.result_types[0]
            sizes, align = _alloc_bytes(t)
            if isinstance(op.attributes.get("alignment"), int):
                align = op.attributes["alignment"]
            start, end = ranges.get(i, (fn.ids[i], fn.ids[i] + 1))
            what = f"{'x'.join(map(str, t.alloc_shape or t.shape))}x{t.element_type}"
            group = [Buffer(op.line, op.name, "explicit", size, align, start, end, what=what, owner=i)
                     for size in sizes]
            if len(group) > 1:
                for b in group:
                    b.neighbours = [x for x in group if x is not b]
            explicit += group
            continue
        if op.name == "tt.func" and op.parent is None:
            has_ws = any(ops[j].name == "ttg.warp_specialize" for j in members)
            warps = padded_partition_warps(module) if has_ws else 0
            if warps:
                scratch_buffers.append(Buffer(op.line, op.name, "scratch", warps, FUNCTION_SCRATCH_ALIGN, *FOREVER,
                                              what=f"warp indices of {warps} partition warps", owner=i))
            continue
        if op.name == "tt.call":
            callee = calls.get(_symbol(op))
            if callee is not None:
                out.uncertain += [f"line {op.line}: {u}" for u in callee.uncertain]
                if callee.total:
                    virtual.append(Buffer(op.line, op.name, "virtual", callee.total, SCRATCH_ALIGN, fn.ids[i],
                                          fn.ids[i] + 1, what=f"@{_symbol(op)}", owner=i))
            continue
        if op.name not in SCRATCH_OPS:
            continue                # `scratch` gives it none
        used = any(v in fn.used for v in fn.values(i))
        size, what, align = scratch(op, module, used, hw, out.uncertain, analysis.scratch_sizes)
        if size:
            scratch_buffers.append(Buffer(op.line, op.name, "scratch", size, align, fn.ids[i], fn.ids[i] + 1,
                                          what=what, owner=i))
    out.buffers = explicit + scratch_buffers + virtual
    partition = LDS_PARTITION_BYTES.get(hw.name, 0) if hw is not None else 0
    out.total = place(out.buffers, concurrent=_concurrency(ops), partition_bytes=partition)
    return out


REMOVABLE = ("ttg.local_alloc", "ttg.local_load", "ttg.convert_layout", "tt.reduce", "tt.scan", "tt.trans",
             "tt.reshape", "tt.splat", "tt.broadcast", "tt.expand_dims", "tt.make_range", "tt.join", "tt.split",
             "tt.gather", "tt.histogram", "tt.addptr", "tt.load", "tt.cat", "arith.select",
             "tt.dot", "tt.dot_scaled", "tt.fp_to_fp", "tt.bitcast", "tt.int_to_ptr", "tt.ptr_to_int", "tt.clampf",
             "tt.precise_sqrt", "tt.precise_divf", "tt.mulhiui", "tt.unsplat", "tt.get_program_id",
             "tt.get_num_programs", "tt.make_tensor_descriptor", "tt.descriptor_load", "tt.descriptor_gather",
             "ttg.warp_id", "ttng.tmem_alloc", "ttng.tmem_load", "ttng.tmem_subslice",
             "ttng.reinterpret_tensor_descriptor", "amdg.extract_slice", "amdg.concat", "amdg.in_thread_transpose",
             "amdg.update_tensor_descriptor", "amdg.buffer_load", "ub.poison",
             "builtin.unrealized_conversion_cast") + VIEWS
"""Operations the canonicalizer may erase when nothing uses their results: Triton (or MLIR) declares them
``Pure``, or their only memory effects are reads and the allocation of their own result (MLIR's
``wouldOpBeTriviallyDead``)."""
PURE_TERMINATORS = ("scf.yield", "scf.condition", "ttg.warp_yield", "ttg.warp_return", "tt.reduce.return",
                    "tt.scan.return")
STRUCTURED_CONTROL = ("scf.for", "scf.if", "scf.while")


_REMOVABLE = frozenset(REMOVABLE)
_EFFECTS_INSIDE = frozenset(("ttg.warp_specialize",) + STRUCTURED_CONTROL)    # effects: those of what they hold
_LIVE_FROM_START = frozenset(STRUCTURED_CONTROL + ("tt.return", "tt.func"))


def _removable(op: Operation) -> bool:
    if op.name in _REMOVABLE or op.name.startswith(("arith.", "math.")):
        return True
    # inline assembly and external calls declare their effects by their ``pure`` attribute
    return op.name in ("tt.elementwise_inline_asm", "tt.extern_elementwise") and \
        re.search(r"\bpure\s*=\s*true", op.text) is not None


def erased_before_allocation(fn: Function) -> set[int]:
    """Operations gone before Triton allocates: the Gluon inliner's control-flow simplification (a greedy
    rewrite over the graph ``scf-to-cf`` made) erases every operation MLIR finds trivially dead, and its
    region simplification (``runRegionDCE``) every one whose results reach no live operation, loop-carried
    values included: a block argument is live only when a live operation uses it, and only then the values
    the branches pass to it. Live from the start: operations with effects beyond reading (stores, barriers,
    atomics, calls, ...) and returns; a ``ttg.warp_specialize`` is ``RecursiveMemoryEffects``, so it goes
    when nothing inside it has such effects and its results are unused (and with it the function's buffer of
    partition warps). The lowered loops' and branches' own control (bounds, step, conditions) stays."""
    ops, operand_values, branches = fn.ops, fn.operand_values, fn.flow.branches
    members = set(fn.members)
    inside: dict[int, list[int]] = {}
    for i in fn.members:
        p = ops[i].parent
        if p is not None:
            if p in inside:
                inside[p].append(i)
            else:
                inside[p] = [i]

    free: dict[int, bool] = {}          # effect_free of each operation asked (a loop asks for all it holds)

    def effect_free(i: int) -> bool:
        """Whether i has no effect beyond reading (one whose effects are those inside it: none inside has any),
        the ops nested in it decided first (reversed pre-order: children before their parent)."""
        got = free.get(i)
        if got is not None:
            return got
        order, stack = [], [i]
        while stack:
            j = stack.pop()
            if j not in free:
                order.append(j)
                if ops[j].name in _EFFECTS_INSIDE:
                    stack.extend(inside.get(j, ()))
        for j in reversed(order):
            op = ops[j]
            if op.name in PURE_TERMINATORS:
                free[j] = True
            elif op.name in _EFFECTS_INSIDE:
                free[j] = all(free[c] for c in inside.get(j, ()))
            else:
                free[j] = _removable(op)
        return free[i]

    ends: dict[tuple[int, int], int | None] = {}     # terminator of each region asked
    arguments: dict[tuple[int, int], list[Value]] = {}  # arguments of each region asked

    def region_arguments(holder: int, region: int) -> list[Value]:
        key = (holder, region)
        if key not in arguments:
            arguments[key] = fn.argument_values(holder, region)
        return arguments[key]

    def terminator(holder: int, region: int) -> int | None:
        key = (holder, region)
        if key not in ends:
            body = [j for j in inside.get(holder, ()) if ops[j].region == region]
            ends[key] = body[-1] if body and ops[body[-1]].name in PURE_TERMINATORS else None
        return ends[key]

    live_ops: set[int] = set()
    live_values: set[Value] = set()
    todo: list[Value] = []

    def value_live(v: Value | None) -> None:
        if v is not None and v not in live_values:
            live_values.add(v)
            todo.append(v)

    def operand(i: int | None, k: int) -> None:
        if i is not None:
            src = fn.operand_values.get(i, [])
            if 0 <= k < len(src):
                value_live(src[k])

    def op_live(i: int) -> None:
        """i is live: its operands' values, and what lives with it, are marked by `mark` (a worklist, not a
        recursion: a nested function calling itself is a reference cycle, which only the cyclic collector frees)."""
        if i not in live_ops and i in members:
            live_ops.add(i)
            marking.append(i)

    marking: list[int] = []

    def mark(i: int) -> None:
        op = ops[i]
        if i in branches:                                 # a branch keeps its condition; what it passes
            if op.name == "cf.cond_br":                   # lives with the successor's argument
                operand(i, 0)
            return
        if op.name in STRUCTURED_CONTROL:                 # the lowering's compare and branches use these
            if op.name == "scf.for":
                for k in range(3):
                    operand(i, k)
            elif op.name == "scf.if":
                operand(i, 0)
            else:
                operand(terminator(i, 0), 0)
            return
        for v in operand_values.get(i, ()):
            if v is not None and v not in live_values:    # value_live, spelled out (once per operand)
                live_values.add(v)
                todo.append(v)
        if op.name == "ttg.warp_specialize":
            for j in inside.get(i, ()):
                if ops[j].name in ("ttg.warp_yield", "ttg.warp_return"):
                    op_live(j)
        elif op.name != "tt.func":
            for j in inside.get(i, ()):                   # a combiner or a region not simplified: all of it stays
                op_live(j)

    def loop_carried(i: int, k: int) -> None:
        """The k-th value scf.for carries (its iter_arg and result, one block argument after lowering)."""
        operand(i, 3 + k)
        operand(terminator(i, 0), k)

    passed_to = branch_inflows(fn)
    for i in fn.members:
        name = ops[i].name
        if name in _LIVE_FROM_START or i in branches:
            op_live(i)
        elif name not in PURE_TERMINATORS and not (effect_free(i) if name in _EFFECTS_INSIDE else _removable(ops[i])):
            op_live(i)                  # (effect_free(i): `_removable` for an op whose effects are its own)
    while todo or marking:
        if marking:
            mark(marking.pop())
            continue
        v = todo.pop()
        holder = v[1]
        op = ops[holder]
        if v[0] == "result":
            if op.name not in STRUCTURED_CONTROL:
                if holder not in live_ops:
                    op_live(holder)
                continue
            k = op.results.index(v[2]) if v[2] in op.results else -1
            if op.name == "scf.for":
                loop_carried(holder, k)
            elif op.name == "scf.if":
                operand(terminator(holder, 0), k)
                operand(terminator(holder, 1), k)
            else:
                operand(terminator(holder, 0), k + 1)
            continue
        for w in passed_to.get(v, ()):
            value_live(w)
        if op.name not in ("scf.for", "scf.while"):
            continue                    # nothing flows into the argument from elsewhere
        args = region_arguments(holder, v[2])
        k = args.index(v) if v in args else -1
        if op.name == "scf.for" and k > 0:
            loop_carried(holder, k - 1)
        elif op.name == "scf.while" and v[2] == 0:
            operand(holder, k)
            operand(terminator(holder, 1), k)
        elif op.name == "scf.while":
            operand(terminator(holder, 0), k + 1)
    return {i for i in fn.members if i not in live_ops and ops[i].name not in PURE_TERMINATORS}


def padded_partition_warps(module: Module) -> int:
    """The warps every warp_specialize's partitions have once Triton's AllocateWarpGroups pads them (with
    partitions of no work) to the module's largest, rounded up to whole warp groups of 4."""
    largest = max((sum(partition_warps(op)) for op in module.operations if op.name == "ttg.warp_specialize"),
                  default=0)
    return -(-largest // 4) * 4


def _concurrency(ops: Sequence[Operation]):
    """x, y -> whether the operations owning two buffers run at once: both inside one warp_specialize, in
    different regions. Triton compares the regions holding the owners once scf-to-cf has run (`lowered_region`):
    an scf.for / scf.if / scf.while inside a partition is blocks of that partition's region by then, so the
    buffers of one partition never interfere for running at once, however deep each sits."""
    def concurrent(x: Buffer, y: Buffer) -> bool:
        if x.owner < 0 or y.owner < 0:
            return False
        wx = enclosing_warp_specialize(ops, x.owner)
        return wx is not None and wx == enclosing_warp_specialize(ops, y.owner) and \
            lowered_region(ops, x.owner) != lowered_region(ops, y.owner)
    return concurrent


LOWERED_TO_BLOCKS = ("scf.for", "scf.if", "scf.while")
"""The operations scf-to-cf dissolves into blocks of the region holding them (run before allocation)."""


def enclosing_warp_specialize(ops: Sequence[Operation], i: int) -> int | None:
    """The innermost ttg.warp_specialize holding operation i (its index), if any."""
    p = ops[i].parent
    while p is not None:
        if ops[p].name == "ttg.warp_specialize":
            return p
        p = ops[p].parent
    return None


def lowered_region(ops: Sequence[Operation], i: int) -> tuple:
    """(holder, region) of the region holding operation i once scf-to-cf has run: the innermost one that is not
    an scf.for / scf.if / scf.while region (`LOWERED_TO_BLOCKS`)."""
    op = ops[i]
    while op.parent is not None and ops[op.parent].name in LOWERED_TO_BLOCKS:
        op = ops[op.parent]
    return op.parent, op.region


def _alloc_bytes(t: TypeRef) -> tuple[list[int], int]:
    """(sizes of the buffers, alignment) of one shared allocation."""
    enc = t.encoding
    shape = list(t.alloc_shape or t.shape)
    if enc is not None and enc.kind == "nvmma_shared" and enc.fp4_padded:   # getAllocationShapePerCTA
        shape[-2 if enc.transposed else -1] *= 2          # the packed axis (order[0]) holds padded bytes
    per_cta = _per_cta(enc, shape)
    bits = t.element_bits or 8
    align = 16
    if enc is not None and hasattr(enc, "alignment"):
        a = enc.alignment
        align = int(a() if callable(a) else a) or 16
    if enc is not None and enc.kind == "padded_shared":       # getPaddedSize over the whole allocation
        return [_padded_elements(enc, math.prod(per_cta)) * bits // 8], align
    if enc is not None and enc.kind == "partitioned_shared":
        inner = getattr(enc, "partition_layout", None)
        n = math.prod(per_cta)
        pieces = enc.num_partitions * enc.num_groups
        if inner is not None and getattr(inner, "kind", "") == "padded_shared":
            # Triton 3.9 pads the shape per CTA of a partitioned type, which is one logical piece (the padded
            # layout's own shape, 2 ** its offset bases elements) times the pieces, whatever the memdesc's
            # shape; the bytes are then divided by the pieces (measured with tools/allocation_oracle.py:
            # tests/allocation/lit, test-allocation-partitioned and tritongpu_to_llvm_gfx1250)
            n = _padded_elements(inner, (1 << len(inner.offset_bases)) * pieces)
        return [n * bits // 8 // pieces * enc.num_groups] * enc.num_partitions, align
    return [math.prod(per_cta) * bits // 8], align


def _padded_elements(enc, n: int) -> int:
    return n + (sum(((n - 1) >> (i.bit_length() - 1)) << (p.bit_length() - 1)
                    for i, p in zip(enc.intervals, enc.paddings)) if n else 0)


def _per_cta(enc, shape: list[int]) -> list[int]:
    """The allocation shape of one CTA: each trailing dim divided by the encoding's CTA split."""
    if enc is None:
        return shape
    try:
        rank = enc.rank
        L = linear_part(lower(enc, shape[len(shape) - rank:]))
        split = [1] * rank
        for b in L.in_bases("block") if L.has_in_dim("block") else ():
            for d, c in enumerate(b):
                if c:
                    split[d] *= 2
        lead = shape[:len(shape) - rank]
        return lead + [s // k for s, k in zip(shape[len(shape) - rank:], split)]
    except Exception:
        return shape


# ------------------------------------------------------------------ scratch sizes


def scratch(op: Operation, module: Module, result_used: bool, hw: Hardware | None = None,
            uncertain: list[str] | None = None, sizes: dict[tuple, tuple[int, str]] | None = None) \
        -> tuple[int, str, int]:
    """(bytes, why, alignment) of an operation's scratch buffer; 0 when it needs none. A size that cannot be
    computed is 0 with its reason added to `uncertain`. `sizes`: the sizes of conversions and reductions
    computed before, by their inputs (`Analysis.scratch_sizes`; None: computed afresh)."""
    try:
        if op.name == "ttg.convert_layout":
            size, why = _convert(op, hw, sizes)
            if size and hw is None and (module.target or "").startswith("cuda:") and uncertain is not None:
                uncertain.append(f"line {op.line}: no hardware preset for {module.target}: the scratch of a "
                                 f"conversion is sized without the target's ld/st matrix instructions")
            return size, why, SCRATCH_ALIGN
        if op.name == "tt.reduce":
            return _reduce(op, sizes, hw) + (SCRATCH_ALIGN,)
        if op.name == "tt.scan":
            return _scan(op) + (SCRATCH_ALIGN,)
        if op.name == "tt.histogram":
            dst = layout_tensors(op.types)[-1]
            n = max(math.prod(dst.shape), module.threads_per_warp or 32)
            return n * _scratch_bits(dst) // 8, "histogram bins", SCRATCH_ALIGN
        if op.name == "tt.gather":
            return _gather(op) + (SCRATCH_ALIGN,)
        if op.name in ATOMICS:
            return _atomic(op, result_used) + (SCRATCH_ALIGN,)
        if op.name == "ttng.tensormap_create":
            return 128, "TMA descriptor", SCRATCH_ALIGN
        if op.name == "ttg.warp_specialize":
            return _captures(op, hw, uncertain) + (CAPTURE_ALIGN,)
    except (CheckerError, ValueError, KeyError, IndexError, AttributeError, TypeError) as e:
        if uncertain is not None:
            uncertain.append(f"line {op.line}: the scratch of {op.name} is not modelled ({e})")
        return 0, "", SCRATCH_ALIGN
    return 0, "", SCRATCH_ALIGN


def _layout(t: TypeRef):
    return lower(t.encoding, list(t.shape))


def _scratch_bits(t: TypeRef) -> int:
    """Triton's getBitwidth of a tensor: its element's bits, at least 8 (pointers 64)."""
    return max(t.element_bits or 32, 8)


def _nonzero(bases) -> list:
    return [b for b in bases if any(b)]


def _sized(sizes: dict[tuple, tuple[int, str]] | None, key: tuple, compute) -> tuple[int, str]:
    """compute(), or what it gave before for the same key (a size computed from the key's values alone, under
    the Triton version in force, as `lower` is: `checker.versions.active`). A computation that raises is not
    kept: it raises again, the same error."""
    if sizes is None:
        return compute()
    key += (active_version(),)
    got = sizes.get(key)
    if got is None:
        got = sizes[key] = compute()
    return got


def _convert(op: Operation, hw: Hardware | None, sizes: dict[tuple, tuple[int, str]] | None = None) \
        -> tuple[int, str]:
    ts = layout_tensors(op.types)
    if len(ts) != 2:
        return 0, ""
    src_t, dst_t = ts
    key = ("convert", src_t.encoding, tuple(src_t.shape), dst_t.encoding, tuple(dst_t.shape), src_t.element_bits, hw)
    return _sized(sizes, key, lambda: _convert_bytes(src_t, dst_t, hw))


def _convert_bytes(src_t: TypeRef, dst_t: TypeRef, hw: Hardware | None) -> tuple[int, str]:
    from ..properties.conversion_cost import scratch_elements  # lazy: only kernels converting through shared memory
    src, dst = _layout(src_t), _layout(dst_t)
    view = triton_view(src, dst, src_t.encoding == dst_t.encoding)
    if view.get("triton_lowering") not in ("shared_memory", "distributed_shared_memory"):
        return 0, ""
    bits = _scratch_bits(src_t)
    return scratch_elements(src, dst, bits, hw) * bits // 8, "convert_layout through shared memory"


def warp_selected_conversions(module: Module) -> list[Operation]:
    """The module's convert_layouts that the release in force keeps in the warps with shuffles whose source lane
    depends on the warp or CTA (`properties.triton_conversion.warp_conversion`'s selection)."""
    from ..properties.triton_conversion import classify_in_warp, minimal_conversion  # lazy: kernels converting
    out = []
    for op in module.operations:
        ts = layout_tensors(op.types) if op.name == "ttg.convert_layout" else []
        if len(ts) != 2:
            continue
        try:
            src, dst = _layout(ts[0]), _layout(ts[1])
            cls, wc = classify_in_warp(src, dst, minimal_conversion(src, dst))
        except (CheckerError, ValueError):
            continue
        if cls == "warp_shuffle" and wc is not None and wc.warp_dependent:
            out.append(op)
    return out


def _axis(op: Operation) -> int:
    return op.axis or 0


def _reduce(op: Operation, sizes: dict[tuple, tuple[int, str]] | None = None,
            hw: Hardware | None = None) -> tuple[int, str]:
    """The largest cross-warp round of Triton's reduction (`properties.reduction.scratch_bytes`) on `hw`."""
    from ..properties.conversion_cost import reduction_target  # lazy: kernels with reductions
    ins = layout_tensors(op.operand_types)
    if not ins:
        return 0, ""
    axis = _axis(op)
    bits = [_scratch_bits(t) for t in ins]
    target = reduction_target(hw)
    key = ("reduce", ins[0].encoding, tuple(ins[0].shape), axis, tuple(bits), target)
    return _sized(sizes, key, lambda: _reduce_bytes(ins[0], axis, bits, target))


def _reduce_bytes(first: TypeRef, axis: int, bits: list[int], target=None) -> tuple[int, str]:
    from ..properties.reduction import rounds_and_scratch, warp_tile_scratch_bytes  # lazy: kernels with reductions
    if not follows("reduce_scratch_by_rounds"):
        size = warp_tile_scratch_bytes(_layout(first), axis, bits)
        return size, "cross-warp reduction, the axis's warps' tile" if size else ""
    rounds, size = rounds_and_scratch(_layout(first), axis, bits, target)
    return size, f"cross-warp reduction, {len(rounds)} round(s)" if size else ""


def reductions_older_rule_larger(module: Module, hw: Hardware | None = None) -> bool:
    """Whether some ``tt.reduce`` of `module` takes more scratch by the rule before Triton 3.8
    (`properties.reduction.warp_tile_scratch_bytes`) than it does now, its layout lowered as the version in force
    lowers it (the warp bases the older rule reads are the same in every version): where none does, the older
    releases allocate the module alike."""
    from ..properties.reduction import warp_tile_scratch_bytes  # lazy: only kernels with reductions
    for op in module.operations:
        if op.name == "tt.reduce":
            ins = layout_tensors(op.operand_types)
            if ins:
                bits = [_scratch_bits(t) for t in ins]
                if warp_tile_scratch_bytes(_layout(ins[0]), _axis(op), bits) > _reduce(op, None, hw)[0]:
                    return True
    return False


def _scan(op: Operation) -> tuple[int, str]:
    """Triton's ScanLoweringHelper over the input's layout with its broadcast registers removed (a linear
    encoding): per dim, the warps and lanes of its non-zero bases and the registers contiguous from the first
    (along the blocked order), the blocks counted over one CTA's part of the shape; no scratch when one warp
    holds the axis' unique data."""
    ins = layout_tensors(op.operand_types)
    if not ins or ins[0].encoding.kind != "blocked":
        return 0, ""
    axis = _axis(op)
    shape = list(ins[0].shape)
    L = _layout(ins[0])
    rank = len(shape)

    def per_dim(dim: str) -> list[int]:
        out = [1] * rank
        for b in (_nonzero(L.in_bases(dim)) if L.has_in_dim(dim) else ()):
            out[next(d for d, c in enumerate(b) if c)] *= 2
        return out
    wpc, tpw = per_dim("warp"), per_dim("lane")
    if wpc[axis] == 1:
        return 0, ""
    shape = [s // k for s, k in zip(shape, per_dim("block"))]     # one CTA's part (its CGA split)
    contig = [1] * rank
    regs = iter(_nonzero(L.in_bases("register")) if L.has_in_dim("register") else ())
    nxt = next(regs, None)
    for d in ins[0].encoding.order:
        while nxt is not None and list(nxt) == [contig[d] if k == d else 0 for k in range(rank)]:
            contig[d] *= 2
            nxt = next(regs, None)
    non_axis_lanes = math.prod(tpw) // tpw[axis]
    non_axis_elems = math.prod(contig) // contig[axis]
    axis_blocks = -(-shape[axis] // (contig[axis] * tpw[axis] * wpc[axis]))
    non_axis_blocks = 1
    for d in range(rank):
        if d != axis:
            non_axis_blocks *= -(-shape[d] // (contig[d] * tpw[d] * wpc[d]))
    elems = math.prod(wpc) * non_axis_lanes * non_axis_elems * axis_blocks * non_axis_blocks
    size = sum(-(-(t.element_bits or 32) // 8) for t in ins)
    return size * elems, f"scan across {wpc[axis]} warps"


def _gather(op: Operation) -> tuple[int, str]:
    from ..properties.reduction import gather_warp_local  # lazy: only kernels with gathers
    ts = layout_tensors(op.types)
    if len(ts) < 2:
        return 0, ""
    src, idx = ts[0], ts[1]
    if gather_warp_local(_layout(src), _layout(idx), _axis(op)):
        return 0, ""
    return math.prod(src.shape) * -(-(src.element_bits or 32) // 8), "gather source"


ATOMICS = ("tt.atomic_rmw", "tt.atomic_cas", "ttg.local_atomic_scatter_rmw", "tti.experimental_gsan_atomic_rmw",
           "tti.experimental_gsan_atomic_cas", "amdg.buffer_atomic_rmw", "amdg.buffer_atomic_cas")
SCRATCH_OPS = frozenset(("ttg.convert_layout", "tt.reduce", "tt.scan", "tt.histogram", "tt.gather",
                         "ttng.tensormap_create", "ttg.warp_specialize") + ATOMICS)
"""The operations `scratch` may give a buffer; it gives every other one none."""
_BUFFER_OWNERS = SCRATCH_OPS | {"ttg.local_alloc", "tt.func", "tt.call"}    # what `_function_budget` gives one


def _atomic_bits(op: Operation) -> int:
    """The bits of the element an atomic updates (Triton: the pointee of its first operand, a shared memdesc's
    element for local_atomic_scatter_rmw); a scalar atomic's ``(!tt.ptr<bf16>, bf16, i1) -> bf16`` signature
    gives no type reference, so its text is read."""
    first = op.operand_types[0] if op.operand_types else None
    if first is not None and first.kind == "memdesc":
        return first.element_bits or 32
    text = first.element_type if first is not None else next(iter(_signature_inputs(op.text)), "")
    m = re.search(r"!tt\.ptr<\s*([\w]+)", text or "")
    return (element_bits(m.group(1)) if m else None) or 32


def _atomic(op: Operation, used: bool) -> tuple[int, str]:
    """Allocation.cpp's getRepShapeForAtomic: an atomic whose result is used needs one element for a scalar
    result, and the whole result per CTA for a tensor result that broadcasts (a free variable in its layout);
    the element is the pointee's, at least 8 bits."""
    if not used:
        return 0, ""
    res = op.result_types[0] if op.result_types else None
    bits = _atomic_bits(op)
    if res is None or res.kind != "tensor":
        if op.name.startswith("amdg."):      # AMD's buffer atomics need scratch only for a broadcast tensor
            return 0, ""
        return max(8, bits) // 8, "atomic result broadcast"
    L = _layout(res)
    if any(not any(b) for d in L.in_dims for b in L.in_bases(d)):
        return math.prod(_per_cta(res.encoding, list(res.shape))) * max(8, res.element_bits or bits) // 8, \
            "atomic result broadcast"
    return 0, ""


def capture_bytes(t: str, hw: Hardware | None) -> int | None:
    """The bytes a warp_specialize capture of type `t` takes (Triton's getSharedMemorySize of the type; on AMD
    from Triton 3.8 a tensor descriptor's TDM dwords, AMDAllocationAnalysisScratchSizeFn: change
    ``amd_tdm_capture_dwords``); None when not known."""
    t = t.strip()
    if t.startswith("!tt.tensordesc"):
        if hw is None or hw.vendor != "amd" or not follows("amd_tdm_capture_dwords"):
            return 8
        dims = re.search(r"<\s*(?:tensor<\s*)?((?:\d+x)+)", t)
        if dims is None:
            return None
        return 4 * (20 if dims.group(1).count("x") > 2 else 12)
    if t.startswith("!tt.ptr"):
        return 8
    if t.startswith("!ttg.memdesc<"):
        if "tensor_memory" in t:
            return 8
        dims = re.match(r"!ttg\.memdesc<((?:\d+x)*)", t)
        return 8 + 4 * (dims.group(1).count("x") if dims else 0)
    if t == "index":
        return 8
    bits = element_bits(t)
    return None if bits is None else -(-bits // 8)


def _captures(op: Operation, hw: Hardware | None, uncertain: list[str] | None) -> tuple[int, str]:
    """Every capture of a warp_specialize packed one after the other (WarpSpecializeOp::getCaptureSize)."""
    types = _signature_inputs(op.text)
    if len(types) != len(op.operands):
        raise ValueError(f"its {len(op.operands)} captures have {len(types)} types")
    sizes = [capture_bytes(t, hw) for t in types]
    if None in sizes:
        raise ValueError(f"the size of capture type {types[sizes.index(None)]} is not known")
    return sum(sizes), f"{len(types)} captures"


def _signature_inputs(text: str) -> list[str]:
    """The input types of an operation's trailing ``: (T, ...) -> R`` signature."""
    matches = list(re.finditer(r":\s*\(", text))
    if not matches:
        return []
    m = matches[-1]
    return split_top(text[m.end():_group_end(text, m.end() - 1) - 1])


# ------------------------------------------------------------------ placement (Allocation.cpp)


def _aligned(offset: int, align: int) -> int:
    return -(-offset // align) * align


def _intersects(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def place(buffers: list[Buffer], concurrent=None, partition_bytes: int = 0) -> int:
    """Offsets as Triton's computeOffsets sets them; returns the total (largest offset + size).
    `concurrent(x, y)`: whether two buffers' owners run at once (warp_specialize regions);
    `partition_bytes`: the LDS partition that partition neighbours must not share (0: none)."""
    if not buffers:
        return 0
    order = sorted(buffers, key=lambda b: -b.size)          # stable: the largest first
    rng = {id(b): (b.start, b.end) for b in order}
    triples: list[tuple[int, tuple[int, int]]] = [(0, FOREVER)]
    todo = list(order)
    while todo and triples:
        triples.sort(key=lambda t: t[0])
        offset, r = triples.pop(0)
        pick = None
        for b in todo:
            x = rng[id(b)]
            if _intersects(x, r) and all(not _intersects(v, x) for _, v in triples):
                pick = b
                break
        if pick is None:
            continue
        x = rng[id(pick)]
        pick.offset = _aligned(offset, pick.alignment)
        triples.append((pick.offset + pick.size, (max(r[0], x[0]), min(r[1], x[1]))))
        if r[0] < x[0]:
            triples.append((offset, (r[0], x[1])))
        if x[1] < r[1]:
            triples.append((offset, (x[0], r[1])))
        todo.remove(pick)
    for b in todo:                  # never placed by the first fit: the colouring places them
        b.offset = 0
    while True:
        graph = _interference(order, rng, concurrent, partition_bytes)
        total = _colour(order, graph, partition_bytes)
        if not _interference(order, rng, concurrent, partition_bytes):
            return total


def _interference(order: list[Buffer], rng, concurrent=None, partition_bytes: int = 0) -> dict[int, list[Buffer]]:
    graph: dict[int, list[Buffer]] = {}
    for x in order:
        near = graph.setdefault(id(x), [])
        start, end, live = x.offset, x.offset + x.size, rng[id(x)]
        for y in order:
            if x is y or not (start < y.offset + y.size and y.offset < end):    # (`_intersects` of their bytes)
                continue
            if _intersects(live, rng[id(y)]) or (concurrent is not None and concurrent(x, y)):
                near.append(y)
        if partition_bytes:
            near += [y for y in x.neighbours if y not in near
                     and x.offset // partition_bytes == y.offset // partition_bytes]
        if not near:
            del graph[id(x)]
    return graph


def _colour(order: list[Buffer], graph, partition_bytes: int = 0) -> int:
    colours = {id(b): (0 if b is order[0] else -1) for b in order}
    for x in order:
        taken = {colours[id(y)] for y in graph.get(id(x), ()) if colours[id(y)] >= 0}
        c = 0
        while c in taken:
            c += 1
        colours[id(x)] = c
    total = 0
    for x in order:
        new = 0
        for y in graph.get(id(x), ()):
            if partition_bytes and y in x.neighbours:
                new = max(new, (y.offset // partition_bytes + 1) * partition_bytes)
            else:
                new = max(new, y.offset + y.size)
        if colours[id(x)] != 0:
            x.offset = _aligned(new, x.alignment)
        total = max(total, x.offset + x.size)
    return total
