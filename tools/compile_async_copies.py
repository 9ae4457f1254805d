"""Compile pipelined loads whose global pointers allow narrower vectors than their layouts, and record the width
of every cp.async Triton emits (a fixture for the vector of a copy's shared-memory write).

    pip install triton==3.9.0        # CPU is enough
    python tools/compile_async_copies.py --out tests/properties/fixtures/async_copies

Triton's pipeliner turns a loop's ``tl.load`` into ``ttg.async_copy_global_to_local`` (cp.async) and its
lowering moves, per lane, as many elements as the pointer's AxisInfo allows (contiguity and divisibility along
the layout's order[0], the mask's constancy, at most 16 bytes), however many the layouts would allow. Each
kernel below loads one operand of a ``tl.dot`` through a pointer of another kind: contiguous, read at
``c // d`` (a runtime divisor: contiguity 1), under a mask of runtime bound (constancy 1), with
``tl.max_contiguous`` / ``tl.multiple_of`` hints of 2 elements, or at a 2-element stride. Each is compiled for
cuda:80 and cuda:90 (4 warps, 3 stages; pointer arguments 16-divisible, as the launcher marks aligned tensors)
and written as KERNEL.TARGET.ttgir (with its debug locations: a copy's Python line names it) beside one line of
facts.jsonl: the kernel, the target and, per Python line of the kernel's source, the cp.async instructions of
the PTX with their byte counts (``{"12": {"cp.async.ca.shared.global:4": 4}}``).

Triton is needed only here, never by layoutcheck.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

TARGETS = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32)}


@triton.jit
def divided_columns(a_ptr, z_ptr, s_ptr, o_ptr, d, n_iter):
    """z at ``c // d``: contiguity 1 along the columns (4-byte copies of i32); s contiguous (16 bytes)."""
    r = tl.arange(0, 32)
    c = tl.arange(0, 16)
    acc = tl.zeros((16, 16), tl.float32)
    for i in tl.range(0, n_iter, num_stages=3):
        a = tl.load(a_ptr + i * 256 + r[None, :] + c[:, None] * 32)
        z = tl.load(z_ptr + i * 512 + r[:, None] * 16 + c[None, :] // d)
        s = tl.load(s_ptr + i * 512 + r[:, None] * 16 + c[None, :])
        acc += tl.dot(a, (z + s).to(tl.float16))
    tl.store(o_ptr + c[:, None] * 16 + c[None, :], acc)


@triton.jit
def masked_columns(a_ptr, b_ptr, o_ptr, n, n_iter):
    """b under a mask of runtime bound: the mask's constancy 1 caps b's copies at one element (4 bytes)."""
    r = tl.arange(0, 32)
    c = tl.arange(0, 32)
    acc = tl.zeros((32, 32), tl.float32)
    for i in tl.range(0, n_iter, num_stages=3):
        a = tl.load(a_ptr + i * 1024 + r[:, None] * 32 + c[None, :])
        b = tl.load(b_ptr + i * 1024 + r[:, None] * 32 + c[None, :], mask=c[None, :] < n, other=0.0)
        acc += tl.dot(a, b)
    tl.store(o_ptr + r[:, None] * 32 + c[None, :], acc)


@triton.jit
def hinted_pairs(a_ptr, b_ptr, o_ptr, d, n_iter):
    """b at ``(c // d) * 2 + c % 2`` with ``tl.max_contiguous`` / ``tl.multiple_of`` hints of 2: 8-byte copies
    of f32 where the layouts take 16."""
    r = tl.arange(0, 32)
    c = tl.arange(0, 32)
    acc = tl.zeros((32, 32), tl.float32)
    cols = tl.max_contiguous(tl.multiple_of((c // d) * 2 + c % 2, 2), 2)
    for i in tl.range(0, n_iter, num_stages=3):
        a = tl.load(a_ptr + i * 1024 + r[:, None] * 32 + c[None, :])
        b = tl.load(b_ptr + i * 1024 + r[:, None] * 32 + cols[None, :])
        acc += tl.dot(a, b)
    tl.store(o_ptr + r[:, None] * 32 + c[None, :], acc)


@triton.jit
def strided_rows(a_ptr, b_ptr, o_ptr, n_iter):
    """a read along a 2-element stride (no two consecutive elements of a thread adjacent: 4-byte copies)."""
    r = tl.arange(0, 32)
    c = tl.arange(0, 32)
    acc = tl.zeros((32, 32), tl.float32)
    for i in tl.range(0, n_iter, num_stages=3):
        a = tl.load(a_ptr + i * 2048 + r[:, None] * 64 + c[None, :] * 2)
        b = tl.load(b_ptr + i * 1024 + r[:, None] * 32 + c[None, :])
        acc += tl.dot(a, b)
    tl.store(o_ptr + r[:, None] * 32 + c[None, :], acc)


KERNELS = {  # name: (function, argument types)
    "divided_columns": (divided_columns, {"a_ptr": "*fp16", "z_ptr": "*i32", "s_ptr": "*i32", "o_ptr": "*fp32",
                                          "d": "i32", "n_iter": "i32"}),
    "masked_columns": (masked_columns, {"a_ptr": "*fp32", "b_ptr": "*fp32", "o_ptr": "*fp32", "n": "i32",
                                        "n_iter": "i32"}),
    "hinted_pairs": (hinted_pairs, {"a_ptr": "*fp32", "b_ptr": "*fp32", "o_ptr": "*fp32", "d": "i32",
                                    "n_iter": "i32"}),
    "strided_rows": (strided_rows, {"a_ptr": "*fp32", "b_ptr": "*fp32", "o_ptr": "*fp32", "n_iter": "i32"}),
}

_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_CP_ASYNC = re.compile(r"^\s*(?:@!?%p\w+\s+)?(cp\.async\.c[ag]\.shared\.global)\S*\s+\[[^\]]*\],\s*\[[^\]]*\],\s*"
                       r"(0x[0-9a-fA-F]+|\d+)")


def cp_async_by_line(ptx: str, source: str) -> dict[str, dict[str, int]]:
    """The cp.async instructions of PTX text by the line of `source` (a file name) their ``.loc`` names, each
    with its byte count appended."""
    files = {m.group(1): m.group(2) for m in map(_FILE.match, ptx.splitlines()) if m}    # (listed after the code)
    out: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    cur = None
    for text in ptx.splitlines():
        m = _LOC.match(text)
        if m:
            cur = m.group(2) if os.path.basename(files.get(m.group(1), "")) == source else None
            continue
        m = _CP_ASYNC.match(text)
        if m and cur is not None:
            out[cur][f"{m.group(1)}:{int(m.group(2), 0)}"] += 1
    return {line: dict(c) for line, c in sorted(out.items(), key=lambda kv: int(kv[0]))}


def compile_one(name: str, target: str) -> tuple[str, dict]:
    fn, types = KERNELS[name]
    attrs = {(i,): [["tt.divisibility", 16]] for i, t in enumerate(types.values()) if t.startswith("*")}
    src = triton.compiler.ASTSource(fn, dict(types), {}, attrs)
    c = triton.compile(src, target=TARGETS[target], options={"num_warps": 4, "num_stages": 3})
    facts = {"kernel": name, "target": target, "triton": triton.__version__,
             "cp_async": cp_async_by_line(c.asm["ptx"], os.path.basename(__file__))}
    return c.asm["ttgir"], facts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    lines = []
    for name in KERNELS:
        for target in TARGETS:
            text, facts = compile_one(name, target)
            with open(os.path.join(args.out, f"{name}.{target}.ttgir"), "w", encoding="utf-8") as f:
                f.write(text.replace(root, ""))
            lines.append(json.dumps(facts, sort_keys=True))
            print(name, target, facts["cp_async"], file=sys.stderr)
    with open(os.path.join(args.out, "facts.jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
