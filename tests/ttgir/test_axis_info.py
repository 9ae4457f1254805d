"""Triton's AxisInfo rules (checker/ttgir/axis_info.py) by value, and the analysis of TTGIR modules."""

from pathlib import Path

from checker.syntax.ttgir import read_ttgir
from checker.ttgir.axis_info import (
    MAX_DIVISOR,
    AxisInfo,
    Unknown,
    access_of,
    add_sub,
    analyze,
    compare,
    expand_dims,
    join,
    make_range,
    mul,
    pow2_divisor,
    rem,
    splat,
)

ROOT = Path(__file__).resolve().parents[2]


def test_make_range_and_splat():
    assert make_range(0, 128) == AxisInfo((128,), (MAX_DIVISOR,), (1,))
    assert make_range(64, 128).divisibility == (64,)
    s = splat(AxisInfo((1,), (16,), (1,)), [4, 8])
    assert s == AxisInfo((1, 1), (16, 16), (4, 8))


def test_addptr_of_a_splat_pointer_and_a_range_keeps_the_run_and_scales_divisibility():
    ptr = splat(AxisInfo((1,), (16,), (1,)), [128])              # tt.divisibility = 16 bytes
    offs = make_range(0, 128)
    got = add_sub("addptr", ptr, offs, [128], elem_bytes=2)      # f16
    assert got.contiguity == (128,)
    assert got.divisibility == (16,)                             # gcd(16, MAX*2, 128*2)


def test_mul_by_a_constant_breaks_the_run():
    rows = make_range(0, 16)
    k = AxisInfo((1,), (512,), (16,), 512)
    got = mul(rows, k, [16])
    assert got.contiguity == (1,) and got.divisibility == (512,)     # the run's divisibility read as 1
    assert mul(rows, AxisInfo((1,), (1,), (16,), 1), [16]).contiguity == (16,)


def test_bounds_check_mask_alignment():
    """offs < N with N divisible by 16: the mask is constant over runs of 16 (getMaskAlignment)."""
    offs = add_sub("add", splat(AxisInfo((1,), (1024,), (1,)), [1024]), make_range(0, 1024), [1024])
    n = splat(AxisInfo((1,), (16,), (1,)), [1024])
    assert compare("slt", offs, n, [1024]).constancy == (16,)
    assert compare("slt", offs, splat(AxisInfo((1,), (1,), (1,)), [1024]), [1024]).constancy == (1,)


def test_rem_by_a_runtime_bound_and_expand_dims():
    offs = add_sub("add", splat(AxisInfo((1,), (128,), (1,)), [128]), make_range(0, 128), [128])
    m = splat(AxisInfo((1,), (16,), (1,)), [128])
    assert rem(offs, m, [128]).contiguity == (16,)
    e = expand_dims(offs, 1)
    assert e.contiguity == (128, 1) and e.divisibility == (128, 1) and e.constancy == (1, 1)


def test_join_is_the_gcd_and_clamps_divisibility_when_runs_differ():
    a, b = AxisInfo((8,), (16,), (1,)), AxisInfo((4,), (64,), (1,))
    assert join(a, b) == AxisInfo((4,), (4,), (1,))
    assert join(None, a) == a
    assert pow2_divisor(0) == MAX_DIVISOR and pow2_divisor(96) == 32


def _module(name):
    path = ROOT / "tests" / "corpus" / name
    return read_ttgir(path.read_text(), str(path))[0]


def test_softmax_rows_pointer_analysis():
    m = _module("tl_softmax_rows.cuda80.ttgir")
    a = analyze(m)
    loads = [op for op in m.operations if op.name == "tt.load"]
    acc = access_of(loads[0], a)
    assert acc.ptr.contiguity == (1, 512) and acc.ptr.divisibility == (2, 16)
    assert acc.strides == (1024, 2) and acc.bits == 16 and acc.mask is None


