"""Which reads of a conversion LLVM moves into the first branch of the masked store it feeds on AMD
(`first_branch`): the conversion's ``sunk_registers`` (`checker.properties.conversion_cost.lower_conversion`).

Triton's AMD lowering of a masked ``tt.store`` (third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp,
``StoreOpConversion``) issues one global store per vector of `vec` registers (the pointer's AxisInfo and the mask's
alignment: `checker.properties.coalesced.vector_width`, as the ``coalesced`` check reads it), at each start
register that is no broadcast copy (``isCanonicalIndex``), each under the predicate ``threadPred & mask[start]``,
which ``llStore`` turns into a conditional block. The mask's elements come from an elementwise op, whose lowering
gives every register of a run of equal values the value of one register (``ElementwiseOpConversionBase::
maybeDeduplicate``: register r takes the register that holds r's coordinates with the low log2(constancy[d]) bits
of each dim d cleared, the AxisInfo constancy of the mask), so stores of neighbouring vectors often test one value,
and LLVM puts consecutive stores of one predicate into one block (Triton 3.9.0's optimized IR: a 32x64 f32
transpose on gfx1250 stores two vectors per branch, i and i + 8 of a mask of constancy 16).

The conversion's reads come before the first store. InstCombine sinks an instruction into its block's one
successor when every use lies there and that successor has no other predecessor, and a load only where nothing
after it in the block writes memory: so the reads that feed the first branch's stores alone move into it, and
every later branch, entered from the join of the one before, keeps its reads where they were. SILoadStoreOptimizer
pairs reads of one block (`checker.properties.smem.pairs.sunk_apart`). FlagGems' ``t_copy_2d_kernel`` (a 64x64 f16
transpose, one vector of 8 elements per branch on gfx1250) emits 4 ``ds_load_2addr_b32`` and 8 ``ds_load_b32``:
the four reads of the first vector sank, each away from its pair partner, where 8 pairs are made without a branch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import takewhile

from ..encodings import lower
from ..layout import LinearLayout
from ..properties.coalesced import layout_order, vector_width
from ..syntax.ttgir import Operation, layout_tensors
from .axis_info import access_of
from .builder import Builder

REG = "register"
# ops whose lowering gives each register its own value from the same registers of its operands (the numbering kept)
ELEMENTWISE_PREFIXES = ("arith.", "math.")
# a mask built by these keeps one value per run of its constancy (maybeDeduplicate, or the broadcast's own copies)
DEDUPLICATED = ("tt.broadcast", "tt.splat")


def first_branch(b: Builder, op: Operation) -> list[int] | None:
    """The registers of a ``ttg.convert_layout``'s result (indices of its layout's register dim) that the masked
    ``tt.store`` it feeds writes in its first branch (module docstring), or None: not on AMD, the result not stored
    by one masked tt.store of its block (through elementwise ops of its layout at most), or every store in that
    branch (nothing moves apart)."""
    if b.hw is None or b.hw.vendor != "amd" or not op.results:
        return None
    store = store_of(b, op)
    if store is None:
        return None
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
    if len(run) == len(starts):
        return None
    return [s + k for s in run for k in range(vec)]


def store_of(b: Builder, op: Operation) -> Operation | None:
    """The masked tt.store that writes op's result (its value operand), through single-use elementwise ops of the
    same type in op's block, or None."""
    value, typ = op.results[0], layout_tensors(op.result_types)
    if len(typ) != 1:
        return None
    while True:
        users = b.users.get(value, [])
        if len(users) != 1 or users[0].parent != op.parent or users[0].region != op.region:
            return None
        user = users[0]
        if user.name == "tt.store":
            return user if len(user.operands) > 2 and user.operands[1] == value else None
        out = layout_tensors(user.result_types)
        if not user.name.startswith(ELEMENTWISE_PREFIXES) or len(user.results) != 1 or len(out) != 1 \
                or out[0].encoding_text != typ[0].encoding_text or out[0].shape != typ[0].shape:
            return None
        value = user.results[0]


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
