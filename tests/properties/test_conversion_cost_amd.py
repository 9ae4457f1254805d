"""conversion_cost on AMD targets: Triton's lowering of convert_layout on gfx942, gfx950 and gfx1250, against the
AMDGCN Triton emits.

* tests/properties/fixtures/conversions_amd_triton39.jsonl: 804 seeded conversions (blocked, linear and sliced
  pairs with the target's 64 or 32 lanes, 4 and 8 warps, fp32 / fp16 / int8 / fp64) compiled by Triton 3.9.0 on
  the CPU (``tools/compile_conversions.py --set amd --cases 900``; the 96 pairs Triton refuses are left out):
  per case the lowering path, the LDS instructions of the round trip per warp (as LLVM merges and pairs them:
  ``ds_read2st64_b64``, ``ds_load_2addr_b32``, ...), the ds_bpermute shuffles and the scratch bytes
  (``metadata.shared``);
* conversions_rdna_triton39.jsonl: 279 such conversions for RDNA3 / RDNA4 (gfx1100, gfx1201; ``--set rdna``);
* ..._amd_triton36.jsonl: 469 of them compiled by Triton 3.6.0 (3.6's swizzle and LLVM, test_triton36_amd_conversions);
* ..._amd_triton38.jsonl: 456 of the same pairs compiled by Triton 3.8.0 (``--cases 600``), checked under 3.8: its
  bank order (change ``ldst_banks_in_order_64``) and its shared-memory path for sources broadcast over warps
  (change ``cvt_shuffle_lanes_picked_by_warp``).
"""

from __future__ import annotations

import collections
import json
import os
import sys

import pytest

from checker.properties import conversion_cost as cc
from checker.properties.conversion_cost import lower_conversion
from checker.versions import using

from .test_conversion_cost import BITS, _layout

HERE = os.path.dirname(__file__)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import asm_compare  # noqa: E402

SHUFFLES = ("ds_bpermute", "v_permlane")


