"""SVG figures: cells, owner labels, warp colours, shared offsets and banks,
witness outlines, down-sampling, determinism, and `show --svg`."""

import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker import f2
from checker.encodings import lower
from checker.encodings.blocked import BlockedEncoding
from checker.encodings.slice import SliceEncoding
from checker.encodings.swizzled_shared import SwizzledSharedEncoding
from checker.layout import LinearLayout
from checker.padded import PaddedLayout
from checker.reports import svg
from checker.verdict import Engines

NS = "{http://www.w3.org/2000/svg}"
# The td worked example: sizePerThread [2, 2], threadsPerWarp [8, 4], warpsPerCTA [1, 2], order [1, 0].
BLOCKED = BlockedEncoding((2, 2), (8, 4), (1, 2), (1, 0))
SWIZZLED = SwizzledSharedEncoding(8, 1, 8, (1, 0))


def parse(text):
    """(root, cell rects in row-major order, label lines per text element, witness rects, legend lines)."""
    root = ET.fromstring(text)
    groups = {g.get("class"): g for g in root.iter(NS + "g")}
    cells = list(groups["cells"].iter(NS + "rect"))
    labels = [t.text for t in groups["labels"].iter(NS + "text")]
    witness = list(groups["witness"].iter(NS + "rect")) if "witness" in groups else []
    legend = [t.text for t in groups["legend"].iter(NS + "text")] if "legend" in groups else []
    return root, cells, labels, witness, legend


def notes(root):
    return [t.text for t in root.findall(NS + "text")]


def test_blocked_cells_labels_and_warp_colours():
    text = svg.layout_figure(lower(BLOCKED, [16, 16]), title="blocked 16x16")
    root, cells, labels, witness, legend = parse(text)
    assert len(cells) == 256 and len(labels) == 256      # one owner per element
    grid = [labels[16 * r:16 * r + 16] for r in range(16)]
    assert grid[0][:4] == ["T0:0", "T0:1", "T1:0", "T1:1"]
    assert grid[3][3] == "T5:3" and grid[15][15] == "T63:3"
    # columns 0-7 belong to warp 0, columns 8-15 to warp 1
    fills = [[cells[16 * r + c].get("fill") for c in range(16)] for r in range(16)]
    assert {f for row in fills for f in row[:8]} == {svg.WARP_PALETTE[0]}
    assert {f for row in fills for f in row[8:]} == {svg.WARP_PALETTE[1]}
    assert "T<lane+warp*32>:<register>; fill = warp of the first owner" in notes(root)[2]
    assert witness == [] and legend == []
    assert notes(root)[0] == "blocked 16x16"


def test_cell_geometry_is_a_grid():
    _, cells, _, _, _ = parse(svg.layout_figure(lower(BLOCKED, [16, 16])))
    xs = sorted({int(c.get("x")) for c in cells})
    ys = sorted({int(c.get("y")) for c in cells})
    w, h = int(cells[0].get("width")), int(cells[0].get("height"))
    assert len(xs) == 16 and len(ys) == 16
    assert all(b - a == w for a, b in zip(xs, xs[1:])) and all(b - a == h for a, b in zip(ys, ys[1:]))


def test_collision_witness_is_outlined_and_listed():
    L = lower(BLOCKED, [16, 16])
    witness = {"kind": "collision", "indices": [{"register": 3, "lane": 5, "warp": 0, "block": 0},
                                                {"register": 1, "lane": 5, "warp": 0, "block": 0}],
               "coordinate": {"dim0": 3, "dim1": 3}}
    text = svg.layout_figure(L, witness=witness)
    _, cells, _, outlines, legend = parse(text)
    # indices[0] -> (3, 3), the coordinate (3, 3) shares its outline; indices[1] -> (2, 3)
    cell = {(int(c.get("x")), int(c.get("y"))): k for k, c in enumerate(cells)}
    at = sorted(divmod(cell[int(o.get("x")) - 1, int(o.get("y")) - 1], 16) for o in outlines)
    assert at == [(2, 3), (3, 3)]
    assert [o.get("data-marks") for o in outlines] == ["2", "1,3"]
    assert legend == ["witness", "1. (3, 3): indices[0]: T5:3 (register=3, lane=5, warp=0, block=0)",
                      "2. (2, 3): indices[1]: T5:1 (register=1, lane=5, warp=0, block=0)", "3. (3, 3): coordinate"]
    assert f'stroke="{svg.WITNESS_RED}" stroke-width="3"' in text


