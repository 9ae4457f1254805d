"""local_gather (LocalGatherOp / LocalScatterOp::verify, the gather lowering)."""

from checker.properties.gather import local_gather

from .conftest import E

G = "ttg.local_gather"


def test_gather_holds():
    r = local_gather(E["sw"], E["blocked"], E["blocked"], G, [64, 64], [64, 64], [64, 64], 0, "f16", "i32", "f16")
    assert r.status == "holds", r.explanation


def test_gather_indices_and_result_layouts_differ():
    r = local_gather(E["sw"], E["blocked"], E["blocked1"], G, [64, 64], [64, 64], [64, 64], 0, "f16", "i32", "f16")
    assert "indices and the result must have the same layout" in r.explanation


def test_gather_rules():
    r = local_gather(E["sw"], E["blocked"], E["blocked"], G, [64, 64], [64, 64], [64, 32], 2, "f16", "f32", "bf16")
    for text in ("integer element type, got f32", "shape [64, 32] must match the indices shape [64, 64]",
                 "axis 2 is out of bounds", "element type bf16 must match the buffer's f16"):
        assert text in r.explanation


def test_gather_from_a_partitioned_buffer_is_not_lowered():
    r = local_gather(E["part"], E["blocked"], E["blocked"], G, [64, 64], [64, 64], [64, 64], 0, "f16", "i32", "f16")
    assert "does not lower ttg.local_gather of a partitioned_shared buffer" in r.explanation
