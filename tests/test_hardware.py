"""Hardware presets as data, and custom hardware from a mapping (validated, errors name the field)."""

import pytest

from checker.errors import CheckerError
from checker.hardware import PRESETS, Hardware, coset_basis, lanes, resolve


def test_presets_numbers():
    sm90 = PRESETS["sm90"]
    assert (sm90.warp_size, sm90.banks, sm90.bank_bytes, sm90.max_vector_bytes, sm90.smem_bytes_per_block) == \
        (32, 32, 4, 16, 227 * 1024)
    assert sm90.groups("store", 4) == (tuple(range(32)),)
    assert sm90.groups("load", 8) == (tuple(range(16)), tuple(range(16, 32)))
    assert sm90.groups("store", 16) == tuple(tuple(range(8 * k, 8 * k + 8)) for k in range(4))
    assert PRESETS["sm80"].matrix == ("ldmatrix",) and PRESETS["sm80"].smem_bytes_per_block == 163 * 1024
    assert PRESETS["sm100"].has("b8") and not PRESETS["sm90"].has("b8")
    assert (PRESETS["gfx950"].warp_size, PRESETS["gfx950"].banks, PRESETS["gfx950"].smem_bytes_per_block) == \
        (64, 64, 160 * 1024)
    assert PRESETS["gfx942"].smem_bytes_per_block == 64 * 1024 and PRESETS["gfx942"].matrix == ()
    assert {n: PRESETS[n].warp_size for n in ("gfx11", "gfx12")} == {"gfx11": 32, "gfx12": 32}


def test_amd_b128_groups_are_data():
    g = PRESETS["gfx942"]
    assert g.groups("load", 16)[:2] == ((0, 1, 2, 3, 20, 21, 22, 23), (4, 5, 6, 7, 16, 17, 18, 19))
    assert g.groups("store", 16)[1] == tuple(range(8, 16))
    assert coset_basis(g.groups("load", 16)) == [1, 2, 20]
    assert PRESETS["gfx950"].groups("load", 16)[0] == lanes("0-3,12-15,20-27")
    assert len(PRESETS["gfx950"].groups("load", 2)) == 1


def test_custom_from_mapping_roundtrip():
    for name, hw in PRESETS.items():
        assert Hardware.from_mapping(hw.to_dict()) == hw, name
    custom = resolve({"warp_size": 32, "banks": 16, "bank_bytes": 8, "max_vector_bytes": 8,
                      "smem_bytes_per_block": 65536,
                      "phases": [{"vector_bytes": [1, 2, 4, 8], "groups": ["0-15", "16-31"]}]})
    assert custom.name == "custom" and custom.groups("load", 8) == (tuple(range(16)), tuple(range(16, 32)))
    assert resolve("sm90") is PRESETS["sm90"] and resolve(custom) is custom


BASE = {"warp_size": 32, "banks": 32, "bank_bytes": 4, "max_vector_bytes": 4, "smem_bytes_per_block": 1024,
        "phases": [{"vector_bytes": [1, 2, 4], "groups": ["0-31"]}]}


@pytest.mark.parametrize("change, field, message", [
    ({"banks": 48}, "hardware.banks", "power of two"),
    ({"warp_size": 0}, "hardware.warp_size", "power of two"),
    ({"smem_bytes_per_block": -1}, "hardware.smem_bytes_per_block", "positive"),
    ({"speed": 3}, "hardware.speed", "unknown field"),
    ({"matrix": ["wgmma"]}, "hardware.matrix", "features"),
    ({"phases": [{"vector_bytes": [1, 2, 4], "groups": ["0-15"]}]}, "hardware.phases[0].groups", "exactly once"),
    ({"phases": [{"vector_bytes": [1, 2, 4], "groups": ["0-2,4", "3,5-31"]}]}, "hardware.phases[0].groups",
     "not closed under XOR"),
    ({"phases": [{"vector_bytes": [1, 2, 4], "groups": ["0-1,4-5,8-9,12-13,16-17,20-21,24-25,28-29",
                                                         "2-3,6-7,10-11,14-15,18-19,22-23,26-27,30-31"]},
                 {"vector_bytes": 3, "groups": ["0-31"]}]}, "hardware.phases[1].vector_bytes", "powers of two"),
    ({"phases": [{"direction": "store", "vector_bytes": [1, 2, 4], "groups": ["0-31"]}]}, "hardware.phases",
     "no phase rule for a 1-byte load"),
    ({"phases": [{"direction": "up", "vector_bytes": 4, "groups": ["0-31"]}]}, "hardware.phases[0].direction",
     "one of"),
])
def test_custom_validation(change, field, message):
    with pytest.raises(CheckerError, match=message) as e:
        Hardware.from_mapping({**BASE, **change})
    assert e.value.field == field


def test_non_coset_groups_rejected():
    groups = ["0-7", "8-11,16-19", "12-15,20-23", "24-31"]  # lane 0's group is a subspace, the others not translates
    with pytest.raises(CheckerError, match="not a translate") as e:
        Hardware.from_mapping({**BASE, "phases": [{"vector_bytes": [1, 2, 4], "groups": groups}]})
    assert e.value.field == "hardware.phases[0].groups"


def test_missing_field_and_unknown_preset():
    with pytest.raises(CheckerError) as e:
        Hardware.from_mapping({k: v for k, v in BASE.items() if k != "banks"})
    assert e.value.field == "hardware.banks"
    with pytest.raises(CheckerError, match="unknown hardware 'sm70'"):
        resolve("sm70")


def test_gfx1250_preset_and_target():
    from checker.hardware import hardware_for_target
    hw = PRESETS["gfx1250"]
    assert (hw.warp_size, hw.banks, hw.bank_bytes, hw.smem_bytes_per_block, hw.smem_partition_bytes) == \
        (32, 64, 4, 320 * 1024, 64 * 1024)
    assert hw.has("tr_b128") and hw.has("lds_scatter") and hw.direct_to_lds == (16, 8, 4)
    assert hardware_for_target("hip:gfx1250") is hw and hardware_for_target("hip:gfx1201") is PRESETS["gfx12"]
    assert hw.groups("transpose", 16) == (tuple(range(16)), tuple(range(16, 32)))
    assert hw.groups("load", 8) == (tuple(range(32)),)
    # gfx950's transposed reads use the 8-byte load rule (two halves of the wave)
    assert PRESETS["gfx950"].groups("transpose", 8) == PRESETS["gfx950"].groups("load", 8)


def test_consumer_blackwell_preset():
    """sm120 (RTX 50xx, RTX PRO): 99 KiB per block (CUDA programming guide, compute capability 12.0), and
    Triton's TargetFeatures give it ld/stmatrix with the 8-bit forms; every cuda:12x target takes it."""
    from checker.hardware import hardware_for_target
    hw = PRESETS["sm120"]
    assert (hw.smem_bytes_per_block, hw.matrix, hw.triton_target) == (101376, ("ldmatrix", "stmatrix", "b8"),
                                                                      "cuda:120")
    assert hardware_for_target("cuda:120") is hw and hardware_for_target("cuda:121") is hw
    assert hardware_for_target("cuda:110") is None
