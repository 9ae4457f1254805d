"""The shared memory a kernel needs, as Triton's allocation analysis sizes it (lib/Analysis/Allocation.cpp).

`budget(module)` returns every buffer of one function with its size, alignment and live range, and
the total Triton's allocator reaches when it places them:

- explicit buffers: every ``ttg.local_alloc`` in shared memory, ``prod(allocation shape per CTA) x
  element bytes`` (a padded layout: its padded size; a partitioned one: its partitions, each a buffer
  of ``groups x piece``), aligned as its encoding requires (``getAlignmentOrDefault``: the
  ``alignment`` attribute, else the encoding's, else 16). Live from the allocation to the last use of
  it or of any view of it (``memdesc_*``, loop-carried ``scf.for`` / ``scf.if`` / ``scf.while``
  values), a use inside a region that does not hold the allocation keeping it live through that whole
  region (MLIR's liveness, over operation ids numbered in post-order as Triton numbers them);
- scratch buffers (128-byte aligned, live at their operation only), Triton's
  ``defaultAllocationAnalysisScratchSizeFn``:
  ``ttg.convert_layout`` that Triton lowers through shared memory: the elements of the swizzled tile
  ``optimalSwizzlingLdSt`` builds, ``prod(shape) / (reps x CTAs)``, where reps are the register bases
  both layouts share beyond the vectorisation (``128 / bitwidth`` elements) (`_cvt_elems`);
  ``tt.reduce``: when warps hold different elements along the axis, the inter-warp exchange
  (`_reduce_bytes`); ``tt.scan``: ``sum(element bytes) x warps x non-axis lanes x non-axis elements
  per thread x blocks`` when warps split the axis (blocked layouts); ``tt.histogram``:
  ``max(bins, lanes) x bytes``; ``tt.gather`` not local to a warp: the source tensor;
  ``tt.atomic_rmw`` / ``tt.atomic_cas`` with a used scalar result: one element (a tensor result:
  its elements, when the layout broadcasts); ``ttng.tensormap_create``: 128; ``ttg.warp_specialize``:
  its captures (8 bytes each, aligned 8);
- the allocator: Triton's ``calculateStarts`` (first fit over a triple map of offsets and live ranges,
  largest buffers first), its interference graph and colouring, repeated until nothing interferes
  (`place`). The total is the largest ``offset + size``.

The estimate is compared with the ``shared`` Triton records in each kernel's metadata in
docs/ttgir.md ("Whole-kernel shared memory"), with every disagreement explained there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from .syntax.ttgir import Module, Operation, TypeRef

SCRATCH_ALIGN = 128
VIEWS = ("ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape",
         "ttg.memdesc_reinterpret", "ttg.memdesc_subview", "ttng.memdesc_subslice", "amdg.memdesc_reinterpret")
REGION_OPS = ("scf.for", "scf.if", "scf.while", "scf.yield", "scf.condition", "ttg.warp_specialize",
              "ttg.warp_yield", "ttg.warp_specialize.partitions", "ttg.warp_return")


@dataclass
class Buffer:
    line: int
    op: str
    kind: str                 # "explicit" | "scratch"
    size: int
    alignment: int
    start: int                # live range over post-order operation ids, [start, end)
    end: int
    offset: int = 0
    what: str = ""

    def to_tuple(self) -> tuple:
        return (self.line, self.op, self.kind, self.size, self.alignment, self.offset, self.what)


@dataclass
class Budget:
    total: int
    buffers: list[Buffer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _bytes(bits: int | None) -> int:
    return max(1, -(-(bits or 8) // 8))


def _prod(xs: Sequence[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def post_order(ops: Sequence[Operation]) -> list[int]:
    """Each operation's id when numbered in post-order (children before the op holding them)."""
    ids = [0] * len(ops)
    stack: list[int] = []
    n = 0
    for i, op in enumerate(ops):
        while stack and stack[-1] != op.parent:
            ids[stack.pop()] = n
            n += 1
        stack.append(i)
    while stack:
        ids[stack.pop()] = n
        n += 1
    return ids


def _ancestors(ops: Sequence[Operation], i: int) -> list[int]:
    out = []
    p = ops[i].parent
    while p is not None:
        out.append(p)
        p = ops[p].parent
    return out


def _shared_memdesc(t: TypeRef) -> bool:
    return t.kind == "memdesc" and not (t.memory_space or "").endswith("tensor_memory") and \
        (t.encoding is None or t.encoding.is_shared)


