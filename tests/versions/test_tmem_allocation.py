"""The kernel's tensor memory under each release that compiled it (tests/versions/tmem.json: each release's own
TensorMemoryAllocation pass, run by tools/allocation_oracle.py under that release, on the per-release corpora and
the older compiles of tests/verify/ttgir): its tmem_size and every allocation's column and row. Triton 3.5 sizes a
buffer from its bytes, a scales buffer as ceil(M / 32) x ceil(K / 4) columns of 128 rows (change
tmem_sizes_from_layout); 3.6 and 3.7 read the size off a layout whose CGA is more columns, and divide the CTA
splits out (change tmem_block_in_dim)."""

import json
import pathlib

import pytest

from checker.syntax.ttgir import read_ttgir
from checker.ttgir.tmem_allocation import allocation_size, tmem_budget
from checker.versions import parse, using

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXPECTED = json.loads((ROOT / "tests" / "versions" / "tmem.json").read_text())
CASES = [(v, f) for v, files in sorted(EXPECTED.items()) for f in sorted(files)]


@pytest.mark.parametrize("version,path", CASES, ids=[f"{v}-{pathlib.Path(f).name}" for v, f in CASES])
def test_every_release_places_tensor_memory_as_the_model_says(version, path):
    [m] = read_ttgir((ROOT / path).read_text(), path)
    with using(parse(version)):
        b = tmem_budget(m)
    assert not b.uncertain
    assert [b.size, sorted([c.line, c.column, c.row] for c in b.chunks)] == EXPECTED[version][path]


def test_the_releases_size_scales_and_two_cta_buffers_each_their_own_way():
    """A 128x4 i8 scales buffer is 128 rows x 4 columns under every release, but 3.5's scales layout has 32 rows (no
    broadcast rows: change tmem_scales_broadcast_rows): read off it, the buffer would take no row half at all; 3.5
    computes it from M and K (4 x 1 columns of 128 rows). A 2-CTA 128x128 f32 accumulator split over M: under 3.6
    its layout's col in-dim holds the CGA too (128 columns), over the split of 2: 64 columns of 128 rows per CTA."""
    from checker.encodings import lower
    [m] = read_ttgir((ROOT / "tests/versions/corpus/3.5/tl_dot_scaled_mxfp4.cuda100.ttgir").read_text(), "x")
    scales = next(op.result_types[0] for op in m.operations if op.name == "ttng.tmem_alloc"
                  and "scales" in (op.result_types[0].encoding_text or ""))
    with using(parse("3.5")):
        assert (allocation_size(scales), lower(scales.encoding, scales.shape).in_dim_size("row")) == ((128, 4), 32)
    with using(parse("3.6")):
        assert allocation_size(scales) == (128, 4)
    [m] = read_ttgir((ROOT / "tests/verify/ttgir/blackwell_2cta_matmul_triton36.ttgir").read_text(), "x")
    acc = next(op.result_types[0] for op in m.operations if op.name == "ttng.tmem_alloc")
    with using(parse("3.6")):
        assert (allocation_size(acc), lower(acc.encoding, acc.shape).in_dim_size("col")) == ((128, 64), 128)
