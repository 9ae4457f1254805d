"""gfx950's transposed LDS read (ds_read_b64_tr_b16): the lane addresses layoutcheck scores are the ones Triton
computes. Fixture: tools/compile_ds_read_tr.py (Triton 3.9.0 on a CPU): a 64x128 bf16 tile in
``swizzled_shared<{vec 4, perPhase 1, maxPhase 16}>`` loaded as a transposed MFMA's B operand (kWidth 4), the tile
of tokenspeed's and aphrodite's attention kernels, which layoutcheck finds 4-way conflicting. Its LLVM IR computes
every ``llvm.amdgcn.ds.read.tr16.b64`` address from the thread id with integer arithmetic, evaluated here for each
of the 256 threads; the conflict then rests only on how the hardware groups the lanes of one read into phases
(docs/hardware.md), not on the addresses."""

from __future__ import annotations

import pathlib
import re

from checker.encodings import lower
from checker.hardware import resolve
from checker.properties.smem.plan import normalize, plan
from checker.ttgir.kernel import read_ir_file

ROOT = pathlib.Path(__file__).parent / "fixtures" / "ds_read_tr"
NAME = "bf16_64x128_swz4_1_16.gfx950"
_OPS = {"and": int.__and__, "or": int.__or__, "xor": int.__xor__, "add": int.__add__, "sub": int.__sub__,
        "mul": int.__mul__, "shl": lambda a, b: (a << b) & 0xFFFFFFFF, "lshr": int.__rshift__}
_BINARY = re.compile(r"(%\d+) = (and|or|xor|shl|lshr|add|sub|mul)(?: nuw| nsw| disjoint| exact)* i32 (%\d+|-?\d+), "
                     r"(%\d+|-?\d+)$")
_GEP = re.compile(r"(%\d+) = getelementptr inbounds(?: nuw)? i8, ptr addrspace\(3\) (%\d+|@global_smem), "
                  r"i32 (%\d+|-?\d+)$")
_READ = re.compile(r"ds\.read\.tr16\.b64\.v4bf16\(ptr addrspace\(3\)(?: nonnull)? (%\d+)\)")


def triton_addresses(thread: int) -> list[int]:
    """The byte address of each ds_read_tr16_b64 of the LLVM IR, in program order, for one thread id (the
    integer arithmetic on ``llvm.amdgcn.workitem.id.x``, the IR's ``%5``, up to the reads)."""
    env = {"%5": thread}
    reads = []

    def value(v: str):
        return env.get(v) if v.startswith("%") else int(v)

    for line in (ROOT / f"{NAME}.ll").read_text().splitlines():
        line = line.split(", !dbg")[0].strip()
        if (m := _READ.search(line)) is not None:
            reads.append(env[m.group(1)])
        elif (m := _GEP.match(line)) is not None:
            base = 0 if m.group(2) == "@global_smem" else env.get(m.group(2))
            if base is not None and value(m.group(3)) is not None:
                env[m.group(1)] = base + value(m.group(3))
        elif (m := _BINARY.match(line)) is not None:
            a, b = value(m.group(3)), value(m.group(4))
            if a is not None and b is not None:
                env[m.group(1)] = _OPS[m.group(2)](a, b)
    return reads


def test_every_transposed_read_addresses_what_triton_computes():
    (ob,) = [o for o in read_ir_file(str(ROOT / f"{NAME}.ttgir")).obligations
             if o.property == "bank_conflict_free" and o.param("direction") == "load"]
    R, S = normalize(lower(ob.operand("reg"), list(ob.shape)), lower(ob.operand("shared"), list(ob.shape)))
    p = plan(R, S, 16, "load", "auto", resolve("gfx950"))
    assert (p.mnemonic(resolve("gfx950")), p.vector_bytes) == ("ds_read_b64_tr_b16", 8)
    theirs = [triton_addresses(t) for t in range(256)]
    n = len(theirs[0])
    per = p.cvt.in_dim_size("register") // n
    assert (n, per) == (32, 4)                          # 32 reads of 4 bf16 per thread

    def ours(i: int, t: int) -> int:
        return 2 * p.cvt.apply({"register": i * per, "lane": t % 64, "warp": t // 64})["offset"]

    # each read's 256 addresses (lanes and warps) are one of Triton's reads', in another order of the reads
    assert {tuple(ours(i, t) for t in range(256)) for i in range(n)} == \
        {tuple(theirs[t][i] for t in range(256)) for i in range(n)}
    assert [ours(0, t) for t in range(8)] == [theirs[t][0] for t in range(8)] == [0, 8, 16, 24, 264, 256, 280, 272]
