"""AMD LDS pairs where LLVM does not fuse what the offsets allow. LDS reads that feed every MFMA/WMMA of a loop of one
basic block: Triton 3.9's LLVM keeps their ds_read pairs single (change ``lds_reads_single_for_mma``;
checker/ttgir/mma_feed.py), Triton 3.8's fuses them; stores of one address register with other stores between them;
reads whose immediate fills the holes of broadcast lanes (checker/properties/smem/pairs.py); reads after a loop whose
lanes' offset may come through a phi (checker/ttgir/mma_feed.py). Fixtures: tools/compile_lds_pairs.py's pipelined
matmul loops for gfx942, gfx950, gfx1250 and gfx1100, compiled by Triton 3.9.0 and
3.8.0 (``triton38/``), and one MXFP4 matmul of OpenAI's triton_kernels for gfx950, each with the shared-memory
instructions of its AMDGCN per TTGIR line (asm.json); tools/asm_compare.py puts them beside what layoutcheck
scores."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

import checker
from checker.encodings import lower
from checker.errors import CheckerError
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.smem.pairs import (
    address_registers,
    issue_order,
    kept_single_for_mma,
    pairing,
    shift_holes,
)
from checker.syntax.mlir_attr import parse_attribute
from checker.versions import parse, using

ROOT = pathlib.Path(__file__).parents[2]
FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "lds_pairs_loop"
sys.path.insert(0, str(ROOT / "tools"))
import asm_compare  # noqa: E402

# (fixture, TTGIR line) -> the instruction scored for a read inside the K loop, under Triton 3.9 and 3.8
LOOP_READS = {
    ("pairs_mm_bf16_64x16x16_w2_s1.gfx942.ttgir", 69): ("ds_read_b64", "ds_read2st64_b64"),
    ("pairs_mm_bf16_64x16x16_w2_s1.gfx950.ttgir", 68): ("ds_read_b64", "ds_read2st64_b64"),
    ("pairs_mm_fp8_64x128x16_w4.gfx942.ttgir", 85): ("ds_read_b64", "ds_read2st64_b64"),
    ("pairs_mm_fp8_64x128x16_w4.gfx950.ttgir", 94): ("ds_read_b64", "ds_read2st64_b64"),
    ("pairs_mm_fp8_16x64x128_w4.gfx1250.ttgir", 93): ("ds_load_b64", "ds_load_2addr_b64"),
    ("pairs_scaled_e2m1_64x64x128_w2.gfx1250.ttgir", 141): ("ds_load_b32", "ds_load_2addr_b32"),
    ("pairs_scaled_e4m3_128x128x128_w4.gfx1250.ttgir", 142): ("ds_load_b32", "ds_load_2addr_stride64_b32"),
    ("pairs_scaled_e4m3_128x128x128_w4.gfx1250.ttgir", 145): ("ds_load_b32", "ds_load_2addr_stride64_b32"),
    # the rule's conditions fail: a branch in the loop (a masked tt.load on gfx942, a masked async copy on
    # gfx950, masked scale loads on gfx1250), or pairs that each feed only part of the WMMAs
    ("pairs_masked_64x16x16_w2_s1.gfx942.ttgir", 73): ("ds_read2st64_b64", "ds_read2st64_b64"),
    ("pairs_masked_64x16x16_w2_s1.gfx950.ttgir", 72): ("ds_read2st64_b64", "ds_read2st64_b64"),
    ("pairs_scaled_masked_64x64x128_w2.gfx1250.ttgir", 148): ("ds_load_2addr_b32", "ds_load_2addr_b32"),
    ("pairs_mm_fp8_64x128x16_w4.gfx1250.ttgir", 93): ("ds_load_2addr_b64", "ds_load_2addr_b64"),
    ("pairs_mm_fp8_32x32x64_w1.gfx1250.ttgir", 92): ("ds_load_2addr_b64", "ds_load_2addr_b64"),
}


def _rows(folder: pathlib.Path, version: str, names: tuple[str, ...] = ()) -> list[dict]:
    facts = json.loads((folder / "asm.json").read_text())
    files = [folder / f"{n}.ttgir" for n in names] or sorted(folder.glob("*.ttgir"))
    return asm_compare.compare([str(f) for f in files], {str(f): facts[f.name] for f in files},
                               triton_version=version)


@pytest.fixture(scope="module", params=["3.9", "3.8"])
def compared(request):
    folder = FIXTURES if request.param == "3.9" else FIXTURES / "triton38"
    return request.param, {(pathlib.Path(r["file"]).name, r["line"]): r for r in _rows(folder, request.param)}


def test_every_compared_read_is_scored_as_emitted(compared):
    """Every compared access agrees; under 3.8 one read of the 64x128x64 bf16 matmul has LLVM leave 14 of its 16
    scored pairs single (its address arithmetic, not modelled: `asm_compare.LLVM_UNPAIRED`); under 3.9 one read
    after a loop is the alternative its check names (`asm_compare.LLVM_ALTERNATIVE`)."""
    version, rows = compared
    assert not [k for k, r in rows.items() if r["status"] == "MISMATCH"]
    unpaired = {k: (r["scored"], r["emitted"]) for k, r in rows.items() if r["status"] == asm_compare.LLVM_UNPAIRED}
    assert unpaired == ({} if version == "3.9" else {("pairs_mm_bf16_64x128x64_w1_s1.gfx942.ttgir", 73): (
        "ds_read2st64_b64", {"ds_read2st64_b64": 2, "ds_read_b64": 28})})
    assert sum(r["status"] == "agrees" for r in rows.values()) == {"3.9": 209, "3.8": 105}[version]
    assert [k for k, r in rows.items() if r["status"] == asm_compare.LLVM_ALTERNATIVE] == \
        ([("pairs_scaled_rdna_e4m3_32x32x128_w1.gfx1100.ttgir", 199)] if version == "3.9" else [])


def test_loop_reads_single_under_39_paired_under_38(compared):
    version, rows = compared
    for key, scored in LOOP_READS.items():
        r = rows[key]
        want = scored[0] if version == "3.9" else scored[1]
        assert (r["scored"], bool(r.get("kept_single"))) == (want, want != scored[1]), key
        assert r["status"] in ("agrees", asm_compare.LLVM_PEELED), (key, r["emitted"])


def test_a_peeled_iteration_keeps_its_pair():
    """fp8 64x128x16 on gfx942: LLVM peels the first iteration out of the K loop; the peeled copy of the A read,
    outside any loop, is one ds_read2st64_b64, the loop's copy two ds_read_b64 (as scored)."""
    (r,) = [r for r in _rows(FIXTURES, "3.9") if r["file"].endswith("pairs_mm_fp8_64x128x16_w4.gfx942.ttgir")
            and r["line"] == 85]
    assert (r["scored"], r["instructions"], r["emitted"], r["status"]) == (
        "ds_read_b64", 2, {"ds_read2st64_b64": 1, "ds_read_b64": 2}, asm_compare.LLVM_PEELED)