def _rows(version: str, family: str = "amd") -> list[dict]:
    with open(os.path.join(HERE, "fixtures", f"conversions_{family}_triton{version.replace('.', '')}.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


PRESET = {"gfx1100": "gfx11", "gfx1201": "gfx12"}       # RDNA3 / RDNA4 targets -> their hardware presets


def _lowering(r: dict):
    return lower_conversion(_layout(r["src"], r["shape"]), _layout(r["dst"], r["shape"]), BITS[r["dtype"]],
                            PRESET.get(r["target"], r["target"]))


def _scored(lw) -> dict[str, int]:
    """The LDS instructions per warp the lowering is scored with (tools/asm_compare.py's spelling)."""
    out: collections.Counter = collections.Counter()
    for side in (lw.store, lw.load):
        if side is not None:
            out[side.plan.asm(lw.hardware)] += side.instructions_per_warp
    return dict(out)


def _emitted(r: dict) -> tuple[dict[str, int], int]:
    lds: collections.Counter = collections.Counter()
    shuffles = 0
    for ins, n in r["amdgcn"].items():
        if ins.startswith(SHUFFLES):
            shuffles += n
        else:
            lds[asm_compare.normalize(ins)] += n
    return dict(lds), shuffles


def _llvm_left_pairs_single(scored: dict[str, int], emitted: dict[str, int]) -> bool:
    """Every scored instruction emitted as scored, but for paired forms of which LLVM left some pairs single
    (tools/asm_compare.py's LLVM_UNPAIRED rule, per scored instruction)."""
    rest = dict(emitted)
    for ins, n in scored.items():
        if rest.get(ins) == n:
            del rest[ins]
            continue
        kind = {k: rest.pop(k) for k in (ins, asm_compare.single_of(ins)) if k in rest}
        if not asm_compare._llvm_unpaired({"scored": ins, "instructions": n}, kind):
            return False
    return not rest


def _compare(rows: list[dict]) -> tuple[list, collections.Counter, list[str]]:
    bad, paths, unpaired = [], collections.Counter(), []
    for r in rows:
        lw = _lowering(r)
        lds, shuffles = _emitted(r)
        want = "shared" if lds else "shuffle" if shuffles else "register"
        paths[(r["target"], want)] += 1
        scored = _scored(lw)
        got = (lw.lowering, lw.scratch_bytes, lw.shuffles if want == "shuffle" else 0)
        if got != (want, r["shared"], shuffles) or (scored != lds and not _llvm_left_pairs_single(scored, lds)):
            bad.append((r["id"], r["target"], got, scored, (want, r["shared"], shuffles), lds))
        elif scored != lds:
            unpaired.append(r["id"])
    return bad, paths, unpaired


def test_triton39_amd_conversions_exact():
    """Path, scratch bytes, shuffles and every LDS instruction of all 804 cases; one case (a0037, gfx950) where
    LLVM left one of the 8 scored ds_read2_b32 as two ds_read_b32."""
    rows = _rows("3.9")
    assert len(rows) == 804
    bad, paths, unpaired = _compare(rows)
    assert bad == [], bad[:3]
    assert unpaired == ["a0037"]
    assert paths[("gfx942", "shared")] == 261 and paths[("gfx950", "shared")] == 260
    assert paths[("gfx1250", "shared")] == 248
    assert sum(n for (_, p), n in paths.items() if p == "shuffle") == 10
    kinds = {k for r in rows for k in _emitted(r)[0]}
    assert {"ds_write_b128", "ds_read2st64_b64", "ds_write2_b32", "ds_load_2addr_b64", "ds_store_2addr_stride64_b32",
            "ds_load_b128", "ds_read_u8", "ds_load_u16"} <= kinds, kinds


def test_triton38_amd_conversions_exact():
    """The 456 cases Triton 3.8.0 compiled, under 3.8: all exact (its bank reordering on 64 banks, and the three
    sources broadcast over warps it sends through shared memory where 3.9 shuffles)."""
    rows = _rows("3.8")
    assert len(rows) == 456
    with using("3.8"):
        bad, paths, unpaired = _compare(rows)
    assert bad == [] and unpaired == [], bad[:3]
    assert sum(n for (_, p), n in paths.items() if p == "shuffle") == 3


def test_triton39_rdna_conversions_exact():
    """RDNA3 (gfx1100) and RDNA4 (gfx1201), wave32 over 32 banks: 279 seeded conversions compiled by Triton 3.9.0
    (tools/compile_conversions.py --set rdna --cases 300): path, scratch, shuffles and every LDS instruction exact
    but one case where LLVM left one of two scored ds_store_2addr_stride64_b64 as two singles."""
    rows = _rows("3.9", "rdna")
    assert len(rows) == 279
    bad, paths, unpaired = _compare(rows)
    assert bad == [] and unpaired == ["a0024"], bad[:3]
    assert paths[("gfx1100", "shared")] == 138 and paths[("gfx1201", "shared")] == 128


def _case(version: str, cid: str) -> dict:
    return next(r for r in _rows(version) if r["id"] == cid)


def test_bank_order_on_64_banks_by_version():
    """a0131 (gfx1250, fp32 128x32, 4-byte vectors, three of the bank bases registers of the source): Triton 3.8
    puts them first, the store widens over them and the load stays 4 bytes (16 ds_load_2addr_b32); 3.9 keeps
    the banks in order and the load reads 8 bytes (8 ds_load_2addr_b64)."""
    new, old = _case("3.9", "a0131"), _case("3.8", "a0131")
    assert (new["src"], new["dst"]) == (old["src"], old["dst"])
    lw = _lowering(new)
    assert _scored(lw) == _emitted(new)[0] == {"ds_store_2addr_b32": 16, "ds_load_2addr_b64": 8}
    assert cc.ldst_target("gfx1250").reorder_banks is False
    with using("3.8"):
        lw_old = _lowering(old)
        assert cc.ldst_target("gfx1250").reorder_banks is True
    assert _scored(lw_old) == _emitted(old)[0] == {"ds_store_2addr_b32": 16, "ds_load_2addr_b32": 16}
    assert lw.scratch_bytes == lw_old.scratch_bytes == 16384
    assert [b[0] for b in lw_old.scratch.layout.flatten_outs().in_bases("bank")] == [64, 128, 512, 8, 32, 256]
    assert [b[0] for b in lw.scratch.layout.flatten_outs().in_bases("bank")] == [8, 32, 64, 128, 256, 512]
    with using("3.9"):        # 32 banks: reordered in every release
        assert cc.ldst_target("gfx942").reorder_banks is True


@pytest.mark.parametrize("cid", ["a0001", "a0087", "a0367"])
def test_source_broadcast_over_warps_shuffles_from_39(cid):
    """Sources broadcast over the warps the destination spreads over lanes: Triton 3.9 shuffles with a
    warp-dependent source lane (ds_bpermute_b32, no scratch), 3.8 goes through shared memory."""
    new, old = _case("3.9", cid), _case("3.8", cid)
    lw = _lowering(new)
    assert (lw.lowering, lw.scratch_bytes, new["shared"]) == ("shuffle", 0, 0)
    assert any(lw.selected_lanes.values())
    assert set(new["amdgcn"]) == {"ds_bpermute_b32"} and lw.shuffles == new["amdgcn"]["ds_bpermute_b32"]
    with using("3.8"):
        lw_old = _lowering(old)
    assert lw_old.lowering == "shared" and lw_old.scratch_bytes == old["shared"] > 0


def test_ttgir_convert_layout_on_amd_gets_a_cost_check():
    """The four convert_layouts of a gfx950 corpus module get conversion_cost checks: two round trips through LDS
    scored as the corpus's assembly has them at their lines (ds_write_b64 with ds_read_b64, and with
    ds_read2_b64), a shuffle and a register permutation."""
    import checker
    path = os.path.join(HERE, "..", "corpus", "gl_convert_f16_128x32.gfx950.ttgir")
    report = checker.verify(path, only=["*conversion_cost*"])
    got = {c["source"]["line"]: (c["details"]["lowering"], c["details"]["scratch_bytes"],
                                 c["details"].get("store", {}).get("asm"), c["details"].get("load", {}).get("asm"))
           for c in report["checks"]}
    assert got == {29: ("shared", 8192, "ds_write_b64", "ds_read_b64"),
                   30: ("shared", 8192, "ds_write_b64", "ds_read2_b64"),
                   31: ("shuffle", 0, None, None), 37: ("register", 0, None, None)}
    assert all(c["verdict"] == "holds" and c["severity"] == "warning" and c["hardware"] == "gfx950"
               for c in report["checks"])


# The corpus's AMD conversions whose LDS round trip conflicts in the hardware model (Triton's own count, which
# knows neither gfx942's ds_read_b128 lane groups nor LLVM's pairs, is 0 for each): file, line ->
# (store wavefronts, its minimum, load wavefronts, its minimum). gfx942's ds_read_b128 serves lanes 0-3 with
# 20-23 (docs/hardware.md), where Triton's tile for it assumes 0-3 with 16-19; the gfx1250 ones are paired
# stores, both addresses of a lane in one phase (docs/hardware.md: assumed, not measured).
CORPUS_CONFLICTS = {
    ("lib_rope.gfx942.ttgir", 61): (64, 64, 128, 64),
    ("tl_gather_cols.gfx1250.ttgir", 33): (64, 32, 32, 32),
    ("tl_join_split.gfx1250.ttgir", 24): (8, 4, 4, 4),
    ("tl_split_k.gfx1250.ttgir", 165): (128, 64, 128, 64),
}


@pytest.mark.parametrize("name, line", sorted(CORPUS_CONFLICTS))
def test_corpus_amd_conversions_that_conflict(name, line):
    import checker
    report = checker.verify(os.path.join(HERE, "..", "corpus", name), only=[f"*:{line}:*conversion_cost*"])
    (rec,) = report["checks"]
    d = rec["details"]
    assert (rec["verdict"], rec["severity"]) == ("fails", "warning")
    assert (d["store"]["wavefronts"], d["store"]["min_wavefronts"], d["load"]["wavefronts"],
            d["load"]["min_wavefronts"]) == CORPUS_CONFLICTS[(name, line)]
    assert d["store"]["triton_conflicts"] == d["load"]["triton_conflicts"] == 0
    assert rec["counterexample"] is not None


def test_corpus_amd_conversions_conflict_only_there():
    """Every other AMD conversion of the corpus through LDS costs its minimum on both sides."""
    import glob

    import checker
    files = sorted(glob.glob(os.path.join(HERE, "..", "corpus", "*.gfx*.ttgir")))
    report = checker.verify(files, only=["*conversion_cost*"], engine="f2")
    failed = {(os.path.basename(c["source"]["file"]), c["source"]["line"]) for c in report["checks"]
              if c["verdict"] != "holds"}
    shared = sum(c["details"]["lowering"] == "shared" for c in report["checks"])
    assert failed == set(CORPUS_CONFLICTS)
    assert shared == 115


def test_kernel_budget_of_a_source_broadcast_over_warps_by_version():
    """The TTGIR Triton 3.8.0 printed for a0087 (gfx942, int8 32x32, 8 warps; metadata.shared 1,024): under 3.8 the
    conversion goes through 1,024 bytes of LDS (ds_write_b64 / ds_read_b64), exactly what fits[kernel] says; under
    3.9 it is 2 ds_bpermute_b32 per warp and the kernel needs no shared memory."""
    import checker
    path = os.path.join(HERE, "..", "verify", "ttgir", "warp_selected_lanes_gfx942_triton38.ttgir")
    got = {}
    for version in ("3.8", "3.9"):
        report = checker.verify(path, triton_version=version)
        by = {c["property"]: c for c in report["checks"] if c["property"] in ("fits", "conversion_cost")}
        cost, fits = by["conversion_cost"]["details"], by["fits"]
        got[version] = (cost["lowering"], cost["scratch_bytes"], cost.get("shuffles"), fits["details"]["scratch_bytes"],
                        fits["details"]["exact"], fits["verdict"])
    assert got == {"3.8": ("shared", 1024, None, 1024, True, "holds"), "3.9": ("shuffle", 0, 2, 0, True, "holds")}
    # nothing in its syntax bounds its version: checked as 3.9, exactly, and a note says what 3.5-3.8 allocate
    report = checker.verify(path)
    assert report["summary"]["triton_version_reason"] == "default"
    assert [n["message"] for k in report["summary"]["ttgir"] for n in k["version_notes"]] == [
        "Triton 3.5 to 3.8, which this module's syntax does not rule out, allocate 1024 bytes of shared memory to it "
        "where 3.9 allocates 0 (a conversion 3.9 keeps in the warps with warp-dependent shuffles goes through shared "
        "memory before: change cvt_shuffle_lanes_picked_by_warp); give --triton-version if it comes from one of them"]


def test_a_conflicting_round_trip_reads_as_a_finding():
    """The text report's line for a conversion whose scratch round trip conflicts names the side, the instruction,
    the witness lanes and the wavefronts (checker.reports.text.conversion_cost_message)."""
    import checker
    from checker.reports.text import finding
    report = checker.verify(os.path.join(HERE, "..", "corpus", "lib_rope.gfx942.ttgir"),
                            only=["*:61:*conversion_cost*"])
    (rec,) = report["checks"]
    assert finding(rec) == ("round trip through 8192 B of scratch: its load has a 2-way bank conflict (ds_read_b128): "
                            "lanes 0 and 20 hit bank 0 (addresses 0x0, 0x800); 128 wavefronts where 64 would do")


def test_both_engines_agree_on_every_amd_case_and_witnesses_replay():
    """conversion_cost with both engines on the 804 Triton 3.9 cases: F2 and Z3 agree on every one (run_engines
    raises otherwise) and every conflict's witness replays on the concrete layouts. 118 round trips conflict in the
    hardware model, where Triton's own count is 0 for every one: 46 ds_read_b128 on gfx942 / gfx950 (Triton's tile
    takes other lane groups than the measured ones, docs/hardware.md), 71 paired gfx1250 accesses (assumed pair
    grouping) and one gfx950 ds_read_u8 (assumed phase)."""
    from checker.properties.conversion_cost import conversion_cost
    from checker.verdict import Engines
    statuses: collections.Counter = collections.Counter()
    for r in _rows("3.9"):
        res = conversion_cost(_layout(r["src"], r["shape"]), _layout(r["dst"], r["shape"]), BITS[r["dtype"]],
                              hardware=r["target"], engines=Engines("both"))
        statuses[(r["target"], res.status)] += 1
        assert set(res.verdicts) == {"f2", "z3"}
        if res.status == "fails":
            assert res.counterexample.replay(), r["id"]
    assert statuses == {("gfx942", "holds"): 246, ("gfx942", "fails"): 23, ("gfx950", "holds"): 247,
                        ("gfx950", "fails"): 24, ("gfx1250", "holds"): 193, ("gfx1250", "fails"): 71}


# Triton 3.6.0's LLVM merges some adjacent 1- and 2-byte LDS accesses that 3.9's leaves alone (4 ds_write_b8 -> one
# ds_write_b32, ds_load_u8 pairs -> ds_load_u16) or pairs others (a0293, a0341); a0375 scores both pair forms, which
# _compare does not split. Not modelled.
TRITON36_LLVM = {"a0014", "a0293", "a0341", "a0375", "a0451", "a0572"}


def _gfx942_conflicts(version: str) -> collections.Counter:
    """Per conflicting side (mnemonic, direction), the gfx942 round trips of that release's seeded compiles."""
    out: collections.Counter = collections.Counter()
    with using(version):
        for r in _rows(version):
            lw = _lowering(r) if r["target"] == "gfx942" else None
            if lw is not None and lw.lowering == "shared":
                side = next((s for s in (lw.store, lw.load) if s.cost > 1), None)
                out[(side.plan.mnemonic(lw.hardware), side.direction) if side else "minimal"] += 1
    return out


def test_triton36_amd_conversions():
    """The seeded pairs Triton 3.6.0 compiles (469, ``--cases 600``), checked under 3.6: every path and scratch size
    exact (the three sources broadcast over warps go through shared memory), every LDS instruction but the six
    above. 3.6 swizzles for 32 banks with the phases of a 32-lane warp (before #9662): 124 of its 142 gfx942 round
    trips conflict 2-way in the hardware model, mostly stores; under 3.8 the same pairs conflict in 13, all of them
    ds_read_b128 loads (Triton's lane tile for it against the measured lane groups, docs/hardware.md)."""
    rows = _rows("3.6")
    assert len(rows) == 469
    with using("3.6"):
        bad, paths, _ = _compare(rows)
    assert all(b[2][:2] == b[4][:2] for b in bad)          # path and scratch always exact
    assert {b[0] for b in bad} == TRITON36_LLVM
    old, new = _gfx942_conflicts("3.6"), _gfx942_conflicts("3.8")
    assert sum(old.values()) == sum(new.values()) == 142
    assert (old["minimal"], old[("ds_write_b128", "store")]) == (18, 28)
    assert new == {"minimal": 129, ("ds_read_b128", "load"): 13}
