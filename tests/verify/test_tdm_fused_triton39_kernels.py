"""TDM loads split across warps (warp_used_hint) and fused (amdg.async_tdm_fused_copy_global_to_local), as Triton
3.9.0 compiled two Gluon kernels for gfx1250 (tests/verify/ttgir): every load is checked (tdm_copy, one check per
fused op naming each member's hint, block and padding), all hold; the module is bounded to Triton >= 3.9 by the
fused op, and the kernel's shared memory is Triton's (metadata.shared)."""

import checker
from tests.verify.conftest import ROOT

TTGIR = ROOT / "tests" / "verify" / "ttgir"
LOAD, FUSED = "amdg.async_tdm_copy_global_to_local", "amdg.async_tdm_fused_copy_global_to_local"


def run(name):
    report = checker.verify(str(TTGIR / name), engine="both")
    tdm = [(c["source"]["line"], c["source"]["op"], c["verdict"], c["details"]) for c in report["checks"]
           if c["property"] == "tdm_copy"]
    kernel = [c["details"]["kernel_bytes"] for c in report["checks"]
              if c["property"] == "fits" and "kernel_bytes" in c["details"]]
    skips = [s for k in report["summary"]["ttgir"] for s in k["skips"] if s["check"] == "tdm_copy"]
    return report, tdm, kernel, skips


def test_hinted_loads_then_a_fused_load_into_partitioned_buffers():
    """8 warps: A (padded [64:+8] inside 2 partitions along dim 0) by warps 0-3, B (unswizzled, 2 partitions x 2
    groups along dim 1) by warps 4-7, each hint's 4 warps a multiple of the buffer's pieces."""
    report, tdm, kernel, skips = run("amd_tdm_warp_split_partitioned_triton39.ttgir")
    a = {"block": [64, 64], "pad_interval_dwords": 32, "pad_amount_dwords": 4}
    assert tdm == [(31, LOAD, "holds", a), (33, LOAD, "holds", {"block": [64, 64]}),
                   (36, FUSED, "holds", {"members": [{"warp_used_hint": 0xF, **a},
                                                     {"warp_used_hint": 0xF0, "block": [64, 64]}]})]
    fused = next(c for c in report["checks"] if c["source"]["op"] == FUSED)
    assert fused["explanation"] == (
        "TDM fused load of 2 members on disjoint warps (0xf, 0xf0): each buffer and descriptor layout is one "
        "Triton's TDM accepts (member 0 padding 4 dwords every 32 dwords)")
    assert kernel == [82944] and skips == []                   # metadata.shared 82944
    assert report["summary"]["triton_version"] == "3.9" and report["summary"]["failed"] == 0


def test_a_fused_load_of_four_members():
    """Two warps a member (0x3, 0xC, 0x30, 0xC0), bf16 and f32 members, padded and unswizzled buffers."""
    report, tdm, kernel, skips = run("amd_tdm_fused_load_4_members_triton39.ttgir")
    pad = {"pad_interval_dwords": 32, "pad_amount_dwords": 4}
    assert tdm == [(28, FUSED, "holds", {"members": [
        {"warp_used_hint": 0x3, "block": [32, 64], **pad}, {"warp_used_hint": 0xC, "block": [32, 64], **pad},
        {"warp_used_hint": 0x30, "block": [32, 64]},
        {"warp_used_hint": 0xC0, "block": [32, 64], "pad_interval_dwords": 64, "pad_amount_dwords": 4}]})]
    assert kernel == [21968] and skips == []                   # metadata.shared 21968
    assert report["summary"]["failed"] == 0


def test_the_fused_op_bounds_the_module_to_triton_39():
    """Triton 3.8.0's parser does not know the op: asked for 3.8, the module is checked with a warning naming the
    mark, and the fused load fails with the reason."""
    report = checker.verify(str(TTGIR / "amd_tdm_fused_load_4_members_triton39.ttgir"), engine="both",
                            triton_version="3.8")
    (fused,) = [c for c in report["checks"] if c["property"] == "tdm_copy"]
    assert fused["verdict"] == "fails" and fused["explanation"] == (
        "Triton 3.8 has no fused TDM load (amdg.async_tdm_fused_copy_global_to_local is Triton 3.9's)")
    (note,) = report["summary"]["ttgir"][0]["version_notes"]
    assert note["severity"] == "warning" and note["message"].startswith(
        "this module's syntax is from Triton >= 3.9 (amdg.async_tdm_fused_copy_global_to_local (from Triton 3.9; "
        "Triton 3.8's parser: 'custom op ... is unknown'), line 28), but it is checked with Triton 3.8 semantics")
    assert checker.verify(str(TTGIR / "amd_tdm_fused_load_4_members_triton39.ttgir"),
                          engine="both")["summary"]["triton_version"] == "3.9"
