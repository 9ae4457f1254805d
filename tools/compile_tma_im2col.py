"""Compile Gluon TMA im2col copies with Triton (3.8 or later: Gluon's im2col loads came in 3.8) on the CPU and
record what Triton emits.

    python tools/compile_tma_im2col.py --out tests/properties/fixtures/tma_im2col/triton39   # Triton 3.9.0
    python tools/compile_tma_im2col.py --out tests/properties/fixtures/tma_im2col/triton38   # Triton 3.8.0

Each case is one kernel in the shape of Triton's Gluon im2col tutorial: an ``async_load_im2col`` of a 4-D
activation (an ``!ttng.tensordesc_im2col`` block [pixels, channels]) into an nvmma_shared buffer, then a tiled
``async_store`` of that buffer, one warp, cuda:100. The cases vary the block, the element type and the swizzle,
across the box rules (channels clamped to 256 or to the swizzle, pixels up to 1024 in one message). Each case
writes CASE.ttgir and one line of facts.jsonl: the case, and per TMA op of the TTGIR (its line) the
``cp.async.bulk.tensor`` instructions of the PTX at its Python line (``ptx_instructions``); a case Triton
rejects records its error instead (a fatal LLVM error aborts the compile's process: each case runs in one).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]      # compile_corpus beside it, the checker above it

CASES = {   # name: (block [pixels, channels], element type, swizzle bytes, element bits)
    "f32_16x32_sw128": ([16, 32], "fp32", 128, 32),          # the tutorial's own example
    "f16_64x64_sw128": ([64, 64], "fp16", 128, 16),          # the tutorial's conv2d block
    "f16_1024x64_sw128": ([1024, 64], "fp16", 128, 16),      # the most pixels one message takes
    "f16_2048x64_sw128": ([2048, 64], "fp16", 128, 16),      # past it: Triton aborts
    "f16_64x32_sw128": ([64, 32], "fp16", 128, 16),          # channels below the swizzle: the buffer is refused
    "f16_64x512_sw0": ([64, 512], "fp16", 0, 16),            # channels clamped to 256: 2 messages
    "f16_128x128_sw64": ([128, 128], "fp16", 64, 16),        # channels = the swizzle's 32: 4 messages
    "f16_128x256_sw128": ([128, 256], "fp16", 128, 16),
    "f32_256x32_sw0": ([256, 32], "fp32", 0, 32),
    "f16_32x1024_sw0": ([32, 1024], "fp16", 0, 16),
}


def kernel():
    """The kernel (defined where Triton is imported: its annotations are read in this module's globals)."""
    global tl, gluon, ttgl, mbarrier, tma
    from triton import language as tl
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

    @gluon.jit
    def im2col_copy(src, dst, n: int, h: int, w: int, c: int, dh: tl.constexpr, dw: tl.constexpr):
        buf = ttgl.allocate_shared_memory(src.dtype, src.block_shape, src.layout)
        bar = mbarrier.allocate_mbarrier()
        mbarrier.init(bar, count=1)
        mbarrier.expect(bar, src.block_type.nbytes)
        tma.async_load_im2col(src, [n, h, w, c], [dh, dw], bar, buf)
        mbarrier.wait(bar, phase=0)
        mbarrier.invalidate(bar)
        tma.async_store(dst, [0, 0], buf)
        tma.store_wait(pendings=0)
    return im2col_copy


def compile_case(name: str, out: str) -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.experimental.gluon.language._layouts import NVMMASharedLayout
    block, dtype, swizzle, bits = CASES[name]
    layout = NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=2)
    sig = {"src": f"tensordesc_im2col<{dtype}[{block[0]},{block[1]}],input_rank=4,{layout!r}>",
           "dst": f"tensordesc<{dtype}[{block[0]},{block[1]}],{layout!r}>",
           "n": "i32", "h": "i32", "w": "i32", "c": "i32", "dh": "constexpr", "dw": "constexpr"}
    fact = {"case": name, "block": block, "dtype": dtype, "swizzle": swizzle, "triton": triton.__version__}
    with tempfile.TemporaryDirectory() as cache:
        os.environ["TRITON_CACHE_DIR"] = cache
        try:
            k = triton.compile(GluonASTSource(kernel(), sig, {"dh": 1, "dw": 1}), target=GPUTarget("cuda", 100, 32),
                               options={"num_warps": 1})
        except Exception as e:  # Triton refuses the case: its message is the fact
            return {**fact, "error": f"{type(e).__name__}: {' '.join(str(e).split())[-300:]}"}
    ttgir = k.asm["ttgir"]
    with open(os.path.join(out, f"{name}.ttgir"), "w") as f:
        f.write(ttgir)
    return {**fact, "shared": k.metadata.shared, "num_warps": 1, "ops": tma_instructions(ttgir, k.asm["ptx"])}


def tma_instructions(ttgir: str, ptx: str) -> dict[str, int]:
    """TTGIR line of each TMA op -> the cp.async.bulk.tensor instructions at its Python line in the PTX (the PTX
    read by compile_corpus.shared_instructions, the TTGIR's locations by layoutcheck's reader)."""
    import compile_corpus

    from checker.syntax.ttgir import read_ttgir
    per_line = compile_corpus.shared_instructions(ptx, True, os.path.basename(__file__))
    return {str(op.line): sum(n for code, n in per_line[op.loc[1]].items() if code.startswith("cp.async.bulk.tensor"))
            for m in read_ttgir(ttgir) for op in m.operations
            if op.name.startswith("ttng.async_tma_copy_") and op.loc is not None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--case", help=argparse.SUPPRESS)     # one case, in a process of its own
    args = ap.parse_args()
    if args.case:
        print(json.dumps(compile_case(args.case, args.out)))
        return 0
    os.makedirs(args.out, exist_ok=True)
    facts = []
    for name in CASES:
        run = subprocess.run([sys.executable, __file__, "--out", args.out, "--case", name], capture_output=True,
                             text=True)
        lines = [x for x in run.stdout.splitlines() if x.startswith("{")]
        facts.append(json.loads(lines[-1]) if lines else
                     {"case": name, **dict(zip(("block", "dtype", "swizzle"), CASES[name][:3])),
                      "error": " ".join((run.stderr.strip().splitlines() or ["aborted"])[-1:])})
        print(json.dumps(facts[-1]), flush=True)
    with open(os.path.join(args.out, "facts.jsonl"), "w") as f:
        f.writelines(json.dumps(x) + "\n" for x in facts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
