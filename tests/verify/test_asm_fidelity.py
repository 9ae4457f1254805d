"""The instruction layoutcheck scores for each shared-memory access is the one Triton 3.9 emits.

Facts: Triton 3.9 (CPU) compiled each fixture's TTGIR text to PTX / AMDGCN; `tools/asm_compare.py facts`
recorded the shared-memory instructions per TTGIR line (``.loc``). specs/kernels/: the 15 tutorial kernels
(tests/verify/asm_facts.json); tests/verify/asm/: matmuls for gfx950 / gfx1250 (Triton's padded layouts
replaced by swizzled or linear ones, as the padded bank model is separate) with transposed LDS reads and
direct-to-LDS copies, a batched (3-D) dot and 8-bit operands on cuda:80 / cuda:90.
"""

import json
import sys

import pytest

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import asm_compare  # noqa: E402

SETS = {
    "specs": (sorted((ROOT / "specs" / "kernels").glob("*.ttgir")), ROOT / "tests" / "verify" / "asm_facts.json"),
    "asm": (sorted((ROOT / "tests" / "verify" / "asm").glob("*.ttgir")),
            ROOT / "tests" / "verify" / "asm" / "asm_facts.json"),
}
# (accesses compared, per target) at the time of writing; every compared access agrees
COMPARED = {
    "specs": {"cuda:80": 20, "cuda:90": 11, "hip:gfx942": 25},
    "asm": {"cuda:80": 8, "cuda:90": 8, "hip:gfx1250": 26, "hip:gfx950": 27},
}


def _rows(name):
    files, facts = SETS[name]
    data = json.loads(facts.read_text())
    return asm_compare.compare([str(f.relative_to(ROOT)) if f.is_relative_to(ROOT) else str(f) for f in files],
                               {str(ROOT / k) if not k.startswith("/") else k: v for k, v in data.items()})


@pytest.fixture(scope="module")
def rows(request):
    import os
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        return {name: _rows(name) for name in SETS}
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_unambiguous_access_scores_the_emitted_instruction(rows, name):
    bad = [r for r in rows[name] if r["status"] == "MISMATCH"]
    assert bad == []
    summary = asm_compare.summary(rows[name])
    assert {t: s["compared"] for t, s in summary.items()} == COMPARED[name]
    assert all(s["agree"] == s["compared"] for s in summary.values())


def test_transposed_lds_reads_and_direct_to_lds_copies_are_scored(rows):
    scored = {r["scored"] for r in rows["asm"] if r["status"] == "agrees"}
    assert {"ds_read_b64_tr_b16", "ds_read_b64_tr_b8", "ds_load_tr16_b128", "ds_load_tr8_b64",
            "global_load_lds_dwordx4", "global_load_async_to_lds_b128", "ds_read_b128", "ds_load_b128",
            "ldmatrix.x4.trans", "cp.async.b64", "cp.async.b128"} <= scored


def test_normalization_of_emitted_instructions():
    n = asm_compare.normalize
    assert n("st.shared.v4.b16") == "st.shared.b64" and n("ld.shared.v4.b32") == "ld.shared.b128"
    assert n("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16") == "ldmatrix.x4.trans"
    assert n("cp.async.ca.shared.global:8") == "cp.async.b64"
    # LLVM's paired LDS accesses keep their names: layoutcheck scores the pair (checker/properties/smem/pairs.py)
    for paired in ("ds_read2st64_b64", "ds_write2_b32", "ds_load_2addr_b64", "ds_store_2addr_stride64_b32"):
        assert n(paired) == paired and asm_compare.is_access(paired)
    assert asm_compare.single_of("ds_read2st64_b64") == "ds_read_b64"
    assert asm_compare.single_of("ds_store_2addr_stride64_b32") == "ds_store_b32"
    assert n("ds_read_u16_d16_hi") == "ds_read_u16" and n("ds_read_b32") == "ds_read_b32"
    assert n("ds_read_b64_tr_b16") == "ds_read_b64_tr_b16"


def test_asm_line_mapping():
    ptx = "\t.loc\t1 12 5\n\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1}, [%r2];\n" \
          "\t.loc\t1 14 3\n\tcp.async.cg.shared.global [ %r3 + 0 ], [ %rd1 + 0 ], 0x10, %r4;\n" \
          "\tcp.async.commit_group;\n"
    got = asm_compare.asm_instructions(ptx)
    assert got == {"12": {"ldmatrix.sync.aligned.m8n8.x4.shared.b16": 1}, "14": {"cp.async.cg.shared.global:16": 1}}


# 3-D ldmatrix.trans (batched dot, #shared order [2, 0, 1], fp16, cuda:80): Triton emits
# ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 (x2 per warp), as scored. The row addresses its PTX gives
# lanes 0-7 of warp 0 (relative to the B buffer): 0, 32, 256, 288, 512, 544, 768, 800 bytes: Triton 3.9
# takes as first row bit the register with the fewest conflicts in its 16-byte-row model (the one holding
# N+16: 3 conflicts), not R's first (K+1, which then picks the matrix; rows 0, 128, ..., 896: 7 conflicts).
# tests/properties/smem/test_plan.py::test_matrix_rows_are_the_emitted_ones checks the rule on PTX.
TRITON_ROWS_3D = [0, 32, 256, 288, 512, 544, 768, 800]


def test_3d_ldmatrix_trans_rows_are_the_emitted_ones():
    import checker
    from checker.hardware import PRESETS
    from checker.properties.smem.plan import normalize, plan
    R = checker.lower(checker.parse_encoding(
        "#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
        "warpsPerCTA = [2, 1, 2], instrShape = [1, 16, 8]}>, kWidth = 2}>"), [2, 32, 32])
    S = checker.lower(checker.parse_encoding(
        "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [2, 0, 1]}>"), [2, 32, 32])
    p = plan(*normalize(R, S), 16, "load", "auto", PRESETS["sm80"])
    assert p.asm(PRESETS["sm80"]) == "ldmatrix.x4.trans"
    rows = sorted({p.cvt.apply({"register": r, "lane": lane, "warp": 0})["offset"] * 2 // 16 * 16
                   for r in (0, 1) for lane in range(4)})
    assert rows == TRITON_ROWS_3D
