"""Small gfx1250 modules, one TDM op each, in each Triton release's syntax (tests/properties/test_tdm_versions.py).

3.8 and 3.9 write ``%t = amdg.async_tdm_copy_global_to_local %d into %a`` and ``%d[%i] to %a`` for a gather;
3.7 wraps the block in ``!tt.tensordesc<tensor<...>>``, gives the coordinates (``%d[%c0, %c0]``, a gather's
column ``%d[%i, %c0]``) and an i32 predicate."""


def SW(vec=1, max_phase=1, order=(1, 0), cga=""):
    return (f"#ttg.swizzled_shared<{{vec = {vec}, perPhase = 1, maxPhase = {max_phase}, "
            f"order = [{', '.join(map(str, order))}]{cga}}}>")


def P(pairs, shape, order=(1, 0)):
    intervals = ", ".join(f"{i}:+{p}" for i, p in pairs)
    return (f"#ttg.padded_shared<[{intervals}] {{order = [{', '.join(map(str, order))}], "
            f"shape = [{', '.join(map(str, shape))}]}}>")


def PART(inner, n=2, groups=1, dim=0):
    return (f"#ttg.partitioned_shared<{{numPartitions = {n}, numGroups = {groups}, partitionDim = {dim}, "
            f"partitionLayout = {inner}}}>")


NV = "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
C10, C01, C00 = ", CGALayout = [[1, 0]]", ", CGALayout = [[0, 1]]", ", CGALayout = [[0, 0]]"


def ROWS(cga=""):
    """16 row indices every lane of a warp holds (the lanes spread along the sliced-away dim)."""
    return ("#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [16, 1], threadsPerWarp = [1, 32], "
            f"warpsPerCTA = [1, 4], order = [1, 0]{cga}}}>}}>")


LANES = ("#ttg.slice<{dim = 1, parent = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], "
         "warpsPerCTA = [4, 1], order = [1, 0]}>}>")


def module(op, desc, alloc, block, shape=None, ety="f16", idx=None, syntax="3.9", ctas=1, warps=4, hint=None):
    """One `op` (load, store, gather, scatter) between a descriptor block `block` of layout `desc` (None: none)
    and a buffer of layout `alloc` and shape `shape` (the block's when None); `idx`: (count, element type,
    layout or None) of the row indices."""
    shape = shape or block
    bt = "x".join(map(str, block)) + "x" + ety + (f", {desc}" if desc else "")
    d = f"!tt.tensordesc<tensor<{bt}>>" if syntax == "3.7" else f"!tt.tensordesc<{bt}>"
    m = f"!ttg.memdesc<{'x'.join(map(str, shape))}x{ety}, {alloc}, #smem, mutable>"
    args = [f"%d: {d}", f"%a: {m}"]
    i = None
    if idx:
        i = f"tensor<{idx[0]}x{idx[1]}{', ' + idx[2] if idx[2] else ''}>"
        args.append(f"%i: {i}")
    h = f" {{warp_used_hint = {hint} : i32}}" if hint is not None else ""
    if syntax == "3.7":
        at = ", ".join(["%c0"] * len(block))
        body = {"load": f"%t = amdg.async_tdm_copy_global_to_local %d[{at}] into %a, %p{h} : {d} -> {m}",
                "store": f"amdg.async_tdm_copy_local_to_global %d[{at}] from %a : {m} -> {d}",
                "gather": f"amdg.async_tdm_gather %d[%i, %c0] to %a : {i}, {m} -> {d}",
                "scatter": f"amdg.async_tdm_scatter %d[%i, %c0] from %a : {i}, {m} -> {d}"}[op]
    else:
        body = {"load": f"%t = amdg.async_tdm_copy_global_to_local %d into %a{h} : {d} -> {m}",
                "store": f"amdg.async_tdm_copy_local_to_global %d from %a : {m} -> {d}",
                "gather": f"amdg.async_tdm_gather %d[%i] to %a : {i}, {m} -> {d}",
                "scatter": f"amdg.async_tdm_scatter %d[%i] from %a : {i}, {m} -> {d}"}[op]
    return ("#smem = #ttg.shared_memory\n"
            f'module attributes {{"ttg.num-ctas" = {ctas} : i32, "ttg.num-warps" = {warps} : i32, '
            'ttg.target = "hip:gfx1250", "ttg.threads-per-warp" = 32 : i32} {\n'
            f"  tt.func @k({', '.join(args)}) {{\n    %c0 = arith.constant 0 : i32\n    %p = arith.constant 1 : i32\n"
            f"    {body}\n    tt.return\n  }}\n}}\n")