def test_the_reader_finds_the_loops_reads():
    """mma_feed: the A scales' read of a gfx1250 K loop (each WMMA_SCALE takes one 32-bit word: 2 bits of i8
    registers), the one read of the loop LLVM would pair; not the loop's other reads (a single word, 16-byte
    vectors: nothing to keep apart, so they keep sharing their proofs with the epilogue's copies), not the
    epilogue's copies (no loop), not the masked loop's (a branch), not under Triton 3.8."""
    name = "pairs_scaled_e2m1_64x64x128_w2.gfx1250.ttgir"
    report = checker.verify(str(FIXTURES / name))
    feeds = {c["source"]["line"]: c["parameters"].get("mma_feed") for c in report["checks"]
             if c["property"] == "bank_conflict_free" and c["source"]["op"] == "ttg.local_load"}
    assert feeds == {124: None, 133: None, 141: 2, 144: None, 156: None, 157: None, 158: None, 159: None}
    (sa,) = [c for c in report["checks"] if c["property"] == "bank_conflict_free" and c["source"]["line"] == 141]
    assert (sa["verdict"], sa["details"]["mnemonic"], sa["details"]["kept_single"]) == ("holds", "ds_load_b32",
                                                                                         "mma_loop")
    assert "keeps them apart" in sa["explanation"]
    masked = checker.verify(str(FIXTURES / "pairs_scaled_masked_64x64x128_w2.gfx1250.ttgir"))
    assert not [c for c in masked["checks"] if c["parameters"].get("mma_feed") is not None and c["source"]["line"]
                in (148, 151)]
    older = checker.verify(str(FIXTURES / "triton38" / name), triton_version="3.8")
    assert not [c for c in older["checks"] if c["parameters"].get("mma_feed") is not None]


