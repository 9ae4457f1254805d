"""A conversion's reads that LLVM sinks into the first branch of the masked store its result feeds (AMD): the reader
(checker/ttgir/store_branch.py), the pairing apart (checker/properties/smem/pairs.py ``sunk_apart``), and a mix of
paired and single reads scored kind by kind on gfx1250 (checker/properties/smem/plan.py ``mix_groups``). Fixtures:
tools/compile_lds_pairs.py's transpose copies (FlagGems' ``t_copy_2d_kernel``) for gfx1250, compiled by Triton 3.9.0
and 3.8.0 (``triton38/``), with the shared-memory instructions of their AMDGCN per TTGIR line (asm.json)."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import checker
from checker.encodings import lower
from checker.errors import CheckerError
from checker.hardware import resolve
from checker.properties.conversion_cost import judge, lower_conversion, sunk_changes_pairs
from checker.properties.smem.pairs import pairing
from checker.properties.smem.plan import mix_groups
from checker.syntax.mlir_attr import parse_attribute

ROOT = pathlib.Path(__file__).parents[2]
FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "lds_pairs_loop"
LIBRARY = pathlib.Path(__file__).parent / "fixtures" / "store_branch_lib"
sys.path.insert(0, str(ROOT / "tools"))
import asm_compare  # noqa: E402

# fixture -> (its convert_layout's line, the masked store's line, sunk_registers, the load's instructions per warp
# as LLVM issues them, its wavefronts per CTA, its conflicts), all on gfx1250
COPIES = {
    # one 8-element vector per branch: its four reads sink, each away from its pair partner
    "pairs_tcopy_masked_64x64_w4": (72, 73, list(range(8)),
                                    {"ds_load_2addr_b32": 4, "ds_load_b32": 8}, 48, 0),
    # two 4-element vectors per branch (the mask's constancy 16 covers i and i + 8): the sunk reads pair among
    # themselves 64 words apart, stride-64, the others plain; both 64 words apart: one bank in one phase
    "pairs_tcopy_masked_f32_64x32_w2": (73, 74, list(range(8)),
                                        {"ds_load_2addr_b32": 12, "ds_load_2addr_stride64_b32": 4}, 48, 1),
    "pairs_tcopy_masked_bf16_128x16_w2": (73, 74, list(range(8)),
                                          {"ds_load_2addr_b32": 6, "ds_load_2addr_stride64_b32": 2}, 24, 1),
    # one warp: 16 registers in the first branch, 8 reads left without their partners
    "pairs_tcopy_masked_i8_128x32_w1": (73, 74, list(range(16)),
                                        {"ds_load_2addr_b32": 12, "ds_load_b32": 8}, 20, 0),
}


def _conversion(report: dict) -> dict:
    (c,) = [c for c in report["checks"] if c["property"] == "conversion_cost"]
    return c


@pytest.mark.parametrize("name", sorted(COPIES))
def test_the_reader_gives_the_sunk_registers_and_the_load_is_scored_as_issued(name):
    line, store_line, sunk, issued, wavefronts, conflicts = COPIES[name]
    c = _conversion(checker.verify(str(FIXTURES / f"{name}.gfx1250.ttgir")))
    load = c["details"]["load"]
    assert (c["source"]["line"], c["parameters"]["sunk_registers"]) == (line, sunk)
    assert load["mnemonic"] == "+".join(sorted(k for k in issued if "2addr" in k)
                                        + [k for k in issued if "2addr" not in k])
    assert load["instructions_per_warp"] == sum(issued.values())
    assert load["pairs_fused"] == sum(n for k, n in issued.items() if "2addr" in k)
    assert (load["wavefronts"], load["conflicts"]) == (wavefronts, conflicts)
    assert (c["verdict"] == "holds") == (conflicts == 0)
    assert f"dst registers {sunk[0]}-{sunk[-1]} (the masked store's first branch)" in c["explanation"]
    assert asm_compare._store_line(str(FIXTURES / f"{name}.gfx1250.ttgir"), line) == store_line


@pytest.mark.parametrize("folder,version", [(FIXTURES, "3.9"), (FIXTURES / "triton38", "3.8")])
def test_every_copy_is_scored_as_emitted(folder, version):
    """Each load as Triton 3.9.0's (and 3.8.0's) AMDGCN has it, the reads LLVM gave the store's line included; the
    unmasked copy (no branch) fuses every pair."""
    facts = json.loads((folder / "asm.json").read_text())
    files = sorted(folder.glob("pairs_tcopy_*.gfx1250.ttgir"))
    rows = asm_compare.compare([str(f) for f in files], {str(f): facts[f.name] for f in files}, triton_version=version)
    loads = {pathlib.Path(r["file"]).name.split(".")[0]: r for r in rows if r.get("conversion") == "load"}
    assert {n: r["status"] for n, r in loads.items()} == {n: "agrees" for n in list(COPIES) + ["pairs_tcopy_64x64_w4"]}
    for name, (_, store_line, _, issued, _, _) in COPIES.items():
        r = loads[name]
        assert r["sunk_line"] == store_line
        if name != "pairs_tcopy_masked_i8_128x32_w1":      # one of its pairs has no line in the AMDGCN (line 0)
            assert r["emitted"] == issued, name
    assert (loads["pairs_tcopy_64x64_w4"]["scored"], loads["pairs_tcopy_64x64_w4"]["emitted"]) == (
        "ds_load_2addr_b32", {"ds_load_2addr_b32": 8})


# library kernels (their @triton.jit functions compiled as they are, Triton 3.9.0): fixture -> (the conversion's line,
# the store's line, sunk_registers, the load's instructions as the AMDGCN has them)
LIBRARY_ROWS = {
    # the FlagGems row of stop 48's library check, now scored as emitted
    "flaggems_t_copy_fp16_64x64_w4.gfx1250": (72, 73, list(range(8)), {"ds_load_2addr_b32": 4, "ds_load_b32": 8}),
    # an index converted, widened to i64 (arith.extsi) and stored masked: the first 2-element vector's read sinks, away
    # from its stride-64 partner (gfx942: two ds_read_b64 where one ds_read2st64_b64 was scored)
    "flaggems_sort_fp16_1024_w4.gfx942": (3032, 3034, [0, 1], {"ds_read_b64": 2}),
    "flaggems_sort_fp16_1024_w4.gfx1250": (3032, 3034, [0, 1], {"ds_load_2addr_b64": 1, "ds_load_b64": 2}),
    # a 64x1 column converted to the WMMA layout, then broadcast, multiplied and selected before the masked store:
    # the value moves through the broadcast to the stored registers, and register 0 reaches only the first branch
    "fla_chunk_scaled_dot_kkt_K64_BK32_fp16_w2_s3.gfx1250": (113, 136, [0], {"ds_load_2addr_b32": 1, "ds_load_b32": 2}),
}


def test_library_kernels_are_scored_as_emitted():
    facts = json.loads((LIBRARY / "asm.json").read_text())
    files = sorted(LIBRARY.glob("*.ttgir"))
    rows = asm_compare.compare([str(f) for f in files], {str(f): facts[f.name] for f in files}, triton_version="3.9")
    assert not [r for r in rows if r["status"] == "MISMATCH" or r["status"] == asm_compare.LLVM_UNPAIRED]
    for name, (line, store_line, sunk, emitted) in LIBRARY_ROWS.items():
        (r,) = [r for r in rows if r["file"].endswith(f"{name}.ttgir") and r["line"] == line
                and r.get("conversion") == "load"]
        assert (r["status"], r["sunk_line"], r["emitted"]) == ("agrees", store_line, emitted), name
        c = _conversion_at(checker.verify(str(LIBRARY / f"{name}.ttgir")), line)
        assert c["parameters"]["sunk_registers"] == sunk, name


def _conversion_at(report: dict, line: int) -> dict:
    (c,) = [c for c in report["checks"] if c["property"] == "conversion_cost" and c["source"]["line"] == line]
    return c


@pytest.mark.parametrize("folder,version", [(FIXTURES, "3.9"), (FIXTURES / "triton38", "3.8")])
def test_two_copies_in_a_row_each_sink_into_their_own_store(folder, version):
    """The second conversion's reads follow the first store's branches, in the join of its last one, whose one
    successor is the second store's first branch: they sink there too."""
    name = "pairs_tcopy2_masked_f32_64x32_w2.gfx1250.ttgir"
    facts = json.loads((folder / "asm.json").read_text())
    rows = asm_compare.compare([str(folder / name)], {str(folder / name): facts[name]}, triton_version=version)
    loads = [r for r in rows if r.get("conversion") == "load"]
    assert [(r["status"], r["emitted"]) for r in loads] == [
        ("agrees", {"ds_load_2addr_b32": 12, "ds_load_2addr_stride64_b32": 4})] * 2
    report = checker.verify(str(folder / name), triton_version=version)
    assert [c["parameters"].get("sunk_registers") for c in report["checks"] if c["property"] == "conversion_cost"] \
        == [list(range(8))] * 2


