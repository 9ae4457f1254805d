"""coalesced: Triton's vector width for a global access, and the 32-byte sectors each warp request touches."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker import parse_encoding, prove
from checker.encodings import lower
from checker.properties.coalesced import (
    coalesced,
    contig_per_thread,
    instruction,
    layout_order,
    min_sectors_of,
    probe,
    sectors_of,
    vector_width,
)
from checker.verdict import Engines

ROWS = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>"
COLS = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>"


def blocked(text):
    return parse_encoding(text)


def test_contiguous_rows_give_full_vectors_and_minimal_sectors():
    r = prove.coalesced(blocked(ROWS), [16, 512], "f16")
    assert r.holds, r.explanation
    d = r.details
    assert (d["instruction"], d["vector_bytes"], d["requests"], d["sectors"], d["min_sectors"]) == \
        ("ld.global.v4.b32", 16, 32, 512, 512)
    assert set(r.verdicts) == {"f2", "z3"}


def test_an_order_across_the_contiguous_dim_narrows_the_vector_and_suggests_the_layout():
    r = prove.coalesced(blocked(COLS), [256, 16], "f16")          # memory is row-major: dim1 contiguous
    assert r.fails and r.counterexample.kind == "narrow_vector" and r.counterexample.replay()
    assert r.details["instruction"] == "ld.global.b16" and r.details["layout_vec"] == 8
    assert r.details["sectors"] > r.details["min_sectors"]
    assert "order[0] = 1" in r.details["suggestion"]


def test_column_major_memory_makes_the_same_layout_coalesced():
    r = prove.coalesced(blocked(COLS), [256, 16], 16, strides=[1, None])
    assert r.holds and r.details["instruction"] == "ld.global.v4.b32"


def test_divisibility_limits_the_vector_and_the_hint_is_suggested():
    r = prove.coalesced(blocked(ROWS), [16, 512], 16, divisibility=[2, 4])
    assert r.fails and r.details["vec"] == 2 and r.details["instruction"] == "ld.global.b32"
    assert r.counterexample.data["limited_by"] == ["alignment"]
    assert "tl.multiple_of" in r.details["suggestion"]


def test_mask_alignment_limits_the_vector():
    r = prove.coalesced(blocked(ROWS), [16, 512], 16, mask_alignment=1, access="store")
    assert r.fails and r.details["instruction"] == "st.global.b16" and "mask" in r.details["suggestion"]


def test_a_strided_layout_splits_sectors_with_a_replayed_witness():
    lay = blocked("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], "
                  "order = [1, 0]}>")
    r = prove.coalesced(lay, [128, 4], 32, strides=[64, 1])       # rows 256 bytes apart, 16 bytes used
    assert r.fails and r.counterexample.kind == "split_sectors"
    assert r.counterexample.replay()
    cx = r.counterexample.data
    assert cx["sectors"] == 32 and cx["min_sectors"] == 16
    assert r.verdicts["z3"].status == "fails" and r.verdicts["z3"].counterexample.replay()


def test_stores_skip_repeated_warps():
    lay = blocked("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
    L = lower(lay, [128])                                         # warps 2 and 3 repeat 0 and 1
    assert probe(L, 32, [1], kind="load")["requests"] == 4
    assert probe(L, 32, [1], kind="store")["requests"] == 1
    assert probe(L, 32, [1], kind="store")["sectors"] == 16


def test_instruction_names():
    assert instruction("nvidia", "load", 16, 8) == "ld.global.v4.b32"
    assert instruction("nvidia", "store", 16, 1) == "st.global.b16"
    assert instruction("nvidia", "load", 64, 2) == "ld.global.v2.b64"
    assert instruction("nvidia", "load", 8, 2) == "ld.global.b16"
    assert instruction("amd", "load", 16, 8) == "global_load_dwordx4"
    assert instruction("amd", "store", 16, 1) == "global_store_short"
    assert instruction("amd", "load", 32, 2, buffer=True) == "buffer_load_dwordx2"


def test_layout_order_and_contiguity_follow_the_register_bases():
    L = lower(blocked(COLS), [256, 16])
    assert layout_order(L)[0] == 0 and contig_per_thread(L) == [8, 1]
    v = vector_width(L, 16, contiguity=[256, 1], divisibility=[16, 2])
    assert (v.vec, v.layout_vec, v.limited_by) == (8, 8, [])


def test_sector_counting():
    assert sectors_of([0, 16, 32, 48], 16) == 2 and min_sectors_of([0, 16, 32, 48], 16) == 2
    assert sectors_of([0, 64], 4) == 2 and min_sectors_of([0, 64], 4) == 1
    assert sectors_of([30], 4) == 2


def test_split_addresses_are_counted_on_their_residue_modulo_a_sector(monkeypatch):
    """Lanes 16 bytes apart, a row 96 bytes on: every request's addresses are A + B_i, so the Z3 engine counts
    sectors from A modulo 32 alone, one test per kind of neighbouring pair (here: 16 bytes apart, starting at
    0 or 16 modulo 32), with no per-lane terms, decided in the command session (not a counting obligation, which
    goes to the tactic). Against the F2 engine for every base offset 0..31 (each shifts
    A's residue, crossing vectors too), both engines and Z3 alone."""
    from checker import smt
    seen = []
    real = smt.Obligation.solve

    def solve(self, *a, **k):
        if "coalesced.a " in self.script():
            assert not self.counting                 # a few tests: the command session takes them
            seen.append(self.script())
        return real(self, *a, **k)
    monkeypatch.setattr(smt.Obligation, "solve", solve)
    lay = blocked("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], "
                  "order = [1, 0]}>")
    sectors = []
    for base in range(0, 32, 4):
        both = prove.coalesced(lay, [32, 64], 32, strides=[24, 1], base_offset_bytes=base)
        alone = prove.coalesced(lay, [32, 64], 32, strides=[24, 1], base_offset_bytes=base, engine="z3")
        assert both.status == alone.status and (alone.holds or alone.counterexample.replay())
        sectors.append(both.details["sectors"])
    assert sectors == [208] + [224] * 7          # 16 requests of 13 sectors at base 0, of 14 at any other
    assert seen and all("?a" not in t and "coalesced.a () (_ BitVec 5)" in t for t in seen)
    assert max(t.count("(ite ") for t in seen) <= 4


@settings(max_examples=25, deadline=None)
@given(spt=st.sampled_from([1, 2, 4, 8]), tpw=st.sampled_from([(1, 32), (2, 16), (4, 8), (8, 4), (32, 1)]),
       order=st.sampled_from([[1, 0], [0, 1]]), bits=st.sampled_from([8, 16, 32]),
       row_stride=st.sampled_from([64, 96, 128, None]))
def test_engines_agree_and_witnesses_replay(spt, tpw, order, bits, row_stride):
    """decide raises on any disagreement or a witness that does not replay: the law is that it never does."""
    lay = blocked(f"#ttg.blocked<{{sizePerThread = [1, {spt}], threadsPerWarp = [{tpw[0]}, {tpw[1]}], "
                  f"warpsPerCTA = [2, 2], order = [{order[0]}, {order[1]}]}}>")
    r = prove.coalesced(lay, [64, 64], bits, strides=[row_stride, 1])
    assert r.status in ("holds", "fails")
    if r.fails:
        assert r.counterexample.replay()


def test_bad_input_is_refused():
    from checker.errors import CheckerError
    with pytest.raises(CheckerError):
        prove.coalesced(blocked(ROWS), [16, 512], 16, strides=[1])
    with pytest.raises(CheckerError):
        prove.coalesced(blocked(ROWS), [16, 512], 16, contiguity=[0, 1])


def test_a_broadcast_pointer_is_not_a_narrow_vector():
    """A splat pointer (stride 0 along the layout's contiguous dim) reads one address there: a 1-element vector
    wastes nothing (hand-written tiles load through `tt.splat`); only its sectors are judged."""
    import checker
    L = checker.lower("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], "
                      "order = [1, 0]}>", [64, 64])
    for engine in ("f2", "z3"):
        r = coalesced(L, 16, contiguity=[1, 1], divisibility=[2, 2], strides_bytes=[0, 0], hardware="sm80",
                      engines=Engines(engine))
        assert r.holds and r.details["broadcast"] and r.details["vec"] == 1 and r.details["layout_vec"] == 8
        assert "does not move along dim1 (a broadcast)" in r.explanation
        assert (r.details["sectors"], r.details["min_sectors"]) == (r.details["requests"], r.details["requests"])
    r = coalesced(L, 16, contiguity=[1, 1], divisibility=[2, 2], strides_bytes=[128, None], hardware="sm80")
    assert r.fails and r.counterexample.kind == "narrow_vector"          # a runtime stride may move: narrow


def test_buffer_rule_raises_to_the_contiguity_attribute_before_the_mask():
    """BufferLoadOpConversion: getVectorSize(ptr, offset), then max with the op's contiguity, then the mask."""
    L = lower(blocked(ROWS), [16, 512])
    v = vector_width(L, 16, contiguity=[1, 1], divisibility=[1, 1], buffer=True, base_divisibility_bytes=16,
                     contiguity_hint=8)
    assert (v.vec, v.rule) == (8, "buffer")
    v = vector_width(L, 16, contiguity=[1, 1], divisibility=[1, 1], buffer=True, base_divisibility_bytes=16,
                     contiguity_hint=8, mask_alignment=2)
    assert v.vec == 2
    v = vector_width(L, 16, contiguity=[1, 512], divisibility=[1, 8], buffer=True, base_divisibility_bytes=4)
    assert (v.vec, v.limited_by) == (2, ["base_alignment"])     # a 4-byte base: 2 fp16 per vector


def test_copy_rule_takes_the_mask_first_then_the_hint_then_the_shared_run():
    """Async copies (cp.async / direct-to-LDS): mask, then the contiguity attribute, then 128 bits and the
    shared layout's run; a shared run below the layout's vector is a narrow vector of its own."""
    L = lower(blocked(ROWS), [16, 512])
    v = vector_width(L, 16, contiguity=[1, 512], divisibility=[2, 16], mask_alignment=1, contiguity_hint=4,
                     rule="copy", shared_vec=8)
    assert v.vec == 4
    r = coalesced(L, 16, contiguity=[1, 512], divisibility=[2, 16], strides_bytes=[1024, 2], hardware="sm80",
                  kind="copy", shared_vec=4)
    assert r.fails and r.details["instruction"] == "cp.async.ca.shared.global 8"
    assert r.counterexample.data["limited_by"] == ["shared"] and r.counterexample.replay()
    assert "shared layout" in r.details["suggestion"]
    r = coalesced(L, 16, contiguity=[1, 512], divisibility=[2, 16], strides_bytes=[1024, 2], hardware="sm80",
                  kind="copy", shared_vec=8)
    assert r.holds and r.details["instruction"] == "cp.async.cg.shared.global 16"
    assert (r.details["requests"], r.details["sectors"]) == (32, 512)


def test_atomics_are_judged_against_their_own_cap():
    """Scalar atomics (cap 1) are as wide as they can be; their sectors are still counted; a packed f16 pair
    (cap 2) is atom.global.f16x2; repeated warps issue nothing (the redundant-thread predicate)."""
    L = lower(blocked(ROWS), [16, 512])
    r = coalesced(L, 32, contiguity=[1, 512], divisibility=[4, 16], strides_bytes=[2048, 4], hardware="sm80",
                  kind="atomic", atomic_vec=1)       # 8 scalars per thread: lanes 32 bytes apart
    assert r.fails and r.counterexample.kind == "split_sectors" and r.details["layout_vec"] == 1
    assert r.details["instruction"] == "atom.global.b32" and (r.details["sectors"], r.details["min_sectors"]) == \
        (8192, 1024)
    one = lower(blocked("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], "
                        "order = [1, 0]}>"), [16, 512])
    r = coalesced(one, 32, contiguity=[1, 512], divisibility=[4, 16], strides_bytes=[2048, 4], hardware="sm80",
                  kind="atomic", atomic_vec=1)
    assert r.holds and r.details["sectors"] == r.details["min_sectors"]
    two = lower(blocked("#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], "
                        "order = [1, 0]}>"), [16, 512])
    r = coalesced(two, 16, contiguity=[1, 512], divisibility=[2, 16], strides_bytes=[1024, 2], hardware="sm80",
                  kind="atomic", atomic_vec=2)
    assert r.holds and r.details["instruction"] == "atom.global.f16x2" and r.details["vector_bytes"] == 4
    r = coalesced(L, 32, contiguity=[1, 512], divisibility=[4, 16], strides_bytes=[2048, 4], hardware="sm90",
                  kind="atomic")           # sm90's vectorized fadd: 16 of each thread's 32 bytes per request
    assert r.fails and r.details["instruction"] == "atom.global.v4.b32" and r.details["vec"] == 4
    lay = blocked("#ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>")
    assert probe(lower(lay, [128]), 32, [1], kind="atomic")["requests"] == 1
    assert probe(lower(lay, [128]), 32, [1], kind="copy")["requests"] == 1


def test_instruction_names_of_copies_atomics_and_gfx12():
    assert instruction("nvidia", "copy", 16, 8) == "cp.async.cg.shared.global 16"
    assert instruction("nvidia", "copy", 32, 1) == "cp.async.ca.shared.global 4"
    assert instruction("amd", "copy", 16, 8, target="gfx950") == "global_load_lds_dwordx4"
    assert instruction("amd", "copy", 32, 1, buffer=True, target="gfx942") == "buffer_load_dword lds"
    assert instruction("amd", "copy", 16, 4, target="gfx1250") == "global_load_async_to_lds_b64"
    assert instruction("amd", "load", 16, 8, buffer=True, target="gfx1250") == "buffer_load_b128"
    assert instruction("amd", "load", 16, 1, target="gfx1250") == "global_load_u16"
    assert instruction("amd", "store", 8, 1, buffer=True, target="gfx1250") == "buffer_store_b8"
    assert instruction("amd", "atomic", 32, 1) == "global_atomic_b32"
    assert instruction("amd", "atomic", 16, 2, packed=True) == "global_atomic_pk_b16x2"
    assert instruction("nvidia", "atomic", 32, 4) == "atom.global.v4.b32"


def test_a_lone_16_bit_atomic_without_its_own_instruction_works_on_the_word():
    """AMD gfx942 / gfx950 pair lanes into global_atomic_pk_add_f16, other targets loop on a 32-bit CAS (Triton 3.9's
    assembly): the instruction moves 4 bytes a lane."""
    two = lower(blocked("#ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 64], warpsPerCTA = [2, 2], "
                        "order = [1, 0]}>"), [16, 512])
    kw = dict(contiguity=[1, 512], divisibility=[2, 16], strides_bytes=[1024, 2], hardware="gfx942", kind="atomic",
              atomic_vec=2, atomic_word="global_atomic_pk_add_f16 (lane pairs)")
    r = coalesced(two, 16, mask_alignment=1, **kw)
    assert (r.details["instruction"], r.details["vector_bytes"], r.details["atomic_word"]) == \
        ("global_atomic_pk_add_f16 (lane pairs)", 4, True)
    r = coalesced(two, 16, **kw)                 # whole pairs: the packed instruction of the pair itself
    assert (r.details["instruction"], r.details["vector_bytes"]) == ("global_atomic_pk_b16x2", 4)
    assert "atomic_word" not in r.details


def test_lane_offsets_split_the_address_when_lanes_and_the_rest_set_disjoint_bits():
    """`_lane_offsets`: lane i's address is A(register, warp) + B_i when, per dim, the lane bases' bits and the
    issuing registers' and warps' bits are disjoint; the Z3 engine then compares only lanes less than a sector
    apart. A layout whose warps and lanes share bits has no such split (None), and the engines still agree."""
    from checker.layout import LinearLayout
    from checker.properties.coalesced import Plan, _lane_offsets
    L = lower(parse_encoding(ROWS), [4, 256])                  # 8 registers, then 32 lanes along dim1
    p = Plan(L, 32, 4, [256 * 4, 4], "load")
    assert _lane_offsets(p) == [32 * i for i in range(32)]
    for warp, reg in ((0, 0), (1, 4), (3, 4)):
        req = p.request(warp, reg)
        assert [a - req.addresses[0] for a in req.addresses] == [32 * i for i in range(32)]
    mixed = LinearLayout({"register": [(1,)], "lane": [(2,), (4,), (8,), (16,), (32,)], "warp": [(3,)]},
                         [("dim0", 64)])
    assert _lane_offsets(Plan(mixed, 32, 1, [4], "load")) is None
    for engine in ("f2", "z3"):
        r = coalesced(mixed, 32, contiguity=[1], divisibility=[16], strides_bytes=[4], engines=Engines(engine))
        assert r.status == coalesced(mixed, 32, contiguity=[1], divisibility=[16], strides_bytes=[4]).status


@pytest.mark.parametrize("strides, base", [([256 * 4, 4], 0), ([100, 12], 20), ([-64, 4], 4), ([4], 0)])
def test_every_request_is_each_lanes_address_and_its_sectors_counted_afresh(strides, base):
    """`Plan.request` (addresses split as A + B_i, sectors counted once per A mod 32; or lane by lane where
    lanes and warps share bits) agrees with `Plan.address` lane by lane and with `sectors_of` / `min_sectors_of`
    on those addresses, in every request of every plan."""
    from checker.layout import LinearLayout
    from checker.properties.coalesced import Plan
    if len(strides) == 1:
        L = LinearLayout({"register": [(1,)], "lane": [(2,), (4,), (8,), (16,), (32,)], "warp": [(3,)]},
                         [("dim0", 64)])
    else:
        L = lower(parse_encoding(ROWS), [4, 256])
    for vec, bits in ((1, 32), (4, 32), (8, 16)):
        p = Plan(L, bits, vec, strides, "store", base)
        for req in p.requests():
            addrs = [p.address(req.register, ln, req.warp) for ln in range(p.lanes)]
            assert list(req.addresses) == addrs
            assert (req.sectors, req.min_sectors) == (sectors_of(addrs, p.vector_bytes),
                                                      min_sectors_of(addrs, p.vector_bytes))
    for a, vb in (([0, 31, 33, 70], 2), ([5, 40, 64], 40), ([-3, 30], 33), ([7], 64)):
        assert sectors_of(a, vb) == len({s for x in a for s in range(x // 32, (x + vb - 1) // 32 + 1)})


# ---------------------------------------------------------------- in spec files (prove: coalesced)

SPEC = """version: 1
hardware: sm90
encodings:
  rows: {attr: "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"}
  cols: {attr: "#ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"}
checks:
  - id: rows
    prove: coalesced
    layout: rows
    shape: [64, 32]
    dtype: f32
  - id: cols-store
    prove: coalesced
    layout: cols
    shape: [64, 32]
    dtype: f32
    direction: store
    expect: fails
  - id: runtime-stride
    prove: coalesced
    layout: rows
    shape: [64, 32]
    dtype: f16
    strides: [null, 1]
    sweep:
      hardware: [sm80, gfx942]
"""


def _spec_results(tmp_path, text):
    from checker.registry import PROPERTIES
    from checker.spec import load_spec
    path = tmp_path / "coalesced.yaml"
    path.write_text(text)
    return [(c.id, PROPERTIES[c.property].run(c, "both", None)) for c in load_spec(str(path))]


def test_a_spec_check_proves_coalescing_with_its_strides_and_direction(tmp_path):
    got = _spec_results(tmp_path, SPEC)
    assert [(i, r.status, r.details["instruction"], r.details["requests"], r.details["sectors"],
             r.details["min_sectors"]) for i, r in got] == [
        ("rows", "holds", "ld.global.v4.b32", 16, 256, 256),
        ("cols-store", "fails", "st.global.b32", 64, 512, 256),
        ("runtime-stride[hardware=sm80]", "holds", "ld.global.v2.b32", 16, 128, 128),
        ("runtime-stride[hardware=gfx942]", "holds", "global_load_dwordx2", 16, 128, 128)]
    cx = got[1][1].counterexample
    assert cx.kind == "narrow_vector" and got[1][1].verdicts["z3"].status == "fails"
    assert got[1][1].explanation.startswith("1-element vectors where the layout allows 4 along dim0")


def test_a_spec_checks_coalescing_keys_are_validated(tmp_path):
    from checker.errors import CheckerError
    bad = SPEC.replace("    strides: [null, 1]\n", "    strides: [null, -1]\n")
    with pytest.raises(CheckerError, match=r"coalesced.yaml:24: field 'strides\[1\]': must be at least 0, got -1"):
        _spec_results(tmp_path, bad)
    bad = SPEC.replace("    direction: store\n", "    direction: store\n    capacity_bytes: 4\n")
    with pytest.raises(CheckerError, match="capacity_bytes.*does not apply to prove: coalesced"):
        _spec_results(tmp_path, bad)
    bad = SPEC.replace("    strides: [null, 1]\n", "    strides: [1]\n")
    with pytest.raises(CheckerError, match=r"needs 2 strides, got \[1\]"):
        _spec_results(tmp_path, bad)