def G(op, desc, alloc, block=(16, 64), n=16, lay=None, **kw):
    """A gather or scatter of `n` i32 row indices (layout `lay`, ROWS() by default)."""
    return dict(op=op, desc=desc, alloc=alloc, block=list(block), idx=(n, "i32", ROWS() if lay is None else lay), **kw)


def L(desc, alloc, block=(64, 64), op="load", **kw):
    return dict(op=op, desc=desc, alloc=alloc, block=list(block), **kw)


# name -> the op's arguments (module())
PROBES = {
    "load unswizzled": L(SW(), SW()),
    "load no descriptor layout": L(None, SW()),
    "load swizzled": L(SW(8, 8), SW(8, 8)),
    "load nvmma": L(NV, NV),
    "load padded": L(P([(64, 8)], [64, 64]), P([(64, 8)], [64, 64])),
    "load padding differs": L(P([(64, 4)], [64, 64]), P([(64, 8)], [64, 64])),
    "load interval differs": L(P([(32, 8)], [64, 64]), P([(64, 8)], [64, 64])),
    "load interval and padding differ": L(P([(32, 4)], [64, 64]), P([(64, 8)], [64, 64])),
    "load swizzled desc padded buffer": L(SW(), P([(64, 8)], [64, 64])),
    "load padded desc swizzled buffer": L(P([(64, 8)], [64, 64]), SW()),
    "load vec differs": L(SW(8), SW()),
    "load order differs": L(SW(order=(0, 1)), SW()),
    "load padded shape differs": L(P([(64, 8)], [32, 64]), P([(64, 8)], [64, 64])),
    "load padded order differs": L(P([(64, 8)], [64, 64], (0, 1)), P([(64, 8)], [64, 64])),
    "load two pairs": L(None, P([(32, 4), (64, 8)], [64, 64])),
    "load interval of 1 dword": L(P([(2, 2)], [64, 64]), P([(2, 2)], [64, 64])),
    "load padding of half a dword": L(P([(64, 1)], [64, 64]), P([(64, 1)], [64, 64])),
    "load block over 65535": L(SW(), SW(), (1, 131072)),
    "load smaller block": L(SW(), SW(), (32, 64), shape=[64, 64]),
    "load 1x64x64 over 64x64 [2, 1, 0]": L(SW(order=(2, 1, 0)), SW(), (1, 64, 64), shape=[64, 64]),
    "load 1x64x64 over 64x64 [2, 0, 1]": L(SW(order=(2, 0, 1)), SW(), (1, 64, 64), shape=[64, 64]),
    "load 1x64x64 over 64x64 [1, 2, 0] vs [0, 1]": L(SW(order=(1, 2, 0)), SW(order=(0, 1)), (1, 64, 64),
                                                      shape=[64, 64]),
    "load 1x64x64 over 64x64 [2, 1, 0] vs [0, 1]": L(SW(order=(2, 1, 0)), SW(order=(0, 1)), (1, 64, 64),
                                                      shape=[64, 64]),
    "load 1x1x64x64 over 64x64": L(SW(order=(3, 2, 1, 0)), SW(), (1, 1, 64, 64), shape=[64, 64]),
    "load 64x1x64 over 64x64": L(SW(order=(2, 1, 0)), SW(), (64, 1, 64), shape=[64, 64]),
    "load 2x64x64 over 64x64": L(SW(order=(2, 1, 0)), SW(), (2, 64, 64), shape=[64, 64]),
    "load padded 1x64x64 over 64x64": L(P([(64, 8)], [1, 64, 64], (2, 1, 0)), P([(64, 8)], [64, 64]), (1, 64, 64),
                                        shape=[64, 64]),
    "load CGA differs": L(SW(cga=C01), SW(cga=C10), ctas=2),
    "load partitioned": L(PART(SW()), PART(SW())),
    "load partitioned desc inner": L(SW(), PART(SW())),
    "load partitioned padded": L(PART(P([(64, 8)], [64, 64])), PART(P([(64, 8)], [64, 64]))),
    "load partitioned swizzled": L(PART(SW(8, 8)), PART(SW(8, 8))),
    "load partitioned nvmma": L(None, PART(NV)),
    "load hint 0x3": L(SW(), SW(), hint=3),
    "load hint 0x5": L(SW(), SW(), hint=5),
    "load hint 0": L(SW(), SW(), hint=0),
    "load hint 0x10": L(SW(), SW(), hint=16),
    "load hint 0x7": L(SW(), SW(), hint=7),
    "load hint 0x9": L(SW(), SW(), hint=9),
    "load hint 0x6": L(SW(), SW(), hint=6),
    "load hint 6 warps": L(SW(), SW(), hint=3, warps=6),
    "load hint 32 warps": L(SW(), SW(), hint=3, warps=32),
    "load hint partitioned 1 warp": L(PART(SW()), PART(SW()), hint=1),
    "load hint partitioned 2 warps": L(PART(SW()), PART(SW()), hint=3),
    "load hint partitioned 2x2 2 warps": L(PART(SW(), 2, 2), PART(SW(), 2, 2), hint=3),
    "store unswizzled": L(SW(), SW(), op="store"),
    "store swizzled": L(SW(8, 8), SW(8, 8), op="store"),
    "store padded interval = inner": L(P([(64, 8)], [64, 64]), P([(64, 8)], [64, 64]), op="store"),
    "store padded interval < inner": L(P([(32, 8)], [64, 64]), P([(32, 8)], [64, 64]), op="store"),
    "store padded column-major 32x64": L(P([(32, 8)], [32, 64], (0, 1)), P([(32, 8)], [32, 64], (0, 1)),
                                         (32, 64), op="store"),
    "store two pairs": L(P([(32, 4), (64, 8)], [64, 64]), P([(32, 4), (64, 8)], [64, 64]), op="store"),
    "store partitioned": L(PART(SW()), PART(SW()), op="store"),
    "store nvmma": L(NV, NV, op="store"),
    "store vec differs": L(SW(8), SW(), op="store"),
    "store padding differs": L(P([(64, 4)], [64, 64]), P([(64, 8)], [64, 64]), op="store"),
    "store 1x64x64 over 64x64": L(SW(order=(2, 1, 0)), SW(), (1, 64, 64), shape=[64, 64], op="store"),
    "store block over 65535": L(SW(), SW(), (1, 131072), op="store"),
    "gather unswizzled": G("gather", SW(), SW()),
    "gather indices over lanes": G("gather", SW(), SW(), lay=LANES),
    "gather 12 indices": G("gather", SW(), SW(), n=12, lay=""),
    "gather i8": dict(G("gather", SW(), SW()), ety="i8"),
    "gather 3-D": G("gather", SW(), SW(), (2, 16, 64), lay=""),
    "gather column-major": G("gather", SW(order=(0, 1)), SW(order=(0, 1))),
    "gather swizzled": G("gather", SW(8, 8), SW(8, 8)),
    "gather partitioned": G("gather", PART(SW()), PART(SW())),
    "gather 1x64 over 16x64": dict(G("gather", SW(), SW(), (1, 64)), shape=[16, 64]),
    "gather padded interval = inner": G("gather", P([(64, 8)], [16, 64]), P([(64, 8)], [16, 64])),
    "gather padded interval 32": G("gather", P([(32, 8)], [16, 64]), P([(32, 8)], [16, 64])),
    "gather padded interval 128": G("gather", P([(128, 8)], [16, 64]), P([(128, 8)], [16, 64])),
    "gather two pairs": G("gather", P([(32, 4), (64, 8)], [16, 64]), P([(32, 4), (64, 8)], [16, 64])),
    "gather padded column-major": G("gather", P([(64, 8)], [16, 64], (0, 1)), P([(64, 8)], [16, 64], (0, 1))),
    "gather vec differs": G("gather", SW(8), SW()),
    "gather block over 65535": G("gather", SW(), SW(), (16, 131072)),
    "gather 2 CTAs rows": G("gather", SW(cga=C10), SW(cga=C10), lay=ROWS(C10), ctas=2),
    "gather 2 CTAs index broadcast": G("gather", SW(cga=C10), SW(cga=C10), lay=ROWS(C00), ctas=2),
    "gather 2 CTAs index rows buffer columns": G("gather", SW(cga=C01), SW(cga=C01), lay=ROWS(C10), ctas=2),
    "gather 2 CTAs columns": G("gather", SW(cga=C01), SW(cga=C01), lay=ROWS(C01), ctas=2),
    "gather 2 CTAs no index layout": G("gather", SW(cga=C10), SW(cga=C10), lay="", ctas=2),
    "scatter unswizzled": G("scatter", SW(), SW()),
    "scatter indices over lanes": G("scatter", SW(), SW(), lay=LANES),
    "scatter 12 indices": G("scatter", SW(), SW(), n=12, lay=""),
    "scatter column-major": G("scatter", SW(order=(0, 1)), SW(order=(0, 1))),
    "scatter swizzled": G("scatter", SW(8, 8), SW(8, 8)),
    "scatter 3-D": G("scatter", SW(), SW(), (2, 16, 64), lay=""),
    "scatter nvmma": G("scatter", None, NV),
    "scatter padded interval = inner": G("scatter", P([(64, 8)], [16, 64]), P([(64, 8)], [16, 64])),
    "scatter padded interval 32": G("scatter", P([(32, 8)], [16, 64]), P([(32, 8)], [16, 64])),
    "scatter two pairs": G("scatter", P([(32, 4), (64, 8)], [16, 64]), P([(32, 4), (64, 8)], [16, 64])),
    "scatter 1x64 over 32x64 padded": dict(G("scatter", P([(64, 8)], [1, 64]), P([(64, 8)], [32, 64]), (1, 64), n=32),
                                           shape=[32, 64]),
    "scatter vec differs": G("scatter", SW(8), SW()),
}


