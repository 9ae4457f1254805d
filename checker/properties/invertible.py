"""invertible(S): a shared layout puts offsets and elements in bijection.

Definition. S maps (offset, block) to coordinates of its out sizes. S is
invertible when S is injective (no element stored twice: two indices never
hold one coordinate) and surjective (every coordinate has an offset), and,
for a padded layout, distinct offsets occupy distinct slots (see
`checker.padded`: phys is injective), so the physical buffer holds each element
exactly once.

Engines. The linear part is checked as `injective` then `surjective` (a
collision is reported before a missing coordinate; the same witnesses and
replays). The slots: F2 answers by the monotonicity of phys; Z3 searches
i != j below the offset count with phys(i) = phys(j) in bit-vector
arithmetic. Replay of a slot collision recomputes phys on integers.
"""

from __future__ import annotations

from .. import smt
from . import frame
from .injective import f2_verdict as injective_f2, z3_verdict as injective_z3
from .surjective import f2_verdict as surjective_f2, z3_verdict as surjective_z3
from ..padded import OFFSET, PaddedLayout
from .result import Counterexample, EngineVerdict, Result, decide

NAME = "invertible"


def invertible(S, *, engine: str = "both", timeout_ms: int | None = None) -> Result:
    mem = PaddedLayout.of(S)
    L = mem.linear
    box = frame.shape_map(L, None)
    details = {"rank": L.rank(), "in_bits": L.total_in_size_log2, "out_bits": L.total_out_size_log2,
               "padded": mem.padded}
    return decide(NAME, engine, {"f2": lambda: _f2(mem, box), "z3": lambda: _z3(mem, box, timeout_ms)},
                  details=details)


def slot_collision(mem: PaddedLayout, i: int, j: int) -> Counterexample:
    data = {"offsets": [i, j], "slot": mem.phys(i)}

    def check(d) -> bool:
        a, b = d["offsets"]
        n = mem.offsets
        return a != b and 0 <= a < n and 0 <= b < n and mem.phys(a) == mem.phys(b) == d["slot"]

    return Counterexample("slot_collision", data, check)


def _f2(mem: PaddedLayout, box) -> EngineVerdict:
    for v in (injective_f2(mem.linear, False), surjective_f2(mem.linear, box)):
        if v.status != "holds":
            return v
    why = "the offsets and elements are in bijection (full rank, square)"
    if mem.padded:
        why += "; padding keeps slots distinct (phys is strictly increasing)"
    return EngineVerdict("f2", "holds", explanation=why)


def slots_obligation(mem: PaddedLayout) -> smt.Obligation:
    ob = smt.Obligation("distinct_slots")
    bits = mem.linear.in_dim_size_log2(OFFSET)
    i, j = ob.var("i", bits), ob.var("j", bits)
    ob.require(i != j, smt.physical_offset(i, mem) == smt.physical_offset(j, mem))
    return ob


def _z3(mem: PaddedLayout, box, timeout_ms) -> EngineVerdict:
    for v in (injective_z3(NAME, mem.linear, False, timeout_ms),
              surjective_z3(mem.linear, box, timeout_ms)):
        if v.status != "holds":
            return v
    if mem.padded and mem.linear.in_dim_size_log2(OFFSET):
        ans = slots_obligation(mem).solve(timeout_ms)
        if ans.status == "unknown":
            return EngineVerdict("z3", "unknown", explanation=f"z3 gave up on the slots: {ans.reason}")
        if ans.status == "sat":
            cx = slot_collision(mem, ans.values["i"], ans.values["j"])
            return EngineVerdict("z3", "fails", counterexample=cx,
                                 explanation=f"offsets {cx.data['offsets']} share slot {cx.data['slot']}")
    return EngineVerdict("z3", "holds", explanation="no collision, no missing coordinate, no shared slot (unsat)")
