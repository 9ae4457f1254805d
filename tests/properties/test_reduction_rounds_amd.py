"""A tt.reduce's cross-warp rounds on 64-lane AMD waves, sized as Triton 3.8 and 3.9 allocate them: Triton 3.9
gives ds_read_b128's lane order to the round's store side (change ``reduce_round_store_lanes``). Fixtures:
tools/fuzz_reductions.py (40 random reductions for gfx942 / gfx950, each allocated by Triton 3.9.0 and 3.8.0) and
lmdeploy's GPTQ GEMV reduction (512x8 f32 over 8 warps, compiled by Triton 3.9.0; a 512x16 neighbour on gfx950),
which layoutcheck sized at twice Triton 3.9's figure before."""

from __future__ import annotations

import json
import pathlib

import pytest

import checker
from checker.encodings import lower
from checker.properties.conversion_cost import ldst_target, reduction_target
from checker.properties.reduction import rounds_and_scratch
from checker.syntax.mlir_attr import parse_attribute
from checker.versions import parse, using

ROOT = pathlib.Path(__file__).parent / "fixtures" / "reduction_rounds_amd"
EXPECTED = json.loads((ROOT / "expected.json").read_text())
CASES = [(name, version) for name in sorted(EXPECTED) for version in sorted(EXPECTED[name])]


@pytest.mark.parametrize("name,version", CASES, ids=[f"{n}@{v}" for n, v in CASES])
def test_kernel_shared_memory_is_tritons(name, version):
    report = checker.verify(str(ROOT / name), triton_version=version)
    (fits,) = [c for c in report["checks"] if c["id"].endswith("fits[kernel]")]
    assert fits["details"]["kernel_bytes"] == EXPECTED[name][version]


def test_the_fixtures_tell_the_two_releases_apart():
    differ = {n for n, v in EXPECTED.items() if v["3.8"] != v["3.9"]}
    assert {"lmdeploy_gemv_reduce.gfx942.ttgir", "lmdeploy_gemv_reduce.gfx950.ttgir"} <= differ
    assert len(EXPECTED) == 42 and len(differ) == 3


def test_the_gemv_round_takes_128_bytes_on_gfx942_from_triton_39():
    """512x8 f32, [1, 8] per thread, 64 lanes and 8 warps along the axis: one round of 8 warps x 8 floats. With the
    store side in ds_read_b128's lane order the round's third register basis is a rep (two passes over a 128-byte
    tile, as the AMDGCN shows: ds_write_b128, s_barrier, ds_read_b128, twice); with the load side in it (3.8), a
    warp basis takes the segment and the tile is 256 bytes."""
    L = lower(parse_attribute("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [64, 1], warpsPerCTA = [8, 1], "
                              "order = [1, 0]}>"), [512, 8])
    with using(parse("3.9")):
        t = reduction_target("gfx942")
        assert (t.load_lanes_128, t.store_lanes_128) == ((), (0, 1, 4))
        assert ldst_target("gfx942").load_lanes_128 == (0, 1, 4)          # a conversion's scratch keeps it
        assert rounds_and_scratch(L, 0, [32], t)[1] == 128
    with using(parse("3.8")):
        t = reduction_target("gfx942")
        assert (t.load_lanes_128, t.store_lanes_128) == ((0, 1, 4), ())
        assert rounds_and_scratch(L, 0, [32], t)[1] == 256
