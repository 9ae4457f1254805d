"""checker.parse_encoding reads Gluon layout objects of every class, as the spec reader reads their specs."""

import subprocess
import sys

import pytest

import checker
from checker.syntax.mlir_attr import print_attribute

pytest.importorskip("triton")


def objects():
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.amd import AMDMFMALayout, AMDWMMALayout
    from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout
    from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, TensorMemoryScalesLayout
    blocked = gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0])
    mma = gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8])
    return [
        (blocked,
         "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>"),
        (gl.SliceLayout(1, blocked), "#ttg.slice<{dim = 1, parent = #ttg.blocked<"),
        (gl.DistributedLinearLayout([[0, 1]], [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], [[0, 2], [0, 4]], [], [32, 8]),
         "#ttg.linear<{register = [[0, 1]]"),
        (mma, "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>"),
        (gl.DotOperandLayout(0, mma, 2), "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<"),
        (gl.NVMMASharedLayout(128, 16),
         "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"),
        (gl.NVMMASharedLayout.get_default_for([64, 64], gl.float16), "#ttg.nvmma_shared<{swizzlingByteWidth = 128"),
        (gl.SwizzledSharedLayout(8, 1, 8, [1, 0]),
         "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"),
        (gl.PaddedSharedLayout.with_identity_for([[32, 4]], [64, 64], [1, 0]), "#ttg.padded_shared<[32:+4]"),
        (gl.SharedLinearLayout([[0, 1], [0, 2], [1, 0]]), "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [1, 0]]}"),
        (AMDMFMALayout(3, [32, 32, 8], True, [2, 2]), "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2]"),
        (AMDWMMALayout(2, True, [[1, 0], [2, 0]]), "#ttg.amd_wmma<{version = 2, isTranspose = true"),
        (PartitionedSharedLayout(2, 2, 0, gl.SwizzledSharedLayout(8, 1, 8, [1, 0])),
         "#ttg.partitioned_shared<{numPartitions = 2"),
        (TensorMemoryLayout((128, 128), 1), "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>"),
        (TensorMemoryScalesLayout(), "#ttng.tensor_memory_scales_encoding<>"),
    ]


def test_every_gluon_class():
    for obj, text in objects():
        assert print_attribute(checker.parse_encoding(obj)).startswith(text), type(obj).__name__


def test_same_as_triton_lowers_it():
    """The object's encoding lowers to the LinearLayout Triton's own C++ builds from that object."""
    from triton.experimental.gluon import language as gl

    from checker.properties.matches_triton import matches_triton
    for obj, shape in [(gl.BlockedLayout([1, 8], [8, 4], [4, 1], [1, 0]), [64, 64]),
                       (gl.SwizzledSharedLayout(8, 1, 8, [1, 0]), [64, 64]),
                       (gl.NVMMASharedLayout(128, 16), [64, 64])]:
        assert matches_triton(checker.parse_encoding(obj), shape, target="cuda:90", warps=4, lanes=32).holds


def test_not_a_concrete_layout():
    from triton.experimental.gluon import language as gl
    with pytest.raises(checker.CheckerError, match="AutoLayout is not a layout layoutcheck reads"):
        checker.parse_encoding(gl.AutoLayout())


def test_text_input_imports_no_triton():
    code = ("import sys, checker; checker.parse_encoding('#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
            "warpsPerCTA = [4], order = [0]}>'); print('triton' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