def test_witnesses_of_the_properties():
    injective = pytest.importorskip("checker.properties.injective")
    surjective = pytest.importorskip("checker.properties.surjective")
    # 2 warps over a 4x8 tensor that 32 lanes already cover: warp 1 repeats warp 0
    L = lower(BlockedEncoding((1, 1), (4, 8), (2, 1), (1, 0)), [4, 8])
    cx = injective.injective(L, engines=Engines("f2")).counterexample.to_dict()
    assert svg.witness_marks(L, cx) == [
        ((0, 0), "indices[0]: T32:0 (register=0, lane=0, warp=1, block=0)"),
        ((0, 0), "indices[1]: T0:0 (register=0, lane=0, warp=0, block=0)"),
        ((0, 0), "coordinate")]
    # lanes 0..15 only reach rows 0..1 of 4
    half = LinearLayout({"register": [], "lane": [[0, 1], [0, 2], [0, 4], [1, 0]], "warp": [], "block": []},
                        [("dim0", 4), ("dim1", 8)])
    cx = surjective.surjective(half, engines=Engines("f2")).counterexample.to_dict()
    assert svg.witness_marks(half, cx) == [((2, 0), "coordinate")]
    _, _, _, outlines, _ = parse(svg.layout_figure(half, witness=cx))
    assert len(outlines) == 1


def test_missing_coordinate_of_a_non_surjective_layout():
    L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]}, [("dim0", 4), ("dim1", 2)])
    _, cells, labels, outlines, legend = parse(svg.layout_figure(L, witness={"missing": [2, 1]}))
    assert labels == ["T0:0", "T1:0", "T0:1", "T1:1", "-", "-", "-", "-"]
    assert [c.get("fill") for c in cells[4:]] == [svg.EMPTY_FILL] * 4
    assert len(outlines) == 1 and outlines[0].get("data-marks") == "1"
    assert legend[1] == "1. (2, 1): missing"
    _, _, _, outlines, legend = parse(svg.layout_figure(L, witness={"coordinate": {"dim0": 8, "dim1": 0}}))
    assert outlines == [] and legend[1] == "1. (8, 0): coordinate (outside the tensor)"


def test_shared_offsets_banks_and_bank_conflict_witness():
    L = lower(SWIZZLED, [16, 64])
    witness = {"kind": "bank_conflict", "lanes": [0, 8], "addresses": [0, 128], "bank": 0}
    text = svg.layout_figure(L, witness=witness)
    root, cells, labels, outlines, legend = parse(text)
    assert len(cells) == 16 * 64
    assert labels[0:3] == ["0 b0", "1 b0", "2 b1"]
    assert labels[64 + 0] == "72 b4" and labels[64 + 8] == "64 b0"     # row 1 is swizzled by phase 1
    assert cells[0].get("fill") == cells[1].get("fill") == svg.bank_colour(0, 32)
    assert cells[2].get("fill") == svg.bank_colour(1, 32)
    assert legend[1:] == ["1. (0, 0): lane 0: byte 0 = offset 0, bank 0",
                          "2. (1, 8): lane 8: byte 128 = offset 64, bank 0"]
    assert len(outlines) == 2
    # 4-byte elements: offset 1 is in bank 1
    _, _, labels4, _, _ = parse(svg.layout_figure(L, elem_bytes=4))
    assert labels4[:2] == ["0 b0", "1 b1"]


def test_misaligned_access_witness_outlines_the_lanes_vector():
    """aligned_access's witness: lane 8's 16-byte vector (registers 0-7) starts at offset 64, slot 68 after
    the padding, byte 136: its 8 cells outlined on the register layout and on the shared one."""
    reg = lower(BlockedEncoding((1, 8), (8, 8), (4, 1), (1, 0)), [64, 64])
    smem = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0],
                                    [8, 0], [16, 0], [32, 0]], "block": []}, [("dim0", 64), ("dim1", 64)])
    witness = {"kind": "misaligned_access", "instruction": "st.shared", "mnemonic": "ds_write_b128", "lane": 8,
               "register": 0, "warp": 0, "offset": 64, "physical_offset": 68, "byte_address": 136,
               "vector_bytes": 16, "vector": [[k, 8] for k in range(8)], "padding": [[64, 4]]}
    row1 = [(1, k) for k in range(8)]
    assert [c for c, _ in svg.witness_marks(reg, witness)] == row1
    assert [c for c, _ in svg.witness_marks(smem, witness)] == row1
    assert svg.witness_marks(reg, witness)[0][1] == (
        "vector[0]: lane 8, register 0, warp 0: byte 136, 8 past a 16-byte boundary")
    assert [m for _, m in svg.witness_marks(smem, witness)[:2]] == [
        "vector[0]: offset 64 (slot 68): byte 136, 8 past a 16-byte boundary", "vector[1]: offset 65"]
    _, cells, _, outlines, legend = parse(svg.layout_figure(reg, witness=witness))
    assert len(outlines) == 8 and legend[8] == "8. (1, 7): vector[7]: lane 8, register 7, warp 0"
    # nested under a key, and without its vector: the first element alone
    assert svg.witness_marks(smem, {"w": {**witness, "vector": []}}) == [
        ((1, 0), "w.vector[0]: offset 64 (slot 68): byte 136, 8 past a 16-byte boundary")]


