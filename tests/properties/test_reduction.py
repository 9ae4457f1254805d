"""checker.properties.reduction: Triton's reduction levels and their scratch, on real layouts and random ones."""

from hypothesis import given, settings
from hypothesis import strategies as st

import checker
from checker.properties.reduction import (
    cross_warp_rounds,
    inter_layout,
    reduced_reg_lane_layout,
    scratch_bytes,
    zero_axis,
)


def _blocked(spt, tpw, wpc, order, shape):
    return checker.lower(checker.parse_encoding(
        f"#ttg.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>"),
        shape)


def test_a_row_reduction_over_two_warps_takes_one_round():
    # tl_softmax_rows (cuda:90): 8 registers and 32 lanes along the row, the row split over 2 warps
    L = _blocked([1, 8], [1, 32], [2, 2], [1, 0], [8, 512])
    R = reduced_reg_lane_layout(L, 1)
    assert R.in_bases("register") == ((2, 0), (4, 0))          # the registers along the row are combined
    assert set(R.in_bases("lane")) == {(0, 0)}                  # so are the lanes
    assert R.in_bases("warp") == ((0, 1), (1, 0))               # two partial sums per row, one per warp
    [(src, dst)] = cross_warp_rounds(L, 1)
    assert dst.in_bases("lane")[0] == (0, 1) and dst.in_bases("warp") == ((0, 0), (1, 0))
    # the round's tile: 8 rows x 2 partials of f32; a second input of the same width doubles it
    assert (scratch_bytes(L, 1, [32]), scratch_bytes(L, 1, [32, 32]), scratch_bytes(L, 1, [16])) == (64, 128, 32)


def test_a_column_reduction_with_no_warp_along_it_needs_no_scratch():
    L = _blocked([1, 8], [1, 32], [1, 4], [1, 0], [64, 1024])
    assert (cross_warp_rounds(L, 0), scratch_bytes(L, 0, [32])) == ([], 0)


def test_warps_beyond_the_free_lanes_go_into_the_first_lanes():
    # 8 warps along the axis, every lane holding data: the warp bases swap with lanes 0, 1, 2
    L = _blocked([1, 1], [1, 32], [1, 8], [1, 0], [4, 256])
    R = reduced_reg_lane_layout(L, 1)
    T = inter_layout(R, 1)
    assert T.in_bases("lane")[:3] == ((0, 1), (0, 2), (0, 4))
    assert [len(cross_warp_rounds(L, 1)), scratch_bytes(L, 1, [32])] == [1, 128]


def test_zero_axis_renumbers_what_is_left():
    L = _blocked([2, 1], [4, 8], [2, 2], [0, 1], [16, 16])
    Z = zero_axis(L, 0, "lane")
    column = sorted(b[0] for d in Z.in_dims for b in Z.in_bases(d) if b[0])
    # dim0 was register 1, lanes 2 and 4, warp 8: with the lanes zeroed, the register and the warp are 1 and 2
    assert column == [1, 2]
    assert Z.in_bases("warp")[0] == (2, 0) and dict(Z.out_dim_sizes)["dim0"] == 4


@settings(max_examples=150, deadline=None)
@given(st.sampled_from([[1, 1], [1, 4], [4, 1], [2, 2]]), st.sampled_from([[1, 32], [32, 1], [4, 8], [8, 4]]),
       st.sampled_from([[1, 4], [4, 1], [2, 2], [1, 8], [8, 1]]), st.sampled_from([[1, 0], [0, 1]]),
       st.sampled_from([[16, 16], [64, 128], [256, 32], [8, 512]]), st.integers(0, 1))
def test_rounds_end_with_the_axis_reduced(spt, tpw, wpc, order, shape, axis):
    L = _blocked(spt, tpw, wpc, order, shape)
    rounds = cross_warp_rounds(L, axis)
    warps_along = sum(1 for b in reduced_reg_lane_layout(L, axis).in_bases("warp") if b[axis])
    assert (len(rounds) > 0) == (warps_along > 0)
    if rounds:
        last = zero_axis(rounds[-1][1], axis, "lane")
        assert dict(last.out_dim_sizes)[last.out_dims[axis]] == 1
        assert scratch_bytes(L, axis, [32]) > 0
        assert scratch_bytes(L, axis, [32, 16]) == scratch_bytes(L, axis, [32]) + scratch_bytes(L, axis, [16])


