"""Compile small versions of Triton's tutorial kernels to TTGIR for several targets (test fixtures).

    pip install triton==3.9.0        # CPU is enough: no GPU and no system CUDA or ROCm toolchain
    python tools/compile_kernels.py --out specs/kernels

Each kernel is compiled with ``triton.compile(ASTSource(fn, signature, constexprs, attrs),
target=GPUTarget(...), options={num_warps, num_stages})`` for ``cuda:80``, ``cuda:90``
and ``hip:gfx942``, and only the TTGIR stage (``compiled.asm["ttgir"]``) is kept.
With Triton 3.9 on a machine without a GPU the whole pipeline runs to the binary
for all three targets: the wheel bundles ``ptxas`` (backends/nvidia/bin) and links
``hsaco`` in process, and no stage queries a device. Should a later stage fail on
another install, the backend's ``add_stages`` stages are run alone up to "ttgir";
that path prints the same text (checked for every kernel and target). ``attrs``
marks every pointer and i32 argument 16-divisible, as the launcher would for
aligned tensors, so loads vectorize and the pipeliner emits async copies.
Debug locations are stripped; the file is otherwise what Triton printed, after a
two-line ``//`` header: kernel, target, constexprs, the effective num_warps and
num_stages, Triton's version, and the command that wrote it. Written in the
spirit of python/tutorials/0[1-6]*.py, not copied.

Triton is needed only here, never by layoutcheck.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler.compiler import make_backend

TARGETS = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
           "gfx942": GPUTarget("hip", "gfx942", 64)}


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(mask, x - mean, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / n + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c = acc.to(tl.float16)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, c,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def attention(q_ptr, k_ptr, v_ptr, o_ptr, stride_m, n_ctx, sm_scale,
              BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    offs_m = start_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * stride_m + offs_d[None, :])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start_n in range(0, n_ctx, BN):
        kt = tl.load(k_ptr + (start_n + offs_n)[None, :] * stride_m + offs_d[:, None])
        qk = tl.dot(q, kt) * sm_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + (start_n + offs_n)[:, None] * stride_m + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_ij
    tl.store(o_ptr + offs_m[:, None] * stride_m + offs_d[None, :], (acc / l_i[:, None]).to(tl.float16))


def _signature(fn, types: dict[str, str], constexprs: dict[str, int]) -> dict[str, str]:
    """Argument types; an argument specialized as a constant (a unit stride) is a constexpr."""
    return {name: ("constexpr" if name in constexprs else types[name]) for name in fn.arg_names}


KERNELS = {
    "vector_add": (vector_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                   {"BLOCK": 1024}, {"num_warps": 4}),
    "softmax": (softmax, {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32", "out_stride": "i32",
                          "n_rows": "i32", "n_cols": "i32"}, {"BLOCK": 1024}, {"num_warps": 8}),
    "layer_norm": (layer_norm, {"x_ptr": "*fp16", "y_ptr": "*fp16", "w_ptr": "*fp16", "b_ptr": "*fp16",
                                "stride": "i32", "n": "i32", "eps": "fp32"}, {"BLOCK": 512}, {"num_warps": 4}),
    "matmul": (matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                        "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
                        "stride_cm": "i32", "stride_cn": "i32"},
               {"BM": 128, "BN": 128, "BK": 32, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1},
               {"num_warps": 4, "num_stages": 3}),
    "attention": (attention, {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                              "stride_m": "i32", "n_ctx": "i32", "sm_scale": "fp32"},
                  {"BM": 64, "BN": 64, "D": 64}, {"num_warps": 4, "num_stages": 2}),
}

_LOC = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")


def strip_locations(text: str) -> str:
    """Drop `loc(...)` trailers and `#loc` alias lines (debug information only)."""
    lines = [ln for ln in text.splitlines() if not re.match(r"^#loc\d*\s*=", ln)]
    return "\n".join(_LOC.sub("", ln) for ln in lines) + "\n"


def _divisibility(fn, types: dict[str, str], constexprs: dict[str, int]) -> dict:
    """What Triton's launcher specializes on for 16-byte aligned arguments: every pointer and integer
    argument divisible by 16 (``tt.divisibility``), so loads vectorize and the pipeliner can use async copies."""
    return {(fn.arg_names.index(name),): [["tt.divisibility", 16]]
            for name, ty in types.items() if name not in constexprs and (ty.startswith("*") or ty == "i32")}


def ttgir(fn, types, constexprs, options, target: GPUTarget) -> str:
    src = triton.compiler.ASTSource(fn, _signature(fn, types, constexprs), constexprs,
                                    _divisibility(fn, types, constexprs))
    try:
        return triton.compile(src, target=target, options=options).asm["ttgir"]
    except Exception as e:                     # a stage after TTGIR needs a toolchain: run up to ttgir only
        from triton.backends import backends
        backend = make_backend(target)
        opts = backend.parse_options(options)
        stages: dict = {}
        backend.add_stages(stages, opts, src.language)
        from triton._C.libtriton import ir
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        module = src.make_ir(target, opts, backend.get_codegen_implementation(opts),
                             backend.get_module_map(), context)
        metadata: dict = {}
        for name, stage in stages.items():
            module = stage(module, metadata)
            if name == "ttgir":
                return str(module)
        raise RuntimeError(f"no ttgir stage in {list(stages)} ({list(backends)})") from e


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for <kernel>.<target>.ttgir")
    ap.add_argument("--only", nargs="*", help="kernel names (default: all)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for name, (fn, types, constexprs, options) in KERNELS.items():
        if args.only and name not in args.only:
            continue
        for tag, target in TARGETS.items():
            text = strip_locations(ttgir(fn, types, constexprs, options, target))
            effective = make_backend(target).parse_options(options)
            params = {**constexprs, "num_warps": effective.num_warps, "num_stages": effective.num_stages}
            opts = ", ".join(f"{k}={v}" for k, v in params.items())
            header = (f"// {name} for {target.backend}:{target.arch} ({opts}), compiled by Triton "
                      f"{triton.__version__} on CPU\n// python tools/compile_kernels.py --out {args.out} "
                      f"--only {name}\n")
            path = os.path.join(args.out, f"{name}.{tag}.ttgir")
            with open(path, "w", encoding="utf-8") as f:
                f.write(header + text)
            print(f"{path}: {len(text.splitlines())} lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
