"""The op rules of shared memory, conversions and dots: what `ttg.convert_layout`, the local stores and loads,
the memdesc views and `tt.dot` / `ttng.warp_group_dot` are checked for (the module docstring of
`checker.ttgir.kernel` lists them), registered with `checker.ttgir.builder.op_check`.
"""

from __future__ import annotations

import dataclasses
import math
import re

from ..encodings import lower
from ..errors import CheckerError
from ..hardware import Hardware
from ..layout import LinearLayout
from ..properties.bank_conflicts import changes_pairs
from ..properties.coalesced import copy_shared_vec, pointer_vector
from ..properties.conversion_cost import sunk_changes_pairs
from ..properties.padded_access import normalize_padded, padded_plan
from ..syntax.mlir_attr import print_attribute
from ..syntax.ttgir import Operation, TypeRef, layout_shape, layout_tensors
from .axis_info import access_of
from .builder import Builder, _compact, op_check
from .mma_feed import PHI_LIKELY, mma_feed, offset_phi
from .store_branch import sunk_registers

# A misaligned vector access faults on NVIDIA (cudaErrorMisalignedAddress, measured on an H100); AMD's LDS
# serves it in the unaligned access mode ROCm runs kernels in (LLVM selects ds_read/write_b128 at 8-byte
# alignment under unaligned-access-mode), split and slower: a defect there too, but not a crash. A direct-to-LDS
# copy on AMD gets the same severity: AMD documents no alignment rule for the LDS address of its write, and
# Triton's canLoadDirectToLDS, which refuses every layout the wave cannot write lane by lane (a lowering error,
# never a silent one), accepts a padded wave start off the vector's width (no AMD GPU was at hand to show more).
MISALIGNED = {"nvidia": "error", "amd": "warning"}
STORES = ("ttg.local_alloc", "ttg.local_store", "ttg.async_copy_global_to_local", "amdg.buffer_load_to_local")
ASYNC_ACCESS = {"ttg.async_copy_global_to_local": "cp.async", "amdg.buffer_load_to_local": "direct_to_lds"}
LOADS = ("ttg.local_load",)
DOTS = ("tt.dot", "ttng.warp_group_dot")

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
    if b.hw is not None and src.element_bits:   # what Triton's lowering costs
        sunk = sunk_registers(b, op)            # reads LLVM moves into a masked store's first branch (AMD)
        params = (("sunk_registers", sunk),) if sunk is not None and sunk_changes_pairs(
            lower(src.encoding, src.shape), lower(dst.encoding, dst.shape), src.element_bits, b.hw, sunk) else ()
        b.add(op, "conversion_cost", what, [("src", src.encoding), ("dst", dst.encoding)], dst.shape,
              severity="warning", dtype=src.element_type, bits=src.element_bits, params=params)


@op_check(*STORES, *LOADS)
def shared_access(b: Builder, op: Operation) -> None:
    types = op.types
    mems = [t for t in types if t.kind == "memdesc" and t.encoding is not None and t.encoding.is_shared]
    regs = layout_tensors(types)
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
    operands, dims = (("reg", reg.encoding), ("shared", mem.encoding)), tuple(shape)     # (shared by its checks)
    capped = copy_vector(b, op, mem, access) if op.name in ASYNC_ACCESS else None
    vector = (("vector", capped),) if capped is not None else ()
    b.add(op, "bank_conflict_free", what, operands, dims, severity="warning", dtype=dtype, bits=bits,
          params=(("direction", direction), ("access", access), ("model", "hardware")) + view + vector
          + (() if view or vector else _partner(b, op)))
    if b.hw.vendor == "amd" and not view and not vector and access == "auto":
        _constant_base(b, op.results[0] if op.name == "ttg.local_alloc" else
                       op.operands[1 if op.name in STORES else 0] if op.operands else None)
    if op.name in LOADS:      # how LLVM pairs its reads where the loops around it decide (checker.ttgir.mma_feed)
        _llvm_pairing(b, mma_feed(b, op), offset_phi(b, op))
    if op.name not in ASYNC_ACCESS:  # the ld/st.shared (or ld/stmatrix) Triton emits: aligned to its width?
        b.add(op, "aligned_access", what, operands, dims, severity=MISALIGNED.get(b.hw.vendor, "error"),
              dtype=dtype, bits=bits, params=(("direction", direction),) + view)
    elif padded:  # the direct-to-LDS write: aligned, and where the hardware puts each lane's vector
        b.add(op, "aligned_access", what, operands, dims, severity=MISALIGNED.get(b.hw.vendor, "error"), dtype=dtype,
              bits=bits, params=(("direction", direction), ("access", access)) + view + vector)
    if op.name in ASYNC_ACCESS and b.hw.vendor == "amd" and re.search(r"\bother\s+%", op.text):
        # AMD stores the `other` values of masked elements with a plain LDS store after each
        # direct-to-LDS load (`smem.plan`'s fill store): a second access on the line
        b.add(op, "bank_conflict_free", f"{what} (fill store of `other`)", operands, dims, severity="warning",
              dtype=dtype, bits=bits,
              params=(("direction", "store"), ("access", "fill_store"), ("model", "hardware")) + view + vector)