def test_drawing_parts_make_the_figure():
    """`drawing` is `layout_figure` in three parts; its grid's numbers give the same cells (owners, masks)."""
    L = lower(SliceEncoding(1, BlockedEncoding((1, 1), (4, 8), (2, 2), (1, 0))), [16])
    d = svg.drawing(L, title="t")
    assert d.svg() == svg.layout_figure(L, title="t") and d.head.startswith("<svg ") and d.tail.endswith("</svg>\n")
    g = d.grid
    assert (g.rows, g.cols, g.count, len(g.others)) == (1, 16, 16, svg.MAX_LINES)
    assert g.cells[0] == (svg.WARP_PALETTE[0], ("T0:0", "T1:0", "T2:0", "+13"))
    assert g.labels[:3] == ("distributed", (("register", 1), ("lane", 5), ("warp", 2), ("block", 0)), 32)
    assert g.owners[0] == 0 and [g.owners[0] ^ m for m in g.others][:3] == [0, 2, 4]     # lanes 0, 1, 2


def test_padded_shared_offsets_are_physical():
    # 8 elements per row of a 4x8 tile, one padding element after every 8: row r starts at 9r
    linear = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0]], "block": []},
                          [("dim0", 4), ("dim1", 8)])
    text = svg.layout_figure(PaddedLayout(linear, (8,), (1,)), elem_bytes=4,
                             witness={"lanes": [0, 1], "addresses": [36, 32]})
    root, _, labels, outlines, legend = parse(text)
    assert labels[8:10] == ["9 b9", "10 b10"] and labels[31] == "34 b2"
    assert "(offset after padding: +1 every 8)" in notes(root)[1]
    # byte 36 = physical offset 9 = row 1, column 0; byte 32 = offset 8 is the padding slot of row 0
    assert legend[1:] == ["1. (1, 0): lane 0: byte 36 = offset 9, bank 9"] and len(outlines) == 1


def test_offsets_and_roles():
    L = lower(BLOCKED, [16, 16])
    witness = {"kind": "not_local", "dst_index": {"register": 0, "lane": 1, "warp": 0, "block": 0},
               "src_index": {"register": 3, "lane": 5, "warp": 0, "block": 0}, "element": {"dim0": 3, "dim1": 3}}
    assert svg.witness_marks(L, witness, role="src") == [
        ((3, 3), "src_index: T5:3 (register=3, lane=5, warp=0, block=0)"), ((3, 3), "element")]
    assert [m[1][:9] for m in svg.witness_marks(L, witness, role="dst")] == ["dst_index", "element"]
    assert len(svg.witness_marks(L, witness)) == 3
    smem = lower(SWIZZLED, [16, 64])
    assert svg.witness_marks(smem, {"kind": "slot_collision", "offsets": [64, 65], "slot": 64}) == [
        ((1, 8), "offset 64, bank 0"), ((1, 9), "offset 65, bank 0")]


