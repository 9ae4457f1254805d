"""A program that compiles kernels with Triton on CPU, for `layoutcheck run` (tests/test_triton.py).

    python tests/triton/program.py [cuda80|gfx942|...]

It compiles, for each target named (default: cuda80 and gfx942): a Gluon kernel whose store into an
unswizzled, column-major shared buffer is bank-conflicted (BANK_LINE) and whose convert_layout moves data
between warps through shared memory (CONVERT_LINE), and a plain Triton kernel (a transpose). Then it
compiles the first kernel again (a cache hit); with $PROGRAM_BIG, a kernel whose shared memory (256 KiB,
BIG_LINE) does not fit; exits with the status given by $PROGRAM_STATUS. With $PROGRAM_LISTENER it sets its own
compilation listener first (and prints how many compilations it saw); with $PROGRAM_NOTHING it compiles
nothing; with $PROGRAM_SIGINT it interrupts itself (SIGINT) after compiling.
"""

import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

TARGETS = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
           "gfx942": GPUTarget("hip", "gfx942", 64)}


@gluon.jit
def staged(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, REG: gl.constexpr, OTHER: gl.constexpr,
           SMEM: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, REG))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, REG))
    x = gl.load(x_ptr + rows[:, None] * N + cols[None, :])
    smem = gl.allocate_shared_memory(gl.float16, [M, N], SMEM)
    smem.store(x)                                                   # BANK_LINE
    y = smem.load(REG)
    z = gl.convert_layout(y, OTHER)                                 # CONVERT_LINE
    rows2 = gl.arange(0, M, layout=gl.SliceLayout(1, OTHER))
    cols2 = gl.arange(0, N, layout=gl.SliceLayout(0, OTHER))
    gl.store(y_ptr + rows2[:, None] * N + cols2[None, :], z)


@gluon.jit
def too_big(x_ptr, N: gl.constexpr, STAGES: gl.constexpr, REG: gl.constexpr, SMEM: gl.constexpr):
    rows = gl.arange(0, N, layout=gl.SliceLayout(1, REG))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, REG))
    x = gl.load(x_ptr + rows[:, None] * N + cols[None, :])
    bufs = gl.allocate_shared_memory(gl.float32, [STAGES, N, N], SMEM)      # BIG_LINE
    for i in gl.static_range(STAGES):
        bufs.index(i).store(x)
    y = bufs.index(STAGES - 1).load(REG)
    gl.store(x_ptr + rows[:, None] * N + cols[None, :], y)


@triton.jit
def transpose(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :])
    tl.store(y_ptr + cols[:, None] * M + rows[None, :], tl.trans(x))


def gluon_source(lanes: int):
    M, N = 64, 64
    reg = gl.BlockedLayout([1, 8], [lanes // 8, 8], [4, 1], [1, 0])
    other = gl.BlockedLayout([8, 1], [8, lanes // 8], [1, 4], [0, 1])
    smem = gl.SwizzledSharedLayout(1, 1, 1, [0, 1])             # column-major, unswizzled: conflicts
    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr", "N": "constexpr", "REG": "constexpr",
           "OTHER": "constexpr", "SMEM": "constexpr"}
    return GluonASTSource(staged, sig, {"M": M, "N": N, "REG": reg, "OTHER": other, "SMEM": smem})


def big_source(lanes: int):
    """Four 128x128 f32 buffers: 256 KiB of shared memory, more than any target has."""
    reg = gl.BlockedLayout([1, 4], [lanes // 8, 8], [4, 1], [1, 0])
    smem = gl.SwizzledSharedLayout(4, 1, 8, [1, 0])
    sig = {"x_ptr": "*fp32", "N": "constexpr", "STAGES": "constexpr", "REG": "constexpr", "SMEM": "constexpr"}
    return GluonASTSource(too_big, sig, {"N": 128, "STAGES": 4, "REG": reg, "SMEM": smem})


def triton_source():
    sig = {"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "constexpr", "N": "constexpr"}
    return triton.compiler.ASTSource(transpose, sig, {"M": 64, "N": 32})


def main(argv):
    names = argv or ["cuda80", "gfx942"]
    if os.environ.get("PROGRAM_NOTHING"):
        return 0
    seen = []
    if os.environ.get("PROGRAM_LISTENER"):
        from triton import knobs

        def own(**kwargs):
            seen.append(kwargs.get("metadata"))
        knobs.compilation.listener = own
    for name in names:
        target = TARGETS[name]
        triton.compile(gluon_source(target.warp_size), target=target, options={"num_warps": 4})
        triton.compile(triton_source(), target=target, options={"num_warps": 4})
    target = TARGETS[names[0]]
    triton.compile(gluon_source(target.warp_size), target=target, options={"num_warps": 4})   # a cache hit
    if os.environ.get("PROGRAM_BIG"):
        triton.compile(big_source(target.warp_size), target=target, options={"num_warps": 4})
    if os.environ.get("PROGRAM_LISTENER"):
        print(f"program listener saw {len(seen)} compilations", file=sys.stderr)
    if os.environ.get("PROGRAM_SIGINT"):
        import signal
        os.kill(os.getpid(), signal.SIGINT)
    return int(os.environ.get("PROGRAM_STATUS", "0"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
