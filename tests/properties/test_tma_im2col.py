"""TMA im2col copies (Gluon's ``async_load_im2col``, an ``!ttng.tensordesc_im2col`` descriptor): the tma_copy check
of checker/properties/tma.py, against what Triton 3.9 emits for them. Fixtures: tools/compile_tma_im2col.py (one
kernel per block, element type and swizzle; facts.jsonl: per TMA op the ``cp.async.bulk.tensor`` instructions of
its PTX, or Triton's error for a case it refuses)."""

import json
import math
import pathlib

import pytest

import checker
from checker.encodings.nvmma_shared import NvmmaSharedEncoding
from checker.properties.tma import tma_copy
from checker.syntax.ttgir import read_ttgir

ROOT = pathlib.Path(__file__).parent / "fixtures" / "tma_im2col"
FIXTURES = ROOT / "triton39"
RELEASES = {"3.9": FIXTURES, "3.8": ROOT / "triton38"}       # Triton 3.8 compiles the same cases alike
FACTS = [json.loads(line) for line in (FIXTURES / "facts.jsonl").read_text().splitlines()]
COMPILED = [(version, f) for version, folder in RELEASES.items()
            for f in map(json.loads, (folder / "facts.jsonl").read_text().splitlines()) if "ops" in f]


def _tma_checks(text, name, version=None):
    report = checker.verify(text, only=["*tma_copy*"], triton_version=version)
    return {c["source"]["line"]: c for c in report["checks"] if c["property"] == "tma_copy"}, report


def _box(block, bits, swizzle):
    """getTMABlockShapeIm2Col on an untransposed [pixels, channels] block."""
    channels = min(block[1], 256)
    return [block[0], 8 * swizzle // bits if swizzle else channels]


def test_the_fixtures_cover_the_box_rules():
    assert len(COMPILED) == 16 and {f["triton"] for _, f in COMPILED} == {"3.8.0", "3.9.0"}
    assert {f["case"] for f in FACTS if "error" in f} == {"f16_2048x64_sw128", "f16_64x32_sw128"}
    assert "getTMABlockShape failed" in next(f["error"] for f in FACTS if f["case"] == "f16_2048x64_sw128")


@pytest.mark.parametrize("version,fact", COMPILED, ids=[f"{v}-{f['case']}" for v, f in COMPILED])
def test_box_and_messages_are_what_triton_emits(version, fact):
    """Each copy holds; the im2col load's box is [pixels, channels] (the pixels unclamped, the channels clamped to
    256, then to the swizzle); each op's messages, ceil(messages / warps) instructions, are the PTX's (Triton 3.9
    and 3.8, each module checked under its own release)."""
    text = (RELEASES[version] / f"{fact['case']}.ttgir").read_text()
    checks, report = _tma_checks(text, fact["case"], version)
    assert report["summary"]["triton_version"] == version
    assert report["summary"]["failed"] == 0 and sorted(checks) == sorted(int(k) for k in fact["ops"])
    bits = 32 if fact["dtype"] == "fp32" else 16
    load, store = (checks[int(k)] for k in sorted(fact["ops"], key=int))
    assert load["verdict"] == "holds" and load["details"]["mode"] == "im2col"
    assert load["details"]["box"] == _box(fact["block"], bits, fact["swizzle"])
    assert store["verdict"] == "holds" and store["details"]["mode"] == "tiled"
    for line, instructions in fact["ops"].items():
        assert math.ceil(checks[int(line)]["details"]["messages"] / fact["num_warps"]) == instructions, line


def test_a_tutorial_conv_block_reads_as_one_message():
    """The tutorial's conv2d block: 64 pixels x 64 fp16 channels, 128-byte swizzle: one message, 128 inner bytes."""
    checks, _ = _tma_checks((FIXTURES / "f16_64x64_sw128.ttgir").read_text(), "conv")
    load = next(c for c in checks.values() if c["details"]["mode"] == "im2col")
    assert load["details"]["box"] == [64, 64] and load["details"]["messages"] == 1
    assert load["details"]["inner_box_bytes"] == 128
    assert load["explanation"] == ("TMA im2col box [64, 64] (128 inner bytes, swizzle 128, 1 message(s)) matches "
                                   "the buffer layout")


def test_more_pixels_than_one_message_takes_fail_where_triton_aborts():
    """The 64x64 kernel with 2048 pixels (every type of it): Triton 3.9 aborts ("getTMABlockShape failed",
    f16_2048x64_sw128 in the facts); the im2col copy fails, the tiled store of the same buffer holds (its box is
    clamped to 256 rows)."""
    text = (FIXTURES / "f16_64x64_sw128.ttgir").read_text().replace("64x64xf16", "2048x64xf16")
    checks, report = _tma_checks(text, "big")
    load = next(c for c in checks.values() if c["details"]["mode"] == "im2col")
    store = next(c for c in checks.values() if c["details"]["mode"] == "tiled")
    assert load["verdict"] == "fails" and "pixelsPerColumn dimension 2048 exceeds the maximum supported value of " \
        "1024" in load["explanation"]
    assert store["verdict"] == "holds" and store["details"]["box"] == [256, 64] and store["details"]["messages"] == 8


def test_an_im2col_copy_gives_two_offsets_fewer_than_its_coordinates():
    text = (FIXTURES / "f16_64x64_sw128.ttgir").read_text().replace("offsets = [%c1_i16, %c1_i16]",
                                                                    "offsets = [%c1_i16]")
    checks, _ = _tma_checks(text, "offsets")
    load = next(c for c in checks.values() if c["details"]["mode"] == "im2col")
    assert load["verdict"] == "fails"
    assert load["explanation"] == "an im2col copy with 4 coordinates gives 2 offsets, got 1"


def test_only_a_copy_to_local_memory_takes_an_im2col_descriptor():
    enc = NvmmaSharedEncoding(swizzling_byte_width=128, transposed=False, element_bit_width=16)
    got = tma_copy(enc, enc, "ttng.async_tma_copy_local_to_global", [64, 64], [64, 64], "f16", "f16", True,
                   mode="im2col")
    assert got.status == "fails" and got.explanation.startswith(
        "ttng.async_tma_copy_local_to_global does not take an im2col descriptor")
    three_d = tma_copy(enc, enc, "ttng.async_tma_copy_global_to_local", [2, 64, 64], [2, 64, 64], "f16", "f16",
                       True, mode="im2col", coords=2, offsets=0)
    assert three_d.status == "fails" and "3 to 5 coordinates" in three_d.explanation
    assert "an im2col block is 2-D [pixels, channels], got [2, 64, 64]" in three_d.explanation


def test_the_reader_reads_an_im2col_descriptor_on_the_copy():
    m = read_ttgir((FIXTURES / "f16_64x64_sw128.ttgir").read_text())[0]
    copy = next(op for op in m.operations if op.name == "ttng.async_tma_copy_global_to_local")
    desc = [t for t in copy.types if t.kind == "tensordesc"]
    assert [(t.shape, t.element_type, t.encoding_text) for t in desc] == [([64, 64], "f16", "#shared")]
    assert m.problems == []