def _llvm_pairing(b: Builder, feed: int | None, phi: str | None) -> None:
    """Give the bank check just added its read's ``mma_feed`` (it feeds every MFMA/WMMA of a loop of one block), and
    where its lanes' offset may come through a phi (`checker.ttgir.mma_feed.offset_phi`) ``offset_phi`` (LLVM
    likely merges it so) and ``offset_phi_alternative`` (the other choice is LLVM's too), each only where it
    changes how LLVM issues the read (`checker.properties.bank_conflicts.changes_pairs`); an access the model
    refuses takes them too, and its check says why."""
    if feed is None and phi is None:
        return
    check = b.out.obligations[-1]
    extra: tuple = ()
    if feed is not None and _changes(check, mma_feed=feed):
        extra += (("mma_feed", feed),)
    if phi is not None and _changes(check, offset_phi=True):
        extra += ((("offset_phi", True),) if phi == PHI_LIKELY else ()) + (("offset_phi_alternative", True),)
    if extra:
        b.out.obligations[-1] = dataclasses.replace(check, params=check.params + extra)


def _constant_base(b: Builder, value: str | None) -> None:
    """Give the bank check just added ``base_bytes``, the constant part of its buffer's address, where LLVM folds it
    into the instructions' immediates and it changes the forms of their pairs
    (`checker.properties.bank_conflicts.changes_pairs`): `constant_base`."""
    base = constant_base(b, value) if value else None
    if base:
        check = b.out.obligations[-1]
        if _changes(check, base_bytes=base):
            b.out.obligations[-1] = dataclasses.replace(check, params=check.params + (("base_bytes", base),))


MEMDESC_SAME_ADDRESS = ("ttg.memdesc_trans", "ttg.memdesc_reshape", "ttg.memdesc_reinterpret")


def constant_base(b: Builder, value: str) -> int | None:
    """The constant part of a shared memdesc's address, in bytes: its allocation's offset in the kernel's shared
    memory (`Builder.buffer_offsets`, Triton's placement) plus a constant ``memdesc_index``'s buffers, as LLVM sees
    it: a constant wherever the pointer is formed in straight-line code (a runtime buffer index stays in the
    register, the allocation's offset does not). Through a loop's iter_arg or result (a phi) only when the
    allocation has one buffer, every path then the same constant. None where it is not known: a subslice, a
    function or partition argument, an allocation the model does not place exactly."""
    extra, through_phi, seen = 0, False, set()
    v: str | None = value
    while v and v not in seen:
        seen.add(v)
        op = b.defining_op(v)
        if op is None or op.name == "scf.for" and v in op.results:
            v, through_phi = (_iter_init(b, v) if op is None else
                              _loop_init(op, v)), True
            continue
        if op.name == "ttg.local_alloc":
            offset = b.buffer_offsets.get(id(op))
            return None if offset is None else offset + extra
        if op.name == "ttg.memdesc_index":
            src = op.operand_types[0] if op.operand_types else None
            if src is None or len(src.shape) < 2 or src.element_bits is None or len(op.operands) < 2 \
                    or through_phi and src.shape[0] != 1:
                return None
            k = _integer_constant(b, op.operands[1])
            extra += (k or 0) * math.prod(src.shape[1:]) * src.element_bits // 8
            v = op.operands[0]
        elif op.name in MEMDESC_SAME_ADDRESS and op.operands:
            v = op.operands[0]
        else:
            return None
    return None


