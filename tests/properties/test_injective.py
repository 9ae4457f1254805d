from checker.layout import LinearLayout
from checker.properties.injective import injective, injective_up_to_broadcast

from .test_surjective import BLOCKED_8x8

# lane 16 duplicates lane 2 + lane 4: a genuine collision, not a broadcast.
DUPLICATE = LinearLayout({"register": [(0, 1), (1, 0)], "lane": [(0, 2), (0, 4), (2, 0), (4, 0), (2, 4)],
                          "warp": [(0, 0)], "block": []}, [("dim0", 8), ("dim1", 8)])
IDENTITY = LinearLayout({"register": [(1,), (2,)], "lane": [(4,), (8,)]}, [("dim0", 16)])


def test_broadcast_collision():
    r = injective(BLOCKED_8x8)
    assert r.fails
    assert r.counterexample.to_dict() == {
        "kind": "collision",
        "indices": [{"register": 0, "lane": 16, "warp": 0, "block": 0},
                    {"register": 0, "lane": 0, "warp": 0, "block": 0}],
        "coordinate": {"dim0": 0, "dim1": 0}}
    assert r.details["broadcast_bits"] == ["lane=16", "warp=1"]
    assert "zero basis" in r.explanation


def test_broadcast_is_allowed_up_to_broadcast():
    r = injective_up_to_broadcast(BLOCKED_8x8)
    assert r.holds and r.explanation == "the 6 non-broadcast bases are linearly independent"


def test_duplicate_basis_collides():
    r = injective_up_to_broadcast(DUPLICATE)
    assert r.fails
    a, b = r.counterexample.data["indices"]
    assert a == {"register": 0, "lane": 16, "warp": 0, "block": 0}
    assert b == {"register": 0, "lane": 6, "warp": 0, "block": 0}
    assert r.counterexample.data["coordinate"] == {"dim0": 2, "dim1": 4}
    assert r.explanation.startswith("basis lane=16 equals lane=2 + lane=4")
    assert r.verdicts["z3"].counterexample.replay()


def test_broadcast_pair_is_no_witness_up_to_broadcast():
    cx = injective_up_to_broadcast(DUPLICATE).counterexample
    broadcast_pair = {"indices": [{"warp": 1}, {}], "coordinate": {"dim0": 0, "dim1": 0}}
    assert not cx.recompute(broadcast_pair)
    assert injective(DUPLICATE).counterexample.recompute(broadcast_pair)


def test_identity_is_injective():
    assert injective(IDENTITY).holds and injective_up_to_broadcast(IDENTITY).holds
