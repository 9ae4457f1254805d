"""The tensor memory a Blackwell kernel needs, exactly as Triton's TensorMemoryAllocation pass gives it
(lib/Dialect/TritonNvidiaGPU/Transforms/TensorMemoryAllocation.cpp; the sizes of ``getTmemAllocSizes``).

Tensor memory is 128 lanes (rows) by 512 columns of 32 bits per SM. Triton places each ``ttng.tmem_alloc``
at a (row, column) of a grid of two row halves (64 rows each) by as many columns as needed, once shared memory
is allocated (on the same module: after ``scf-to-cf`` and the Gluon inliner, whose dead-code removal
`checker.ttgir.allocation.allocated_function` reproduces), and records the module's figure as
``ttg.tensor_memory_size`` (``metadata.tmem_size``). Past 512 columns the kernel cannot be loaded: Triton's
``CompiledKernel`` raises ``OutOfResources`` for it (the autotuner drops such a config; a direct launch fails).

- **Size** of an allocation: its memdesc's last two dims lowered with its encoding (``tensor_memory_encoding``
  or ``tensor_memory_scales_encoding``: in-dims ``row``, ``col``); rows = the ``row`` in-dim's size, halved to
  64 when its fifth basis (row 16) is zero (one 16-row block per warp: a 64-row allocation); columns = the
  ``col`` in-dim's size / (32 / element bits); a rank-3 memdesc (buffers) has that times its first dim (Triton 3.5
  and older releases differ: `allocation_size`).
- **Live range**: operations are numbered in post-order over the lowered control flow (as for shared memory,
  `checker.ttgir.liveness`); an allocation is live over the hull of the live ranges (MLIR's
  ``resolveLiveness``) of its result and of every ``ttg.memdesc_index`` / ``ttg.memdesc_reinterpret`` taken
  from it, transitively (no other view, block argument or select is followed).
- **Placement**, allocation by allocation in program order (linear scan, first fit): the chunks whose live
  range ended at or before this one's start are freed; inside a ``ttg.warp_specialize``, the chunks of the
  allocations already placed in the same one but another region (after ``scf-to-cf``: the innermost region
  not of an ``scf`` op) count as taken too, those regions running at once; the first column that is a multiple
  of 4, then the first row half, where the chunk is free is taken. A 64-row operand A of a
  ``ttng.tc_gen5_mma`` (``_scaled``) in tensor memory must share rows with its accumulator: the allocations
  each one comes from (`sources`) are joined, and all of them take the row half the first one placed got.
- **Total**: the largest column end over every allocation (functions: each from an empty grid, the earlier
  ones' ranges having ended); Triton's figure rounds it up to 32, 64, 128, 256 or 512 (a figure past 512 is
  kept as it is).

What the model does not reproduce (an allocation whose encoding does not lower, an operand of an MMA traced
to an operation it does not know) is listed in ``TmemBudget.uncertain``: the figure is then an estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..encodings import lower
from ..encodings.cga import shape_per_cta
from ..errors import CheckerError
from ..syntax.ttgir import Module, TypeRef, element_bits
from ..versions import follows
from .allocation import (
    Analysis,
    Function,
    Value,
    allocated_functions,
    branch_inflows,
    enclosing_warp_specialize,
    lowered_region,
)

CAPACITY_COLUMNS = 512                      # tensor memory per SM (Triton's max_tmem_size)
ROWS = 128
ROW_HALF = 64                               # rows of one half: allocations take 1 or 2 halves
COLUMN_ALIGNMENT = 4
ROUNDED = (0, 32, 64, 128, 256, 512)        # what tcgen05.alloc can ask for
LIVE_VIEWS = ("ttg.memdesc_index", "ttg.memdesc_reinterpret")
MMA_V5 = ("ttng.tc_gen5_mma", "ttng.tc_gen5_mma_scaled")
_SOURCE_VIEWS = ("ttng.tmem_subslice",)     # besides every ttg.memdesc_* view: what `sources` follows back


@dataclass
class TmemChunk:
    """One allocation, placed: its line and op index (in the inlined module), size, place and live range."""

    line: int
    op: int
    rows: int
    columns: int
    row: int = 0                            # first row (0 or 64)
    column: int = 0
    start: int = 0                          # live range over post-order ids, [start, end)
    end: int = 0
    what: str = ""

    def to_tuple(self) -> tuple:
        return (self.line, self.rows, self.columns, self.row, self.column, self.what)


@dataclass
class TmemBudget:
    columns: int                            # the largest column end: Triton's figure before rounding
    chunks: list[TmemChunk] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        """``metadata.tmem_size``: the columns rounded up to what tcgen05.alloc asks for, unless past 512."""
        return next((r for r in ROUNDED if self.columns <= r), self.columns)


def allocation_size(t: TypeRef) -> tuple[int, int]:
    """(rows, columns) of a tensor-memory memdesc (module docstring, ``getTmemAllocSizes``); CheckerError when
    its encoding does not lower at its shape. Before Triton 3.8 the CGA's bases are col bases of the layout
    (change ``tmem_block_in_dim``), and Triton divides them out again (CTASplitM x CTASplitN); before 3.6 the
    size is computed from bytes instead (change ``tmem_sizes_from_layout``, `_size_from_bytes`)."""
    shape = list(t.alloc_shape or t.shape)
    bits = element_bits(t.element_type)
    enc = t.encoding
    if enc is None or bits is None or len(shape) < 2 or not enc.kind.startswith("tensor_memory"):
        raise CheckerError(f"a tensor-memory buffer {t.element_type} {shape} without a layout to size it by")
    buffers = math.prod(shape[:-2])
    per_cta = shape_per_cta(enc.cga_layout, shape[-2:])
    if not follows("tmem_sizes_from_layout"):
        return _size_from_bytes(enc, per_cta, bits, buffers)
    L = lower(enc, shape[-2:])
    rows = L.in_dim_size("row") if L.has_in_dim("row") else 1
    row_bases = L.in_bases("row") if L.has_in_dim("row") else ()
    if len(row_bases) > 4 and not any(row_bases[4]):
        rows //= 2
    columns = (L.in_dim_size("col") if L.has_in_dim("col") else 1) // max(1, 32 // bits)
    if not follows("tmem_block_in_dim"):
        columns //= math.prod(shape[-2:]) // math.prod(per_cta)
    return rows, columns * buffers


def _size_from_bytes(enc, per_cta: list[int], bits: int, buffers: int) -> tuple[int, int]:
    """Triton 3.5's getTmemAllocSizes: a scales buffer (8-bit elements, packed and repeated 4 times) takes
    ceil(M / 32) x ceil(K / 4) columns of all 128 rows; another its bytes per CTA (elements x element bits x
    colStride / 8, buffers included) over 128 rows x 4 bytes, or over 64 rows when blockM is 64 and the tensor is
    one block (M <= blockM and N <= blockN)."""
    m, n = per_cta
    if enc.kind == "tensor_memory_scales_encoding":
        return ROWS, -(-m // 32) * -(-n // 4)
    size = m * n * buffers * bits * enc.col_stride // 8
    rows = ROW_HALF if enc.block_m == 64 and m <= enc.block_m and n <= enc.block_n else ROWS
    return rows, -(-size // (rows * 4))


def tmem_budget(module: Module, analysis: Analysis | None = None) -> TmemBudget:
    """The kernel's tensor memory as Triton allocates it (module docstring). `analysis`: the module's, when the
    caller shares one (`checker.ttgir.allocation.Analysis`)."""
    analysis = analysis if analysis is not None else Analysis(module)
    out = TmemBudget(0)
    for fn in allocated_functions(module, analysis).values():
        _place_function(fn, out)
    return out


def _place_function(fn: Function, out: TmemBudget) -> None:
    ops = fn.ops
    allocs = [i for i in fn.members if ops[i].name == "ttng.tmem_alloc" and ops[i].results and ops[i].result_types]
    if not allocs:
        return
    if fn.flow.unread:
        out.uncertain.append(f"{fn.flow.unread}: the function's blocks cannot be read (already unstructured); the "
                             f"model follows it as one block")
    users: dict[Value, list[int]] = {}
    for j in fn.members:
        for v in fn.operand_values.get(j, ()):
            if v is not None:
                users.setdefault(v, []).append(j)
    rows_of = _row_groups(fn, allocs, out.uncertain)
    group_row: dict[int, int] = {}
    live: list[TmemChunk] = []              # placed chunks whose range has not ended yet
    placed: dict[int, TmemChunk] = {}
    for i in allocs:
        op = ops[i]
        try:
            rows, columns = allocation_size(op.result_types[0])
        except CheckerError as e:
            out.uncertain.append(f"line {op.line}: {e.message}: not counted")
            continue
        start, end = _live_range(fn, i, users)
        live = [c for c in live if c.end > start]
        ws, region = enclosing_warp_specialize(ops, i), lowered_region(ops, i)
        taken = live + [placed[j] for j in placed if ws is not None and enclosing_warp_specialize(ops, j) == ws
                        and lowered_region(ops, j) != region]
        group = rows_of.get(i)
        row, column = _first_fit(taken, rows, columns, group_row.get(group) if group is not None else None)
        t = op.result_types[0]
        chunk = TmemChunk(op.line, i, rows, columns, row, column, start, end,
                          f"{'x'.join(map(str, t.alloc_shape or t.shape))}x{t.element_type}")
        if group is not None:
            group_row[group] = row
        placed[i] = chunk
        live.append(chunk)
        out.chunks.append(chunk)
        out.columns = max(out.columns, column + columns)


def _first_fit(taken: list[TmemChunk], rows: int, columns: int, row: int | None) -> tuple[int, int]:
    """The first column (a multiple of COLUMN_ALIGNMENT), then the first row half (`row` only, when given), where
    a chunk of `rows` x `columns` overlaps none of `taken`: Triton's bitmap scan, column by aligned column."""
    halves = rows // ROW_HALF
    column = 0
    while True:
        for first in range(0, 2 - halves + 1):
            if row is not None and first * ROW_HALF != row:
                continue
            lo, hi = first * ROW_HALF, (first + halves) * ROW_HALF
            if all(c.row + c.rows <= lo or hi <= c.row or c.column + c.columns <= column
                   or column + columns <= c.column for c in taken):
                return lo, column
        column += COLUMN_ALIGNMENT


