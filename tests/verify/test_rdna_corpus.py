"""The corpus's generic kernels compiled for RDNA3 and RDNA4 (gfx1100, gfx1201: the gfx11 / gfx12 presets, wave32
over 32 banks) by Triton 3.9 on the CPU: tests/corpus_rdna/ (tools/compile_corpus.py --out tests/corpus_rdna
--targets gfx1100 gfx1201; every case meant for all targets, with asm.json's facts as in tests/corpus).

* every module verifies with no internal error and no failed error-severity check, and its kernel's shared
  memory (fits[kernel]) is Triton's metadata.shared;
* the instruction scored for every shared access and both sides of every conversion through shared memory is the
  one in Triton's AMDGCN wherever the line maps unambiguously, but for one kernel's stores (below).
"""

import json
import os
import sys
from collections import Counter

import pytest

import checker

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import asm_compare  # noqa: E402

CORPUS = ROOT / "tests" / "corpus_rdna"
FILES = sorted(p.name for p in CORPUS.glob("*.ttgir"))
FACTS = json.loads((CORPUS / "asm.json").read_text()) if CORPUS.exists() else {}

# tl_dot_f16_ta's B tile into amd_rotating_shared: 8-byte stores whose two accesses of one address register are
# told apart by a register Triton XORs in (not additive): the other address registers' stores come between them in
# Triton's issue order, and LLVM does not move a store past a store it may alias, so all 16 stay single
# (checker/properties/smem/pairs.py, rule 2). They were scored as pairs of both forms before (the 4 mismatches).
STORES_APART = {f"tl_dot_f16_ta.{t}.ttgir:{n}" for t in ("gfx1100", "gfx1201") for n in (77, 108)}


@pytest.fixture(scope="module")
def rows():
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return asm_compare.compare([f"tests/corpus_rdna/{f}" for f in FILES],
                                   {f"tests/corpus_rdna/{k}": v for k, v in FACTS.items()})
    finally:
        os.chdir(cwd)


def test_the_rdna_corpus_is_there():
    assert len(FILES) == 112         # 58 cases x 2 targets; tl_dot_tf32_tb refused (no tf32 dot on RDNA)
    assert {name.split(".")[1] for name in FILES} == {"gfx1100", "gfx1201"}
    assert set(FACTS) == set(FILES)


def test_every_rdna_module_verifies_and_takes_tritons_shared_memory():
    report = checker.verify([str(CORPUS / f) for f in FILES], engine="f2")
    budgets = {os.path.basename(c["source"]["file"]): c for c in report["checks"] if c["id"].endswith("fits[kernel]")}
    assert set(budgets) == set(FILES)
    assert {n: c["details"]["kernel_bytes"] for n, c in budgets.items()} == {n: FACTS[n]["shared"] for n in FILES}
    assert all(c["details"]["exact"] for c in budgets.values())
    assert [c["id"] for c in report["checks"] if c["verdict"] == "error"] == []
    assert [c["id"] for c in report["checks"] if not c["passed"] and c["severity"] == "error"] == []


def test_rdna_accesses_score_the_emitted_instruction(rows):
    assert asm_compare.summary(rows) == {
        "hip:gfx1100": {"accesses": 207, "compared": 201, "agree": 201, "llvm_rewrote": 0, "paired": 47,
                        "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 1},
        "hip:gfx1201": {"accesses": 207, "compared": 201, "agree": 201, "llvm_rewrote": 0, "paired": 68,
                        "llvm_unpaired": 0, "llvm_peeled": 0, "llvm_alternative": 0}}
    apart = {f"{os.path.basename(r['file'])}:{r['line']}": r for r in rows
             if r["status"] == "agrees" and "tl_dot_f16_ta" in r["file"] and r["emitted"] == {"ds_store_b64": 16}}
    assert set(apart) == STORES_APART
    assert {r["scored"] for r in apart.values()} == {"ds_store_b64"}
    assert asm_compare.summary(rows, conversions=True) == {
        t: {"accesses": 88, "compared": 86, "agree": 86, "llvm_rewrote": 0, "paired": 14, "llvm_unpaired": 0,
            "llvm_peeled": 0, "llvm_alternative": 0}
        for t in ("hip:gfx1100", "hip:gfx1201")}
    assert Counter(r["status"] for r in rows if "conversion" in r and r["status"] != "agrees") == {
        asm_compare.NO_ASM_IR_AGREES: 4}


def test_reads_after_the_loop_name_the_instruction_llvms_placement_may_choose(rows):
    """The decomposed dot_scaled's B reads after the K loop (gfx1100) feed the upcasts outside the epilogue's
    scf.if, so their lanes' offset stays in the loop's exit block, where LLVM may merge it with the loop's through
    a phi (then only the pairs whose XOR has no lane bits fuse) or hoist it above the loop's guard (every pair
    fuses). Both checks score the four-pair form and name the other: tl_dot_scaled_mxfp4's assembly is the first,
    tl_dot_scaled_mxfp8_mxfp4's the second, two pairs and 28 singles (`asm_compare.LLVM_ALTERNATIVE`)."""
    got = {os.path.basename(r["file"]).split(".")[0]: r for r in rows
           if r.get("alternative") and r["target"] == "hip:gfx1100"}
    assert set(got) == {"tl_dot_scaled_mxfp4", "tl_dot_scaled_mxfp8_mxfp4"}
    for r in got.values():
        assert r["scored"] == "ds_load_2addr_stride64_b64"
        assert r["alternative"] == {"mnemonic": "ds_load_2addr_stride64_b64+ds_load_b64",
                                    "asm": "ds_load_2addr_stride64_b64+ds_load_b64", "instructions_per_warp": 32,
                                    "conflicts": 0, "wavefronts": 256, "offset_phi": True, "pairs_fused": 2}
    assert (got["tl_dot_scaled_mxfp4"]["line"], got["tl_dot_scaled_mxfp4"]["status"]) == (200, "agrees")
    assert got["tl_dot_scaled_mxfp4"]["emitted"] == {"ds_load_2addr_stride64_b64": 16}
    mixed = got["tl_dot_scaled_mxfp8_mxfp4"]
    assert (mixed["line"], mixed["status"]) == (197, asm_compare.LLVM_ALTERNATIVE)
    assert mixed["emitted"] == {"ds_load_2addr_stride64_b64": 2, "ds_load_b64": 28}
