"""invertible(S): a shared layout puts offsets and elements in bijection.

Definition. S maps (offset, block) to coordinates of its out sizes. S is
invertible when S is injective (no element stored twice: two indices never
hold one coordinate) and surjective (every coordinate has an offset), and,
for a padded layout, distinct offsets occupy distinct slots (see
`checker.padded`: phys is injective), so the physical buffer holds each element
exactly once. Three kinds of unused or repeated storage are declared, not
failures, and are taken out before the bijection is checked:

* padding holes of a padded layout: the slots between phys(i) and
  phys(i + 1) that no offset uses (they hold nothing; reported in
  ``details["holes"]``: their count and the first slot ranges);
* declared padding offsets (``padding_offset_bits``): offset bits whose
  basis is zero because the encoding says those offsets are padding. Triton's
  NVMMA ``fp4Padded`` layout packs column v of its core matrix at
  8 * (v / 16) + v % 8, so of every 16 offsets 8 hold the packed fp4 bytes
  and 8 are the TMA padding, which Triton maps onto the same elements as the
  real ones ("the offsets corresponding to the real ones are picked in the
  image by invertAndCompose"): offset bit 3's basis is 0. The offsets with
  such a bit set are holes (``details["holes"]["offset_bits"]``), and S
  restricted to the other offsets must be a bijection;
* broadcast CTAs: zero ``block`` bases (a CGA layout such as [[0, 0]]): the
  buffer is copied into every CTA of the group, each copy a buffer of its own.
  Invertibility is then *per CTA* (S without those block bits); the copies are
  reported in ``details["broadcast_ctas"]`` (the block bits and the number of
  copies).

Engines. The linear part is checked as `injective` (on S without the declared
bits) then `surjective` (on S: removing zero bases keeps the image); a
collision is reported before a missing coordinate, with indices in S's own
numbering and replayed on S. The slots: F2 answers by the monotonicity of
phys; Z3 searches i != j below the offset count with phys(i) = phys(j) in
bit-vector arithmetic. Replay of a slot collision recomputes phys on integers.

Certificate of an F2 ``holds`` (`checker.certificate`): ``all_of`` a
``left_inverse`` (an explicit M with M·A = I for S's columns without the
declared bits, which the checker confirms are zero bases) and a ``spanning``
set (each coordinate bit as a combination of columns); with both, S minus
those bits is square and invertible. The slot part of a padded layout has no
certificate: phys(i) = i + sum_k (i >> a_k) << b_k is strictly increasing by
its formula, nothing is computed that a certificate could record.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import smt
from ..encodings.base import SharedEncoding
from ..encodings.partitioned_shared import PartitionedSharedEncoding
from ..errors import CheckerError
from ..layout import LinearLayout
from ..padded import OFFSET, PaddedLayout
from ..verdict import DEFAULT_ENGINES, Engines
from . import certify, frame
from .injective import collision
from .injective import f2_verdict as injective_f2
from .injective import z3_verdict as injective_z3
from .operands import lowered, operand
from .result import Counterexample, EngineVerdict, Result, run_engines
from .surjective import f2_verdict as surjective_f2
from .surjective import z3_verdict as surjective_z3

NAME = "invertible"
BLOCK = "block"


HOLE_RANGES = 8  # slot ranges listed in details["holes"]["ranges"]


def invertible(S, *, padding_offset_bits: Sequence[int] = (), engines: Engines = DEFAULT_ENGINES) -> Result:
    """See the module docstring; `padding_offset_bits` are the offset bits the encoding declares padding."""
    mem = PaddedLayout.of(S)
    L = mem.linear
    box = frame.shape_map(L, None)
    details: dict = {"rank": L.rank(), "in_bits": L.total_in_size_log2, "out_bits": L.total_out_size_log2,
                     "padded": mem.padded}
    drop = {OFFSET: [j for j in sorted(set(padding_offset_bits))
                     if j < L.in_dim_size_log2(OFFSET) and not any(L.in_bases(OFFSET)[j])]}
    if L.has_in_dim(BLOCK):
        drop[BLOCK] = [j for j, b in enumerate(L.in_bases(BLOCK)) if not any(b)]
    holes: dict = {}
    if mem.padded:
        ranges = mem.hole_ranges()
        holes.update({"slots": sum(b - a for a, b in ranges), "ranges": [list(r) for r in ranges[:HOLE_RANGES]],
                      "range_count": len(ranges)})
    if drop[OFFSET]:
        holes.update({"offset_bits": drop[OFFSET],
                      "offsets": mem.offsets - (mem.offsets >> len(drop[OFFSET]))})
    if holes:
        details["holes"] = holes
    if drop.get(BLOCK):
        details["broadcast_ctas"] = {"block_bits": drop[BLOCK], "copies": 1 << len(drop[BLOCK])}
    local = _without(L, drop)
    return run_engines(NAME, engines, {"f2": lambda: _f2(mem, local, box), "z3": lambda: _z3(mem, local, box)},
                       details=details, certified=True)


def judge(layout, shape=None, *, engines: Engines = DEFAULT_ENGINES) -> Result:
    """A shared layout or encoding (lowered at `shape`). An encoding's declared padding offsets (NVMMA
    fp4Padded) are holes, not collisions. A partitioned encoding is judged with its partitions ((offset, block,
    partition) -> element): Triton's own LinearLayout of it keeps only partition 0, which covers
    1 / numPartitions of the tensor by design."""
    padding = layout.padding_offset_bits() if isinstance(layout, SharedEncoding) else ()
    if isinstance(layout, PartitionedSharedEncoding):
        if shape is None:
            raise CheckerError("a partitioned layout needs the tensor shape", field="shape")
        return invertible(layout.full_linear_layout(shape), padding_offset_bits=padding, engines=engines)
    return invertible(lowered(layout, shape), padding_offset_bits=padding, engines=engines)


def decide(check, engines: Engines) -> Result:
    """A check (`checker.registry`): its ``layout`` operand, lowered at its ``layout_shape`` or its shape."""
    return judge(operand(check, "layout"), check.shape, engines=engines)


def _without(L: LinearLayout, drop: dict[str, list[int]]) -> tuple[LinearLayout, dict[str, list[int]]]:
    """L without the dropped in-bits, and per in-dim the original bit behind each kept one."""
    keep = {d: [j for j in range(L.in_dim_size_log2(d)) if j not in drop.get(d, ())] for d in L.in_dims}
    if all(len(keep[d]) == L.in_dim_size_log2(d) for d in L.in_dims):
        return L, keep
    return LinearLayout([(d, [L.in_bases(d)[j] for j in keep[d]]) for d in L.in_dims], L.out_dim_sizes), keep


def _in_original(local, v: EngineVerdict, L: LinearLayout) -> EngineVerdict:
    """A collision found on the reduced layout, with its indices in L's own numbering (replayed on L)."""
    small, keep = local
    if v.status != "fails" or small is L or v.counterexample.kind != "collision":
        return v

    def expand(idx: dict) -> dict:
        return {d: sum(((idx.get(d, 0) >> i) & 1) << j for i, j in enumerate(keep[d])) for d in L.in_dims}

    a, b = (expand(i) for i in v.counterexample.data["indices"])
    cx = collision(L, a, b, False)
    return EngineVerdict(v.engine, "fails", counterexample=cx,
                         explanation=f"indices {frame.show(a)} and {frame.show(b)} both hold "
                                     f"{frame.show(cx.data['coordinate'])} ({v.explanation})")