SCALES = ("#ttg.linear<{register = [[0, 1], [0, 2], [64, 0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [32, 0]], "
          "warp = [[0, 0], [16, 0]], block = []}>")


def test_the_scales_conflict_only_as_a_pair():
    """tl_dot_scaled_mxfp4's A scales on gfx1250 (128x4 i8, two words per lane 64 rows apart, unswizzled): as one
    ds_load_2addr_stride64_b32 both words of a lane share a phase and a bank (8 wavefronts where 4 would do: the
    corpus's warning before); as the two ds_load_b32 of the loop, 8 wavefronts for 8 phases, no conflict."""
    R = lower(parse_attribute(SCALES), [128, 4])
    S = lower(parse_attribute("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"),
              [128, 4])
    paired = bank_conflict_free(R, S, 8, direction="load", hardware="gfx1250")
    single = bank_conflict_free(R, S, 8, direction="load", hardware="gfx1250", mma_feed=2)
    assert (paired.status, paired.details["mnemonic"], paired.details["wavefronts"],
            paired.details["min_wavefronts"]) == ("fails", "ds_load_2addr_stride64_b32", 8, 4)
    assert (single.status, single.details["mnemonic"], single.details["wavefronts"],
            single.details["min_wavefronts"], single.details["kept_single"]) == ("holds", "ds_load_b32", 8, 8,
                                                                                 "mma_loop")
    # the value is one pair: whatever the instructions' grouping (one reading all 8 registers, mma_feed 3, or one
    # per register, mma_feed 0), its two reads hold a register of each
    assert bank_conflict_free(R, S, 8, direction="load", hardware="gfx1250", mma_feed=3).details["mnemonic"] \
        == "ds_load_b32"
    assert bank_conflict_free(R, S, 8, direction="load", hardware="gfx1250", mma_feed=0).details["mnemonic"] \
        == "ds_load_b32"
    with using(parse("3.8")):
        older = bank_conflict_free(R, S, 8, direction="load", hardware="gfx1250", mma_feed=2)
    assert (older.details["mnemonic"], older.details.get("kept_single")) == ("ds_load_2addr_stride64_b32", None)


def test_mma_feed_is_validated():
    R = lower(parse_attribute(SCALES), [128, 4])
    S = lower(parse_attribute("#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"),
              [128, 4])
    for bad in (-1, True, 1.5):
        with pytest.raises(CheckerError, match="number of register bits") as e:
            bank_conflict_free(R, S, 8, direction="load", hardware="gfx1250", mma_feed=bad)
        assert e.value.field == "mma_feed"
    with pytest.raises(CheckerError, match="not a store") as e:
        bank_conflict_free(R, S, 8, direction="store", hardware="gfx1250", mma_feed=2)
    assert e.value.field == "mma_feed"


def test_stores_of_one_address_register_apart_stay_single():
    """bf16 64x128x64, one warp, on gfx942: the A tile's local_alloc stores 8-byte vectors whose two accesses at one
    address register are told apart by registers Triton XORs in (not additive: its outer issue loop), so the other
    address registers' stores come between them and LLVM, which does not move a store past a store it may alias,
    leaves all 32 single (the pairs of both forms were scored before)."""
    rows = {(pathlib.Path(r["file"]).name, r["line"]): r for r in _rows(FIXTURES, "3.9")}
    r = rows[("pairs_mm_bf16_64x128x64_w1_s1.gfx942.ttgir", 73)]
    assert (r["scored"], r["instructions"], r["emitted"], r["status"]) == ("ds_write_b64", 32, {"ds_write_b64": 32},
                                                                          "agrees")


