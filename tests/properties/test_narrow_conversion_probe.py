"""`conversion_cost` against an H100's counters for 8-bit conversions (tools/narrow_conversion_probe.py, stored in
tools/narrow_conversion_probe/): PyTorch Inductor's dropout-mask conversion (i8 4x256, one element per lane ->
sixteen per thread, one warp), which layoutcheck warns about (LDS.U16 loads touching two words of one bank per
phase: 32 wavefronts where 16 would do), and three neighbours. Each case is predicted from the TTGIR the device's
Triton (3.6) compiled, under that version."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
STORED = ROOT / "tools" / "narrow_conversion_probe"
sys.path.insert(0, str(ROOT / "tools"))
import narrow_conversion_probe as probe  # noqa: E402

MEASURED = json.loads((STORED / "measured_h100.json").read_text())


def test_every_kernel_returned_its_input_and_the_counters_are_the_stored_ones():
    assert MEASURED["device"].startswith("NVIDIA H100") and MEASURED["triton"] == "3.6.0"
    cases = MEASURED["cases"]
    assert [c["ok"] for c in cases.values()] == [None, True, True, True]     # (measured_h100.json's note)
    m = {cid: c["measured"] for cid, c in cases.items()}
    assert m["i8_4x256_b1x32_to_16x2x16_w1"] == {"ld_wavefronts": 32, "st_wavefronts": 16, "ld_conflicts": 16,
                                                 "st_conflicts": 0, "ld_instructions": 16, "st_instructions": 16}
    assert m["bf16_4x256_b16x2x16_to_8x1x32_w1"] == dict.fromkeys(probe.METRICS, 0)      # shuffles: no shared


@pytest.mark.parametrize("cid", list(MEASURED["cases"]))
def test_predicted_wavefronts_and_scratch_equal_the_measured(cid):
    case = MEASURED["cases"][cid]
    got = probe.predict(STORED / "ttgir" / f"{cid}.ttgir", "3.6")
    m = case["measured"]
    assert (got["st_wavefronts"], got["ld_wavefronts"], got["scratch_bytes"]) == (
        m["st_wavefronts"], m["ld_wavefronts"], case["shared"])


def test_the_inductor_conversion_is_a_real_two_way_load_conflict():
    got = probe.predict(STORED / "ttgir" / "i8_4x256_b1x32_to_16x2x16_w1.ttgir", "3.6")
    assert (got["verdict"], got["ld_wavefronts"]) == ("fails", 32)      # the warning: measured 32, 16 of them conflicts