def test_no_parameter_where_a_write_or_a_branch_comes_between(tmp_path):
    """InstCombine sinks a load only past code that neither writes memory nor branches: a barrier or a masked load
    between the conversion and its store keeps every read in the conversion's block, as without a mask."""
    text = (FIXTURES / "pairs_tcopy_masked_64x64_w4.gfx1250.ttgir").read_text()
    convert = ("    %8 = ttg.convert_layout %x_44 : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked1> "
               "loc(#loc15)\n")
    assert convert in text
    between = {"barrier": "    gpu.barrier loc(#loc15)\n",
               "masked load": "    %y = tt.load %7, %mask_36 : tensor<64x64x!tt.ptr<f16>, #blocked1> loc(#loc15)\n"}
    for what, line in between.items():
        path = tmp_path / f"between_{what.replace(' ', '_')}.gfx1250.ttgir"
        path.write_text(text.replace(convert, convert + line))
        c = _conversion(checker.verify(str(path)))
        assert "sunk_registers" not in c["parameters"], what
        assert (c["details"]["load"]["mnemonic"], c["details"]["load"]["wavefronts"]) == ("ds_load_2addr_b32", 32)
    path = tmp_path / "between_arith.gfx1250.ttgir"          # register arithmetic between: the reads still move
    path.write_text(text.replace(convert, convert + "    %z = arith.addi %6, %6 : tensor<64x64xi64, #blocked1> "
                                 "loc(#loc15)\n"))
    assert _conversion(checker.verify(str(path)))["parameters"]["sunk_registers"] == list(range(8))