def test_a_store_pair_fuses_only_with_nothing_aliasing_between():
    """Four 8-byte accesses: registers at elements 257 and 129 over lanes spanning elements 0..63, both XORed in
    (their low bit is a lane's), so accesses 0 and 3 (257 ^ 129 = 384) share the lanes' base register, 384 elements
    apart, and 1 and 2 the other, at 256 and 128. Loads pair both (stride 64: offsets 0, 6 and 2, 4); as stores 1
    and 2 are adjacent in the issue but 0 and 3 have 1 and 2 between them, another address register: two of the
    four stay single, and the plan is scored single."""
    lanes = [1, 2, 4, 8, 16, 32]
    loads = pairing([257, 129], lanes, 0, 8, 8)
    assert (loads.delta, loads.fields) == (3, ((0, 6, True), (2, 4, True)))
    stores = pairing([257, 129], lanes, 0, 8, 8, stores=True)
    assert (stores.delta, stores.unpaired) == (0, "2 of 4 accesses stay single")
    assert issue_order(3, 1, (2,)) == [0, 2, 1]


def test_broadcast_lanes_give_some_reads_their_own_address():
    """OpenAI triton_kernels' MX scale read on gfx950 (8x256 i8, lanes 4 and 5 repeat data): LLVM builds the base as
    (tid << 2) & 316; a read whose immediate sets both holes (64 and 128: 192, 704, 1216, 1728) has InstCombine drop
    the mask and its own address register, so of its 16 reads LLVM pairs 12 and leaves 4 single, in the K loop
    (line 193) and in the epilogue (215): the plan is scored as its single reads (on gfx950 a pair costs its two
    passes) and named as the mix."""
    rows = {(pathlib.Path(r["file"]).name, r["line"]): r for r in _rows(FIXTURES, "3.9")}
    for line in (193, 215):
        r = rows[("triton_kernels_mxfp4_dec_m16.gfx950.ttgir", line)]
        assert (r["scored"], r["instructions"], r["emitted"], r["status"]) == (
            "ds_read2_b32+ds_read_b32", 16, {"ds_read2_b32": 6, "ds_read_b32": 4}, "agrees")
    lanes = [4, 8, 16, 32, 0, 0, 256]                  # 6 lanes (two repeat), one warp, in elements of 1 byte
    assert shift_holes(lanes, 6) == 192
    assert shift_holes([4, 8, 16, 32, 64, 128, 0], 6) == 0          # a warp that repeats makes no hole
    assert shift_holes([4, 8, 16, 32, 0, 0, 512], 6) == 0           # the warp off the shift: not this form
    regs = [1, 2, 64, 128, 512, 1024]                   # the 4-byte vector, then 64, 128, 512, 1024
    by = address_registers(regs, lanes, 2, lane_bits=6)
    assert sorted(imm for key, acc in by.items() if key != 0 for _, imm in acc) == [192, 704, 1216, 1728]
    pr = pairing(regs, lanes, 2, 4, 1, lane_bits=6)
    assert (pr.paired, pr.singles, len(pr.fields)) == (False, 4, 6)
    assert pairing(regs, lanes, 2, 4, 1).paired          # without the lane count (a conversion): all paired