def test_broadcast_owners_are_listed_then_counted():
    # a slice of a 2x2-warp blocked layout: 16 owners per element
    L = lower(SliceEncoding(1, BlockedEncoding((1, 1), (4, 8), (2, 2), (1, 0))), [16])
    _, cells, labels, _, _ = parse(svg.layout_figure(L))
    assert len(cells) == 16                                  # rank 1 is drawn as 1 x 16
    assert labels[:4] == ["T0:0", "T1:0", "T2:0", "+13"]
    assert labels[4 * 4:4 * 4 + 4] == ["T64:0", "T65:0", "T66:0", "+13"]   # element 4: warp 2


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_owners_match_brute_force(data):
    n_in = data.draw(st.integers(0, 7))
    out_bits = data.draw(st.tuples(st.integers(0, 3), st.integers(0, 3)))
    cols = [data.draw(st.tuples(st.integers(0, (1 << out_bits[0]) - 1), st.integers(0, (1 << out_bits[1]) - 1)))
            for _ in range(n_in)]
    L = LinearLayout([("register", cols[:n_in // 2]), ("lane", cols[n_in // 2:])],
                     [("dim0", 1 << out_bits[0]), ("dim1", 1 << out_bits[1])])
    brute = {}
    for x in range(L.total_in_size):
        brute.setdefault(L.unpack_out(f2.combine(L.columns, x)), []).append(x)
    coords = [(a, b) for a in range(1 << out_bits[0]) for b in range(1 << out_bits[1])]
    got, count = svg.owners(L, coords, 1 << n_in)
    for c, g in zip(coords, got):
        assert g == brute.get(c, [])
        assert len(g) in (0, count)


def test_large_tensor_is_down_sampled():
    L = lower(BlockedEncoding((4, 4), (4, 8), (4, 2), (1, 0)), [256, 512])
    text = svg.layout_figure(L)
    root, cells, labels, _, _ = parse(text)
    assert len(cells) == 64 * 64
    assert "down-sampled: every 4th row and every 8th column of 256 x 512" in notes(root)
    # drawn cell (1, 1) is element (4, 8)
    assert labels[64 + 1] == svg_label(L, (4, 8))
    assert len(text) < 500_000
    _, cells32, _, _, _ = parse(svg.layout_figure(L, max_cells=32))
    assert len(cells32) == 32 * 32


def svg_label(L, coord):
    (own,), _ = svg.owners(L, [coord], 1)
    ins = L.split_in(own[0])
    return f"T{ins['lane'] + 32 * ins['warp']}:{ins['register']}"


def test_rank3_draws_the_slice_through_the_witness():
    L = lower(BlockedEncoding((1, 1, 2), (2, 4, 4), (2, 1, 1), (2, 1, 0)), [4, 8, 8])
    root, cells, _, outlines, legend = parse(svg.layout_figure(L, witness={"coord": [2, 1, 3],
                                                                          "other_coord": [0, 0, 0]}))
    assert len(cells) == 64
    assert "slice dim0=2 of dims dim1 x dim2" in notes(root)
    assert len(outlines) == 1
    assert legend[2] == "2. (0, 0, 0): other_coord (not in the drawn slice)"


def test_titles_are_escaped():
    text = svg.layout_figure(lower(BLOCKED, [16, 16]), title="#ttg.blocked<{order = [1, 0]}> & co")
    assert "#ttg.blocked&lt;{order = [1, 0]}&gt; &amp; co" in text
    ET.fromstring(text)


def test_same_input_same_bytes_across_processes():
    witness = {"kind": "collision", "a": {"register": 3, "lane": 5, "warp": 0}, "coord": [3, 3]}
    first = svg.layout_figure(lower(BLOCKED, [16, 16]), title="t", witness=witness)
    assert svg.layout_figure(lower(BLOCKED, [16, 16]), title="t", witness=witness) == first
    code = ("import sys; from checker.encodings import lower; from checker.encodings.blocked import BlockedEncoding;"
            "from checker.reports import svg; sys.stdout.write(svg.layout_figure(lower(BlockedEncoding((2, 2), "
            "(8, 4), (1, 2), (1, 0)), [16, 16]), title='t', witness={'kind': 'collision', 'a': {'register': 3, "
            "'lane': 5, 'warp': 0}, 'coord': [3, 3]}))")
    for seed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        assert out == first


def test_show_writes_svg(tmp_path, capsys):
    pytest.importorskip("checker.syntax.mlir_attr")
    from checker.cli import main
    path = tmp_path / "b.svg"
    text = ("#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 2], "
            "order = [1, 0]}>")
    assert main(["show", text, "--shape", "16x16", "--svg", str(path)]) == 0
    assert "T5:3" in capsys.readouterr().out
    written = path.read_text()
    assert written == svg.layout_figure(lower(BLOCKED, [16, 16]), title=f"{text} at 16x16")
    assert main(["show", text, "--shape", "16x16", "--svg", str(tmp_path / "no" / "b.svg")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert pathlib.Path(path).exists()
