"""Plain Triton kernels: shape ops (trans, reshape, permute, join, split), reductions over each
axis, scans, histogram, gather, sort.  Layout conversions through shared memory come from these."""

import triton
import triton.language as tl

from corpus_kernels import case


@triton.jit
def _tile(ptr, M: tl.constexpr, N: tl.constexpr):
    return ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]


@triton.jit
def transpose2d(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    tl.store(_tile(y_ptr, N, M), tl.trans(x))


@triton.jit
def permute3d(x_ptr, y_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    y = tl.permute(x, (2, 0, 1))
    ci = tl.arange(0, C)[:, None, None]
    ai = tl.arange(0, A)[None, :, None]
    bi = tl.arange(0, B)[None, None, :]
    tl.store(y_ptr + ci * A * B + ai * B + bi, y)


@triton.jit
def reshape_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M * N))
    x2 = tl.reshape(x, (M, N))
    s = tl.sum(x2, axis=1)
    y = x2 - s[:, None]
    tl.store(_tile(y_ptr, M, N), tl.trans(y).reshape((N, M)).trans())


@triton.jit
def join_split(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    z = tl.join(x, y)                    # [N, 2]
    z = tl.permute(z, (1, 0))            # [2, N]
    z = tl.reshape(z, (2 * N,))
    z = tl.reshape(z, (N, 2))
    a, b = tl.split(z)
    tl.store(out_ptr + offs, a * 2 + b)


@triton.jit
def interleave_pairs(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    y = tl.interleave(x, x + 1)
    tl.store(out_ptr + tl.arange(0, 2 * N), y)


@triton.jit
def reduce_axes(x_ptr, r0_ptr, r1_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    tl.store(r0_ptr + tl.arange(0, N), tl.sum(x, axis=0))
    tl.store(r1_ptr + tl.arange(0, M), tl.max(x, axis=1))


@triton.jit
def reduce3d(x_ptr, r0_ptr, r1_ptr, r2_ptr, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
    a = tl.arange(0, A)[:, None, None]
    b = tl.arange(0, B)[None, :, None]
    c = tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    s0 = tl.sum(x, axis=0)
    s1 = tl.min(x, axis=1)
    s2 = tl.max(x, axis=2)
    tl.store(_tile(r0_ptr, B, C), s0)
    tl.store(_tile(r1_ptr, A, C), s1)
    tl.store(_tile(r2_ptr, A, B), s2)


@triton.jit
def argmax_rows(x_ptr, idx_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    tl.store(idx_ptr + tl.arange(0, M), tl.argmax(x, axis=1))
    tl.store(idx_ptr + M + tl.arange(0, N), tl.argmin(x, axis=0))


@triton.jit
def softmax_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N)).to(tl.float32)
    x = x - tl.max(x, axis=1)[:, None]
    e = tl.exp(x)
    tl.store(_tile(y_ptr, M, N), (e / tl.sum(e, axis=1)[:, None]).to(y_ptr.dtype.element_ty))


@triton.jit
def scan_axes(x_ptr, y0_ptr, y1_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    tl.store(_tile(y0_ptr, M, N), tl.cumsum(x, axis=0))
    tl.store(_tile(y1_ptr, M, N), tl.cumprod(x, axis=1))


@triton.jit
def _maxop(a, b):
    return tl.maximum(a, b)


@triton.jit
def scan_custom(x_ptr, y_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(y_ptr + tl.arange(0, N), tl.associative_scan(x, 0, _maxop, reverse=True))


@triton.jit
def histogram_k(x_ptr, h_ptr, N: tl.constexpr, BINS: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))


@triton.jit
def gather_rows(x_ptr, i_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    idx = tl.load(_tile(i_ptr, M, N))
    tl.store(_tile(y_ptr, M, N), tl.gather(x, idx, axis=1))


@triton.jit
def gather_cols(x_ptr, i_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    idx = tl.load(_tile(i_ptr, M, N))
    tl.store(_tile(y_ptr, M, N), tl.gather(x, idx, axis=0))


@triton.jit
def sort_rows(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    tl.store(_tile(y_ptr, M, N), tl.sort(x, dim=1, descending=True))


@triton.jit
def topk_like(x_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N))
    s = tl.sort(tl.trans(x), dim=1)
    tl.store(_tile(y_ptr, N, M), tl.flip(s, 1))


@triton.jit
def broadcast_outer(x_ptr, y_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M))
    y = tl.load(y_ptr + tl.arange(0, N))
    o = x[:, None] * y[None, :]
    tl.store(_tile(out_ptr, N, M), tl.trans(o) + tl.sum(o, axis=0)[:, None])


@triton.jit
def layernorm_rows(x_ptr, w_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
    x = tl.load(_tile(x_ptr, M, N)).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    xc = x - mean[:, None]
    var = tl.sum(xc * xc, axis=1) / N
    w = tl.load(w_ptr + tl.arange(0, N))
    y = xc * tl.rsqrt(var + 1e-5)[:, None] * w[None, :]
    tl.store(_tile(y_ptr, M, N), y.to(tl.float16))


def _t(*names, ty="*fp32"):
    return {n: ty for n in names}


CASES = [
    case("tl_trans_f32_64x32", transpose2d, _t("x_ptr", "y_ptr"), {"M": 64, "N": 32}, doc="tl.trans fp32"),
    case("tl_trans_f16_128x64", transpose2d, _t("x_ptr", "y_ptr", ty="*fp16"), {"M": 128, "N": 64},
         doc="tl.trans fp16", num_warps=8),
    case("tl_trans_i8_64x128", transpose2d, _t("x_ptr", "y_ptr", ty="*i8"), {"M": 64, "N": 128}, doc="tl.trans int8"),
    case("tl_permute3d", permute3d, _t("x_ptr", "y_ptr", ty="*fp16"), {"A": 4, "B": 16, "C": 32},
         doc="tl.permute (2,0,1)"),
    case("tl_reshape_rows", reshape_rows, _t("x_ptr", "y_ptr"), {"M": 32, "N": 64}, doc="reshape + trans + reshape"),
    case("tl_join_split", join_split, _t("x_ptr", "y_ptr", "out_ptr"), {"N": 256}, doc="join/permute/reshape/split"),
    case("tl_interleave", interleave_pairs, _t("x_ptr", "out_ptr", ty="*fp16"), {"N": 512}, doc="tl.interleave"),
    case("tl_reduce_axes", reduce_axes, _t("x_ptr", "r0_ptr", "r1_ptr"), {"M": 64, "N": 128},
         doc="sum axis 0, max axis 1"),
    case("tl_reduce3d", reduce3d, _t("x_ptr", "r0_ptr", "r1_ptr", "r2_ptr"), {"A": 8, "B": 16, "C": 32},
         doc="3-D reductions over each axis", num_warps=8),
    case("tl_argmax", argmax_rows, {"x_ptr": "*fp32", "idx_ptr": "*i32"}, {"M": 32, "N": 256},
         doc="argmax/argmin"),
    case("tl_softmax_rows", softmax_rows, _t("x_ptr", "y_ptr", ty="*fp16"), {"M": 16, "N": 512}, doc="row softmax"),
    case("tl_scan_axes", scan_axes, _t("x_ptr", "y0_ptr", "y1_ptr"), {"M": 32, "N": 64}, doc="cumsum/cumprod"),
    case("tl_scan_custom", scan_custom, _t("x_ptr", "y_ptr", ty="*i32"), {"N": 1024}, doc="reverse max scan"),
    case("tl_histogram", histogram_k, _t("x_ptr", "h_ptr", ty="*i32"), {"N": 1024, "BINS": 64}, doc="histogram"),
    case("tl_gather_rows", gather_rows, {"x_ptr": "*fp32", "i_ptr": "*i32", "y_ptr": "*fp32"}, {"M": 32, "N": 64},
         doc="gather axis 1"),
    case("tl_gather_cols", gather_cols, {"x_ptr": "*fp16", "i_ptr": "*i32", "y_ptr": "*fp16"}, {"M": 64, "N": 32},
         doc="gather axis 0"),
    case("tl_sort_rows", sort_rows, _t("x_ptr", "y_ptr"), {"M": 16, "N": 128}, doc="sort dim 1"),
    case("tl_sort_flip", topk_like, _t("x_ptr", "y_ptr", ty="*i32"), {"M": 64, "N": 16}, doc="sort of a transposed tile + flip"),
    case("tl_outer", broadcast_outer, _t("x_ptr", "y_ptr", "out_ptr"), {"M": 64, "N": 64}, doc="outer product + trans"),
    case("tl_layernorm_rows", layernorm_rows, {"x_ptr": "*fp16", "w_ptr": "*fp32", "y_ptr": "*fp16"},
         {"M": 8, "N": 1024}, doc="layernorm", num_warps=8),
]
