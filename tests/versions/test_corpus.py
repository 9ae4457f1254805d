"""Kernels as each Triton compiles them: every module of tests/versions/corpus/<X.Y>/ verifies with no false
error and no problem, is checked with a version its syntax allows, and every unambiguous shared access is
scored with the instruction that version's assembly has at its line.

tests/versions/corpus/<X.Y>/: tools/version_corpus.py run under Triton X.Y on a CPU (71 to 88 modules per
version over cuda:80/90/100 and gfx942/950, Triton and Gluon kernels of tools/corpus_kernels/), with
asm.json as tests/corpus/asm.json (per TTGIR line the shared-memory instructions of the PTX / AMDGCN, and
Triton's ``metadata.shared``). tests/corpus/ is Triton 3.9's.
"""

import collections
import json
import os
import sys

import pytest

import checker
from checker.syntax.version_marks import bounds, choose, section_marks
from checker.versions import parse

from ..verify.conftest import ROOT
from .conftest import HERE

sys.path.insert(0, str(ROOT / "tools"))
import asm_compare  # noqa: E402

OLDER = ("3.5", "3.6", "3.7", "3.8")
FOLDERS = {**{v: HERE / "corpus" / v for v in OLDER}, "3.9": ROOT / "tests" / "corpus"}
# Kernel shared memory that differs from Triton's metadata.shared in every version (the liveness of a
# persistent loop's buffers, scales in TMEM, a reduction's scratch): issue "Real kernel libraries"
SHARED_ELSEWHERE = {"tl_dot_scaled_mxfp4.cuda100.ttgir", "tl_persistent_tma.cuda100.ttgir",
                    "tl_softmax_rows.cuda90.ttgir", "gl_tcgen05_tmem_a.cuda100.ttgir", "gl_ws_tcgen05.cuda100.ttgir"}
# LLVM moved the neighbouring operand's ds_read_b64_tr_b8 onto this scale load's line, beside its own ds_read_u8
# (tests/corpus has the same at line 165): ambiguous, as the line before (157) that received the rest of them
MOVED = {("3.5", "tl_dot_scaled_mxfp4.gfx950.ttgir", 159), ("3.6", "tl_dot_scaled_mxfp4.gfx950.ttgir", 159)}
# LDS pairs of Triton 3.5 / 3.6: their lowering builds these views' addresses otherwise than 3.7+ (whose lowerLdSt
# the pairing follows, checker/properties/smem/pairs.py): LLVM fuses other registers (3.6 swz: six ds_read2_b64
# where 3.7+ gives ds_read2st64_b64; 3.5: four pairs and two singles; 3.6 padded: three pairs, three singles).
# Each side moves the same words per lane, so the bank figure on gfx942/950 (a pair costs its two accesses) is the
# same; the mnemonic is not.
# Not explained: a conversion's load (tl_reduce3d on gfx942, 8x32 fp32, a reduction's result into a blocked
# layout): 3.5's and 3.6's assembly has two ds_read2_b32 at its line where the model scores one ds_read_b32 (the
# store, two ds_write2st64_b32, and the scratch agree; 3.7+ agree on all).
OLDER_PAIRS = {("3.5", "gl_views_swz.gfx950.ttgir", 50), ("3.6", "gl_views_swz.gfx950.ttgir", 50),
               ("3.6", "gl_views_padded.gfx942.ttgir", 50), ("3.5", "tl_reduce3d.gfx942.ttgir", 89),
               ("3.6", "tl_reduce3d.gfx942.ttgir", 89)}


def _modules(version):
    return sorted(FOLDERS[version].glob("*.ttgir"))


@pytest.mark.parametrize("version", OLDER)
def test_every_module_verifies_with_no_error_and_no_problem(version):
    report = checker.verify([str(p) for p in _modules(version)], engine="f2", jobs=1)
    s = report["summary"]
    assert len(_modules(version)) >= 70
    assert s["failed"] == 0 and "error" not in s["verdicts"]
    assert [p for t in s["ttgir"] for p in t["problems"]] == []
    asm = json.loads((FOLDERS[version] / "asm.json").read_text())
    fits = {c["source"]["file"].rsplit("/", 1)[1]: c for c in report["checks"]
            if c["property"] == "fits" and "kernel_bytes" in c["parameters"]}
    shared = {f: c["parameters"]["kernel_bytes"] for f, c in fits.items()}
    # a figure the module's syntax leaves to several releases is the largest, an estimate (builder.Builder)
    estimates = {f for f, c in fits.items() if c["details"]["exact"] is False and shared[f] >= asm[f]["shared"]}
    assert {f for f, n in shared.items() if n != asm[f]["shared"]} <= SHARED_ELSEWHERE | estimates
    assert len(shared) == len(_modules(version))


@pytest.mark.parametrize("version", OLDER + ("3.9",))
def test_the_syntax_never_rules_out_the_version_that_printed_it(version):
    """Every version mark is sound on real output: the Triton that compiled a module is among the versions
    its marks allow. What the marks decide: an NVIDIA module of 3.5 to 3.8 is checked with 3.8 or older
    (Triton 3.9 writes "ttng.two-ctas" on every NVIDIA module), a 3.5 module with a TMEM, AMD op or MFMA
    spelling of its own with 3.5; an AMD module of 3.6 to 3.8 with a buffer load, store or atomic with 3.8 (its
    type: the value alone), the others carry no mark that 3.9 would not print."""
    chosen = collections.Counter()
    for path in _modules(version):
        for _, _, marks in section_marks(path.read_text()):
            allowed = bounds(marks)
            assert parse(version) in allowed, (path.name, [m.describe() for m in marks])
            chosen[(path.name.split(".")[1][:4], str(choose(marks)[0].version))] += 1
    expected = {"3.5": {("cuda", "3.8"): 36, ("cuda", "3.5"): 6, ("gfx9", "3.5"): 15, ("gfx9", "3.9"): 14},
                "3.6": {("cuda", "3.8"): 49, ("gfx9", "3.9"): 26, ("gfx9", "3.8"): 6},
                "3.7": {("cuda", "3.8"): 49, ("gfx9", "3.9"): 25, ("gfx9", "3.8"): 6},
                "3.8": {("cuda", "3.8"): 56, ("gfx9", "3.9"): 26, ("gfx9", "3.8"): 6}}
    if version in expected:
        assert chosen == expected[version]


@pytest.mark.parametrize("version", OLDER)
def test_every_unambiguous_access_scores_that_versions_instruction(version):
    cwd = os.getcwd()
    os.chdir(FOLDERS[version])
    try:
        files = sorted(p.name for p in _modules(version))
        rows = asm_compare.compare(files, json.loads((FOLDERS[version] / "asm.json").read_text()),
                                   triton_version=version)
    finally:
        os.chdir(cwd)
    bad = {(version, r["file"], r["line"]) for r in rows if r["status"] == "MISMATCH"}
    assert bad == {m for m in OLDER_PAIRS if m[0] == version}
    moved = {(version, r["file"], r["line"]) for r in rows if r["status"] == asm_compare.RECEIVER}
    assert {m for m in MOVED if m[0] == version} <= moved
    compared = sum(1 for r in rows if r["status"] in ("agrees", asm_compare.LLVM_REWROTE))
    assert compared >= 210
