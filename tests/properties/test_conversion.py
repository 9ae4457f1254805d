from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.properties.conversion import conversion
from checker.verdict import Engines

# src: register 1, lanes 2 and 4, warp 8; dst swaps the register and warp bits.
SRC = LinearLayout({"register": [(1,)], "lane": [(2,), (4,)], "warp": [(8,)]}, [("dim0", 16)])
DST = LinearLayout({"register": [(8,)], "lane": [(2,), (4,)], "warp": [(1,)]}, [("dim0", 16)])
OFFSETS = LinearLayout({"offset": [(1,), (2,), (4,), (8,)]}, [("dim0", 16)])


def test_level_with_a_witness_per_failing_level():
    r = conversion(SRC, DST, triton=True)
    assert r.holds and r.details["level"] == "cta"
    assert r.details["levels"] == {"register": "fails", "warp": "fails", "cta": "holds", "cross_cta": "holds"}
    w = r.details["witnesses"]["register"]
    assert w == {"kind": "not_local", "dst_index": {"register": 1, "lane": 0, "warp": 0}, "element": {"dim0": 8},
                 "certificate": 8, "kept": ["lane", "warp"], "src_index": {"register": 0, "lane": 0, "warp": 1}}
    assert r.details["witnesses"]["warp"]["kept"] == ["warp"]
    assert r.details["triton_trivial"] is False and r.details["triton_class"] == "shared_memory"
    assert r.details["triton_minimal_dims"] == ["register", "lane", "warp"]
    assert r.explanation.startswith("every element dst needs is in src; the conversion is local at level cta "
                                    "(not warp: dst index (register=1, lane=0, warp=0) needs (dim0=8)")


def test_register_permutation_is_register_level_and_trivial():
    dst = LinearLayout({"register": [(1,)], "lane": [(4,), (2,)], "warp": [(8,)]}, [("dim0", 16)])
    r = conversion(SRC, SRC, triton=True)
    assert r.details["level"] == "register" and r.details["triton_trivial"] is True
    r = conversion(SRC, dst, triton=True)
    assert r.details["level"] == "warp" and r.details["triton_class"] == "warp_shuffle"
    assert r.details["witnesses"]["register"]["dst_index"] == {"register": 0, "lane": 1, "warp": 0}


def test_missing_element():
    half = LinearLayout({"register": [(1,)], "lane": [(2,), (4,)], "warp": [(0,)]}, [("dim0", 16)])
    r = conversion(half, SRC, triton=True)
    assert r.fails and r.details["level"] is None and r.details["levels"] == {}
    assert r.counterexample.to_dict() == {"kind": "missing_element", "dst_index": {"register": 0, "lane": 0, "warp": 1},
                                          "element": {"dim0": 8}, "certificate": 8}
    assert r.explanation == ("conversion.contains fails: dst index (register=0, lane=0, warp=1) needs (dim0=8), "
                             "which src holds nowhere")
    assert r.details["triton_trivial"] is None and "triton_error" in r.details


def test_more_warps_in_dst_than_src():
    dst = LinearLayout({"register": [(1,)], "lane": [(2,), (4,)], "warp": [(8,), (0,)]}, [("dim0", 16)])
    r = conversion(SRC, dst)
    assert r.details["level"] == "cta"
    assert r.details["witnesses"]["warp"]["dst_index"] == {"register": 0, "lane": 0, "warp": 2}


def test_round_trip_through_shared_memory():
    r = conversion(SRC, DST, via=OFFSETS)
    assert r.holds and r.details["claims"] == {"contains": "holds", "writes": "holds", "reads": "holds",
                                               "slots": "holds"}
    padded = PaddedLayout(OFFSETS, (4,), (1,))
    assert conversion(SRC, DST, via=padded).holds


def test_round_trip_through_a_buffer_missing_an_element():
    holes = LinearLayout({"offset": [(1,), (2,), (4,), (4,)]}, [("dim0", 16)])
    r = conversion(SRC, DST, via=holes)
    assert r.fails and r.details["claims"]["writes"] == "fails" and r.details["claims"]["reads"] == "fails"
    assert r.counterexample.to_dict() == {"kind": "missing_element", "src_index": {"register": 0, "lane": 0, "warp": 1},
                                          "element": {"dim0": 8}, "certificate": 8}


