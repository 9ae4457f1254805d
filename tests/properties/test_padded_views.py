"""Padded shared memory on gfx950 / gfx1250 (issue 10): accesses through views of a padded allocation (buffers of
memdesc_index, memdesc_subslice) at their real addresses, and the asynchronous copies' direct-to-LDS writes
(aligned_access's direct-to-LDS mode), with real values; a TTGIR module shaped like Triton 3.9's pipelined
gfx950 matmul (tests/corpus/tl_dot_f16.gfx950.ttgir) checked end to end."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checker import parse_encoding
from checker.encodings import lower
from checker.errors import CheckerError
from checker.hardware import resolve
from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.properties.aligned import aligned_access
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.padded_access import Placement, bank_conflict_free_padded, placements
from checker.run.runner import run
from checker.syntax.ttgir import read_ttgir
from checker.ttgir.kernel import kernel_checks
from checker.verdict import Engines

A_REG = ("#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [64, 0]], lane = [[0, 8], [0, 16], [4, 0], [8, 0], "
         "[16, 0], [32, 0]], warp = [[1, 0], [2, 0]], block = []}>")
A_OFFSETS = "[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0], [8, 0], [16, 0], [32, 0], [1, 0], [2, 0], [64, 0]]"


def a_shared(pad: str = "[512:+8]"):
    return parse_encoding(f"#ttg.padded_shared<{pad} {{offset = {A_OFFSETS}, block = []}}>")


def both(prop, *args, **kw):
    f2 = prop(*args, engines=Engines("f2"), **kw)
    z3 = prop(*args, engines=Engines("z3"), **kw)
    assert f2.status == z3.status != "unknown"
    for r in (f2, z3):
        if r.fails:
            assert r.counterexample.replay()
    return prop(*args, **kw)


# ------------------------------------------------------------------ placements


def test_buffer_bases_follow_memdesc_index():
    """Buffer k starts at slot phys(k * n): 128x32 f16 = 4096 offsets, [512:+8] -> 64 slots of padding each."""
    mem = lower(a_shared(), [128, 32])
    assert [(p.buffer, p.base, p.xor) for p in placements(mem, 3)] == [(0, 0, 0), (1, 4160, 0), (2, 8320, 0)]


def row_major(rows: int, cols: int, pad: str):
    offs = [[0, 1 << j] for j in range(cols.bit_length() - 1)] + [[1 << i, 0] for i in range(rows.bit_length() - 1)]
    return parse_encoding(f"#ttg.padded_shared<{pad} {{offset = {offs}, block = []}}>")


R16 = parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [1, 1], "
                     "order = [1, 0]}>")


def test_second_buffer_misaligned():
    """16x16 f16 buffers (256 offsets) with [256:+4]: no padding inside a buffer, but buffer 1 starts at slot
    phys(256) = 260, byte 520: its 16-byte ds_write_b128 rows are 8 bytes off. Buffer 0 alone is aligned."""
    R, M = lower(R16, [16, 16]), lower(row_major(16, 16, "[256:+4]"), [16, 16])
    assert both(aligned_access, R, M, 16, direction="store", hardware="gfx950").holds
    r = both(aligned_access, R, M, 16, direction="store", hardware="gfx950", places=placements(M, 2))
    assert r.fails and r.details["placements"] == 2
    cx = r.counterexample.to_dict()
    assert cx == {"kind": "misaligned_access", "instruction": "st.shared", "mnemonic": "ds_write_b128", "lane": 0,
                  "register": 0, "warp": 0, "offset": 0, "physical_offset": 260, "byte_address": 520,
                  "vector_bytes": 16, "vector": [[k, 0] for k in range(8)], "padding": [[256, 4]],
                  "placement": {"buffer": 1, "base_slot": 260, "offset_xor": 0}}
    assert not r.counterexample.recompute({**cx, "placement": {"buffer": 1, "base_slot": 256, "offset_xor": 0}})
    # a padding of 16 bytes keeps every buffer aligned
    M8 = lower(row_major(16, 16, "[256:+8]"), [16, 16])
    assert both(aligned_access, R, M8, 16, direction="store", hardware="gfx950", places=placements(M8, 4)).holds


def test_subslice_placement_changes_bank_conflicts():
    """A 16x32 i8 allocation, row-major, [16:+2]: a 16x16 subslice at column 16 addresses offsets XOR 16, and
    phys(o ^ 16) != phys(o) ^ phys(16): the padding of the odd interval moves every row's bytes by 2. Column-major
    ds_write_b8 from the origin is conflict-free (4 wavefronts); from column 16 two rows meet in bank 4 (8).
    Lane 0 writes (0, 16): offset 16, slot 16 + 2 = 18, word 4; lane 39 (row 7, column 2 + 16): offset 242,
    slot 242 + 15 * 2 = 272, word 68 = 4 mod 64."""
    R = lower(parse_encoding("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 4], "
                             "warpsPerCTA = [1, 1], order = [0, 1]}>"), [16, 16])
    M = lower(row_major(16, 32, "[16:+2]"), [16, 32])
    R = LinearLayout([(d, R.in_bases(d)) for d in R.in_dims], [("dim0", 16), ("dim1", 32)])
    places = placements(M, 1, [{"dim0": 0, "dim1": 16}])
    assert places == (Placement(16, 0, 0),)
    hw = resolve("gfx950")
    at0 = bank_conflict_free_padded(R, M, 8, "store", "auto", "hardware", hw, Engines("both", None))
    assert at0.holds and at0.details["wavefronts"] == 4
    r = bank_conflict_free_padded(R, M, 8, "store", "auto", "hardware", hw, Engines("both", None), places)
    assert r.fails and (r.details["wavefronts"], r.details["min_wavefronts"]) == (8, 4)
    assert r.details["worst_placement"] == {"buffer": 0, "base_slot": 0, "offset_xor": 16}
    cx = r.counterexample.to_dict()
    assert cx["placement"] == {"buffer": 0, "base_slot": 0, "offset_xor": 16} and cx["bank"] == 4
    assert [(a["lane"], a["offset"], a["physical_offset"], a["byte_address"], a["word"]) for a in cx["accesses"]] \
        == [(0, 16, 18, 18, 4), (39, 242, 272, 272, 68)]
    assert r.verdicts["z3"].counterexample.replay()
    moved = {**cx, "placement": {"buffer": 0, "base_slot": 0, "offset_xor": 0}}
    assert not r.counterexample.recompute(moved)


@st.composite
def placed_cases(draw):
    a, b = draw(st.integers(2, 4)), draw(st.integers(3, 5))
    n = a + b
    coords = [(1 << i, 0) for i in range(a)] + [(0, 1 << j) for j in range(b)]
    order = draw(st.permutations(range(n)))
    regs = max(0, n - 5)
    cols = [coords[i] for i in order]
    R = LinearLayout({"register": cols[:regs], "lane": cols[regs:] + [(0, 0)] * (5 - (n - regs)), "warp": [],
                      "block": []}, [("dim0", 1 << a), ("dim1", 1 << b)])
    S = LinearLayout({"offset": [coords[i] for i in draw(st.permutations(range(n)))], "block": []},
                     [("dim0", 1 << a), ("dim1", 1 << b)])
    M = PaddedLayout(S, (draw(st.sampled_from([4, 8, 16, 32, 64])),), (draw(st.sampled_from([1, 2, 4])),))
    xors = draw(st.lists(st.integers(0, (1 << n) - 1), min_size=1, max_size=2))
    places = tuple(Placement(x, M.phys(k << n), k) for k in range(draw(st.integers(1, 3))) for x in xors)
    return R, M, draw(st.sampled_from([8, 16, 32])), draw(st.sampled_from(["store", "load"])), places


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(placed_cases())
def test_random_placements_engines_agree(case):
    R, M, bits, direction, places = case
    hw = resolve("sm90")
    f2 = bank_conflict_free_padded(R, M, bits, direction, "auto", "hardware", hw, Engines("f2", None), places)
    z3 = bank_conflict_free_padded(R, M, bits, direction, "auto", "hardware", hw, Engines("z3", None), places)
    assert f2.status == z3.status
    for r in (f2, z3):
        if r.fails:
            assert r.counterexample.replay()
    a = aligned_access(R, M, bits, direction=direction, places=places, engines=Engines("f2"))
    b = aligned_access(R, M, bits, direction=direction, places=places, engines=Engines("z3"))
    assert a.status == b.status
    for r in (a, b):
        if r.fails:
            assert r.counterexample.replay()


# ------------------------------------------------------------------ direct-to-LDS


def test_gfx950_async_copy_of_the_corpus_matmul():
    """tl_dot_f16.gfx950: global_load_lds_dwordx4 into [512:+8]: each wave writes 64 x 16 bytes = 512 f16,
    exactly one interval, so the lane-contiguous write lands where the layout says; conflict-free."""
    R, M = lower(parse_encoding(A_REG), [128, 32]), lower(a_shared(), [128, 32])
    places = placements(M, 3)
    r = both(bank_conflict_free, R, M, 16, direction="store", access="cp.async", hardware="gfx950")
    assert (r.details["mnemonic"], r.details["asm"], r.details["vector_bytes"]) == \
        ("global_load_lds_dwordx4", "global_load_lds_dwordx4", 16)
    assert r.holds and r.details["instructions_per_warp"] == 2
    a = both(aligned_access, R, M, 16, direction="store", access="cp.async", hardware="gfx950", places=places)
    assert a.holds and a.details["lane_contiguous"] and a.details["placements"] == 3


def test_gfx950_async_copy_padding_inside_a_wave_row():
    """[256:+8]: a wave's 64 lanes would cross an interval. canLoadDirectToLDS caps the vector at 256 / 64 =
    4 f16, gfx950 has no 8-byte direct-to-LDS load: 4 bytes (2 f16) per lane. Lane 1 holds offset 8 (the
    layout's 8 contiguous registers), but the wave writes lane 1 at lane 0's byte + 4."""
    R, M = lower(parse_encoding(A_REG), [128, 32]), lower(a_shared("[256:+8]"), [128, 32])
    a = both(aligned_access, R, M, 16, direction="store", access="cp.async", hardware="gfx950")
    assert a.fails and a.details["vector_bytes"] == 4 and a.details["mnemonic"] == "global_load_lds_dword"
    cx = a.counterexample.to_dict()
    assert cx["kind"] == "direct_to_lds_address"
    assert (cx["lane"], cx["register"], cx["offset"], cx["physical_offset"], cx["byte_address"],
            cx["hardware_byte_address"], cx["lane0"]) == \
        (1, 0, 8, 8, 16, 4, {"offset": 0, "physical_offset": 0, "byte_address": 0})
    assert not a.counterexample.recompute({**cx, "hardware_byte_address": 16})
    # gfx1250 scatters: each lane has its own LDS address, 16 bytes each, every start a multiple of 16
    R32 = lower(parse_encoding("#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [32, 0], [64, 0]], lane = [[0, 8], "
                               "[0, 16], [4, 0], [8, 0], [16, 0]], warp = [[1, 0], [2, 0]], block = []}>"), [128, 32])
    g = both(aligned_access, R32, M, 16, direction="store", access="cp.async", hardware="gfx1250")
    assert g.holds and not g.details["lane_contiguous"] and g.details["mnemonic"] == "global_load_async_to_lds_b128"


def test_direct_to_lds_mode_is_for_padded_layouts():
    R = lower(parse_encoding(A_REG), [128, 32])
    S = lower(parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"),
              [128, 32])
    with pytest.raises(CheckerError, match="padded layouts"):
        aligned_access(R, S, 16, access="cp.async", hardware="gfx950")
    with pytest.raises(CheckerError, match="stores into shared memory"):
        aligned_access(R, lower(a_shared(), [128, 32]), 16, direction="load", access="cp.async", hardware="gfx950")


# ------------------------------------------------------------------ TTGIR

MODULE = f"""
#linear1 = {A_REG}
#mma = #ttg.amd_mfma<{{version = 4, warpsPerCTA = [2, 2], instrShape = [32, 32, 16], isTransposed = true}}>
#shared = #ttg.padded_shared<[512:+8] {{offset = {A_OFFSETS}, block = []}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", \
"ttg.threads-per-warp" = 64 : i32}} {{
  tt.func public @k(%p: tensor<128x32x!tt.ptr<f16>, #linear1>, %i: i32, %n: i32) {{
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<3x128x32xf16, #shared, #smem, mutable>
    %a0 = ttg.memdesc_index %a[%c0_i32] : !ttg.memdesc<3x128x32xf16, #shared, #smem, mutable> -> \
!ttg.memdesc<128x32xf16, #shared, #smem, mutable>
    %t = ttg.async_copy_global_to_local %p, %a0 {{contiguity = 8 : i32}} : tensor<128x32x!tt.ptr<f16>, #linear1> -> \
<128x32xf16, #shared, #smem, mutable>
    %r = scf.for %iv = %c0_i32 to %n step %c1_i32 iter_args(%cur = %a0) -> (!ttg.memdesc<128x32xf16, #shared, #smem, \
mutable>) : i32 {{
      %x = ttg.local_load %cur : !ttg.memdesc<128x32xf16, #shared, #smem, mutable> -> tensor<128x32xf16, \
#ttg.dot_op<{{opIdx = 0, parent = #mma, kWidth = 8}}>>
      %s = ttg.memdesc_subslice %cur[0, 16] : !ttg.memdesc<128x32xf16, #shared, #smem, mutable> -> \
!ttg.memdesc<128x16xf16, #shared, #smem, mutable, 128x32>
      %y = ttg.local_load %s : !ttg.memdesc<128x16xf16, #shared, #smem, mutable, 128x32> -> tensor<128x16xf16, \
#ttg.dot_op<{{opIdx = 0, parent = #mma, kWidth = 8}}>>
      scf.yield %cur : !ttg.memdesc<128x32xf16, #shared, #smem, mutable>
    }}
    tt.return
  }}
}}
"""


def test_ttgir_padded_views_and_async_copies_are_checked():
    k = kernel_checks(read_ttgir(MODULE, "m.ttgir"), "m.ttgir")
    assert not any("padded" in s["reason"] for s in k.skips)
    obs = {(ob.op, ob.property): ob for ob in k.obligations if ob.property in ("bank_conflict_free", "aligned_access")}
    copy = obs[("ttg.async_copy_global_to_local", "aligned_access")]
    assert (copy.param("access"), copy.param("buffers"), copy.param("slice_starts")) == ("cp.async", 3, None)
    loads = [ob for ob in k.obligations if ob.op == "ttg.local_load" and ob.property == "bank_conflict_free"]
    assert [(ob.param("buffers"), ob.param("slice_starts")) for ob in loads] == [(3, None), (3, ((0, 16),))]
    outs = run([ob for ob in k.obligations if ob.property in ("bank_conflict_free", "aligned_access")], jobs=1)
    recs = {(o.record["source"]["line"], o.record["property"]): o.record for o in outs}
    assert all(r["passed"] for r in recs.values()), [r["failure"] for r in recs.values() if not r["passed"]]
    mnemonics = sorted({r["details"]["mnemonic"] for r in recs.values() if r["property"] == "bank_conflict_free"})
    assert mnemonics == ["ds_read_b128", "global_load_lds_dwordx4"]
    assert all(r["details"].get("placements") == 3 for r in recs.values())
