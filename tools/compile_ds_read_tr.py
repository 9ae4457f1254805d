"""Compile a Gluon local_load that Triton lowers to gfx950's transposed LDS read (ds_read_b64_tr_b16) and keep its
TTGIR and LLVM IR: a fixture for the lane addresses of that instruction.

    pip install triton==3.9.0        # CPU is enough
    python tools/compile_ds_read_tr.py --out tests/properties/fixtures/ds_read_tr

The kernel stores a 64x128 bf16 tile into ``swizzled_shared<{vec 4, perPhase 1, maxPhase 16, order [1, 0]}>`` and
loads it back as the B operand of a transposed 16x16x32 MFMA (kWidth 4), 4 warps: the tile of tokenspeed's and
aphrodite's attention kernels, where layoutcheck reports a 4-way conflict. Triton's LLVM IR computes each
``llvm.amdgcn.ds.read.tr16.b64`` address from the thread id with integer arithmetic;
tests/properties/test_ds_read_tr_addresses.py evaluates it for every thread and compares it with the addresses
of layoutcheck's plan. Triton is needed only here.
"""

from __future__ import annotations

import argparse
import os

import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource


@gluon.jit
def ds_read_tr_probe(x, y, M: gl.constexpr, N: gl.constexpr, R: gl.constexpr, S: gl.constexpr, D: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, R))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, R))
    smem = gl.allocate_shared_memory(gl.bfloat16, [M, N], S, gl.load(x + rows[:, None] * N + cols[None, :]))
    w = smem.load(D)
    rows2 = gl.arange(0, M, layout=gl.SliceLayout(1, D))
    cols2 = gl.arange(0, N, layout=gl.SliceLayout(0, D))
    gl.store(y + rows2[:, None] * N + cols2[None, :], w)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    mfma = gl.amd.AMDMFMALayout(version=4, instr_shape=[16, 16, 32], transposed=True, warps_per_cta=[4, 1])
    layouts = {"R": gl.BlockedLayout([1, 8], [8, 8], [4, 1], [1, 0]), "S": gl.SwizzledSharedLayout(4, 1, 16, [1, 0]),
               "D": gl.DotOperandLayout(operand_index=1, parent=mfma, k_width=4)}
    sig = {"x": "*bf16", "y": "*bf16", **{k: "constexpr" for k in ("M", "N", *layouts)}}
    src = GluonASTSource(ds_read_tr_probe, sig, constexprs={"M": 64, "N": 128, **layouts})
    c = triton.compile(src, target=GPUTarget("hip", "gfx950", 64), options={"num_warps": 4})
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    os.makedirs(args.out, exist_ok=True)
    for ext, key in (("ttgir", "ttgir"), ("ll", "llir")):
        with open(os.path.join(args.out, f"bf16_64x128_swz4_1_16.gfx950.{ext}"), "w", encoding="utf-8") as f:
            f.write(c.asm[key].replace(root, ""))
    print(f"Triton {triton.__version__}: {c.asm['amdgcn'].count('ds_read_b64_tr_b16')} ds_read_b64_tr_b16")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