def _live_range(fn: Function, i: int, users: dict[Value, list[int]]) -> tuple[int, int]:
    """The hull of the live ranges of allocation i's result and of the memdesc_index / memdesc_reinterpret
    views taken from it, transitively (an unused allocation: its own operation)."""
    lo, hi = fn.ids[i], fn.ids[i] + 1
    todo, seen = list(fn.values(i)[:1]), set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        r = fn.live_range(v)
        if r is not None:
            lo, hi = min(lo, r[0]), max(hi, r[1])
        for j in users.get(v, ()):
            if fn.ops[j].name in LIVE_VIEWS:
                todo += fn.values(j)[:1]
    return lo, hi


def _row_groups(fn: Function, allocs: list[int], uncertain: list[str]) -> dict[int, int]:
    """Allocation -> its group (a representative), for the allocations that must share a row half: those an
    MMA's 64-row A operand in tensor memory comes from, joined with those its accumulator comes from."""
    parent: dict[int, int] = {}

    def find(a: int) -> int:
        while parent.setdefault(a, a) != a:
            a = parent[a]
        return a

    for j in fn.members:
        op = fn.ops[j]
        if op.name not in MMA_V5 or len(op.operand_types) < 3 or len(fn.operand_values.get(j, ())) < 3:
            continue
        a = op.operand_types[0]
        if a.kind != "memdesc" or not (a.memory_space or "").endswith("tensor_memory"):
            continue
        try:
            rows, _ = allocation_size(a)
        except CheckerError:
            continue
        if rows != ROW_HALF:
            continue
        lhs = sources(fn, fn.operand_values[j][0], uncertain, op.line)
        acc = sources(fn, fn.operand_values[j][2], uncertain, op.line)
        for x in lhs:
            for y in acc:
                parent[find(x)] = find(y)
    return {a: find(a) for a in allocs if a in parent}