def test_solver_giving_up_leaves_everything_undecided(monkeypatch):
    from checker import smt
    monkeypatch.setattr(smt.Obligation, "solve", lambda self, timeout_ms=None: smt.Answer("unknown", reason="timeout"))
    r = conversion(SRC, DST)
    assert r.status == "unknown" and r.details["level"] is None and r.counterexample is None
    assert r.verdicts["f2"].status == "holds" and r.verdicts["z3"].status == "unknown"
    assert conversion(SRC, DST, engines=Engines("f2")).details["level"] == "cta"


# Two CTAs: register 1, lane 2, block 4 over dim0 of 8 (CTA 1 holds elements 4..7).
CGA = LinearLayout({"register": [(1,)], "lane": [(2,)], "warp": [], "block": [(4,)]}, [("dim0", 8)])


def test_round_trip_in_each_ctas_own_buffer_keeps_the_level():
    per_cta = LinearLayout({"offset": [(1,), (2,)], "block": [(4,)]}, [("dim0", 8)])
    r = conversion(CGA, CGA, via=per_cta)
    assert r.holds and r.details["level"] == "register"
    assert r.details["round_trip"] == {"store_cta": "holds", "load_cta": "holds", "level": "cta"}


def test_round_trip_through_another_ctas_buffer_is_cross_cta():
    """Slot (offset=2, block=0) holds element 4, which only CTA 1 holds: CTA 1 writes into CTA 0's buffer,
    and CTA 1 reads element 2 from CTA 0's: distributed shared memory. The direct conversion is register-level."""
    swapped = LinearLayout({"offset": [(1,), (4,)], "block": [(2,)]}, [("dim0", 8)])
    r = conversion(CGA, CGA, via=swapped)
    assert r.holds and r.details["level"] == "cross_cta"
    assert r.details["levels"] == {"register": "fails", "warp": "fails", "cta": "fails", "cross_cta": "holds"}
    assert r.details["round_trip"] == {"store_cta": "fails", "load_cta": "fails", "level": "cross_cta"}
    assert r.details["witnesses"]["cta"] == {
        "kind": "not_local", "shared_index": {"offset": 2, "block": 0}, "element": {"dim0": 4}, "certificate": 4,
        "kept": ["block"], "src_index": {"register": 0, "lane": 0, "warp": 0, "block": 1}}
    assert ("(not cta: shared index (offset=2, block=0) needs (dim0=4), held in src at (register=0, lane=0, warp=0, "
            "block=1), but at no src index with the same block)" in r.explanation)
    assert r.explanation.endswith("delivers every element through distributed shared memory (a CTA's buffer "
                                  "written or read by another CTA)")
    z = conversion(CGA, CGA, via=swapped, engines=Engines("z3")).details["witnesses"]["cta"]
    assert z["kind"] == "not_local" and z["kept"] == ["block"]


def test_one_buffer_in_cta_0_for_two_ctas_is_cross_cta():
    """Everything stored in CTA 0's buffer: CTA 1's elements (4..7) are written there from CTA 1."""
    cta0 = LinearLayout({"offset": [(1,), (2,), (4,)], "block": []}, [("dim0", 8)])
    r = conversion(CGA, CGA, via=cta0)
    assert r.holds and r.details["level"] == "cross_cta"
    assert r.details["round_trip"]["level"] == "cross_cta"
    # the load alone: dst's CTA 1 reads a buffer S does not have in CTA 1
    from checker.properties.conversion import _claim
    load = _claim("load_cta", cta0, CGA, ("block",), Engines("both", None), holder_dims=("offset", "block"),
                  roles=("shared", "dst"), held=False)
    assert load.fails and load.counterexample.data["dst_index"]["block"] == 1


def test_broadcast_buffer_filled_from_split_registers_is_cross_cta():
    """A buffer copied into both CTAs (zero block basis) is filled from registers split across them: each copy
    needs the other CTA's half."""
    copies = LinearLayout({"offset": [(1,), (2,), (4,)], "block": [(0,)]}, [("dim0", 8)])
    r = conversion(CGA, CGA, via=copies)
    assert r.details["level"] == "cross_cta" and r.details["round_trip"]["store_cta"] == "fails"
    assert r.details["round_trip"]["load_cta"] == "holds"
    everywhere = LinearLayout({"register": [(1,), (4,)], "lane": [(2,)], "warp": [], "block": [(0,)]}, [("dim0", 8)])
    r = conversion(everywhere, everywhere, via=copies)
    assert r.details["level"] == "register" and r.details["round_trip"]["level"] == "cta"
