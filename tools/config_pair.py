"""Fixture: one Triton matmul compiled with two configs (num_stages 3 and 4) for `layoutcheck diff` of configs.

    .venv/bin/python tools/config_pair.py --out tests/versions/configs       # Triton 3.9, CPU only

Writes ``matmul.s3/<target>.ttgir`` and ``matmul.s4/<target>.ttgir`` (the same kernel name, so the two folders'
modules match) and ``shared.json``: each module's Triton ``metadata.shared``. tests/run/test_diff.py checks that the
diff's whole-kernel shared memory on each side equals it.
"""

from __future__ import annotations

import argparse
import json
import os

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

TARGETS = {"cuda90": GPUTarget("cuda", 90, 32), "cuda80": GPUTarget("cuda", 80, 32)}


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    shared = {}
    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
           "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"}
    attrs = {(i,): [["tt.divisibility", 16]] for i in range(6)}
    for stages in (3, 4):
        for name, target in TARGETS.items():
            src = ASTSource(matmul, sig, constexprs={"BM": 128, "BN": 128, "BK": 64}, attrs=attrs)
            c = triton.compile(src, target=target, options={"num_warps": 4, "num_stages": stages})
            folder = os.path.join(args.out, f"matmul.s{stages}")
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, f"{name}.ttgir")
            with open(path, "w") as f:
                f.write(f"// matmul, num_stages={stages}, {name}: Triton {triton.__version__} (tools/config_pair.py)\n"
                        + c.asm["ttgir"].replace(root, ""))
            shared[os.path.relpath(path, args.out)] = c.metadata.shared
    with open(os.path.join(args.out, "shared.json"), "w") as f:
        json.dump(shared, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
