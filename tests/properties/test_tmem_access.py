"""tmem_access: Triton's tcgen05.ld/st message selection (TensorMemoryUtils.cpp lowerTMemLdSt), on
layouts from Triton's own lit tests (valid IR) and on layouts its verifier rejects."""

import pytest

from checker.properties.tmem_access import tile_layout, tmem_access
from checker.syntax.ttgir import read_ttgir

ALIASES = """
#b32 = #ttg.blocked<{sizePerThread = [1, 128], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#l256 = #ttg.linear<{register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64], [16, 0]], \
lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[32, 0], [64, 0]], block = []}>
#b64 = #ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [16, 2], warpsPerCTA = [4, 2], order = [0, 1]}>
#cols = #ttg.blocked<{sizePerThread = [128, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#wcol = #ttg.blocked<{sizePerThread = [1, 32], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#t128 = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>
#t128p = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 2>
#t64 = #ttng.tensor_memory_encoding<blockM = 64, blockN = 64, colStride = 1>
"""
A = read_ttgir(ALIASES + 'module attributes {"ttg.num-warps" = 4 : i32} {}\n')[0].aliases


@pytest.mark.parametrize("reg,mem,shape,bits,message", [
    ("b32", "t128", [128, 128], 32, "32x32b"),
    ("l256", "t128", [128, 128], 32, "16x256b"),
    ("b64", "t64", [64, 64], 32, "16x32bx2"),
    ("b32", "t128p", [128, 128], 16, "32x32b"),
])
def test_message(reg, mem, shape, bits, message):
    r = tmem_access(A[reg], A[mem], shape, shape, bits)
    assert r.status == "holds", r.explanation
    assert r.details["message"] == message
    assert message in r.explanation


def test_unpacked_16_bit():
    r = tmem_access(A["b32"], A["t128p"], [128, 128], [128, 128], 16)
    assert r.details["unpacked"] is True


def test_registers_per_message_bounded_by_maxnreg():
    assert tmem_access(A["b32"], A["t128"], [128, 128], [128, 128], 32).details["registers_per_message"] == 128
    r = tmem_access(A["b32"], A["t128"], [128, 128], [128, 128], 32, maxnreg=128)
    assert r.details["registers_per_message"] == 64


def test_warps_along_columns_is_rejected():
    r = tmem_access(A["wcol"], A["t128"], [128, 128], [128, 128], 32)
    assert r.status == "fails"
    assert "warps 1, 2 must hold TMEM rows 32, 64" in r.explanation


def test_lanes_along_columns_match_no_message():
    r = tmem_access(A["cols"], A["t128"], [128, 128], [128, 128], 32)
    assert r.status == "fails"
    assert "no tcgen05.ld/st message" in r.explanation


def test_tiles():
    assert tile_layout("32x32b").in_dim_size("lane") == 32
    assert tile_layout("16x256b").in_dim_size("register") == 4
    assert tile_layout("16x64b").out_dim_size("col") == 2
