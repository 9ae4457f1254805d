"""Issue 10's acceptance line: the instruction scored for each shared-memory access of the corpus equals the
one in Triton 3.9's emitted assembly for that op, wherever the .loc mapping is unambiguous.

tests/corpus/: 362 TTGIR modules Triton 3.9 compiled (CPU) from tools/corpus_kernels/ for cuda:80/90/100 and
gfx942/950/1250; asm.json: per TTGIR line the shared-memory instructions of Triton's own PTX / AMDGCN
(tools/compile_corpus.py) and the plain shared loads/stores of Triton's LLVM IR before LLVM's optimizer
(``triton_llvm``). The comparison is tools/asm_compare.py's (its docstring lists the rules).
"""

import json
import os
import sys
from collections import Counter

import pytest

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import asm_compare  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"

# per target: accesses (bank_conflict_free checks, AMD fill stores folded into their copy), compared
# (unambiguous), agreeing, of which agree only in Triton's LLVM IR (LLVM re-vectorized), of which are scored as
# an AMD paired instruction (ds_read2*, ds_write2*, ds_*_2addr*: checker/properties/smem/pairs.py), of which LLVM
# left some scored pairs single (asm_compare.LLVM_UNPAIRED). Before issue 26 the paired forms were folded into
# single ones and every compared AMD access "agreed" (202, 211, 196) with no pair scored; with the pairs of linear
# layouts only, 196, 205 and 186 agreed (the 22 padded accesses of PADDED_PAIRED scored single). The 4 gfx1250
# rows LLVM left single (the mxfp4 scales in their K loops) are scored single since checker/ttgir/mma_feed.py
# (paired 40 -> 36, llvm_unpaired 4 -> 0); the 2 gfx942 rows (tl_dot_f16's epilogue, its lanes' offset through a
# phi) are scored as the mix LLVM emits since checker/ttgir/mma_feed.py's offset_phi (paired 78 -> 76).
COUNTS = {
    "cuda:80": {"accesses": 180, "compared": 174, "agree": 174, "llvm_rewrote": 0, "paired": 0,
                "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "cuda:90": {"accesses": 154, "compared": 151, "agree": 151, "llvm_rewrote": 1, "paired": 0,
                "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "cuda:100": {"accesses": 176, "compared": 176, "agree": 176, "llvm_rewrote": 1, "paired": 0,
                 "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "hip:gfx942": {"accesses": 214, "compared": 202, "agree": 202, "llvm_rewrote": 0, "paired": 76,
                   "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "hip:gfx950": {"accesses": 233, "compared": 211, "agree": 211, "llvm_rewrote": 0, "paired": 32,
                   "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "hip:gfx1250": {"accesses": 214, "compared": 196, "agree": 196, "llvm_rewrote": 0, "paired": 36,
                    "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
}

# Accesses to padded shared memory (checker/properties/padded_access.py) where the assembly differs from the scored
# instruction: none. Before padded plans went through lds_pairs, 22 of them (6 on gfx942, 6 on gfx950, 10 on
# gfx1250) scored the single form of the paired instruction LLVM emitted; test_padded_accesses_pair_as_emitted pins
# them.
PADDED_UNPAIRED = []

# the 22 padded accesses LLVM pairs, with the paired instruction the assembly has at their line
PADDED_PAIRED = {
    "gl_mfma16_padded.gfx942.ttgir:44": "ds_read2_b64", "gl_mfma16_padded.gfx950.ttgir:44": "ds_read2_b64",
    "gl_rt_padded_f32.gfx1250.ttgir:28": "ds_load_2addr_b32", "gl_rt_padded_f32.gfx942.ttgir:28": "ds_read2_b32",
    "gl_rt_padded_f32.gfx950.ttgir:28": "ds_read2_b32",
    **{f"gl_views_padded.gfx1250.ttgir:{n}": "ds_store_2addr_b64" for n in (34, 40, 46)},
    "gl_views_padded.gfx1250.ttgir:60": "ds_load_2addr_b64",
    **{f"gl_views_padded.{t}.ttgir:{n}": "ds_write2_b64" for t in ("gfx942", "gfx950") for n in (34, 40, 46)},
    "gl_views_padded.gfx942.ttgir:60": "ds_read2_b64", "gl_views_padded.gfx950.ttgir:60": "ds_read2_b64",
    **{f"tl_dot_fp8_tb.gfx1250.ttgir:{n}": "ds_load_2addr_b64" for n in (105, 121, 132)},
    **{f"tl_dot_fp8e5.gfx1250.ttgir:{n}": "ds_load_2addr_b64" for n in (92, 109)},
}

# the accesses not compared, by why (file:line)
UNCOMPARED = {
    # LLVM merged two ops' loads into one instruction without a line (ds_read2_b64 / ds_load_2addr_b64
    # under .loc 0) or sank 8/16/32-bit operand reads to the line of their user (the dot, the conversion);
    # Triton's own LLVM IR names the line with exactly the scored width
    asm_compare.NO_ASM_IR_AGREES: [
        "gl_views_padded.gfx1250.ttgir:50", "gl_views_padded.gfx1250.ttgir:52", "gl_views_padded.gfx942.ttgir:50",
        "gl_views_padded.gfx942.ttgir:52", "gl_views_padded.gfx950.ttgir:50", "gl_views_padded.gfx950.ttgir:52",
        "gl_views_swz.gfx1250.ttgir:50", "gl_views_swz.gfx1250.ttgir:52", "gl_views_swz.gfx942.ttgir:50",
        "gl_views_swz.gfx942.ttgir:52", "gl_views_swz.gfx950.ttgir:50", "gl_views_swz.gfx950.ttgir:52",
        "tl_dot_fp8e5.cuda80.ttgir:126", "tl_dot_fp8e5.cuda80.ttgir:80", "tl_dot_fp8e5.cuda80.ttgir:93",
        "tl_dot_i8_ta.cuda80.ttgir:80", "tl_dot_i8_ta.cuda80.ttgir:83", "tl_dot_i8_ta.gfx1250.ttgir:104",
        "tl_dot_i8_ta.gfx1250.ttgir:85", "tl_dot_i8_ta.gfx942.ttgir:107", "tl_dot_i8_ta.gfx942.ttgir:109",
        "tl_dot_i8_ta.gfx942.ttgir:79", "tl_dot_i8_ta.gfx942.ttgir:83", "tl_dot_i8_ta.gfx950.ttgir:111",
        "tl_dot_i8_ta.gfx950.ttgir:92", "tl_dot_scaled_mxfp4.cuda80.ttgir:119",
        "tl_dot_scaled_mxfp4.cuda90.ttgir:117", "tl_dot_scaled_mxfp4.cuda90.ttgir:119",
        "tl_dot_scaled_mxfp4.gfx942.ttgir:195", "tl_dot_scaled_mxfp4.gfx942.ttgir:196",
        "tl_dot_scaled_mxfp4.gfx950.ttgir:145", "tl_dot_scaled_mxfp4.gfx950.ttgir:148",
        "tl_dot_scaled_mxfp4.gfx950.ttgir:162", "tl_dot_scaled_mxfp4.gfx950.ttgir:163",
        "tl_dot_scaled_mxfp8_mxfp4.cuda90.ttgir:117", "tl_dot_scaled_mxfp8_mxfp4.gfx942.ttgir:192",
        "tl_dot_scaled_mxfp8_mxfp4.gfx942.ttgir:193", "tl_dot_scaled_mxfp8_mxfp4.gfx950.ttgir:143",
        "tl_dot_scaled_mxfp8_mxfp4.gfx950.ttgir:146", "tl_dot_scaled_mxfp8_mxfp4.gfx950.ttgir:160",
        "tl_dot_scaled_mxfp8_mxfp4.gfx950.ttgir:161",
    ],
    # a local_load followed by a transposed read: LLVM put both ops' instructions on the first line
    # (its own scored instruction there, plus exactly the next access's scored one)
    "ambiguous (a neighbouring access's instructions on this line)": [
        "tl_device_tma.gfx1250.ttgir:67", "tl_dot_f16_ta.gfx1250.ttgir:113", "tl_dot_scaled_mxfp4.gfx1250.ttgir:160",
        "tl_dot_scaled_mxfp8_mxfp4.gfx1250.ttgir:157", "tl_dot_scaled_mxfp8_mxfp4.gfx950.ttgir:158",
    ],
    "ambiguous (its instructions on a neighbouring line)": [
        "tl_device_tma.gfx1250.ttgir:68", "tl_dot_f16_ta.gfx1250.ttgir:115", "tl_dot_scaled_mxfp4.gfx1250.ttgir:161",
        "tl_dot_scaled_mxfp8_mxfp4.gfx1250.ttgir:158", "tl_dot_scaled_mxfp8_mxfp4.gfx950.ttgir:159",
    ],
    # transposed LDS reads (intrinsics, so not in triton_llvm) that LLVM left without a line (the facts'
    # `unmapped`) or sank to their dot's line (tl_dot_scaled_mxfp4.gfx950:161 -> 165)
    "no asm at this line": [
        "tl_dot_f16.gfx1250.ttgir:134", "tl_dot_f16.gfx1250.ttgir:144", "tl_dot_f16.gfx950.ttgir:137",
        "tl_dot_f16.gfx950.ttgir:147", "tl_dot_f16_ta.gfx950.ttgir:117", "tl_dot_scaled_mxfp4.gfx950.ttgir:161",
        "tl_split_k.gfx1250.ttgir:136", "tl_split_k.gfx1250.ttgir:146", "tl_split_k.gfx950.ttgir:141",
        "tl_split_k.gfx950.ttgir:151",
    ],
}


@pytest.fixture(scope="module")
def all_rows():
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        files = sorted(str(f.relative_to(ROOT)) for f in CORPUS.glob("*.ttgir"))
        facts = {f"tests/corpus/{k}": v for k, v in json.loads((CORPUS / "asm.json").read_text()).items()}
        return asm_compare.compare(files, facts)
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def rows(all_rows):
    """The accesses of bank_conflict_free checks."""
    return [r for r in all_rows if "conversion" not in r]


@pytest.fixture(scope="module")
def conversion_rows(all_rows):
    """The two sides of every convert_layout through shared memory (conversion_cost)."""
    return [r for r in all_rows if "conversion" in r]


# per target, the sides of the conversions through shared memory, as `COUNTS` (every AMD one since
# conversion_cost models AMD's lowering: ld/st-only swizzle, LLVM's merged and paired LDS accesses)
CONVERSION_COUNTS = {
    "cuda:80": {"accesses": 106, "compared": 104, "agree": 104, "llvm_rewrote": 0, "paired": 0,
                "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "cuda:90": {"accesses": 105, "compared": 102, "agree": 102, "llvm_rewrote": 0, "paired": 0,
                "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "cuda:100": {"accesses": 111, "compared": 108, "agree": 108, "llvm_rewrote": 0, "paired": 0,
                 "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "hip:gfx942": {"accesses": 92, "compared": 91, "agree": 91, "llvm_rewrote": 0, "paired": 20,
                   "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "hip:gfx950": {"accesses": 66, "compared": 66, "agree": 66, "llvm_rewrote": 0, "paired": 17,
                   "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
    "hip:gfx1250": {"accesses": 72, "compared": 72, "agree": 72, "llvm_rewrote": 0, "paired": 21,
                    "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0},
}


def test_every_unambiguous_conversion_side_scores_the_emitted_instruction(conversion_rows):
    """Both sides of every convert_layout through shared memory whose line maps unambiguously score the
    instructions at that line, on every target (AMD's paired ds_read2* / ds_*_2addr* included)."""
    assert asm_compare.summary(conversion_rows, conversions=True) == CONVERSION_COUNTS
    assert asm_compare.summary(conversion_rows) == {}
    assert not [r for r in conversion_rows if r["status"] == "MISMATCH"]
    uncompared = {f"{os.path.basename(r['file'])}:{r['line']}:{r['conversion']}": r["status"] for r in conversion_rows
                  if r["status"] not in ("agrees", asm_compare.LLVM_REWROTE, asm_compare.LLVM_UNPAIRED)}
    # an argmax's and a 3-D reduction's conversion loads, which LLVM sank to their users (Triton's IR has them);
    # a gfx942 conversion load whose line also holds a pipelined operand read's ds_read2_b32 (line 192 has none);
    # a 2-CTA reduction's conversion between CTAs (distributed shared memory: its cost is not modelled)
    assert uncompared == {
        **{f"gl_multicta_reduce.{t}.ttgir:26:unscored": "not scored" for t in ("cuda90", "cuda100")},
        **{f"{k}.{t}.ttgir:{n}:load": asm_compare.NO_ASM_IR_AGREES
           for k, n in (("tl_argmax", 65), ("tl_reduce3d", 84)) for t in ("cuda80", "cuda90", "cuda100")},
        "tl_dot_scaled_mxfp8_mxfp4.gfx942.ttgir:208:load": asm_compare.MOVED_HERE}
    sides = Counter(r["conversion"] for r in conversion_rows)
    assert sides["store"] == sides["load"] == 275


def test_every_unambiguous_corpus_access_scores_the_emitted_instruction(rows):
    bad = [r for r in rows if r["status"] == "MISMATCH"]
    assert sorted(f"{os.path.basename(r['file'])}:{r['line']}" for r in bad) == sorted(PADDED_UNPAIRED)
    for r in bad:  # only the pairing differs, and only on padded layouts
        (emitted,) = r["emitted"]
        assert asm_compare.PAIRED.fullmatch(emitted) and asm_compare.single_of(emitted) == r["scored"], r
        assert "padded_shared" in open(r["file"], encoding="utf-8").read()
    summary = asm_compare.summary(rows)
    assert summary == COUNTS
    padded = Counter(r["target"] for r in bad)
    assert all(s["agree"] == s["compared"] - padded[t] for t, s in summary.items())


def test_padded_accesses_pair_as_emitted(rows):
    """The padded accesses LLVM pairs score exactly the paired instruction of their line (padded plans go
    through lds_pairs with the padded immediates), and every padded access compared agrees: 218 over the six
    targets (196 agreed while padded plans were scored single)."""
    from checker.encodings.padded_shared import PaddedSharedEncoding
    from checker.ttgir.kernel import read_ir_file
    got = {f"{os.path.basename(r['file'])}:{r['line']}": r for r in rows}
    for name, ins in PADDED_PAIRED.items():
        r = got[name]
        assert (r["scored"], r["status"], set(r["emitted"])) == (ins, "agrees", {ins}), r
    padded = set()
    for f in sorted(CORPUS.glob("*.ttgir")):
        if "padded_shared" in f.read_text(encoding="utf-8"):
            padded |= {f"{f.name}:{ob.line}" for ob in read_ir_file(str(f)).obligations if ob.property ==
                       "bank_conflict_free" and isinstance(ob.operand("shared"), PaddedSharedEncoding)}
    compared, agree = Counter(), Counter()
    for name, r in got.items():
        if name in padded and r["status"] in ("agrees", "MISMATCH", asm_compare.LLVM_REWROTE,
                                              asm_compare.LLVM_UNPAIRED):
            compared[r["target"]] += 1
            agree[r["target"]] += r["status"] != "MISMATCH"
    assert compared == agree == {"cuda:80": 12, "cuda:90": 12, "cuda:100": 12, "hip:gfx942": 12, "hip:gfx950": 84,
                                 "hip:gfx1250": 86}


def test_paired_lds_accesses_score_the_exact_paired_instruction(rows):
    """Every compared AMD access whose assembly has a paired form is scored as that very form (plain or
    stride 64, b32 or b64, gfx9 or gfx1250 spelling), padded layouts included."""
    seen = Counter()
    for r in rows:
        paired = {k for k in r["emitted"] if asm_compare.PAIRED.fullmatch(k)}
        if not paired or r["status"] not in ("agrees", asm_compare.LLVM_UNPAIRED):
            continue
        assert {k for k in r["scored"].split("+") if asm_compare.PAIRED.fullmatch(k)} == paired, r
        seen[r["scored"]] += 1
    assert set(seen) == {"ds_read2_b32", "ds_read2_b64", "ds_read2st64_b32", "ds_read2st64_b64", "ds_write2_b32",
                         "ds_write2_b64", "ds_write2st64_b32", "ds_write2st64_b64", "ds_load_2addr_b32",
                         "ds_load_2addr_b64", "ds_load_2addr_stride64_b32", "ds_load_2addr_stride64_b64",
                         "ds_read2st64_b64+ds_read_b64",     # a mix: tl_dot_f16's epilogue reads on gfx942
                         "ds_store_2addr_b32", "ds_store_2addr_b64", "ds_store_2addr_stride64_b32",
                         "ds_store_2addr_stride64_b64"}


def test_reads_after_a_loop_through_an_offset_phi_score_the_mix(rows):
    """tl_dot_f16's epilogue reads of its amd_rotating_shared B tile on gfx942: the lanes' offset comes through a
    phi (checker/ttgir/mma_feed.py, offset_phi), so LLVM folds only the pair whose XOR has no lane bits: one
    ds_read2st64_b64 and six ds_read_b64, scored as that mix; no row is left to asm_compare.LLVM_UNPAIRED."""
    got = {f"{os.path.basename(r['file'])}:{r['line']}": (r["scored"], r["emitted"]) for r in rows
           if r["file"].endswith("tl_dot_f16.gfx942.ttgir") and r["line"] in (142, 151)}
    mix = ("ds_read2st64_b64+ds_read_b64", {"ds_read2st64_b64": 1, "ds_read_b64": 6})
    assert got == {"tl_dot_f16.gfx942.ttgir:142": mix, "tl_dot_f16.gfx942.ttgir:151": mix}
    assert not [r for r in rows if r["status"] == asm_compare.LLVM_UNPAIRED]


def test_the_mxfp4_scales_are_read_single_in_their_loops_and_paired_after(rows):
    """tt.dot_scaled's scale reads on gfx1250: in the K loop (one block; every WMMA_SCALE reads one of the two words
    of each scale tile) Triton 3.9's LLVM keeps the two ds_load_b32 apart, and layoutcheck scores them so
    (`kept_single`); the epilogue's copies, outside any loop, are one ds_load_2addr_stride64_b32 each."""
    got = {f"{os.path.basename(r['file'])}:{r['line']}": (r["scored"], r["emitted"], r.get("kept_single"))
           for r in rows if "scaled" in r["file"] and r["target"] == "hip:gfx1250" and r["status"] == "agrees"
           and r["scored"] in ("ds_load_b32", "ds_load_2addr_stride64_b32")}
    single, paired = ("ds_load_b32", {"ds_load_b32": 2}, "mma_loop"), \
        ("ds_load_2addr_stride64_b32", {"ds_load_2addr_stride64_b32": 1}, None)
    assert got == {"tl_dot_scaled_mxfp4.gfx1250.ttgir:145": single, "tl_dot_scaled_mxfp4.gfx1250.ttgir:148": single,
                   "tl_dot_scaled_mxfp8_mxfp4.gfx1250.ttgir:142": single,
                   "tl_dot_scaled_mxfp8_mxfp4.gfx1250.ttgir:145": single,
                   "tl_dot_scaled_mxfp4.gfx1250.ttgir:162": paired, "tl_dot_scaled_mxfp4.gfx1250.ttgir:163": paired,
                   "tl_dot_scaled_mxfp8_mxfp4.gfx1250.ttgir:159": paired,
                   "tl_dot_scaled_mxfp8_mxfp4.gfx1250.ttgir:160": paired}


def test_uncompared_accesses_by_category(rows):
    got = {}
    for r in rows:
        if r["status"] not in ("agrees", asm_compare.LLVM_REWROTE, asm_compare.LLVM_UNPAIRED, "MISMATCH"):
            got.setdefault(r["status"], []).append(f"{os.path.basename(r['file'])}:{r['line']}")
    assert {k: sorted(v) for k, v in got.items()} == UNCOMPARED
    assert asm_compare.NO_ASM_IR_DIFFERS not in got
    facts = json.loads((CORPUS / "asm.json").read_text())
    for r in rows:  # the unmapped ones' scored instruction is there, without a line or at a later one
        if r["status"] == "no asm at this line":
            fx = facts[os.path.basename(r["file"])]
            where = [fx["unmapped"]] + [v for k, v in fx["lines"].items() if int(k) > r["line"]]
            assert any(asm_compare.normalize(i) == r["scored"] for c in where for i in c), r


def test_amd_async_copy_with_other_fills_with_an_lds_store(rows):
    fills = [r for r in rows if r.get("fill")]
    assert {(os.path.basename(r["file"]), r["line"]) for r in fills} == {
        ("tl_device_tma.gfx950.ttgir", n) for n in (90, 103, 127, 141)}
    for r in fills:
        assert (r["scored"], r["fill"], r["status"]) == ("global_load_lds_dwordx4", "ds_write_b128", "agrees")
        assert set(r["emitted"]) == {"global_load_lds_dwordx4", "ds_write_b128"}


def test_fma_operand_is_scored_as_triton_lowers_it(rows):
    """tl_dot_fp32_ieee: A (dot_op of a blocked parent, fp32) from an unswizzled row-major buffer. Triton
    emits 16 ld.shared.b128 (align 16) on every NVIDIA target; LLVM keeps them on cuda:80 and rewrites them
    into 48 ld.shared.b32 + 4 ld.shared.v4.b32 on cuda:90 / cuda:100 (the same 2048 bits)."""
    got = {os.path.basename(r["file"]): r for r in rows
           if r["file"].endswith(("tl_dot_fp32_ieee.cuda80.ttgir", "tl_dot_fp32_ieee.cuda90.ttgir",
                                  "tl_dot_fp32_ieee.cuda100.ttgir")) and r["line"] == 66}
    assert {n: (r["scored"], r["status"]) for n, r in got.items()} == {
        "tl_dot_fp32_ieee.cuda80.ttgir": ("ld.shared.b128", "agrees"),
        "tl_dot_fp32_ieee.cuda90.ttgir": ("ld.shared.b128", asm_compare.LLVM_REWROTE),
        "tl_dot_fp32_ieee.cuda100.ttgir": ("ld.shared.b128", asm_compare.LLVM_REWROTE)}
    assert got["tl_dot_fp32_ieee.cuda90.ttgir"]["emitted"] == {"ld.shared.b32": 48, "ld.shared.b128": 4}


def test_non_access_instructions_are_ignored():
    assert not asm_compare.is_access(asm_compare.normalize("mbarrier.try_wait.parity.shared::cta.b64"))
    assert not asm_compare.is_access(asm_compare.normalize("tcgen05.wait::ld.sync.aligned"))
    assert not asm_compare.is_access("cp.async.commit_group") and not asm_compare.is_access("ds_add_u32")
    for ins in ("st.shared.v4.b32", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "ds_write_b128",
                "ds_read_b64_tr_b16", "global_load_lds_dwordx4", "global_load_async_to_lds_b128",
                "cp.async.cg.shared.global:16"):
        assert asm_compare.is_access(asm_compare.normalize(ins)), ins


def test_triton_llvm_ir_facts_and_rewrite_rule():
    ir = ("  %5 = load <4 x i32>, ptr addrspace(3) %4, align 16, !dbg !23\n"
          "  store <2 x half> %v, ptr addrspace(3) %p, align 4, !dbg !24\n"
          "  %6 = load float, ptr addrspace(1) %q, align 4, !dbg !23\n"
          "!23 = !DILocation(line: 66, column: 5, scope: !7)\n!24 = !DILocation(line: 70, column: 5, scope: !7)\n")
    assert asm_compare.llvm_shared_accesses(ir) == {66: Counter({"ld.shared.b128@16": 1}),
                                                    70: Counter({"st.shared.b32@4": 1})}
    fx = {"triton_llvm": {"66": {"ld.shared.b128@16": 16}}}
    row = {"scored": "ld.shared.b128"}
    assert asm_compare._llvm_rewrote(row, {"ld.shared.b32": 48, "ld.shared.b128": 4}, fx, 66)
    assert not asm_compare._llvm_rewrote(row, {"ld.shared.b32": 48}, fx, 66)           # fewer bytes
    assert not asm_compare._llvm_rewrote({"scored": "ld.shared.b64"}, {"ld.shared.b32": 64}, fx, 66)


def test_fill_store_plan():
    import checker
    from checker.errors import CheckerError
    from checker.hardware import PRESETS
    from checker.properties.smem.plan import normalize, plan
    S = checker.lower(checker.parse_encoding(
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"), [64, 64])

    def blocked(lanes):
        return checker.lower(checker.parse_encoding(
            f"#ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [{lanes // 8}, 8], warpsPerCTA = [4, 1], "
            f"order = [1, 0]}}>"), [64, 64])

    for name, ins in (("gfx950", "ds_write_b128"), ("gfx1250", "ds_store_b128")):
        hw = PRESETS[name]
        R = blocked(hw.warp_size)
        copy = plan(*normalize(R, S), 16, "store", "cp.async", hw)
        fill = plan(*normalize(R, S), 16, "store", "fill_store", hw)
        assert fill.asm(hw) == ins and fill.vector_bytes == copy.vector_bytes == 16
    with pytest.raises(CheckerError):
        plan(*normalize(blocked(32), S), 16, "store", "fill_store", PRESETS["sm80"])