def _alloc_bytes(t: TypeRef) -> tuple[list[int], int]:
    """(sizes of the buffers, alignment) of one shared allocation."""
    from .encodings import lower
    from .padded import PaddedLayout
    enc = t.encoding
    shape = list(t.alloc_shape or t.shape)
    per_cta = _per_cta(enc, shape)
    bits = t.element_bits or 8
    align = 16
    if enc is not None and hasattr(enc, "alignment"):
        a = enc.alignment
        align = int(a() if callable(a) else a) or 16
    if enc is not None and enc.kind == "padded_shared":       # getPaddedSize over the whole allocation
        n = _prod(per_cta)
        pad = sum(((n - 1) >> (i.bit_length() - 1)) << (p.bit_length() - 1)
                  for i, p in zip(enc.intervals, enc.paddings)) if n else 0
        return [(n + pad) * bits // 8], align
    if enc is not None and enc.kind == "partitioned_shared":
        total = _prod(per_cta) * bits // 8
        pieces = enc.num_partitions * enc.num_groups
        return [total // pieces * enc.num_groups] * enc.num_partitions, align
    return [_prod(per_cta) * bits // 8], align


def _per_cta(enc, shape: list[int]) -> list[int]:
    """The allocation shape of one CTA: each trailing dim divided by the encoding's CTA split."""
    if enc is None:
        return shape
    try:
        from .encodings import lower
        from .padded import linear_part
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


def budget(module: Module, hardware=None) -> Budget:
    """Every shared buffer of the module's functions, placed as Triton places them (module docstring)."""
    ops = module.operations
    ids = post_order(ops)
    index_of_value: dict[str, int] = {}
    for i, op in enumerate(ops):
        for r in op.results:
            index_of_value[r] = i
        for a in op.arguments:
            index_of_value.setdefault(a, i)
    users: dict[str, list[int]] = {}
    for i, op in enumerate(ops):
        for v in op.operands:
            users.setdefault(v, []).append(i)
    subtree_first: dict[int, int] = {}
    for i in range(len(ops)):
        for a in _ancestors(ops, i):
            subtree_first[a] = min(subtree_first.get(a, ids[i]), ids[i])
    out = Budget(0)

    def live_range(values: set[str], start_op: int) -> tuple[int, int]:
        start = ids[start_op]
        end = start + 1
        holders = set(_ancestors(ops, start_op))
        for v in values:
            d = index_of_value.get(v)
            if d is not None and v in ops[d].arguments:      # a region argument: live from the region's start
                start = min(start, subtree_first.get(d, ids[d]))
            for u in users.get(v, ()):
                end = max(end, ids[u] + 1)
                for a in _ancestors(ops, u):
                    if a not in holders and a != start_op:
                        end = max(end, ids[a] + 1)
                        start = min(start, subtree_first.get(a, ids[a]))
        return start, end

    def aliases(root: str) -> set[str]:
        seen, todo = {root}, [root]
        while todo:
            v = todo.pop()
            for u in users.get(v, ()):
                op = ops[u]
                if op.name in VIEWS or op.name.startswith("ttg.memdesc"):
                    new = [r for r, t in zip(op.results, op.result_types) if _shared_memdesc(t)]
                elif op.name in ("scf.yield", "scf.condition") and op.parent is not None:
                    holder = ops[op.parent]          # the k-th yielded value: the holder's k-th result / iter_arg
                    ks = [k for k, x in enumerate(op.operands) if x == v]
                    first = 1 if holder.name == "scf.for" else 0
                    new = [holder.results[k] for k in ks if k < len(holder.results)]
                    new += [holder.arguments[first + k] for k in ks if first + k < len(holder.arguments)]
                elif op.name == "scf.for":           # init arg j: result j and iter_arg j
                    ks = [j - 3 for j, x in enumerate(op.operands) if x == v and j >= 3]
                    new = [op.results[k] for k in ks if k < len(op.results)]
                    new += [op.arguments[1 + k] for k in ks if 1 + k < len(op.arguments)]
                elif op.name in REGION_OPS:
                    new = [a for a, t in zip(op.arguments, op.argument_types) if _shared_memdesc(t)]
                    new += [r for r, t in zip(op.results, op.result_types) if _shared_memdesc(t)]
                else:
                    new = []
                    for r in new:
                        if r not in seen:
                            seen.add(r)
                            todo.append(r)
        return seen

    for i, op in enumerate(ops):
        if op.name == "ttg.local_alloc" and op.result_types and _shared_memdesc(op.result_types[0]) \
                and op.results:
            t = op.result_types[0]
            sizes, align = _alloc_bytes(t)
            if isinstance(op.attributes.get("alignment"), int):
                align = op.attributes["alignment"]
            start, end = live_range(aliases(op.results[0]), i)
            for size in sizes:
                out.buffers.append(Buffer(op.line, op.name, "explicit", size, align, start, end,
                                          what=f"{'x'.join(map(str, t.alloc_shape or t.shape))}x{t.element_type}"))
            continue
        size, what, align = scratch(op, module, bool(users.get(op.results[0])) if op.results else False)
        if size:
            out.buffers.append(Buffer(op.line, op.name, "scratch", size, align, ids[i], ids[i] + 1, what=what))
    out.total = place(out.buffers)
    return out


# ------------------------------------------------------------------ scratch sizes


def scratch(op: Operation, module: Module, result_used: bool) -> tuple[int, str, int]:
    """(bytes, why, alignment) of an operation's scratch buffer; 0 when it needs none."""
    from .errors import CheckerError
    try:
        if op.name == "ttg.convert_layout":
            return _convert(op, module) + (SCRATCH_ALIGN,)
        if op.name == "tt.reduce":
            return _reduce(op) + (SCRATCH_ALIGN,)
        if op.name == "tt.scan":
            return _scan(op) + (SCRATCH_ALIGN,)
        if op.name == "tt.histogram":
            dst = _tensors(op)[-1]
            n = max(_prod(dst.shape), module.threads_per_warp or 32)
            return n * (dst.element_bits or 32) // 8, "histogram bins", SCRATCH_ALIGN
        if op.name == "tt.gather":
            return _gather(op) + (SCRATCH_ALIGN,)
        if op.name in ("tt.atomic_rmw", "tt.atomic_cas"):
            return _atomic(op, result_used) + (SCRATCH_ALIGN,)
        if op.name == "ttng.tensormap_create":
            return 128, "TMA descriptor", SCRATCH_ALIGN
        if op.name == "ttg.warp_specialize":
            n = len(op.operands)
            return 8 * n, f"{n} captures", 8
    except (CheckerError, ValueError, KeyError, IndexError, AttributeError, TypeError):
        return 0, "", SCRATCH_ALIGN
    return 0, "", SCRATCH_ALIGN


def _tensors(op: Operation) -> list[TypeRef]:
    return [t for t in op.types if t.kind == "tensor" and t.encoding is not None]


def _layout(t: TypeRef):
    from .encodings import lower
    return lower(t.encoding, list(t.shape))


def _nonzero(bases) -> list:
    return [b for b in bases if any(b)]


def _flat(L, dim: str) -> list[int]:
    """The in-dim's nonzero bases as flat element indices (out dims flattened, dim0 slowest as Triton's
    flattenOuts does with the last out dim fastest)."""
    if not L.has_in_dim(dim):
        return []
    sizes = [s for _, s in L.out_dim_sizes]
    out = []
    for b in L.in_bases(dim):
        flat = 0
        for c, s in zip(b, sizes):
            flat = flat * s + c
        if flat:
            out.append(flat)
    return out


def _cta_split(L) -> int:
    return 1 << len(_nonzero(L.in_bases("block"))) if L.has_in_dim("block") else 1


def _cvt_elems(src, dst, bits: int) -> int:
    """Elements of the swizzled tile Triton's optimalSwizzlingLdSt builds for a src -> dst conversion:
    the whole tensor, divided by the CTAs and by the repetitions (register bases of both layouts beyond
    the vector of up to 128 bits)."""
    common = [b for b in _flat(src, "register") if b in set(_flat(dst, "register"))]
    vec = max(0, (128 // max(bits, 1)).bit_length() - 1)
    reps = max(0, len(dict.fromkeys(common)) - vec)
    return src.total_out_size // ((1 << reps) * _cta_split(src))


def _convert(op: Operation, module: Module) -> tuple[int, str]:
    from .properties.conversion import triton_view
    ts = _tensors(op)
    if len(ts) != 2:
        return 0, ""
    src_t, dst_t = ts
    src, dst = _layout(src_t), _layout(dst_t)
    view = triton_view(src, dst, src_t.encoding == dst_t.encoding)
    if view.get("triton_lowering") not in ("shared_memory", "distributed_shared_memory"):
        return 0, ""
    bits = src_t.element_bits or 32
    bits = max(bits, 8)
    return _cvt_elems(src, dst, bits) * bits // 8, "convert_layout through shared memory"


def _axis(op: Operation) -> int:
    a = op.attributes.get("axis")
    if isinstance(a, int):
        return a
    import re
    m = re.search(r"axis\s*=\s*(\d+)", op.text)
    return int(m.group(1)) if m else 0


def _reduce(op: Operation) -> tuple[int, str]:
    """Inter-warp reduction: when warps hold different elements along the axis, each round of Triton's
    ReduceOpHelper moves the partial results (one per warp along the axis, for every element off the
    axis) through a swizzled tile."""
    ins = [t for t in op.operand_types if t.kind == "tensor" and t.encoding is not None]
    if not ins:
        return 0, ""
    axis = _axis(op)
    L = _layout(ins[0])
    warps_axis = 1 << sum(1 for b in _nonzero(L.in_bases("warp")) if b[axis]) if L.has_in_dim("warp") else 1
    if warps_axis == 1:
        return 0, ""
    shape = list(ins[0].shape)
    off_axis = _prod(shape) // shape[axis]
    regs_off = [b for b in _nonzero(L.in_bases("register")) if not b[axis]]
    total = 0
    for t in ins:
        bits = max(t.element_bits or 32, 8)
        vec = max(0, (128 // bits).bit_length() - 1)
        reps = max(0, len(regs_off) - vec)
        total += off_axis * warps_axis // ((1 << reps) * _cta_split(L)) * bits // 8
    return total, f"inter-warp reduction over {warps_axis} warps"


def _scan(op: Operation) -> tuple[int, str]:
    ins = [t for t in op.operand_types if t.kind == "tensor" and t.encoding is not None]
    if not ins or ins[0].encoding.kind != "blocked":
        return 0, ""
    enc = ins[0].encoding
    axis = _axis(op)
    shape = list(ins[0].shape)
    spt, tpw, wpc = list(enc.size_per_thread), list(enc.threads_per_warp), list(enc.warps_per_cta)
    if wpc[axis] == 1:
        return 0, ""
    contig = spt
    non_axis_lanes = _prod(tpw) // tpw[axis]
    non_axis_elems = _prod(contig) // contig[axis]
    axis_blocks = -(-shape[axis] // (contig[axis] * tpw[axis] * wpc[axis]))
    non_axis_blocks = 1
    for d in range(len(shape)):
        if d != axis:
            non_axis_blocks *= -(-shape[d] // (contig[d] * tpw[d] * wpc[d]))
    elems = _prod(wpc) * non_axis_lanes * non_axis_elems * axis_blocks * non_axis_blocks
    size = sum(-(-(t.element_bits or 32) // 8) for t in ins)
    return size * elems, f"scan across {wpc[axis]} warps"


def _gather(op: Operation) -> tuple[int, str]:
    ts = _tensors(op)
    if len(ts) < 2:
        return 0, ""
    src, idx = ts[0], ts[1]
    axis = _axis(op)
    Ls, Li = _layout(src), _layout(idx)
    local = all(not b[axis] for b in _nonzero(Ls.in_bases("warp"))) if Ls.has_in_dim("warp") else True
    local = local and (all(not b[axis] for b in _nonzero(Li.in_bases("warp"))) if Li.has_in_dim("warp") else True)
    if local:
        return 0, ""
    return _prod(src.shape) * -(-(src.element_bits or 32) // 8), "gather source"


def _atomic(op: Operation, used: bool) -> tuple[int, str]:
    if not used:
        return 0, ""
    res = op.result_types[0] if op.result_types else None
    ptr = op.operand_types[0] if op.operand_types else None
    bits = 32
    if ptr is not None:
        import re
        m = re.search(r"!tt\.ptr<[a-z]*(\d+)", ptr.element_type or "")
        if m:
            bits = int(m.group(1))
    if res is None or res.kind != "tensor":
        return max(8, bits) // 8, "atomic result broadcast"
    L = _layout(res)
    if any(not any(b) for d in L.in_dims for b in L.in_bases(d)):
        return _prod(res.shape) * max(8, bits) // 8, "atomic result broadcast"
    return 0, ""


# ------------------------------------------------------------------ placement (Allocation.cpp)


def _aligned(offset: int, align: int) -> int:
    return -(-offset // align) * align


def _intersects(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def place(buffers: list[Buffer]) -> int:
    """Offsets as Triton's computeOffsets sets them; returns the total (largest offset + size)."""
    if not buffers:
        return 0
    order = sorted(buffers, key=lambda b: -b.size)          # stable: the largest first
    rng = {id(b): (b.start, b.end) for b in order}
    INF = (0, 1 << 62)
    triples: list[tuple[int, tuple[int, int]]] = [(0, INF)]
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
    total = 0
    while True:
        graph = _interference(order, rng)
        total = _colour(order, graph)
        if not _interference(order, rng):
            return total


def _interference(order: list[Buffer], rng) -> dict[int, list[Buffer]]:
    graph: dict[int, list[Buffer]] = {}
    for x in order:
        for y in order:
            if x is y:
                continue
            if _intersects(rng[id(x)], rng[id(y)]) and \
                    _intersects((x.offset, x.offset + x.size), (y.offset, y.offset + y.size)):
                graph.setdefault(id(x), []).append(y)
    return graph


def _colour(order: list[Buffer], graph) -> int:
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
            new = max(new, y.offset + y.size)
        if colours[id(x)] != 0:
            x.offset = _aligned(new, x.alignment)
        total = max(total, x.offset + x.size)
    return total