def fused(members, hints=None, warps=4, syntax="3.9", descriptors=None):
    """One ``amdg.async_tdm_fused_copy_global_to_local`` of `members`, each (desc layout or None, buffer layout,
    block, buffer shape or None, element type, the descriptor's element type or None: the buffer's), with
    ``warp_used_hints`` `hints` (one per member unless a probe says otherwise); `descriptors`: only the first
    that many members pass their descriptor."""
    args, descs, bufs, dtys, mtys = [], [], [], [], []
    for k, (desc, alloc, block, shape, ety, dety) in enumerate(members):
        bt = "x".join(map(str, block)) + "x" + (dety or ety) + (f", {desc}" if desc else "")
        d = f"!tt.tensordesc<tensor<{bt}>>" if syntax == "3.7" else f"!tt.tensordesc<{bt}>"
        m = f"!ttg.memdesc<{'x'.join(map(str, shape or block))}x{ety}, {alloc}, #smem, mutable>"
        args.append(f"%a{k}: {m}")
        bufs.append(f"%a{k}")
        mtys.append(m)
        if descriptors is None or k < descriptors:
            args.append(f"%d{k}: {d}")
            descs.append(f"%d{k}")
            dtys.append(d)
    body = (f"%t = amdg.async_tdm_fused_copy_global_to_local {', '.join(descs)} into {', '.join(bufs)} "
            f"{{warp_used_hints = array<i32: {', '.join(map(str, hints))}>}} : {', '.join(dtys)} -> {', '.join(mtys)}")
    return ("#smem = #ttg.shared_memory\n"
            f'module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = {warps} : i32, '
            'ttg.target = "hip:gfx1250", "ttg.threads-per-warp" = 32 : i32} {\n'
            f"  tt.func @k({', '.join(args)}) {{\n    {body}\n    tt.return\n  }}\n}}\n")