def test_loop_carried_pointer_keeps_its_strides_and_unknown_strides_are_kept_symbolic():
    m = _module("tl_dot_f16.gfx942.ttgir")
    a = analyze(m)
    accs = [access_of(op, a) for op in m.operations if op.name in ("tt.load", "tt.store")]
    loads = [x for x in accs if x.kind == "load"]
    assert loads and all(x.strides is not None for x in loads)
    assert any(isinstance(s, Unknown) for x in loads for s in x.strides)
    assert all(max(x.ptr.contiguity) >= 8 for x in loads)


def test_hints_on_an_operation_override_its_rule():
    text = """
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f32>, %o: i32) {
    %0 = arith.muli %o, %o {tt.divisibility = dense<16> : tensor<1xi32>} : i32
    %1 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %2 = tt.splat %0 : i32 -> tensor<512xi32, #blocked>
    %3 = arith.addi %2, %1 : tensor<512xi32, #blocked>
    %4 = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %5 = tt.addptr %4, %3 : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %6 = tt.load %5 : tensor<512x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
"""
    m = read_ttgir(text, "k.ttgir")[0]
    a = analyze(m)
    load = next(op for op in m.operations if op.name == "tt.load")
    acc = access_of(load, a)
    assert acc.ptr.contiguity == (512,)
    assert acc.ptr.divisibility == (1,)          # the base pointer has no tt.divisibility: 1 byte
    zero = next(op for op in m.operations if op.name == "arith.muli")
    assert a.of(a.renamed[id(zero)].results[0]).divisibility == (16,)


COPIES = """
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx950", \
"ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%p: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %1 = tt.expand_dims %0 {axis = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> \
tensor<1x64xi32, #blocked>
    %2 = tt.broadcast %1 : tensor<1x64xi32, #blocked> -> tensor<64x64xi32, #blocked>
    %3 = tt.splat %n : i32 -> tensor<64x64xi32, #blocked>
    %4 = arith.cmpi slt, %2, %3 : tensor<64x64xi32, #blocked>
    %5 = ttg.local_alloc : () -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %6 = amdg.buffer_load_to_local %p[%2] mask = %4 into %5 : !tt.ptr<f16>[tensor<64x64xi32, #blocked>]  -> \
<64x64xf16, #shared, #smem, mutable>
    %7 = tt.splat %p : !tt.ptr<f16> -> tensor<64x64x!tt.ptr<f16>, #blocked>
    %8 = tt.addptr %7, %2 : tensor<64x64x!tt.ptr<f16>, #blocked>, tensor<64x64xi32, #blocked>
    %9 = ttg.async_copy_global_to_local %8, %5 mask %4 {contiguity = 2 : i32} : tensor<64x64x!tt.ptr<f16>, \
#blocked> -> <64x64xf16, #shared, #smem, mutable>
    %10 = arith.constant dense<1.0> : tensor<64x64xf16, #blocked>
    %11 = tt.atomic_rmw fadd, acq_rel, gpu, %8, %10, %4 : (tensor<64x64x!tt.ptr<f16>, #blocked>, \
tensor<64x64xf16, #blocked>, tensor<64x64xi1, #blocked>) -> tensor<64x64xf16, #blocked>
    %12 = tt.atomic_cas acq_rel, gpu, %8, %10, %10 : (tensor<64x64x!tt.ptr<f16>, #blocked>, \
tensor<64x64xf16, #blocked>, tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked>
    tt.return
  }
}
""".replace("\\\n", "")