def sources(fn: Function, v: Value | None, uncertain: list[str], line: int) -> set[int]:
    """The tmem_alloc operations a tensor-memory value may come from (Triton's ``getAlloc``): through views
    (``ttg.memdesc_*``, ``ttng.tmem_subslice``), ``arith.select``, the results and block arguments of
    ``scf.if`` / ``scf.for`` / ``scf.while`` (what flows into them), a warp_specialize partition's
    arguments (its captures) and the arguments of a block branches pass values to (``cf.br``,
    ``cf.cond_br``)."""
    ops = fn.ops
    passed_to = branch_inflows(fn)
    out: set[int] = set()
    todo, seen = [v], set()
    while todo:
        v = todo.pop()
        if v is None or v in seen:
            continue
        seen.add(v)
        if v in passed_to:                              # a block argument of unstructured control flow
            todo += passed_to[v]
            continue
        if v[0] == "argument":
            _, k, region, name = v
            holder = ops[k]
            args = [a for a in fn.argument_values(k) if a[2] == region]
            index = next((n for n, a in enumerate(args) if a[3] == name), None)
            src = fn.operand_values.get(k, [])
            if holder.name == "ttg.warp_specialize" and index is not None and index < len(src):
                todo.append(src[index])
            elif holder.name == "scf.for" and index is not None and index >= 1:
                todo += [_yielded(fn, k, 0, index - 1)] + src[3 + index - 1:3 + index]
            elif holder.name == "scf.while" and index is not None:
                if region == 1:
                    todo.append(_yielded(fn, k, 0, index + 1))
                else:
                    todo += [_yielded(fn, k, 1, index)] + src[index:index + 1]
            else:
                uncertain.append(f"line {line}: an MMA operand traced to an argument of {holder.name}: its row "
                                 f"half is not constrained")
            continue
        _, k, name = v
        op = ops[k]
        index = op.results.index(name) if name in op.results else 0
        src = fn.operand_values.get(k, [])
        if op.name == "ttng.tmem_alloc":
            out.add(k)
        elif op.name.startswith("ttg.memdesc_") or op.name in _SOURCE_VIEWS:
            todo += src[:1]
        elif op.name == "arith.select":
            todo += src[1:3]
        elif op.name == "scf.if":
            todo += [_yielded(fn, k, 0, index), _yielded(fn, k, 1, index)]
        elif op.name == "scf.for":
            todo += [_yielded(fn, k, 0, index)] + src[3 + index:4 + index]
        elif op.name == "scf.while":
            todo.append(_yielded(fn, k, 0, index + 1))
        else:
            uncertain.append(f"line {line}: an MMA operand traced to {op.name}: its row half is not constrained")
    return out


def _yielded(fn: Function, k: int, region: int, index: int) -> Value | None:
    """The index-th operand of the terminator (scf.yield / scf.condition) of op k's region."""
    end = next((j for j in reversed(fn.members) if fn.ops[j].parent == k and fn.ops[j].region == region
                and fn.ops[j].name in ("scf.yield", "scf.condition")), None)
    if end is None:
        return None
    src = fn.operand_values.get(end, [])
    return src[index] if 0 <= index < len(src) else None
