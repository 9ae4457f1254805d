"""Which reads of a conversion LLVM moves into the first branch of the masked store its result feeds on AMD
(`sunk_registers`): the conversion check's ``sunk_registers`` (`checker.properties.conversion_cost.lower_conversion`).

Triton's AMD lowering of a masked ``tt.store`` (third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp,
``StoreOpConversion``) issues one global store per vector of `vec` registers (the pointer's AxisInfo and the mask's
alignment: `checker.properties.coalesced.vector_width`, as the ``coalesced`` check reads it), at each start
register that is no broadcast copy (``isCanonicalIndex``), each under the predicate ``threadPred & mask[start]``,
which ``llStore`` turns into a conditional block. The mask's elementwise ops give every register of a run of equal
values the value of one register (``ElementwiseOpConversionBase::maybeDeduplicate``: register r takes the register
that holds r's coordinates with the low log2(constancy[d]) bits of each dim d cleared, the AxisInfo constancy of
the mask; a broadcast copies its source's values), so stores of neighbouring vectors often test one value, and
LLVM puts consecutive stores of one predicate into one block (Triton 3.9.0's optimized IR: a 32x64 f32 transpose on
gfx1250 stores two vectors per branch, i and i + 8 of a mask of constancy 16).

The conversion's reads come before the first store. InstCombine sinks an instruction into its block's one
successor when every use lies there and that successor has no other predecessor, and a load only where nothing
after it in the block writes memory: so the reads whose values reach only the first branch's stores move into it
(through the register arithmetic between, which moves with them), and every later branch, entered from the join of
the one before, keeps its reads where they were. SILoadStoreOptimizer pairs reads of one block
(`checker.properties.smem.pairs.sunk_apart`). A value reaches the store through ops of registers only, each used
once: elementwise ops (register r from register r of each operand) and broadcasts (register r from the source
register that holds r's coordinates, the broadcast dims at 0). Measured on Triton 3.9.0's AMDGCN:

* FlagGems' ``t_copy_2d_kernel`` (a 64x64 f16 transpose, one vector of 8 elements per branch on gfx1250): 4
  ``ds_load_2addr_b32`` and 8 ``ds_load_b32``, the four reads of the first vector sunk, each away from its pair
  partner, where 8 pairs are made without a branch;
* FlagGems' sort (a 1024-element index converted, widened to i64 and stored masked, on every AMD target): one pair
  and two single reads on gfx1250 and RDNA;
* fla's ``chunk_scaled_dot_kkt`` (a 64x1 f32 column converted to a WMMA layout, broadcast, multiplied, selected and
  stored masked, gfx1250): one pair and two single reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import takewhile

from ..encodings import lower
from ..layout import LinearLayout
from ..properties.coalesced import layout_order, vector_width
from ..syntax.ttgir import Operation, TypeRef, layout_tensors
from .axis_info import access_of
from .builder import Builder

REG = "register"
# ops whose lowering gives each register its own value from the same registers of its operands (the numbering kept)
ELEMENTWISE_PREFIXES = ("arith.", "math.")
# a mask built by these keeps one value per run of its constancy (maybeDeduplicate, or the broadcast's own copies)
DEDUPLICATED = ("tt.broadcast", "tt.splat")
# ops that neither write memory nor branch in Triton's AMD lowering: between the conversion and its store they keep
# the reads in the store's block and let them move (a masked tt.load is a branch; a conversion, a store or a barrier
# writes memory; an op with regions may branch)
QUIET = frozenset({"tt.addptr", "tt.splat", "tt.make_range", "tt.expand_dims", "tt.broadcast", "tt.bitcast",
                   "tt.reshape", "tt.trans", "tt.join", "tt.split", "tt.fp_to_fp", "tt.int_to_ptr", "tt.ptr_to_int",
                   "tt.get_program_id", "tt.get_num_programs", "ttg.local_load", "amdg.buffer_load"})


def sunk_registers(b: Builder, op: Operation) -> list[int] | None:
    """The registers of a ``ttg.convert_layout``'s result (indices of its layout's register dim) whose values reach
    only the first branch of the masked ``tt.store`` they feed (module docstring), or None: not on AMD, the result
    not stored by one masked tt.store of its block through ops of registers only, or no register (or every one)
    moving apart."""
    if b.hw is None or b.hw.vendor != "amd" or not op.results:
        return None
    found = _flow(b, op)
    if found is None:
        return None
    store, reach = found
    branch = first_branch(b, store)
    if branch is None:
        return None
    moved = [r for r, regs in enumerate(reach) if regs and regs <= branch]
    return moved if moved and len(moved) < sum(1 for regs in reach if regs) else None


def first_branch(b: Builder, store: Operation) -> set[int] | None:
    """The registers of a masked ``tt.store``'s value that its first branch writes: the store vectors from the first
    up to the first of another predicate (module docstring), or None where the store is not modelled."""
    acc = access_of(store, b.axis_analysis)
    if isinstance(acc, str) or acc.buffer or acc.mask is None:
        return None
    t = acc.ptr_type            # (the mask has the pointer's type, i1 elements: tt.store's verifier)
    if t.encoding is None or len(acc.mask.constancy) != len(t.shape) or not b.lowers(t.encoding, t.shape):
        return None
    L = lower(t.encoding, t.shape)
    if not isinstance(L, LinearLayout):
        return None
    vec = vector_width(L, acc.bits, contiguity=acc.ptr.contiguity, divisibility=acc.ptr.divisibility,
                       mask_alignment=max(1, acc.mask.constancy[layout_order(L)[0]])).vec
    mask_op = b.defining_op(store.operands[2]) if len(store.operands) > 2 else None
    dedup = mask_op is not None and (mask_op.name.startswith(ELEMENTWISE_PREFIXES) or mask_op.name in DEDUPLICATED)
    predicate = _deduplicated(L, acc.mask.constancy) if dedup else (lambda r: r)
    free = L.get_free_variable_masks()[REG]
    starts = [s for s in range(0, L.in_dim_size(REG), vec) if not s & free]
    run = list(takewhile(lambda s: predicate(s) == predicate(starts[0]), starts))
    return {s + k for s in run for k in range(vec)}


def store_of(b: Builder, op: Operation) -> Operation | None:
    """The masked tt.store the result of `op` reaches through ops of registers only (`sunk_registers`), or None."""
    found = _flow(b, op)
    return None if found is None else found[0]


def _flow(b: Builder, op: Operation) -> tuple[Operation, list[set[int]]] | None:
    """The masked tt.store in op's block whose value op's result reaches through single-use elementwise ops and
    broadcasts, and for each register of op's result the registers of the stored value it reaches; None where the
    result goes anywhere else."""
    value, types = op.results[0], layout_tensors(op.result_types)
    if len(types) != 1 or not b.lowers(types[0].encoding, types[0].shape):
        return None
    typ = types[0]
    n = lower(typ.encoding, typ.shape)
    if not isinstance(n, LinearLayout):
        return None
    reach: list[set[int]] = [{r} for r in range(n.in_dim_size(REG))]
    while True:
        users = b.users.get(value, [])
        if len(users) != 1 or users[0].parent != op.parent or users[0].region != op.region:
            return None
        user = users[0]
        if user.name == "tt.store":
            ok = len(user.operands) > 2 and user.operands[1] == value and value not in (user.operands[0],
                                                                                      user.operands[2])
            return (user, reach) if ok and _quiet_between(b, op, user) else None
        if len(user.results) != 1:
            return None
        out = _result_type(user)
        if out is None or out.encoding_text != typ.encoding_text and user.name != "tt.broadcast":
            return None
        if user.name == "tt.broadcast":
            step = _broadcast_sources(b, typ, out)
            if step is None:
                return None
            reach = [{d for d, s in enumerate(step) if s in regs} for regs in reach]
        elif not user.name.startswith(ELEMENTWISE_PREFIXES) or out.shape != typ.shape:
            return None
        value, typ = user.results[0], out


def _quiet_between(b: Builder, first: Operation, last: Operation) -> bool:
    """Every op of the block strictly between `first` and `last` neither writes memory nor branches (`QUIET`, an
    elementwise op, a tt.load without a mask): InstCombine sinks a load only past such code, into the block's one
    successor."""
    if first.parent is None:
        return False
    block = [o for o in b.held.get(id(b.m.operations[first.parent]), ()) if o.region == first.region]
    if first not in block or last not in block:
        return False
    for o in block[block.index(first) + 1:block.index(last)]:
        if b.held.get(id(o)):
            return False
        if not (o.name.startswith(ELEMENTWISE_PREFIXES) or o.name in QUIET
                or o.name == "tt.load" and len(o.operands) == 1):
            return False
    return True


def _result_type(op: Operation) -> TypeRef | None:
    """The tensor type of an op's one result (a cast, ``x : T to U``, prints both as its operand's: the last)."""
    tensors = layout_tensors(op.result_types) or layout_tensors(op.types)
    return tensors[-1] if tensors else None


def _broadcast_sources(b: Builder, src: TypeRef, dst: TypeRef) -> list[int] | None:
    """For each register of a broadcast's result, the source register it copies (Triton's BroadcastOpConversion: the
    one holding its coordinates with the broadcast dims at 0), or None where the layouts do not lower."""
    if not (b.lowers(src.encoding, src.shape) and b.lowers(dst.encoding, dst.shape)):
        return None
    S, D = lower(src.encoding, src.shape), lower(dst.encoding, dst.shape)
    if not isinstance(S, LinearLayout) or not isinstance(D, LinearLayout) or S.out_dims != D.out_dims:
        return None
    inverse = S.pseudoinvert()
    out = []
    for r in range(D.in_dim_size(REG)):
        at = D.apply({d: r if d == REG else 0 for d in D.in_dims})
        out.append(inverse.apply({d: at[d] if size > 1 else 0 for d, size in zip(S.out_dims, src.shape)})[REG])
    return out


def _deduplicated(L: LinearLayout, constancy: Sequence[int]) -> Callable[[int], int]:
    """register -> the register whose value maybeDeduplicate gives it (module docstring): the pseudo-inverse's
    register part at the register's coordinates with the low log2(constancy[d]) bits of each dim d cleared."""
    inverse = L.pseudoinvert()
    dims = L.out_dims

    def canonical(r: int) -> int:
        at = L.apply({d: r if d == REG else 0 for d in L.in_dims})
        cleared = {d: at[d] & -(1 << (max(1, c).bit_length() - 1)) for d, c in zip(dims, constancy)}
        return inverse.apply(cleared)[REG]
    return canonical
