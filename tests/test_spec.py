"""checker/spec.py: spec loading: sweeps and their ids, field overrides, operands, expectations, selection,
the input files a path names, errors."""

import os
import textwrap

import pytest

from checker.cli import main
from checker.errors import CheckerError
from checker.spec import find_inputs, is_ir, load_paths, load_spec, lower_operands, select

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
          layout: "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], \
order = [1, 0]}>"
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


NARROW = """\
    - {id: fine, prove: surjective, layout: rows, shape: [64, 64]}
    - id: tiles
      prove: injective
      layout: swz
      shape: [64, 64]
      sweep: {shape: [[64, 64], [64, 16], [128, 64]]}
    """
SWZ = HEAD.replace("checks:\n", "  swz: {kind: nvmma_shared, swizzling_byte_width: 128, element_bit_width: 16, "
                                "rank: 2}\nchecks:\n")
TOO_NARROW = ("/spec.yaml:13: field 'layout.shape': check 'tiles[shape=64x16]': nvmma_shared: block shape along the "
              "contiguous dimension 1 is too small for the swizzle byte size 128 in an NVMMASharedLayout, got 16 "
              "but expected at least 64")


def test_an_operand_is_lowered_by_the_run_and_its_failure_located_at_the_operand(spec):
    path = spec(NARROW, head=SWZ)
    obs = load_spec(path)           # loading resolves everything but the lowering
    assert [o.id for o in obs] == ["fine", "tiles[shape=64x64]", "tiles[shape=64x16]", "tiles[shape=128x64]"]
    assert obs[2].operand_sources == (("layout", 13, "layout"),)
    lower_operands(obs[1])
    with pytest.raises(CheckerError) as e:
        lower_operands(obs[2])
    assert str(e.value) == os.path.dirname(path) + TOO_NARROW


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_run_stops_at_the_first_operand_that_does_not_lower_and_writes_nothing(spec, tmp_path, capsys, jobs):
    path = spec(NARROW, head=SWZ)
    assert main(["verify", path, "--jobs", str(jobs), "--report-dir", str(tmp_path / "out")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == "layoutcheck: error: " + os.path.dirname(path) + TOO_NARROW + "\n"
    assert not (tmp_path / "out").exists()
    # a check selected away is lowered all the same: a bad spec verifies nothing
    assert main(["verify", path, "--only", "fine", "--report-dir", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == "layoutcheck: error: " + os.path.dirname(path) + TOO_NARROW + "\n"


def test_a_sweep_point_is_validated_with_all_its_values_in_place(spec):
    # changing the rank takes every field: no single one of them is valid on the rank-2 encoding alone
    (ob,) = load_spec(spec("""\
        - id: r3
          prove: surjective
          layout: rows
          shape: [2, 64, 64]
          sweep: {size_per_thread: [[1, 1, 8]], threads_per_warp: [[1, 4, 8]], warps_per_cta: [[1, 4, 1]],
                  order: [[2, 1, 0]]}
        """))
    enc = ob.operand("layout")
    assert (enc.size_per_thread, enc.threads_per_warp, enc.warps_per_cta, enc.order) == \
        ((1, 1, 8), (1, 4, 8), (1, 4, 1), (2, 1, 0))
    # an invalid point is reported at the first key after which it is invalid
    with pytest.raises(CheckerError) as e:
        load_spec(spec("""\
            - id: bad
              prove: surjective
              layout: rows
              shape: [64, 64]
              sweep: {size_per_thread: [[1, 8], [2, 8]], threads_per_warp: [[4, 8], [4, 6]]}
            """))
    assert str(e.value).endswith("spec.yaml:13: field 'threads_per_warp': check 'bad[size_per_thread=1x8,"
                                 "threads_per_warp=4x6]': blocked: every entry must be a power of two, got [4, 6]")


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


MMA = '"#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"'


def test_spec_key_triton_applies_to_conversion_and_bank_checks_only(spec):
    with pytest.raises(CheckerError, match="applies to prove: conversion, bank_conflict_free only"):
        load_spec(spec("- {id: a, prove: surjective, layout: rows, shape: [64, 64], triton: true}\n"))
    (ob,) = load_spec(spec(f"- {{id: a, prove: conversion, src: {MMA}, dst: rows, shape: [64, 64], triton: true}}\n"))
    assert ob.param("triton") is True


def test_dtypes_by_name_or_bits_and_unknown_ones(spec):
    f16, bits, f8 = load_spec(spec("""\
        - {id: a, prove: fits, layout: smem, shape: [64, 64], dtype: f16}
        - {id: b, prove: fits, layout: smem, shape: [64, 64], dtype: 4}
        - {id: c, prove: fits, layout: smem, shape: [64, 64], dtype: f8e4m3}
        """))
    assert [(o.dtype, o.dtype_bits) for o in (f16, bits, f8)] == [("f16", 16), ("b4", 4), ("f8e4m3", 8)]
    with pytest.raises(CheckerError) as e:
        load_spec(spec("- {id: a, prove: fits, layout: smem, shape: [64, 64], dtype: f17}\n"))
    assert str(e.value).endswith("spec.yaml:9: field 'dtype': must be one of 'f64', 'i64', 'u64', 'f32', 'tf32', "
                                 "'i32', 'u32', 'f16', 'bf16', 'i16', 'u16', 'f8', 'f8e4m3', 'f8e5m2', 'i8', 'u8', "
                                 "'f4', 'i4', got 'f17'")


def test_check_operand_and_param_lookups(spec):
    (ob,) = load_spec(spec("- {id: a, prove: fits, layout: smem, shape: [64, 64], dtype: f16}\n"))
    assert ob.operand("layout").vec == 8 and ob.operand("src") is None
    assert ob.param("base_bytes") == 0 and ob.param("no_such_param") is None
    assert (ob.op, ob.severity, ob.python, ob.line) == (None, "error", None, 9)


def test_find_inputs_names_files_once_and_reads_folders(tmp_path, monkeypatch):
    (tmp_path / "b").mkdir()
    for name in ("b/k.ttgir", "b/m.mlir", "a.yaml", "z.yml", "notes.md"):
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    assert find_inputs(["."]) == ["./a.yaml", "./z.yml", "./b/k.ttgir", "./b/m.mlir"]
    assert find_inputs(["z.yml", "-", ".", "./z.yml"]) == ["z.yml", "-", "./a.yaml", "./b/k.ttgir", "./b/m.mlir"]
    os.symlink("a.yaml", "link.yaml")
    assert find_inputs(["a.yaml", "link.yaml"]) == ["a.yaml"]                   # the same file through a link
    assert find_inputs(["notes.md"]) == ["notes.md"]                            # a file named is taken as given
    with pytest.raises(CheckerError) as e:
        find_inputs(["b"], (".yaml", ".yml"))
    assert str(e.value) == "b: no input files (*.yaml, *.yml) under b"
    with pytest.raises(CheckerError) as e:
        find_inputs(["nothing.yaml"])
    assert str(e.value) == "nothing.yaml: no such file or folder"
    assert [is_ir(p) for p in ("k.ttgir", "k.mlir", "-", "k.yaml", "k.ttgir.yaml")] == [True, True, True, False, False]


def test_duplicate_ids_across_files_name_the_first(tmp_path, spec):
    first = spec("- {id: x, prove: surjective, layout: rows, shape: [64, 64]}\n")
    other = tmp_path / "other.yaml"
    other.write_text(HEAD + "  - {id: y, prove: surjective, layout: rows, shape: [64, 64]}\n"
                            "  - {id: x, prove: injective, layout: rows, shape: [64, 64]}\n")
    with pytest.raises(CheckerError) as e:
        load_paths([first, str(other)])
    assert str(e.value) == f"{other}:10: field 'id': check id 'x' is already used at {first}:9"


def test_a_spec_must_be_a_mapping(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n")
    with pytest.raises(CheckerError) as e:
        load_spec(str(path))
    assert str(e.value) == f"{path}:1: a spec is a mapping with version, hardware, encodings and checks"