def test_the_reduction_property_states_levels_and_cost():
    from checker.properties.reduction import reduction
    L = _blocked([1, 8], [1, 32], [2, 2], [1, 0], [8, 512])
    r = reduction(L, 1, [32], instructions="shfl")
    assert r.holds and set(r.verdicts) == {"f2", "z3"}
    assert {k: r.details[k] for k in ("levels", "in_thread", "shuffle_rounds", "accumulators", "shuffles_per_thread",
                                      "redux_per_thread", "cross_warp_rounds", "scratch_bytes")} == {
        "levels": ["register", "lane", "warp"], "in_thread": 8, "shuffle_rounds": 5, "accumulators": 4,
        "shuffles_per_thread": 24, "redux_per_thread": 0, "cross_warp_rounds": 1, "scratch_bytes": 64}
    assert r.explanation == ("reduces dim1: 8 elements per thread combined in registers; 5 shuffle round(s) in the "
                             "warp (24 shfl per thread); 1 round(s) across warps through shared memory (64 B of "
                             "scratch)")
    # with redux.sync (an integer add on sm80+): the warp step over all 32 lanes would be one redux per
    # accumulator, but the cross-warp step covers one lane bit with the other lanes broadcast, where Triton 3.9's
    # choice is not modelled: no counts are given
    assert "shuffles_per_thread" not in reduction(L, 1, [32], instructions="redux").details
    # Triton 3.9's PTX for an i32 sum: 32x32 over 32 lanes, 4 warps of rows: 8 redux; 64x8 with 3 lane bits
    # along the row and the other lanes on rows: 12 shfl (tools: compiled on CPU, counted in the PTX)
    full = reduction(_blocked([1, 1], [1, 32], [4, 1], [1, 0], [32, 32]), 1, [32], instructions="redux")
    part = reduction(_blocked([1, 1], [4, 8], [4, 1], [1, 0], [64, 8]), 1, [32], instructions="redux")
    assert [(r.details["shuffles_per_thread"], r.details["redux_per_thread"]) for r in (full, part)] == [(0, 8),
                                                                                                        (12, 0)]
    assert "shuffles_per_thread" not in reduction(L, 1, [32]).details       # AMD: rounds only


def test_a_scan_triton_cannot_lower_fails():
    from checker.properties.reduction import reduction
    L = _blocked([1, 4], [4, 8], [4, 1], [1, 0], [64, 64])
    assert reduction(L, 1, [32], kind="scan", layout_kind="blocked").holds
    r = reduction(L, 1, [32], kind="scan", layout_kind="nvidia_mma")
    assert r.fails and r.explanation == ("Triton 3.9 lowers a scan only on a blocked layout, not nvidia_mma "
                                         "(ScanLoweringHelper::isSupported)")


def test_a_gather_stays_in_the_warp_only_when_both_layouts_agree():
    from checker.properties.reduction import gather_warp_local, reduction
    src = _blocked([1, 1], [32, 1], [1, 4], [0, 1], [32, 64])          # a column per warp: gather along dim0
    assert gather_warp_local(src, src, 0)
    r = reduction(src, 0, [16], kind="gather", index_layout=src)
    assert r.holds and (r.details["warp_local"], r.details["scratch_bytes"]) == (True, 0)
    assert r.explanation == "gathers along dim0 within each warp (warp shuffles, no shared memory)"
    rows = _blocked([1, 1], [1, 32], [4, 1], [1, 0], [32, 64])         # dim0 split over warps
    r = reduction(rows, 0, [16], kind="gather", index_layout=rows)
    assert r.holds and r.details["levels"] == ["register", "warp"] and r.details["scratch_bytes"] == 4096
    assert r.explanation == "gathers along dim0 through shared memory (4096 B of scratch: the source)"