def slot_collision(mem: PaddedLayout, i: int, j: int) -> Counterexample:
    data = {"offsets": [i, j], "slot": mem.phys(i)}

    def recompute(d) -> bool:
        a, b = d["offsets"]
        n = mem.offsets
        return a != b and 0 <= a < n and 0 <= b < n and mem.phys(a) == mem.phys(b) == d["slot"]

    return Counterexample("slot_collision", data, recompute)


def _f2(mem: PaddedLayout, local, box) -> EngineVerdict:
    for v in (_in_original(local, injective_f2(local[0], False), mem.linear), surjective_f2(mem.linear, box)):
        if v.status != "holds":
            return v
    why = "the offsets and elements are in bijection (full rank, square)"
    if local[0] is not mem.linear:
        why += " once the declared padding offsets and broadcast CTAs (zero bases) are set aside"
    if mem.padded:
        why += "; padding keeps slots distinct (phys is strictly increasing)"
    L, keep = mem.linear, local[1]
    dropped = {d: [j for j in range(L.in_dim_size_log2(d)) if j not in keep[d]] for d in L.in_dims}
    cert = certify.all_of(certify.injective(L, False, dropped), certify.surjective(L, box))
    return EngineVerdict("f2", "holds", explanation=why, certificate=cert)


def slots_obligation(mem: PaddedLayout) -> smt.Obligation:
    ob = smt.Obligation("distinct_slots")
    bits = mem.linear.in_dim_size_log2(OFFSET)
    i, j = ob.var("i", bits), ob.var("j", bits)
    ob.require(i != j, smt.physical_offset(i, mem) == smt.physical_offset(j, mem))
    return ob


def _z3(mem: PaddedLayout, local, box) -> EngineVerdict:
    for v in (_in_original(local, injective_z3(NAME, local[0], False), mem.linear),
              surjective_z3(mem.linear, box)):
        if v.status != "holds":
            return v
    if mem.padded and mem.linear.in_dim_size_log2(OFFSET):
        ans = slots_obligation(mem).solve()
        if ans.status == "unknown":
            return EngineVerdict("z3", "unknown", explanation=f"z3 gave up on the slots: {ans.reason}")
        if ans.status == "sat":
            cx = slot_collision(mem, ans.values["i"], ans.values["j"])
            return EngineVerdict("z3", "fails", counterexample=cx,
                                 explanation=f"offsets {cx.data['offsets']} share slot {cx.data['slot']}")
    return EngineVerdict("z3", "holds", explanation="no collision, no missing coordinate, no shared slot (unsat)")
