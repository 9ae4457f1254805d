"""Gluon kernels with explicit distributed layouts (Blocked, Slice, DistributedLinear) and
shared layouts (Swizzled, Padded, NVMMA): convert_layout, shared round trips through permuted,
sliced, indexed and reshaped memory descriptors.  Layouts follow the target's warp size."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl

from corpus_kernels import ALL, NV, case


@gluon.jit
def convert_chain(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr,
                  LIN: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    x = gl.load(x_ptr + rows[:, None] * N + cols[None, :])
    y = gl.convert_layout(x, DST)
    z = gl.convert_layout(y, LIN)
    w = gl.convert_layout(z, SRC)
    s = gl.sum(w, axis=1)                         # SliceLayout(1, SRC)
    s = gl.convert_layout(s, gl.SliceLayout(0, DST))
    rows_d = gl.arange(0, M, layout=gl.SliceLayout(0, DST))
    gl.store(y_ptr + rows_d, s)
    rows2 = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    cols2 = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(y_ptr + M + rows2[:, None] * N + cols2[None, :], y)


@gluon.jit
def smem_roundtrip(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, REG: gl.constexpr, REG_T: gl.constexpr,
                   SMEM: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, REG))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, REG))
    x = gl.load(x_ptr + rows[:, None] * N + cols[None, :])
    smem = gl.allocate_shared_memory(x.dtype, [M, N], SMEM, x)
    y = smem.load(REG_T)                          # same tile, other register layout
    t = smem.permute((1, 0)).load(REG_T)          # transposed view: [N, M]
    rt = gl.arange(0, N, layout=gl.SliceLayout(1, REG_T))
    ct = gl.arange(0, M, layout=gl.SliceLayout(0, REG_T))
    gl.store(y_ptr + rt[:, None] * M + ct[None, :], t)
    r2 = gl.arange(0, M, layout=gl.SliceLayout(1, REG_T))
    c2 = gl.arange(0, N, layout=gl.SliceLayout(0, REG_T))
    gl.store(y_ptr + M * N + r2[:, None] * N + c2[None, :], y)


@gluon.jit
def smem_views(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, STAGES: gl.constexpr, REG: gl.constexpr,
               REG3: gl.constexpr, SMEM: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, REG))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, REG))
    offs = rows[:, None] * N + cols[None, :]
    bufs = gl.allocate_shared_memory(gl.float16, [STAGES, M, N], SMEM)
    for i in gl.static_range(STAGES):
        bufs.index(i).store(gl.load(x_ptr + i * M * N + offs))
    acc = gl.zeros([M, N // 2], gl.float32, layout=REG)
    for i in range(STAGES):
        buf = bufs.index(i)
        lo = buf.slice(0, N // 2, dim=1).load(REG)
        hi = buf.slice(N // 2, N // 2, dim=1).load(REG)
        acc += lo.to(gl.float32) * hi.to(gl.float32)
    top = bufs.index(0).slice(0, M // 2, dim=0).load(REG)
    r = gl.arange(0, M // 2, layout=gl.SliceLayout(1, REG))
    gl.store(y_ptr + r[:, None] * N + cols[None, :], top)
    r1 = gl.arange(0, M, layout=gl.SliceLayout(1, REG))
    c1 = gl.arange(0, N // 2, layout=gl.SliceLayout(0, REG))
    gl.store(y_ptr + M * N + r1[:, None] * (N // 2) + c1[None, :], acc.to(gl.float16))


@gluon.jit
def smem_reshape(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, REG: gl.constexpr, REG3: gl.constexpr,
                 SMEM: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, REG))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, REG))
    x = gl.load(x_ptr + rows[:, None] * N + cols[None, :])
    smem = gl.allocate_shared_memory(x.dtype, [M, N], SMEM, x)
    v = smem.reshape([M, 2, N // 2]).load(REG3)
    s = gl.sum(v, axis=1)
    L: gl.constexpr = gl.SliceLayout(1, REG3)
    r = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    c = gl.arange(0, N // 2, layout=gl.SliceLayout(0, L))
    gl.store(y_ptr + r[:, None] * (N // 2) + c[None, :], s)


def _tpw(target):
    return target.warp_size


def _blocked(spt, tpw, wpc, order):
    return gl.BlockedLayout(size_per_thread=spt, threads_per_warp=tpw, warps_per_cta=wpc, order=order)


def _row_major(t, spt=(1, 4), warps=4):
    w = _tpw(t)
    return _blocked(list(spt), [w // 8, 8], [warps, 1], [1, 0])


def _col_major(t, spt=(4, 1), warps=4):
    w = _tpw(t)
    return _blocked(list(spt), [8, w // 8], [1, warps], [0, 1])


def _linear(t, M, N, warps=4):
    """A hand-written linear layout for an [M, N] tile: 2 registers along N, lanes zig-zag over
    both dims, warps along M."""
    w = _tpw(t)
    lanes = [[0, 2], [0, 4], [1, 0], [0, 8], [2, 0]] + ([[4, 0]] if w == 64 else [])
    regs = [[0, 1]]
    row0 = 8 if w == 64 else 4
    warp = [[row0, 0], [2 * row0, 0]]
    r = 4 * row0
    while r < M:
        regs.append([r, 0])
        r *= 2
    c = 16
    while c < N:
        regs.append([0, c])
        c *= 2
    return gl.DistributedLinearLayout(reg_bases=regs, lane_bases=lanes, warp_bases=warp, block_bases=[], shape=[M, N])


def _convert_cx(M, N):
    return lambda t: {"M": M, "N": N, "SRC": _row_major(t), "DST": _col_major(t), "LIN": _linear(t, M, N)}


def _rt_cx(M, N, smem, spt=(1, 8)):
    return lambda t: {"M": M, "N": N, "REG": _row_major(t, spt), "REG_T": _col_major(t, spt[::-1]), "SMEM": smem(t)}


def _views_cx(M, N, smem, stages=3):
    def cx(t):
        w = _tpw(t)
        return {"M": M, "N": N, "STAGES": stages, "REG": _row_major(t, (1, 4)),
                "REG3": _blocked([1, 1, 4], [w // 8, 1, 8], [4, 1, 1], [2, 1, 0]), "SMEM": smem(t)}
    return cx


def _reshape_cx(M, N, smem):
    def cx(t):
        w = _tpw(t)
        return {"M": M, "N": N, "REG": _row_major(t, (1, 4)),
                "REG3": _blocked([1, 2, 2], [w // 8, 1, 8], [4, 1, 1], [2, 1, 0]), "SMEM": smem(t)}
    return cx


def _swz(vec, per_phase, max_phase, order=(1, 0)):
    return lambda t: gl.SwizzledSharedLayout(vec, per_phase, max_phase, list(order))


def _padded(interval, pad, shape, order=(1, 0)):
    return lambda t: gl.PaddedSharedLayout.with_identity_for([[interval, pad]], list(shape), list(order))


def _nvmma(swizzle, bits, transposed=False):
    return lambda t: gl.NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=2,
                                          transposed=transposed)


F16 = {"x_ptr": "*fp16", "y_ptr": "*fp16"}
F32 = {"x_ptr": "*fp32", "y_ptr": "*fp32"}

CASES = [
    case("gl_convert_f32_64x64", convert_chain, F32, _convert_cx(64, 64), doc="blocked->blocked->linear->blocked, slice"),
    case("gl_convert_f16_128x32", convert_chain, F16, _convert_cx(128, 32), doc="convert chain fp16"),
    case("gl_rt_swz_f16", smem_roundtrip, F16, _rt_cx(64, 64, _swz(8, 1, 8)), doc="swizzled smem, permuted view"),
    case("gl_rt_swz_f32_col", smem_roundtrip, F32, _rt_cx(32, 64, _swz(4, 2, 4, (0, 1)), (1, 4)),
         doc="column-major swizzled smem fp32"),
    case("gl_rt_unswizzled_f16", smem_roundtrip, F16, _rt_cx(64, 32, _swz(1, 1, 1)), doc="unswizzled smem"),
    case("gl_rt_padded_f16", smem_roundtrip, F16, _rt_cx(64, 64, _padded(64, 8, (64, 64))), doc="padded smem"),
    case("gl_rt_padded_f32", smem_roundtrip, F32, _rt_cx(32, 32, _padded(32, 1, (32, 32)), (1, 4)),
         doc="padded smem fp32"),
    case("gl_rt_nvmma128_f16", smem_roundtrip, F16, _rt_cx(64, 64, _nvmma(128, 16)), doc="NVMMA 128B swizzle"),
    case("gl_rt_nvmma64_t_f16", smem_roundtrip, F16, _rt_cx(64, 32, _nvmma(64, 16, True)),
         doc="NVMMA 64B swizzle, transposed"),
    case("gl_rt_nvmma32_f32", smem_roundtrip, F32, _rt_cx(32, 32, _nvmma(32, 32), (1, 4)), doc="NVMMA 32B fp32"),
    case("gl_views_swz", smem_views, F16, _views_cx(64, 64, _swz(8, 2, 4)), doc="index + subslice views, swizzled"),
    case("gl_views_nvmma", smem_views, F16, _views_cx(64, 128, _nvmma(128, 16)), doc="index + subslice views, NVMMA"),
    case("gl_views_padded", smem_views, F16, _views_cx(64, 64, _padded(64, 4, (64, 64))),
         doc="index + subslice views, padded"),
    case("gl_reshape_swz", smem_reshape, F32, _reshape_cx(32, 64, _swz(1, 1, 1)), doc="reshaped memdesc view"),
    case("gl_reshape_nvmma", smem_reshape, F16, _reshape_cx(64, 64, _nvmma(128, 16)), doc="reshaped NVMMA memdesc"),
]
