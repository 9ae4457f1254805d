"""Spec loading: sweeps and their ids, field overrides, operands, expectations, selection, errors."""

import textwrap

import pytest

from checker.errors import CheckerError
from checker.spec import load_paths, load_spec, select

HEAD = """\
version: 1
hardware: sm90
encodings:
  rows: {kind: blocked, size_per_thread: [1, 8], threads_per_warp: [4, 8], warps_per_cta: [4, 1], order: [1, 0]}
  acc: {attr: "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"}
  a_op: {kind: dot_op, op_idx: 0, parent: acc, k_width: 2}
  smem: {kind: swizzled_shared, vec: 8, per_phase: 1, max_phase: 8, order: [1, 0]}
checks:
"""


@pytest.fixture
def spec(tmp_path):
    def write(checks: str, head: str = HEAD):
        path = tmp_path / "spec.yaml"
        path.write_text(head + textwrap.indent(textwrap.dedent(checks), "  "))
        return str(path)
    return write


def test_sweep_ids_order_and_values(spec):
    obs = load_spec(spec("""\
        - id: acc
          prove: surjective
          layout: acc
          shape: [64, 64]
          sweep:
            num_warps: [4, 8]
            shape: [[64, 64], "128x64"]
        """))
    assert [ob.id for ob in obs] == ["acc[warps=4,shape=64x64]", "acc[warps=4,shape=128x64]",
                                     "acc[warps=8,shape=64x64]", "acc[warps=8,shape=128x64]"]
    assert [ob.operand("layout").warps_per_cta for ob in obs] == [(2, 2), (2, 2), (4, 2), (4, 2)]
    assert [ob.shape for ob in obs] == [(64, 64), (128, 64)] * 2
    assert {ob.line for ob in obs} == {9}


def test_sweep_field_reaches_a_dot_operand_parent_and_one_role_only(spec):
    obs = load_spec(spec("""\
        - id: conv
          prove: conversion
          src: acc
          dst: a_op
          shape: [64, 64]
          sweep:
            dst.warps_per_cta: [[4, 1]]
        """))
    (ob,) = obs
    assert ob.id == "conv[dst.warps_per_cta=4x1]"
    assert ob.operand("src").warps_per_cta == (2, 2)
    assert ob.operand("dst").parent.warps_per_cta == (4, 1) and ob.operand("dst").k_width == 2


def test_parameters_defaults_and_expectations(spec):
    bank, fits, level = load_spec(spec("""\
        - id: bank
          prove: bank_conflict_free
          reg: rows
          shared: smem
          shape: [64, 64]
          dtype: bf16
          expect_conflicts: 3
        - id: fits
          prove: fits
          layout: smem
          shape: [64, 64]
          dtype: 8
        - id: level
          prove: conversion
          src: acc
          dst: rows
          via: smem
          shape: [64, 64]
          expect_level: shared_memory
        """))
    assert dict(bank.params) == {"direction": "store", "access": "auto", "model": "hardware"}
    assert (bank.dtype, bank.dtype_bits, bank.expect, bank.expect_conflicts) == ("bf16", 16, "fails", 3)
    assert dict(fits.params) == {"capacity_bytes": 232448, "base_bytes": 0, "alignment_bytes": None}
    assert (fits.dtype, fits.dtype_bits, fits.hardware.name) == ("b8", 8, "sm90")
    assert (level.expect, level.expect_level, [r for r, _ in level.operands]) == ("holds", "cta",
                                                                                  ["src", "dst", "via"])


def test_operands_as_attribute_text_alias_or_inline_declaration(spec):
    text, alias, inline = load_spec(spec("""\
        - id: text
          prove: injective
          layout: "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
          shape: [64, 64]
        - id: alias
          prove: injective_up_to_broadcast
          layout: "#ttg.dot_op<{opIdx = 1, parent = #acc, kWidth = 2}>"
          shape: [64, 64]
        - id: inline
          prove: invertible
          layout: {kind: swizzled_shared, vec: 4, per_phase: 2, max_phase: 4, order: [1, 0]}
          shape: [64, 64]
        """))
    assert text.operand("layout").size_per_thread == (1, 8)
    assert alias.operand("layout").op_idx == 1 and alias.operand("layout").parent.warps_per_cta == (2, 2)
    assert inline.operand("layout").max_phase == 4


def test_layout_shape_lowers_at_another_shape(spec):
    (ob,) = load_spec(spec("""\
        - id: reuse
          prove: surjective
          layout: rows
          layout_shape: [32, 64]
          shape: [64, 64]
          expect: fails
        """))
    assert (ob.shape, ob.layout_shape, ob.expect) == ((64, 64), (32, 64), "fails")


def test_select_by_globs(spec):
    obs = load_spec(spec("""\
        - {id: a-one, prove: surjective, layout: rows, shape: [64, 64]}
        - {id: a-two, prove: injective, layout: rows, shape: [64, 64]}
        - {id: b-one, prove: injective, layout: acc, shape: [64, 64]}
        """))
    assert [o.id for o in select(obs, only=["a-*"])] == ["a-one", "a-two"]
    assert [o.id for o in select(obs, skip=["*-one"])] == ["a-two"]
    assert [o.id for o in select(obs, only=["*-one"], skip=["b-*"])] == ["a-one"]