def test_copies_and_atomics_read_their_pointer_mask_hint_and_destination():
    m = read_ttgir(COPIES, "k.ttgir")[0]
    a = analyze(m)
    got = {op.name: access_of(op, a) for op in m.operations if op.name in (
        "amdg.buffer_load_to_local", "ttg.async_copy_global_to_local", "tt.atomic_rmw", "tt.atomic_cas")}
    buf, cp = got["amdg.buffer_load_to_local"], got["ttg.async_copy_global_to_local"]
    assert (buf.kind, buf.buffer, buf.bits, buf.base_divisibility_bytes) == ("copy", True, 16, 16)
    assert buf.ptr.contiguity == (1, 64) and buf.mask.constancy == (64, 16) and buf.shared.shape == [64, 64]
    assert (cp.kind, cp.buffer, cp.contiguity_hint, cp.ptr.divisibility) == ("copy", False, 2, (2, 16))
    assert cp.mask.constancy == (64, 16) and cp.strides == (0, 2)
    rmw, cas = got["tt.atomic_rmw"], got["tt.atomic_cas"]
    assert (rmw.kind, rmw.atomic, rmw.element, rmw.mask.constancy) == ("atomic", "fadd", "f16", (64, 16))
    assert (cas.atomic, cas.mask) == ("cas", None)


NEGATIVE_HINT_LOOP = """
#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c4 = arith.constant 4 : i32
    %0 = tt.make_range {end = 512 : i32, start = 0 : i32} : tensor<512xi32, #blocked>
    %1 = tt.splat %p : !tt.ptr<f32> -> tensor<512x!tt.ptr<f32>, #blocked>
    %2 = tt.addptr %1, %0 : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
    %3 = arith.muli %n, %n {tt.contiguity = dense<-3> : tensor<1xi32>} : i32
    %4:3 = scf.for %i = %c0 to %n step %c1 iter_args(%ptrs = %2, %k = %3, %m = %c4) \
-> (tensor<512x!tt.ptr<f32>, #blocked>, i32, i32)  : i32 {
      %5 = tt.load %ptrs : tensor<512x!tt.ptr<f32>, #blocked>
      %6 = tt.splat %k : i32 -> tensor<512xi32, #blocked>
      %7 = tt.addptr %ptrs, %6 : tensor<512x!tt.ptr<f32>, #blocked>, tensor<512xi32, #blocked>
      %8 = arith.addi %k, %m {tt.contiguity = dense<-3> : tensor<1xi32>} : i32
      %9 = arith.muli %m, %c4 : i32
      scf.yield %7, %8, %9 : tensor<512x!tt.ptr<f32>, #blocked>, i32, i32
    }
    tt.return
  }
}
"""


def test_the_fixed_point_skips_only_visits_that_would_change_nothing(monkeypatch):
    """`_fixed_point` visits only the ops whose inputs changed (or whose last visit was not yet a fixed point), the
    ordinary ones inline: it gives what the plain loop (`_visit` on every op, every round, until a round changes
    nothing) gives, value for value and in the same order, on every kernel of specs/kernels, negative hints (where
    gcd(n, n) != n) included."""
    from checker.ttgir import axis_info

    def plain(a, ops, children):
        for _ in range(axis_info.MAX_ROUNDS):
            before = (dict(a.info), dict(a.forms))
            for op, ch in zip(ops, children):
                axis_info._visit(a, op, ch)
            if (a.info, a.forms) == before:
                return True
        return False

    modules = [read_ttgir(NEGATIVE_HINT_LOOP, "k.ttgir")[0], _module("tl_dot_f16.gfx942.ttgir"),
               _module("tl_softmax_rows.cuda80.ttgir")]
    for p in sorted((ROOT / "specs" / "kernels").glob("*.ttgir")):
        modules += read_ttgir(p.read_text(), str(p))
    for m in modules:
        fast = analyze(m)
        with monkeypatch.context() as mp:
            mp.setattr(axis_info, "_fixed_point", plain)
            slow = analyze(m)
        assert list(fast.info.items()) == list(slow.info.items())
        assert list(fast.forms.items()) == list(slow.forms.items())
        assert list(fast.shapes.items()) == list(slow.shapes.items())
    a = analyze(modules[0])
    hinted = next(v for v in a.info if v.startswith("%3@"))
    assert a.info[hinted].contiguity == (3,)       # set to -3, then joined with -3 again: gcd(-3, -3) == 3