def test_no_parameter_where_nothing_moves_apart():
    """No mask, no branch: nothing sinks. Where the reads fuse nothing (gfx950 reads these 2-byte elements one at a
    time), the parameter would change nothing, so the reader leaves it out and the check keeps sharing its proof."""
    plain = _conversion(checker.verify(str(FIXTURES / "pairs_tcopy_64x64_w4.gfx1250.ttgir")))
    assert "sunk_registers" not in plain["parameters"]
    assert (plain["details"]["load"]["mnemonic"], plain["details"]["load"]["wavefronts"]) == ("ds_load_2addr_b32", 32)
    src, dst = _layouts()
    assert sunk_changes_pairs(src, dst, 16, "gfx1250", list(range(8)))
    assert not sunk_changes_pairs(src, dst, 16, "gfx1250", list(range(64)))
    src, dst = (lower(parse_attribute(e), [64, 64]) for e in (SRC64, DST64))
    assert lower_conversion(src, dst, 16, "gfx950").load.plan.mnemonic(resolve("gfx950")) == "ds_read_u16"
    assert not sunk_changes_pairs(src, dst, 16, "gfx950", list(range(4)))


SRC = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
DST = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
SRC64 = "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>"
DST64 = "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"


def _layouts():
    return lower(parse_attribute(SRC), [64, 64]), lower(parse_attribute(DST), [64, 64])


def test_the_sunk_reads_pair_apart():
    """The FlagGems row by hand: dst's registers 0-7 sink; 4 of the 8 pairs keep both reads on one side."""
    src, dst = _layouts()
    whole = lower_conversion(src, dst, 16, "gfx1250").load
    apart = lower_conversion(src, dst, 16, "gfx1250", list(range(8))).load
    assert (whole.plan.pair.paired, len(whole.plan.pair.fields), whole.instructions_per_warp, whole.wavefronts) == (
        True, 8, 8, 32)
    assert (apart.plan.pair.paired, len(apart.plan.pair.fields), apart.plan.pair.singles) == (False, 4, 8)
    assert [(k.plan.mnemonic(resolve("gfx1250")), k.count, k.cost) for k in apart.kinds] == [
        ("ds_load_b32", 8, 1), ("ds_load_2addr_b32", 4, 1)]
    assert (apart.instructions_per_warp, apart.wavefronts, apart.min_wavefronts) == (12, 48, 48)