def test_the_allocations_offset_in_the_immediates_decides_the_pair_forms():
    """LLVM folds the constant part of a buffer's address (its allocation's offset, a constant buffer index's bytes)
    into the DS immediates, and fuses two accesses as their absolute fields allow. A 32x32 i8 tile stored into
    swizzled_shared by one warp (gfx1100): of its four 8-byte stores per lane, one address register's pair is 0 and
    512 bytes (stride-64), the other's, past the XOR 0x110's lane bit, 256 and 768 (plain, 32 and 96). At the
    allocation's offset 2048 those are 288 and 352 elements: no 8-bit field takes them, so LLVM shifts the base and
    uses the stride-64 form (offsets 4 and 5 on both, as the assembly has them)."""
    regs, lanes = [1, 2, 4, 0x110, 0x200], [8, 16, 32, 64, 0x88]
    assert pairing(regs, lanes, 3, 8, 1, stores=True).fields == ((0, 1, True), (32, 96, False))
    assert pairing(regs, lanes, 3, 8, 1, stores=True, base_bytes=2048).fields == ((4, 5, True), (4, 5, True))
    assert pairing(regs, lanes, 3, 8, 1, stores=True, base_bytes=1024).fields == ((2, 3, True), (160, 224, False))
    names = ("pairs_scaled_rdna_e2m1_32x64x64_w1_s2.gfx1100", "pairs_scaled_rdna_e2m1_128x32x128_w1_s3.gfx1100")
    rows = {(pathlib.Path(r["file"]).name.split(".")[0], r["line"]): r for r in _rows(FIXTURES, "3.9", names)
            if r["op"] == "ttg.local_store" and r.get("vector_bytes") == 8}
    mixed, st64 = "ds_store_2addr_b64+ds_store_2addr_stride64_b64", "ds_store_2addr_stride64_b64"
    assert {k: (r["scored"], r["emitted"], r["status"]) for k, r in rows.items()} == {
        # the prologue's and the loop's store of the one-buffer tile, at 2048
        ("pairs_scaled_rdna_e2m1_32x64x64_w1_s2", 122): (st64, {st64: 2}, "agrees"),
        ("pairs_scaled_rdna_e2m1_32x64x64_w1_s2", 193): (st64, {st64: 2}, "agrees"),
        # three stages: buffer 0 (126) and the loop's runtime index (229) keep the allocation's offset alone in
        # the immediates, where two plain pairs still fit; buffer 1 (158) adds its 4096 bytes, and none does
        ("pairs_scaled_rdna_e2m1_128x32x128_w1_s3", 126): (mixed, {"ds_store_2addr_b64": 2, st64: 14}, "agrees"),
        ("pairs_scaled_rdna_e2m1_128x32x128_w1_s3", 158): (st64, {st64: 16}, "agrees"),
        ("pairs_scaled_rdna_e2m1_128x32x128_w1_s3", 229): (mixed, {"ds_store_2addr_b64": 2, st64: 14}, "agrees")}
    report = checker.verify(str(FIXTURES / f"{names[0]}.ttgir"), engine="f2")
    got = {c["source"]["line"]: (c["parameters"].get("base_bytes"), c["details"]["pair"]["offsets"])
           for c in report["checks"] if c["property"] == "bank_conflict_free" and c["source"]["line"] in (122, 193)}
    assert got == {122: (2048, [[4, 5]]), 193: (2048, [[4, 5]])}


def test_holes_above_every_lane_offset_leave_the_pairs_alone():
    """One warp on gfx950 (pairs_scaled_e4m3_128x32x128_w1): the 128x4 i8 A scale read's lanes are tid << 2 with
    lane 5 repeated, the top lane, and no warp above it. LLVM writes that base as (tid & 31) << 2, which the
    immediate 128 setting the hole does not undo: its four reads are two ds_read2_b32 (0, 128 and 256, 384 bytes),
    in the loop (162) and after it (207). Before, they were scored as one ds_read2st64_b32 and two singles."""
    lanes = [4, 8, 16, 32, 64, 0]
    assert shift_holes(lanes, 6) == 0
    assert shift_holes(lanes + [256], 6) == 128          # a warp above the hole: the mask has a gap, (tid << 2) & M
    pr = pairing([1, 2, 128, 256], lanes, 2, 4, 1, lane_bits=6)
    assert (pr.paired, pr.fields) == (True, ((0, 32, False), (64, 96, False)))
    rows = {(pathlib.Path(r["file"]).name, r["line"]): r
            for r in _rows(FIXTURES, "3.9", ("pairs_scaled_e4m3_128x32x128_w1.gfx950",))}
    for line in (162, 207):
        r = rows[("pairs_scaled_e4m3_128x32x128_w1.gfx950.ttgir", line)]
        assert (r["scored"], r["emitted"], r["status"]) == ("ds_read2_b32", {"ds_read2_b32": 2}, "agrees")


