"""A reduction's scratch before and after Triton 3.8 (change reduce_scratch_by_rounds, #9219): a layer-norm backward
Triton 3.6.0 compiled (tests/verify/ttgir/layernorm_bwd_triton36.ttgir; Triton 3.6's metadata.shared 8192, what 3.8
and 3.9 make of the same kernel: 4096)."""

import pytest

import checker
from checker.layout import LinearLayout
from checker.properties.reduction import warp_tile_scratch_bytes
from checker.versions import using
from tests.verify.conftest import ROOT

KERNEL = ROOT / "tests" / "verify" / "ttgir" / "layernorm_bwd_triton36.ttgir"


@pytest.mark.parametrize("version,expected", [("3.6", 8192), ("3.7", 8192), ("3.8", 4096)])
def test_the_kernels_shared_memory_follows_the_version(version, expected):
    report = checker.verify(str(KERNEL), engine="f2", triton_version=version)
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"]) == (expected, True)
    scratch = sorted((b["line"], b["bytes"], b["what"]) for b in budget["details"]["buffers"]
                     if b["what"].startswith("cross-warp reduction"))
    what = "cross-warp reduction, the axis's warps' tile" if version < "3.8" else "cross-warp reduction, 1 round(s)"
    # two reductions of 128 bytes in either version, and the two 8x1024 column sums the versions size apart
    assert scratch == [(86, 128, what), (92, 128, what), (113, expected, what), (122, expected, what)]


def test_warp_tile_scratch():
    """8x1024 fp32 over 2 warps along axis 1 (and 4 along axis 0): 8 x 2 x 4 bytes per input; none along an axis
    one warp holds."""
    L = LinearLayout.from_bases([("register", [[0, 1], [0, 2], [0, 4], [0, 8]]),
                                 ("lane", [[0, 16], [0, 32], [0, 64], [0, 128], [0, 256]]),
                                 ("warp", [[1, 0], [2, 0], [0, 512]])], ["dim0", "dim1"])
    assert dict(L.out_dim_sizes) == {"dim0": 4, "dim1": 1024}
    with using("3.6"):
        assert warp_tile_scratch_bytes(L, 1, [32]) == 4 * 2 * 4
        assert warp_tile_scratch_bytes(L, 1, [32, 16]) == 4 * 2 * (4 + 2)
        assert warp_tile_scratch_bytes(L, 0, [32]) == 4 * 1024 * 4
    L1 = LinearLayout.from_bases([("register", [[1]]), ("lane", [[2], [4]]), ("warp", [[0], [0]])], ["dim0"])
    assert warp_tile_scratch_bytes(L1, 0, [32]) == 0


def test_left_to_its_syntax_the_kernel_gets_the_larger_figure_as_an_estimate():
    """Nothing in this NVIDIA module's text tells 3.6 from 3.8 (its marks allow 3.5 to 3.8, so it is checked with
    3.8): the reductions' scratch differs across that range, and the kernel's figure is the larger one, an estimate
    (a warning, never an error) that says why, not 3.8's exact 4096 that would understate a 3.6 or 3.7 build."""
    report = checker.verify(str(KERNEL), engine="f2")
    assert report["summary"]["triton_version"] == "3.8"
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    d = budget["details"]
    assert (d["kernel_bytes"], d["exact"], budget["severity"]) == (8192, False, "warning")
    assert d["uncertain"] == [
        "the module's syntax allows Triton 3.5 to 3.7 as well as 3.8, whose reductions take more scratch: 8192 bytes "
        "where 3.8 takes 4096 (change reduce_scratch_by_rounds; give --triton-version for the exact figure)"]


def test_where_nothing_bounds_the_version_the_figure_is_the_newest_and_a_note_says_what_older_ones_take():
    """A module no spelling bounds (this 3.5 gfx942 compile has no buffer op) is checked as 3.9, exactly; 3.5 to 3.7
    would allocate twice as much, and a note at the module says so (the figure with --triton-version 3.5 is
    Triton 3.5's 16384)."""
    path = str(ROOT / "tests" / "verify" / "ttgir" / "layernorm_bwd_gfx942_triton35.ttgir")
    report = checker.verify(path, engine="f2")
    (budget,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert (report["summary"]["triton_version"], budget["details"]["kernel_bytes"], budget["details"]["exact"]) == (
        "3.9", 8192, True)
    assert [n["message"] for k in report["summary"]["ttgir"] for n in k["version_notes"]] == [
        "Triton 3.5 to 3.7, which this module's syntax does not rule out, allocate 16384 bytes of shared memory to "
        "it where 3.9 allocates 8192 (their reductions take more scratch: change reduce_scratch_by_rounds); give "
        "--triton-version if it comes from one of them"]
    given = checker.verify(path, engine="f2", triton_version="3.5")
    (budget,) = [c for c in given["checks"] if c["id"].endswith("fits[kernel]")]
    assert (budget["details"]["kernel_bytes"], budget["details"]["exact"]) == (16384, True)