def test_a_gfx9_mix_is_named_as_issued_and_costs_its_single_reads():
    """gfx942: a pair costs its two single passes, so a mix is one kind, the plan's 16 single reads (128 wavefronts
    with or without the pairs), named as LLVM issues it."""
    src, dst = (lower(parse_attribute(e), [64, 64]) for e in (SRC64, DST64))
    whole = lower_conversion(src, dst, 32, "gfx942").load
    apart = lower_conversion(src, dst, 32, "gfx942", [0, 1]).load
    hw = resolve("gfx942")
    assert (whole.plan.mnemonic(hw), whole.instructions_per_warp, whole.wavefronts) == ("ds_read2_b32", 8, 128)
    assert (apart.plan.mnemonic(hw), apart.plan.pair.singles, len(apart.plan.pair.fields)) == (
        "ds_read2_b32+ds_read_b32", 4, 6)
    assert [(k.plan is apart.plan, k.count) for k in apart.kinds] == [(True, 16)]
    assert (apart.instructions_per_warp, apart.wavefronts) == (16, 128)
    assert apart.to_dict(hw, 0)["pairs_fused"] == 6 and "issued" not in apart.to_dict(hw, 0)


def test_several_reps_take_no_sink():
    """A round trip of two reps (a 256x128 f32 transpose on gfx1250): a barrier precedes each rep's reads, so the
    sink is not applied; the plan is the one without it, and the explanation names no sunk registers."""
    src, dst = (lower(parse_attribute(e), [256, 128]) for e in (SRC, DST))
    with_sink, plain = lower_conversion(src, dst, 32, "gfx1250", list(range(8))), lower_conversion(src, dst, 32,
                                                                                                     "gfx1250")
    assert (with_sink.load.reps, with_sink.sunk) == (2, None)
    assert with_sink.load.plan == plain.load.plan and "dst registers" not in with_sink.summary()


def test_bad_sunk_registers_name_the_parameter():
    for bad in ([64], [-1], "0-7", [True], 3):
        with pytest.raises(CheckerError) as e:
            judge(parse_attribute(SRC), parse_attribute(DST), [64, 64], "f16", hardware="gfx1250", sunk_registers=bad)
        assert e.value.field == "sunk_registers"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 255), min_size=2, max_size=6, unique=True),
       st.lists(st.integers(1, 4095), min_size=1, max_size=5), st.sampled_from([4, 8]),
       st.integers(0, 63))
def test_one_side_pairs_as_without_sinking(regs, lanes, width, pattern):
    """Sinking every read, or none, pairs as the plain walk does; sinking some leaves every access either in a pair
    or single, each pair's two reads told apart by one register combination of its side."""
    plain = pairing(regs, lanes, 0, width, width, None)
    for everything in (True, False):
        assert pairing(regs, lanes, 0, width, width, None, sunk=lambda m, e=everything: e) == plain
    side = [bool(pattern >> (m % 6) & 1) for m in range(1 << len(regs))]
    sunk = pairing(regs, lanes, 0, width, width, None, sunk=side.__getitem__)
    if sunk.fields:
        assert 2 * len(sunk.fields) + sunk.singles == 1 << len(regs)
        deltas = sunk.pair_deltas or (sunk.delta,) * len(sunk.fields)
        assert len(deltas) == len(sunk.fields) and all(0 < d < 1 << len(regs) for d in deltas)


def test_mix_groups_count_every_instruction_once():
    """gfx1250: the kinds of a mix add up to the reads LLVM issues (pairs once, singles once); gfx942: one kind."""
    src, dst = _layouts()
    load = lower_conversion(src, dst, 16, "gfx1250", list(range(8))).load
    kinds = mix_groups(load.plan, resolve("gfx1250"))
    assert sum(n for _, n in kinds) == load.plan.pair.singles + len(load.plan.pair.fields) == 12
    assert sum(n * (2 if q.pair is not None else 1) for q, n in kinds) == load.plan.instructions_per_warp == 16
