"""Plain Triton matmuls: fp16/bf16/tf32/fp8/int8 dots with transposed operands, batched 3-D dots,
chained dots, split-K, persistent TMA matmuls (host and device descriptors), dot_scaled."""

import triton
import triton.language as tl

from corpus_kernels import ALL, case


@triton.jit
def mm_loop(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr,
            PRECISION: tl.constexpr, ACC_INT: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if ACC_INT:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        if TRANS_A:      # A stored K-major: load [BK, BM] and transpose in registers
            a = tl.trans(tl.load(a_ptr + (k + rk)[:, None] * stride_am + rm[None, :]))
        else:
            a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        if TRANS_B:      # B stored N-major ([N, K]): load [BN, BK] and transpose
            b = tl.trans(tl.load(b_ptr + rn[:, None] * stride_bk + (k + rk)[None, :]))
        else:
            b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def bmm3d(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    ib = tl.arange(0, B)[:, None, None]
    im = tl.arange(0, M)[None, :, None]
    ik = tl.arange(0, K)[None, None, :]
    a = tl.load(a_ptr + ib * M * K + im * K + ik)
    ik2 = tl.arange(0, K)[None, :, None]
    iN = tl.arange(0, N)[None, None, :]
    b = tl.load(b_ptr + ib * K * N + ik2 * N + iN)
    c = tl.dot(a, b)
    tl.store(c_ptr + ib * M * N + im * N + iN, c.to(tl.float16))


@triton.jit
def chained(a_ptr, b_ptr, c_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, P: tl.constexpr):
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    b = tl.load(b_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    c = tl.load(c_ptr + tl.arange(0, N)[:, None] * P + tl.arange(0, P)[None, :])
    ab = tl.dot(a, b)
    abc = tl.dot(tl.exp(ab).to(tl.float16), c)
    tl.store(out_ptr + tl.arange(0, M)[:, None] * P + tl.arange(0, P)[None, :], abc)


@triton.jit
def split_k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
            SPLIT: tl.constexpr):
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    rm = (pid % (M // BM)) * BM + tl.arange(0, BM)
    rn = (pid // (M // BM)) * BN + tl.arange(0, BN)
    rk = pid_k * BK + tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK * SPLIT):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def persistent_tma(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   NUM_SMS: tl.constexpr):
    start = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    for tile in tl.range(start, tiles_m * tiles_n, NUM_SMS, flatten=True):
        om = (tile % tiles_m) * BM
        on = (tile // tiles_m) * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = a_desc.load([om, k])
            b = b_desc.load([on, k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([om, on], acc.to(tl.float16))


@triton.jit
def device_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    om = tl.program_id(0) * BM
    on = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([om, k]), b_desc.load([k, on]), acc)
    c_desc.store([om, on], acc.to(tl.float16))


@triton.jit
def scaled_mm(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, K,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, A_FMT: tl.constexpr, B_FMT: tl.constexpr):
    A_DIV: tl.constexpr = 2 if A_FMT == "e2m1" else 1
    B_DIV: tl.constexpr = 2 if B_FMT == "e2m1" else 1
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rka = tl.arange(0, BK // A_DIV)
    rkb = tl.arange(0, BK // B_DIV)
    rs = tl.arange(0, BK // 32)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * (K // A_DIV) + (k // A_DIV + rka)[None, :])
        b = tl.load(b_ptr + (k // B_DIV + rkb)[:, None] * 1024 + rn[None, :])
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + (k // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, A_FMT, b, sb, B_FMT, acc)
    tl.store(c_ptr + rm[:, None] * 1024 + rn[None, :], acc)


MM = ("a_ptr", "b_ptr", "c_ptr")


def _mm(a, b, c):
    return {"a_ptr": a, "b_ptr": b, "c_ptr": c, "M": "i32", "N": "i32", "K": "i32",
            "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"}


def _fp8(target):
    t = "*fp8e4b8" if target.arch == "gfx942" else "*fp8e4nv"
    return _mm(t, t, "*fp16")


def _fp8e5(target):
    t = "*fp8e5b16" if target.arch == "gfx942" else "*fp8e5"
    return _mm(t, t, "*fp32")


def _mmc(BM, BN, BK, ta=False, tb=False, prec="ieee", acc_int=False):
    return {"BM": BM, "BN": BN, "BK": BK, "TRANS_A": ta, "TRANS_B": tb, "PRECISION": prec, "ACC_INT": acc_int}


def _desc(dtype, shape):
    return f"tensordesc<{dtype}[{shape[0]}, {shape[1]}]>"


CASES = [
    case("tl_dot_f16", mm_loop, _mm("*fp16", "*fp16", "*fp16"), _mmc(128, 128, 32), doc="fp16 pipelined matmul",
         num_stages=3),
    case("tl_dot_f16_ta", mm_loop, _mm("*fp16", "*fp16", "*fp16"), _mmc(64, 128, 64, ta=True),
         doc="fp16 matmul, A transposed in registers", num_stages=2),
    case("tl_dot_bf16_tb_w8", mm_loop, _mm("*bf16", "*bf16", "*fp32"), _mmc(128, 256, 32, tb=True),
         doc="bf16 matmul, B transposed, 8 warps", num_warps=8, num_stages=3),
    case("tl_dot_f16_small", mm_loop, _mm("*fp16", "*fp16", "*fp32"), _mmc(16, 32, 16),
         doc="16x32x16 tiles, 1 warp", num_warps=1, num_stages=1),
    case("tl_dot_tf32_tb", mm_loop, _mm("*fp32", "*fp32", "*fp32"), _mmc(64, 64, 32, tb=True, prec="tf32"),
         doc="tf32 matmul with transposed B", num_stages=2),
    case("tl_dot_fp32_ieee", mm_loop, _mm("*fp32", "*fp32", "*fp32"), _mmc(32, 32, 16, prec="ieee"),
         doc="fp32 ieee (FMA) dot", num_stages=1),
    case("tl_dot_fp8_tb", mm_loop, _fp8, _mmc(128, 64, 64, tb=True, prec=None),
         doc="fp8 e4m3 matmul, B transposed", num_stages=3),
    case("tl_dot_fp8e5", mm_loop, _fp8e5, _mmc(64, 128, 64, prec=None), doc="fp8 e5m2 matmul", num_stages=2),
    case("tl_dot_i8_ta", mm_loop, _mm("*i8", "*i8", "*i32"), _mmc(64, 64, 64, ta=True, acc_int=True),
         doc="int8 matmul, A transposed", num_stages=2),
    case("tl_bmm3d", bmm3d, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16"},
         {"B": 4, "M": 32, "N": 32, "K": 32}, doc="batched 3-D dot"),
    case("tl_chained_dots", chained, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "out_ptr": "*fp32"},
         {"M": 64, "N": 64, "K": 32, "P": 64}, doc="(A@B)@C chained dots"),
    case("tl_split_k", split_k, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                                 "K": "i32"}, {"BM": 64, "BN": 64, "BK": 64, "SPLIT": 4},
         doc="split-K with atomic_add", num_stages=3),
    case("tl_persistent_tma", persistent_tma,
         {"a_desc": _desc("fp16", (128, 64)), "b_desc": _desc("fp16", (128, 64)), "c_desc": _desc("fp16", (128, 128)),
          "M": "i32", "N": "i32", "K": "i32"}, {"BM": 128, "BN": 128, "BK": 64, "NUM_SMS": 132},
         doc="persistent matmul over host TMA descriptors", num_stages=3, num_warps=8),
    case("tl_device_tma", device_tma, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                                       "K": "i32"}, {"BM": 64, "BN": 64, "BK": 64},
         doc="matmul over device-side tensor descriptors", num_stages=2),
    case("tl_dot_scaled_mxfp4", scaled_mm, {"a_ptr": "*u8", "a_scale_ptr": "*u8", "b_ptr": "*u8",
                                            "b_scale_ptr": "*u8", "c_ptr": "*fp32", "K": "i32"},
         {"BM": 128, "BN": 128, "BK": 128, "A_FMT": "e2m1", "B_FMT": "e2m1"}, doc="dot_scaled mxfp4 x mxfp4",
         num_stages=2),
    case("tl_dot_scaled_mxfp8_mxfp4", scaled_mm, {"a_ptr": "*fp8e4nv", "a_scale_ptr": "*u8", "b_ptr": "*u8",
                                                  "b_scale_ptr": "*u8", "c_ptr": "*fp32", "K": "i32"},
         {"BM": 128, "BN": 128, "BK": 128, "A_FMT": "e4m3", "B_FMT": "e2m1"}, doc="dot_scaled mxfp8 x mxfp4",
         num_stages=2),
]