def test_reads_after_the_loop_through_an_offset_phi():
    """tl_dot_f16 on gfx942 (tests/corpus): its epilogue's two reads of the amd_rotating_shared B tile get the
    parameter offset_phi (a loop of runtime bounds reads it the same way; two such reads after it) and are scored as
    LLVM's mix, one ds_read2st64_b64 and six ds_read_b64; the loop's own read, the A reads and the same module under
    Triton 3.8 keep their four pairs."""
    path = str(ROOT / "tests" / "corpus" / "tl_dot_f16.gfx942.ttgir")
    for version, want in (("3.9", {142: "ds_read2st64_b64+ds_read_b64", 151: "ds_read2st64_b64+ds_read_b64"}),
                          ("3.8", {})):
        report = checker.verify(path, triton_version=version)
        loads = {c["source"]["line"]: c for c in report["checks"] if c["property"] == "bank_conflict_free"
                 and c["source"]["op"] == "ttg.local_load"}
        assert {n: c["details"]["mnemonic"] for n, c in loads.items() if c["parameters"].get("offset_phi")} == want
        assert {c["details"]["mnemonic"] for n, c in loads.items() if n not in want} == {"ds_read2st64_b64"}
        # LLVM's placement may hoist the offset above the loop's guard instead: the other form is named
        assert {n: c["details"]["alternative"]["asm"] for n, c in loads.items() if "alternative" in c["details"]} \
            == {n: "ds_read2st64_b64" for n in want}
    # tl_dot_f16's shape in bytes: XOR-formed registers 0x10, 0x20 and 0x1020 (a lane bit and one above the lanes'
    # span 0x3f8): without the phi the eight 8-byte reads are four ds_read2st64 (0x1000 apart); through it only the
    # pair whose XOR has no lane bits (0 and 0x1000) forms, six reads stay single
    lanes = [0x18, 0x30, 0x60, 0xC0, 0x180, 0x300]
    plain = pairing([0x10, 0x20, 0x1020], lanes, 0, 8, 1)
    assert (plain.delta, plain.fields) == (6, ((0, 8, True),) * 4)
    phi = pairing([0x10, 0x20, 0x1020], lanes, 0, 8, 1, phi_base=True)
    assert (phi.paired, phi.fields, phi.singles) == (False, ((0, 8, True),), 6)


def test_reads_after_the_loop_sunk_into_the_epilogue_or_left_to_llvms_placement():
    """Where a read after the K loop is used only inside the epilogue's scf.if, InstCombine sinks it and its lanes'
    offset there: no phi, no alternative (a 2-stage fp16 matmul on gfx942: every B pair fused). Where it feeds
    dot_scaled's upcasts outside the scf.if (RDNA3), its offset stays in the loop's exit block: GVN merges it with
    the loop's through a phi unless SimplifyCFG hoists both copies above the loop's guard, which depends on the
    order of LLVM's instructions, not on the TTGIR. The check scores the pairs and names the phi's form: one kernel
    emits each (4 pairs; 1 pair + 14 singles)."""
    names = ("pairs_mm_32x64x64_w4.gfx942", "pairs_scaled_rdna_e4m3_64x32x64_w1.gfx1100",
             "pairs_scaled_rdna_e4m3_32x32x128_w1.gfx1100")
    rows = {(pathlib.Path(r["file"]).name, r["line"]): r for r in _rows(FIXTURES, "3.9", names)
            if r["op"] == "ttg.local_load" and "conversion" not in r}
    sunk = rows[("pairs_mm_32x64x64_w4.gfx942.ttgir", 115)]
    assert (sunk["scored"], sunk["emitted"], sunk["status"], "alternative" in sunk) == \
        ("ds_read2st64_b64", {"ds_read2st64_b64": 8}, "agrees", False)
    kept = rows[("pairs_scaled_rdna_e4m3_64x32x64_w1.gfx1100.ttgir", 204)]
    merged = rows[("pairs_scaled_rdna_e4m3_32x32x128_w1.gfx1100.ttgir", 199)]
    for r in (kept, merged):
        assert r["scored"] == "ds_load_2addr_stride64_b64"
        assert r["alternative"]["asm"] == "ds_load_2addr_stride64_b64+ds_load_b64"
        assert r["alternative"]["offset_phi"] is True and r["alternative"]["conflicts"] == 0
    assert (kept["emitted"], kept["status"]) == ({"ds_load_2addr_stride64_b64": 4}, "agrees")
    assert (merged["emitted"], merged["status"]) == ({"ds_load_2addr_stride64_b64": 1, "ds_load_b64": 14},
                                                     asm_compare.LLVM_ALTERNATIVE)
    assert merged["alternative"]["pairs_fused"] == 1 and merged["alternative"]["instructions_per_warp"] == 16


