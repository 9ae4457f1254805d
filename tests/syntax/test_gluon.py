"""Gluon layout specs ({"class": ..., "params": ...}) read into encodings (checker.syntax.gluon)."""

import pytest

from checker.encodings.amd_rotating_shared import AmdRotatingSharedEncoding
from checker.encodings.base import ENCODING, params_of
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.dot_operand import DotOperandEncoding
from checker.encodings.linear import LinearEncoding
from checker.encodings.shared_linear import SharedLinearEncoding
from checker.encodings.slice import SliceEncoding
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.encodings.tensor_memory import TensorMemoryScalesEncoding
from checker.errors import CheckerError
from checker.syntax.gluon import GLUON_CLASSES, from_gluon


def test_a_blocked_spec_reads_field_for_field():
    enc = from_gluon({"class": "BlockedLayout", "params": {"size_per_thread": [1, 4], "threads_per_warp": [8, 4],
                                                           "warps_per_cta": [4, 1], "order": [1, 0]}})
    assert enc == BlockedEncoding((1, 4), (8, 4), (4, 1), (1, 0))


def test_a_boolean_where_an_integer_belongs_is_refused():
    with pytest.raises(CheckerError):
        from_gluon({"class": "BlockedLayout", "params": {"size_per_thread": [True, 4], "threads_per_warp": [8, 4],
                                                         "warps_per_cta": [4, 1], "order": [1, 0]}})


# The Gluon classes whose constructors take the encoding's fields, read by the field metadata.
FIELD_CLASSES = {"BlockedLayout": "blocked", "SliceLayout": "slice", "DotOperandLayout": "dot_op",
                 "SwizzledSharedLayout": "swizzled_shared", "SharedLinearLayout": "shared_linear",
                 "DistributedLinearLayout": "linear", "TensorMemoryScalesLayout": "tensor_memory_scales_encoding",
                 "AMDRotatingShared(text)": "amd_rotating_shared"}
CLASS_OF = {kind: cls for cls, kind in FIELD_CLASSES.items()}


def spec_of(enc):
    """The Gluon spec of an encoding of a field-for-field class: every field under its Gluon name."""
    params = {}
    for name, p in params_of(type(enc)):
        value = getattr(enc, name)
        params[p.gluon] = spec_of(value) if p.form == ENCODING else \
            [list(v) if isinstance(v, tuple) else v for v in value] if isinstance(value, tuple) else value
    return {"class": CLASS_OF[enc.kind], "params": params}


BLOCKED = BlockedEncoding((1, 4), (8, 4), (4, 1), (1, 0), ((0, 1),))
EXAMPLES = [
    BLOCKED,
    SliceEncoding(1, BLOCKED),
    DotOperandEncoding(0, BLOCKED, 0),
    SwizzledSharedEncoding(8, 2, 4, (1, 0), ((1, 0),)),
    SharedLinearEncoding(((0, 1), (1, 0)), ((0, 0),), 128),
    LinearEncoding(((0, 1),), ((1, 0), (2, 0)), ((4, 0),), ((8, 0),)),
    TensorMemoryScalesEncoding(((1, 0),)),
    AmdRotatingSharedEncoding(4, 1, 4, (1, 0)),
]


@pytest.mark.parametrize("enc", EXAMPLES, ids=[e.kind for e in EXAMPLES])
def test_field_for_field_classes_read_by_the_metadata(enc):
    assert set(FIELD_CLASSES) <= set(GLUON_CLASSES)
    assert from_gluon(spec_of(enc)) == enc


def test_gluon_defaults_and_required_parameters_come_from_the_metadata():
    spec = spec_of(SharedLinearEncoding(((0, 1), (1, 0))))
    del spec["params"]["block_bases"], spec["params"]["alignment"]
    assert from_gluon(spec) == SharedLinearEncoding(((0, 1), (1, 0)), (), 16)
    dot = spec_of(DotOperandEncoding(0, BLOCKED, 2))
    del dot["params"]["k_width"]                       # Gluon requires it (the dataclass defaults it to 0)
    with pytest.raises(CheckerError, match="DotOperandLayout: missing parameter k_width") as info:
        from_gluon(dot)
    assert info.value.field == "k_width"


def test_gluon_36_wmma_warps_per_cta():
    """Gluon <= 3.6's AMDWMMALayout(version, transposed, warps_per_cta, instr_shape, tiles_per_warp): the
    ctaLayout PR #8946 converts it to, as the TTGIR reader reads 3.6's warpsPerCTA / tilesPerWarp."""
    from checker.syntax.mlir_attr import parse_attribute
    spec = {"class": "AMDWMMALayout", "params": {"version": 3, "transposed": True, "warps_per_cta": [2, 2],
                                                   "tiles_per_warp": [2, 2], "instr_shape": [16, 16, 32]}}
    assert from_gluon(spec) == parse_attribute(
        "#ttg.amd_wmma<{version = 3, isTranspose = true, warpsPerCTA = [2, 2], tilesPerWarp = [2, 2], "
        "instrShape = [16, 16, 32]}>")
    assert from_gluon(spec).register_bases == ((0, 1), (1, 0))
    plain = {"class": "AMDWMMALayout", "params": {"version": 2, "transposed": False, "warps_per_cta": [1, 2, 2]}}
    assert (from_gluon(plain).rank, from_gluon(plain).warp_bases) == (3, ((0, 0, 1), (0, 1, 0)))
    with pytest.raises(CheckerError, match="powers of two, one per dim"):
        from_gluon({"class": "AMDWMMALayout", "params": {"version": 2, "transposed": False, "warps_per_cta": [3, 1]}})
