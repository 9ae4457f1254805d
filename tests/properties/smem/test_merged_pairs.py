"""Adjacent AMD LDS accesses that LLVM merges into one wider access before pairing (`smem.plan._merged`).

tests/properties/smem/merged/: Gluon round trips (local_store then local_load) Triton 3.9.0 compiled for gfx942 and
gfx1250, whose lanes' accesses come in pairs at a chosen distance, and a flash-attention backward (gfx942). Each
expected instruction and its count per lane is what Triton's AMDGCN has at that line (read 2026-12-06). Over the 60
layouts x 3 targets x load/store of that probe, the model gives the emitted instruction in 492 of 552 rows; the 60
others put the buffer off 16 bytes (a shared_linear of alignment 4 or 8 after a padded buffer), which the model
assumes it is not (docs/hardware.md)."""

import pytest

import checker
from tests.verify.conftest import ROOT

MERGED = ROOT / "tests" / "properties" / "smem" / "merged"

# file -> (store line, load line) -> (mnemonic, instructions per lane, conflicts, merged from bytes)
CASES = {
    # 8-byte accesses at units 0, 1 and 16, 17: two 16-byte accesses
    "e2w8_d1.gfx942": (("ds_write_b128", 2, 0, 8), ("ds_read_b128", 2, 0, 8)),
    "e2w8_d1.gfx1250": (("ds_store_b128", 2, 1, 8), ("ds_load_b128", 2, 1, 8)),
    # 4-byte accesses at 0, 1, 16, 17: merged into two 8-byte ones, 64 bytes apart, which pair
    "e4w4_d1.gfx942": (("ds_write2_b64", 1, 1, 4), ("ds_read2_b64", 1, 1, 4)),
    "e4w4_d1.gfx1250": (("ds_store_2addr_b64", 1, 0, 4), ("ds_load_2addr_b64", 1, 0, 4)),
    # 4-byte accesses at 0, 1, 2, 3: merged twice, one 16-byte access
    "e4w4_c4.gfx942": (("ds_write_b128", 1, 0, 4), ("ds_read_b128", 1, 0, 4)),
    "e4w4_c4.gfx1250": (("ds_store_b128", 1, 0, 4), ("ds_load_b128", 1, 0, 4)),
    # 8-byte accesses two units apart: not adjacent, paired as before
    "e2w8_d2.gfx942": (("ds_write2_b64", 1, 1, None), ("ds_read2_b64", 1, 1, None)),
    "e2w8_d2.gfx1250": (("ds_store_2addr_b64", 1, 0, None), ("ds_load_2addr_b64", 1, 0, None)),
}


def _accesses(name: str, lines=None):
    report = checker.verify(str(MERGED / f"{name}.ttgir"), engine="both")
    assert report["summary"]["failed"] == 0
    return {c["source"]["line"]: (c["details"]["mnemonic"], c["details"]["instructions_per_warp"],
                                  c["details"]["conflicts"], c["details"].get("merged_from_bytes"))
            for c in report["checks"] if c["property"] == "bank_conflict_free"
            and (lines is None or c["source"]["line"] in lines)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_scored_instruction_is_the_assemblys(name):
    assert _accesses(name) == dict(zip((23, 24), CASES[name]))


def test_a_flash_attention_backward_stores_k_with_two_16_byte_writes():
    """Its 2-way conflict warning on ds_write2_b64 was a false alarm: each phase of ds_write_b128 writes 8 distinct
    16-byte blocks."""
    assert _accesses("flash_attention_bwd.gfx942", {91}) == {91: ("ds_write_b128", 2, 0, 8)}