def test_three_stage_epilogue_reads_merge_their_offset_on_gfx9_and_may_not_on_rdna():
    """A 3-stage epilogue's two B reads each sink into a branch of their own, so their shared lanes' offset stays
    in the loop's exit block: on gfx942 LLVM merged it through a phi in every measured kernel (tl_dot_f16:
    one pair and six singles, scored so, the pairs named), on gfx1201 in none (an fp8 32x128x64 matmul: eight
    pairs, scored so, the phi's mix named)."""
    report = checker.verify(str(FIXTURES / "pairs_mm_fp8_32x128x64_w2_s3.gfx1201.ttgir"))
    loads = {c["source"]["line"]: c for c in report["checks"] if c["property"] == "bank_conflict_free"
             and c["source"]["op"] == "ttg.local_load" and "alternative" in c["details"]}
    assert {n: (c["details"]["mnemonic"], c["details"]["alternative"]["mnemonic"], c["parameters"].get("offset_phi"))
            for n, c in loads.items()} == {n: ("ds_load_2addr_stride64_b64", "ds_load_2addr_stride64_b64+ds_load_b64",
                                               None) for n in (136, 145)}
    assert all("; LLVM may issue it as ds_load_2addr_stride64_b64+ds_load_b64 instead (its code placement, not the "
               "TTGIR, decides whether this read's lanes' offset comes through a phi after the loop), at the same "
               "wavefronts" in c["explanation"] for c in loads.values())
    facts = json.loads((FIXTURES / "asm.json").read_text())["pairs_mm_fp8_32x128x64_w2_s3.gfx1201.ttgir"]
    assert {n: facts["lines"][str(n)] for n in (136, 145)} == {n: {"ds_load_2addr_stride64_b64": 8} for n in (136, 145)}


@pytest.mark.parametrize("registers,vector_bits,delta,group_bits,want", [
    ([0, 1], 0, 1, 0, True),               # one pair, two instructions: each read feeds one, the pair both
    ([0, 1, 2, 3], 0, 1, 0, False),        # two pairs, four instructions: a pair feeds two of them
    ([0, 1, 2, 3], 0, 2, 1, True),         # the pairs {0, 2}, {1, 3} each reach both 2-register instructions
    ([0, 1, 2, 3], 0, 1, 1, False),        # {0, 1} and {2, 3} each feed one instruction of two
    ([0, 1, 2, 3], 1, 2, 1, True),         # 2-register vectors, one pair of them, two instructions
    ([0, 2, 1, 3], 0, 1, 1, True),         # the plan's registers permuted: its accesses 0, 1 are R's 0 and 2
])
def test_kept_single_for_mma(registers, vector_bits, delta, group_bits, want):
    assert kept_single_for_mma(registers, vector_bits, delta, group_bits) is want


@pytest.mark.parametrize("kw,message", [
    ({"base_bytes": -1}, "must be a number of bytes (0 or more), got -1"),
    ({"base_bytes": True}, "must be a number of bytes (0 or more), got True"),
    ({"base_bytes": 64, "model": "triton"}, "places an ld/st access (access auto) in the hardware model, not auto in "
                                            "the triton model"),
    ({"offset_phi_alternative": True, "direction": "store"}, "describes how LLVM pairs a load (access auto) in the "
                                                             "hardware model, not a store (auto, hardware model)"),
])
def test_pairing_parameters_refuse_what_they_cannot_describe(kw, message):
    R = parse_attribute("#ttg.blocked<{sizePerThread=[1,8],threadsPerWarp=[8,4],warpsPerCTA=[1,1],order=[1,0]}>")
    S = parse_attribute("#ttg.swizzled_shared<{vec=8,perPhase=4,maxPhase=4,order=[1,0]}>")
    args = {"direction": "store", **kw}
    with pytest.raises(CheckerError) as e:
        bank_conflict_free(lower(R, (32, 32)), lower(S, (32, 32)), 8, hardware="gfx11", **args)
    assert e.value.message == message and e.value.field == next(iter(k for k in kw if k not in ("model", "direction")))
