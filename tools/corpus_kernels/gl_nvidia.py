"""Gluon kernels for NVIDIA: cp.async rings feeding mma_v2, TMA with mbarriers, Hopper
warpgroup_mma with A in registers or in shared memory, Blackwell tcgen05_mma with tensor memory,
warp_specialize, and 2-CTA kernels."""

from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import ampere, blackwell, hopper
from triton.experimental.gluon.language.nvidia.ampere import async_copy, mma_v2
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout, allocate_tensor_memory,
                                                                  tcgen05_commit, tcgen05_mma)
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma

from corpus_kernels import case


@gluon.jit
def cp_async_mma_v2(a_ptr, b_ptr, c_ptr, K, BM: gl.constexpr, BN: gl.constexpr, BK: gl.constexpr,
                    STAGES: gl.constexpr, LOAD: gl.constexpr, SMEM: gl.constexpr, MMA: gl.constexpr):
    A_OP: gl.constexpr = gl.DotOperandLayout(0, MMA, k_width=2)
    B_OP: gl.constexpr = gl.DotOperandLayout(1, MMA, k_width=2)
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, LOAD))
    rka = gl.arange(0, BK, layout=gl.SliceLayout(0, LOAD))
    rkb = gl.arange(0, BK, layout=gl.SliceLayout(1, LOAD))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(0, LOAD))
    a_ptrs = a_ptr + rm[:, None] * K + rka[None, :]
    b_ptrs = b_ptr + rkb[:, None] * BN + rn[None, :]
    a_ring = gl.allocate_shared_memory(gl.float16, [STAGES, BM, BK], SMEM)
    b_ring = gl.allocate_shared_memory(gl.float16, [STAGES, BK, BN], SMEM)
    for s in gl.static_range(STAGES - 1):
        async_copy.async_load(a_ring.index(s), a_ptrs + s * BK)
        async_copy.async_load(b_ring.index(s), b_ptrs + s * BK * BN)
        async_copy.commit_group()
    acc = gl.zeros([BM, BN], gl.float32, layout=MMA)
    n = K // BK
    for i in range(n):
        nxt = i + STAGES - 1
        if nxt < n:
            async_copy.async_load(a_ring.index(nxt % STAGES), a_ptrs + nxt * BK)
            async_copy.async_load(b_ring.index(nxt % STAGES), b_ptrs + nxt * BK * BN)
        async_copy.commit_group()
        async_copy.wait_group(STAGES - 1)
        a = a_ring.index(i % STAGES).load(A_OP)
        b = b_ring.index(i % STAGES).load(B_OP)
        acc = mma_v2(a, b, acc)
    rmc = gl.arange(0, BM, layout=gl.SliceLayout(1, MMA))
    rnc = gl.arange(0, BN, layout=gl.SliceLayout(0, MMA))
    gl.store(c_ptr + rmc[:, None] * BN + rnc[None, :], acc.to(gl.float16))