def test_folder_is_searched_recursively_in_sorted_order(tmp_path, spec):
    first = spec("- {id: z, prove: surjective, layout: rows, shape: [64, 64]}\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "b.yaml").write_text(HEAD + "  - {id: b, prove: surjective, layout: rows, shape: [64, 64]}\n")
    (tmp_path / "a.yml").write_text(HEAD + "  - {id: a, prove: surjective, layout: rows, shape: [64, 64]}\n")
    (tmp_path / "notes.txt").write_text("not a spec")
    assert [o.id for o in load_paths([str(tmp_path)])] == ["a", "z", "b"]
    assert [o.id for o in load_paths([first, str(tmp_path)])] == ["z", "a", "b"]       # a file is read once


@pytest.mark.parametrize("checks, message", [
    ("- {id: x, prove: bank_conflict_free, reg: rows, shared: smem, shape: [64, 64], dtype: f16, expect: holds, "
     "expect_conflicts: 2}\n",
     "spec.yaml:9: field 'expect': expect: holds contradicts expect_conflicts: 2"),
    ("- {id: x, prove: surjective, layout: rows, shape: [64, 64], expect_level: cta}\n",
     "spec.yaml:9: field 'expect_level': applies to prove: conversion only"),
    ("- {id: x, prove: conversion, src: acc, dst: rows, shape: [64, 64], layout_shape: [32, 64]}\n",
     "spec.yaml:9: field 'layout_shape': applies to prove: surjective, injective, injective_up_to_broadcast, "
     "invertible, equivalent only"),
    ("- {id: x, prove: surjective, layout: rows, shape: [64, 64], sweep: {src.warps_per_cta: [[4, 1]]}}\n",
     "spec.yaml:9: field 'src.warps_per_cta': 'src' is not an operand of this check (operands: layout)"),
    ("- {id: x, prove: surjective, layout: rows, shape: [64, 64], sweep: {num_warps: [6]}}\n",
     "spec.yaml:9: field 'num_warps': check 'x[warps=6]': blocked: every entry must be a power of two, got [6, 1]"),
    ("- {id: x, prove: invertible, layout: rows, shape: [64, 64]}\n",
     "spec.yaml:9: field 'layout': operand 'layout' must be a shared encoding, got blocked"),
    ("- {id: x, prove: surjective, layout: rows}\n",
     "spec.yaml:9: field 'shape': check 'x' needs a shape"),
    ("- {id: 'x y', prove: surjective, layout: rows, shape: [64, 64]}\n",
     "spec.yaml:9: field 'id': must match the pattern ^[A-Za-z0-9][A-Za-z0-9_.:/+=-]*$, got 'x y'"),
    ("- {id: x, prove: surjective, layout: '#ttg.blocked<{sizePerThread = [1]}>', shape: [64, 64]}\n",
     None),
])
def test_check_errors(spec, checks, message):
    path = spec(checks)
    with pytest.raises(CheckerError) as e:
        load_spec(path)
    text = str(e.value)
    assert "\n" not in text and text.startswith(path.rsplit("/", 1)[0] + "/spec.yaml:9: ")
    if message is not None:
        assert text == path.rsplit("/", 1)[0] + "/" + message


def test_bank_conflicts_need_a_hardware_target(spec):
    head = HEAD.replace("hardware: sm90\n", "")
    with pytest.raises(CheckerError) as e:
        load_spec(spec("- {id: x, prove: bank_conflict_free, reg: rows, shared: smem, shape: [64, 64], dtype: f16}\n",
                       head))
    assert str(e.value).endswith(":8: field 'hardware': check 'x': prove: bank_conflict_free needs a hardware "
                                 "target (hardware: sm90 at the top of the spec, or in the check)")


def test_inline_hardware_mapping(spec):
    import yaml
    from checker.hardware import resolve
    custom = {**resolve("sm80").to_dict(), "name": "my-gpu"}
    head = HEAD.replace("hardware: sm90\n", yaml.safe_dump({"hardware": custom}, sort_keys=False))
    (ob,) = load_spec(spec("- {id: x, prove: fits, layout: smem, shape: [64, 64], dtype: f16}\n", head))
    assert ob.hardware.name == "my-gpu" and ob.param("capacity_bytes") == custom["smem_bytes_per_block"]
    custom["warp_size"] = 48
    head = HEAD.replace("hardware: sm90\n", yaml.safe_dump({"hardware": custom}, sort_keys=False))
    with pytest.raises(CheckerError) as e:
        load_spec(spec("- {id: x, prove: fits, layout: smem, shape: [64, 64], dtype: f16}\n", head))
    assert str(e.value).endswith("/spec.yaml:5: field 'warp_size': must be a power of two, got 48")