def _loop_init(loop: Operation, result: str) -> str | None:
    """The initial value of an scf.for result's iter_arg."""
    k = loop.results.index(result)
    return loop.operands[3 + k] if 3 + k < len(loop.operands) else None


def _integer_constant(b: Builder, value: str) -> int | None:
    op = b.defining_op(value)
    m = re.match(r"\s*arith\.constant\s+(-?\d+)\s*:", op.text[op.text.index("arith.constant"):]) \
        if op is not None and op.name == "arith.constant" else None
    return int(m.group(1)) if m else None


def _changes(check, **given) -> bool:
    try:
        return changes_pairs(check, **given)
    except CheckerError:
        return True


def copy_vector(b: Builder, op: Operation, mem: TypeRef, access: str) -> int | None:
    """The elements per lane a global-to-shared copy moves where its global pointer allows fewer than its layouts
    (the ``vector`` of its shared-memory checks: `checker.properties.smem.plan.async_plan`), else None: the
    pointer's AxisInfo (`checker.ttgir.axis_info`, as its `coalesced` check reads it) through
    `checker.properties.coalesced.pointer_vector`, against `copy_shared_vec` (a padded destination: against its
    own plan, `padded_copy_vector`). None too where the pointer's AxisInfo is not read (then the layouts' widest
    vector is scored)."""
    acc = access_of(op, b.axis_analysis)
    if isinstance(acc, str) or acc.ptr_type.encoding is None or mem.encoding is None:
        return None
    t = acc.ptr_type
    if not b.lowers(t.encoding, t.shape) or (acc.mask is not None and len(acc.mask.constancy) != len(t.shape)):
        return None
    L = lower(t.encoding, t.shape)
    if not isinstance(L, LinearLayout):
        return None
    pointer = pointer_vector(L, acc.bits, contiguity=acc.ptr.contiguity, divisibility=acc.ptr.divisibility,
                             mask_constancy=acc.mask.constancy if acc.mask is not None else None, buffer=acc.buffer,
                             base_divisibility_bytes=acc.base_divisibility_bytes,
                             contiguity_hint=acc.contiguity_hint)
    widest = copy_shared_vec(L, mem.encoding, layout_shape(mem), acc.bits, b.hw, access)
    if widest is None:                          # a padded destination: its own plan (the padding caps it too)
        widest = padded_copy_vector(L, mem, acc.bits, b.hw, access)
    return pointer if widest is not None and pointer < widest else None


def padded_copy_vector(L: LinearLayout, mem: TypeRef, bits: int, hw: Hardware, access: str) -> int | None:
    """The elements per lane of a global-to-shared copy into a padded layout as its layouts and padding allow
    (`checker.properties.padded_access.padded_plan`), or None where it is no copy Triton lowers."""
    S = lower(mem.encoding, layout_shape(mem))
    if isinstance(S, LinearLayout):
        return None
    try:
        R, P = normalize_padded(L, S)
        return padded_plan(R, P, bits, "store", hw, access).vector_bytes * 8 // max(8, bits)
    except CheckerError:
        return None


def _partner(b: Builder, op: Operation) -> tuple:
    """The register layout of the other side of a local_store / local_load pair (`checker.ttgir.pairing.BufferPairs`),
    as the ``partner`` parameter: a conflicting access then gets a synthesized layout as a suggestion."""
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
            v = _loop_init(op, v)
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