def M(desc, alloc, block=(64, 64), shape=None, ety="f16", dety=None):
    """One member of a fused load."""
    return (desc, alloc, list(block), shape, ety, dety)


A, B = M(SW(), SW()), M(P([(64, 8)], [64, 64]), P([(64, 8)], [64, 64]))

# name -> fused()'s arguments
FUSED = {
    "fused 2 members": dict(members=[A, B], hints=[3, 12]),
    "fused 4 members": dict(members=[A, B, A, B], hints=[1, 2, 4, 8]),
    "fused 4 members 8 warps interleaved": dict(members=[A, B, A, B], hints=[0x11, 0x22, 0x44, 0x88], warps=8),
    "fused 1 member": dict(members=[A], hints=[15]),
    "fused 5 members": dict(members=[A, B, A, B, A], hints=[1, 2, 4, 8, 16], warps=8),
    "fused 3 hints for 2 members": dict(members=[A, B], hints=[1, 2, 4]),
    "fused 2 descriptors into 3 buffers": dict(members=[A, B, A], hints=[1, 2, 4], descriptors=2),
    "fused hints overlap": dict(members=[A, B], hints=[3, 1]),
    "fused hints equal": dict(members=[A, B], hints=[3, 3]),
    "fused hints do not cover the warps": dict(members=[A, B], hints=[1, 2]),
    "fused hint 0": dict(members=[A, B], hints=[0, 3]),
    "fused hint -1": dict(members=[A, B], hints=[-1, 3]),
    "fused hint not axis-aligned": dict(members=[A, B], hints=[9, 6]),
    "fused hint of 3 warps": dict(members=[A, B], hints=[7, 8]),
    "fused hint beyond num_warps": dict(members=[A, B], hints=[3, 48]),
    "fused 6 warps": dict(members=[A, B], hints=[3, 12], warps=6),
    "fused ranks differ": dict(members=[A, M(SW(order=(2, 1, 0)), SW(order=(2, 1, 0)), (2, 64, 64))], hints=[3, 12]),
    "fused f16 into bf16": dict(members=[A, M(SW(), SW(), ety="bf16", dety="f16")], hints=[3, 12]),
    "fused f16 into f32": dict(members=[A, M(SW(), SW(), ety="f32", dety="f16")], hints=[3, 12]),
    "fused f32 and f16 members": dict(members=[M(SW(), SW(), ety="f32"), B], hints=[3, 12]),
    "fused member swizzled": dict(members=[A, M(SW(8, 8), SW(8, 8))], hints=[3, 12]),
    "fused member nvmma": dict(members=[M(NV, NV), A], hints=[3, 12]),
    "fused member vec differs": dict(members=[A, M(SW(8), SW())], hints=[3, 12]),
    "fused member padding differs": dict(members=[M(P([(64, 4)], [64, 64]), P([(64, 8)], [64, 64])), A],
                                         hints=[3, 12]),
    "fused member interval of 1 dword": dict(members=[A, M(P([(2, 2)], [64, 64]), P([(2, 2)], [64, 64]))],
                                             hints=[3, 12]),
    "fused member two pairs": dict(members=[A, M(None, P([(32, 4), (64, 8)], [64, 64]))], hints=[3, 12]),
    "fused member block over 65535": dict(members=[A, M(SW(), SW(), (1, 131072))], hints=[3, 12]),
    "fused member no descriptor layout": dict(members=[A, M(None, SW())], hints=[3, 12]),
    "fused member 1x64x64 over 64x64": dict(members=[M(SW(order=(2, 1, 0)), SW(), (1, 64, 64), [64, 64]),
                                                     M(SW(order=(2, 1, 0)), SW(order=(2, 1, 0)), (2, 64, 64))],
                                            hints=[3, 12]),
    "fused partitioned 2 warps": dict(members=[M(PART(SW()), PART(SW())), A], hints=[3, 12]),
    "fused partitioned 1 warp": dict(members=[A, M(PART(SW()), PART(SW()))], hints=[12, 1]),
    "fused partitioned 2x2 2 warps": dict(members=[A, M(PART(SW(), 2, 2), PART(SW(), 2, 2))], hints=[3, 12]),
    "fused partitioned padded": dict(members=[M(PART(P([(64, 8)], [32, 64])), PART(P([(64, 8)], [32, 64]))), A],
                                     hints=[3, 12]),
    "fused partitioned swizzled": dict(members=[M(PART(SW(8, 8)), PART(SW(8, 8))), A], hints=[3, 12]),
}