@gluon.jit
def tma_add(a_desc, b_desc, c_desc, REG: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = a_desc.block_type.shape[1]
    off = gl.program_id(0) * BM
    a_s = gl.allocate_shared_memory(a_desc.dtype, [BM, BN], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [BM, BN], b_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma.async_load(a_desc, [off, 0], bar, a_s)
    tma.async_load(b_desc, [off, 0], bar, b_s)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    c = a_s.load(REG) + gl.permute(b_s.permute((1, 0)).load(gl.BlockedLayout([8, 1], [8, 4], [1, gl.num_warps()], [0, 1])), (1, 0)).to(gl.float16)
    c_s = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    c_s.store(gl.convert_layout(c, REG))
    fence_async_shared()
    tma.async_store(c_desc, [off, 0], c_s)
    tma.store_wait(0)


@gluon.jit
def wgmma_kernel(a_desc, b_desc, c_ptr, K, A_IN_REGS: gl.constexpr, NUM_WARPS: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    ACC: gl.constexpr = gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[NUM_WARPS, 1],
                                                  instr_shape=[16, BN, 16])
    a_s = gl.allocate_shared_memory(a_desc.dtype, [2, BM, BK], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [2, BK, BN], b_desc.layout)
    bars = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for j in gl.static_range(2):
        mbarrier.init(bars.index(j), count=1)
    mbarrier.expect(bars.index(0), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
    tma.async_load(a_desc, [0, 0], bars.index(0), a_s.index(0))
    tma.async_load(b_desc, [0, 0], bars.index(0), b_s.index(0))
    acc = gl.zeros([BM, BN], gl.float32, layout=ACC)
    n = K // BK
    for i in range(n):
        s = i % 2
        if i + 1 < n:
            mbarrier.expect(bars.index(1 - s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_load(a_desc, [0, (i + 1) * BK], bars.index(1 - s), a_s.index(1 - s))
            tma.async_load(b_desc, [(i + 1) * BK, 0], bars.index(1 - s), b_s.index(1 - s))
        mbarrier.wait(bars.index(s), (i // 2) & 1)
        if A_IN_REGS:
            a = a_s.index(s).load(gl.DotOperandLayout(0, ACC, k_width=2))
            acc = hopper.warpgroup_mma(a, b_s.index(s), acc)
        else:
            acc = hopper.warpgroup_mma(a_s.index(s), b_s.index(s), acc)
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, ACC))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(0, ACC))
    gl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(gl.float16))


@gluon.jit
def tcgen05_kernel(a_desc, b_desc, c_desc, K, A_IN_TMEM: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    a_s = gl.allocate_shared_memory(a_desc.dtype, [BM, BK], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [BK, BN], b_desc.layout)
    tma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=1)
    acc_tmem = allocate_tensor_memory(gl.float32, [BM, BN], TensorMemoryLayout(block=(BM, BN), col_stride=1))
    phase = 0
    for k in range(0, K, BK):
        mbarrier.expect(tma_bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_load(a_desc, [0, k], tma_bar, a_s)
        tma.async_load(b_desc, [k, 0], tma_bar, b_s)
        mbarrier.wait(tma_bar, phase)
        tcgen05_mma(a_s, b_s, acc_tmem, use_acc=k > 0)
        tcgen05_commit(mma_bar)
        mbarrier.wait(mma_bar, phase)
        phase ^= 1
    mbarrier.invalidate(tma_bar)
    mbarrier.invalidate(mma_bar)
    acc = acc_tmem.load()
    if A_IN_TMEM:          # second product with the fp16 result kept in tensor memory as the A operand
        p_tmem = allocate_tensor_memory(gl.float16, [BM, BN], TensorMemoryLayout(block=(BM, BN), col_stride=1))
        p_tmem.store(acc.to(gl.float16))
        b2 = gl.allocate_shared_memory(gl.float16, [BN, BN], b_desc.layout)
        b2.store(gl.convert_layout(acc.to(gl.float16), gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])))
        fence_async_shared()
        tcgen05_mma(p_tmem, b2, acc_tmem, use_acc=False)
        tcgen05_commit(mma_bar)
        mbarrier.wait(mma_bar, 0)
        acc = acc_tmem.load()
    c_s = gl.allocate_shared_memory(c_desc.dtype, [BM, BN], c_desc.layout)
    c_s.store(acc.to(c_desc.dtype))
    fence_async_shared()
    tma.async_store(c_desc, [0, 0], c_s)
    tma.store_wait(0)


@gluon.jit
def _ws_loader(a_desc, b_desc, a_s, b_s, ready, empty, K, BK: gl.constexpr, STAGES: gl.constexpr):
    for i in range(K // BK):
        s = i % STAGES
        mbarrier.wait(empty.index(s), ((i // STAGES) & 1) ^ 1)
        mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_load(a_desc, [0, i * BK], ready.index(s), a_s.index(s))
        tma.async_load(b_desc, [i * BK, 0], ready.index(s), b_s.index(s))


@gluon.jit
def _ws_mma(a_s, b_s, ready, empty, acc_tmem, done, K, BK: gl.constexpr, STAGES: gl.constexpr):
    for i in range(K // BK):
        s = i % STAGES
        mbarrier.wait(ready.index(s), (i // STAGES) & 1)
        tcgen05_mma(a_s.index(s), b_s.index(s), acc_tmem, use_acc=i > 0, mbarriers=[empty.index(s)])
    tcgen05_commit(done)


@gluon.jit
def _ws_epilogue(acc_tmem, done, c_ptr, BM: gl.constexpr, BN: gl.constexpr):
    mbarrier.wait(done, 0)
    OUT: gl.constexpr = gl.BlockedLayout([1, 4], [4, 8], [gl.num_warps(), 1], [1, 0])
    acc = gl.convert_layout(acc_tmem.load(), OUT)
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, OUT))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(0, OUT))
    gl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc.to(gl.float16))


@gluon.jit
def ws_tcgen05(a_desc, b_desc, c_ptr, K, STAGES: gl.constexpr):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BK: gl.constexpr = a_desc.block_type.shape[1]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BM, BK], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BK, BN], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for s in gl.static_range(STAGES):
        mbarrier.init(ready.index(s), count=1)
        mbarrier.init(empty.index(s), count=1)
    mbarrier.init(done, count=1)
    acc_tmem = allocate_tensor_memory(gl.float32, [BM, BN], TensorMemoryLayout(block=(BM, BN), col_stride=1))
    gl.warp_specialize([
        (_ws_epilogue, (acc_tmem, done, c_ptr, BM, BN)),
        (_ws_loader, (a_desc, b_desc, a_s, b_s, ready, empty, K, BK, STAGES)),
        (_ws_mma, (a_s, b_s, ready, empty, acc_tmem, done, K, BK, STAGES)),
    ], [1, 1], [40, 40])


@gluon.jit
def two_cta_tcgen05(a_desc, b_desc, c_desc):
    BM: gl.constexpr = a_desc.block_type.shape[0]
    BN: gl.constexpr = b_desc.block_type.shape[1]
    a_s = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_type.shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_type.shape, b_desc.layout)
    tma_bar = ampere.mbarrier.allocate_mbarrier(two_ctas=True)
    mma_bar = ampere.mbarrier.allocate_mbarrier()
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=1)
    mbarrier.expect(tma_bar, a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
    tma.async_load(a_desc, [0, 0], tma_bar, a_s)
    tma.async_load(b_desc, [0, 0], tma_bar, b_s)
    mbarrier.wait(tma_bar, phase=0, deps=[a_s, b_s])
    acc_layout: gl.constexpr = TensorMemoryLayout(block=(BM // 2, BN), col_stride=1,
                                                  cga_layout=c_desc.layout.cga_layout, two_ctas=True)
    acc = allocate_tensor_memory(gl.float32, [BM, BN], acc_layout)
    tcgen05_mma(a_s, b_s, acc, use_acc=False, mbarriers=[mma_bar])
    mbarrier.wait(mma_bar, phase=0, deps=[a_s, b_s])
    c_s = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_type.shape, c_desc.layout)
    c_s.store(acc.load().to(c_desc.dtype))
    fence_async_shared()
    tma.async_store(c_desc, [0, 0], c_s)
    tma.store_wait(0)


@gluon.jit
def multicta_reduce(x_ptr, y_ptr, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, L2: gl.constexpr):
    rows = gl.arange(0, M, layout=gl.SliceLayout(1, L))
    cols = gl.arange(0, N, layout=gl.SliceLayout(0, L))
    x = gl.load(x_ptr + rows[:, None] * N + cols[None, :])
    y = gl.convert_layout(x, L2)
    s = gl.sum(y, axis=0)
    gl.store(y_ptr + gl.arange(0, N, layout=gl.SliceLayout(0, L2)), s)


def _desc(dtype, shape, layout):
    return f"tensordesc<{dtype}[{','.join(map(str, shape))}],{layout!r}>"


def _nvmma(shape, dtype=gl.float16, cga=None, transposed=False):
    if cga is None:
        return gl.NVMMASharedLayout.get_default_for(list(shape), dtype, transposed=transposed)
    return gl.NVMMASharedLayout.get_default_for(list(shape), dtype, transposed=transposed, cga_layout=cga)


def _mma2_cx(BM, BN, BK, warps=4):
    return {"BM": BM, "BN": BN, "BK": BK, "STAGES": 3,
            "LOAD": gl.BlockedLayout([1, 8], [4, 8], [warps, 1], [1, 0]),
            "SMEM": gl.SwizzledSharedLayout(8, 1, 8, [1, 0]),
            "MMA": gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[warps // 2, 2], instr_shape=[16, 8])}


def _tma_add_types(BM, BN):
    lay = _nvmma((BM, BN))
    return {"a_desc": _desc("fp16", (BM, BN), lay), "b_desc": _desc("fp16", (BM, BN), lay),
            "c_desc": _desc("fp16", (BM, BN), lay)}


def _mm_desc_types(BM, BN, BK, c=True):
    t = {"a_desc": _desc("fp16", (BM, BK), _nvmma((BM, BK))), "b_desc": _desc("fp16", (BK, BN), _nvmma((BK, BN))),
         "K": "i32"}
    if c:
        t["c_desc"] = _desc("fp16", (BM, BN), _nvmma((BM, BN)))
    else:
        t["c_ptr"] = "*fp16"
    return t


def _two_cta_types(M, N, K):
    return {"a_desc": _desc("fp16", (M, K), _nvmma((M, K), cga=[[1, 0]])),
            "b_desc": _desc("fp16", (K, N), _nvmma((K, N), cga=[[0, 1]])),
            "c_desc": _desc("fp16", (M, N), _nvmma((M, N), cga=[[1, 0]]))}


BW = ("cuda100",)
HOP = ("cuda90",)
TMA = ("cuda90", "cuda100")
NV = ("cuda80", "cuda90", "cuda100")

CASES = [
    case("gl_cp_async_mma_v2", cp_async_mma_v2, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
         _mma2_cx(64, 64, 32), targets=NV, doc="cp.async 3-stage ring + mma_v2"),
    case("gl_cp_async_mma_v2_w8", cp_async_mma_v2, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "K": "i32"},
         _mma2_cx(128, 128, 32, 8), targets=NV, doc="cp.async ring + mma_v2, 8 warps", num_warps=8),
    case("gl_tma_mbarrier", tma_add, _tma_add_types(64, 64),
         {"REG": gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])}, targets=TMA,
         doc="TMA loads + mbarrier, permuted NVMMA view, TMA store"),
    case("gl_wgmma_smem_a", wgmma_kernel, _mm_desc_types(64, 128, 64, c=False) | {"c_ptr": "*fp16"},
         {"A_IN_REGS": False, "NUM_WARPS": 4}, targets=HOP, doc="wgmma, A and B in shared memory"),
    case("gl_wgmma_reg_a", wgmma_kernel, _mm_desc_types(64, 128, 64, c=False) | {"c_ptr": "*fp16"},
         {"A_IN_REGS": True, "NUM_WARPS": 4}, targets=HOP, doc="wgmma, A in registers"),
    case("gl_wgmma_reg_a_w8", wgmma_kernel, _mm_desc_types(128, 64, 32, c=False) | {"c_ptr": "*fp16"},
         {"A_IN_REGS": True, "NUM_WARPS": 8}, targets=HOP, doc="wgmma, A in registers, 8 warps", num_warps=8),
    case("gl_tcgen05", tcgen05_kernel, _mm_desc_types(128, 128, 64), {"A_IN_TMEM": False}, targets=BW,
         doc="tcgen05_mma, accumulator in TMEM"),
    case("gl_tcgen05_tmem_a", tcgen05_kernel, _mm_desc_types(128, 128, 64), {"A_IN_TMEM": True}, targets=BW,
         doc="tcgen05_mma with the A operand in TMEM"),
    case("gl_ws_tcgen05", ws_tcgen05, _mm_desc_types(128, 128, 64, c=False), {"STAGES": 3}, targets=BW,
         doc="warp_specialize: TMA loader, MMA issuer, epilogue"),
    case("gl_two_cta_tcgen05", two_cta_tcgen05, _two_cta_types(256, 128, 64), {}, targets=BW,
         doc="2-CTA tcgen05 (two_ctas TMEM)", num_ctas=2),
    case("gl_multicta_reduce", multicta_reduce, {"x_ptr": "*fp32", "y_ptr": "*fp32"},
         {"M": 64, "N": 128, "L": gl.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0], cga_layout=[[1, 0]]),
          "L2": gl.BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1], cga_layout=[[0, 1]])},
         targets=TMA, doc="num_ctas=2 blocked layouts with CGA bases, cross-CTA reduction", num_ctas=2),
]
