"""coalesced: a pointer equal over runs of elements (AxisInfo constancy) whose address has no affine form, e.g.
Inductor's per-channel ``in_ptr + x // 784``, is a broadcast: Triton loads it one element at a time (its
contiguity is 1) and a wider vector would read nothing more, so no narrow-vector finding (and no suggestion to
prove an alignment that cannot help)."""

import pytest

import checker

MODULE = """#blocked = #ttg.blocked<{{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}}>
module attributes {{"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%in_ptr: !tt.ptr<f32> {{tt.divisibility = 16 : i32}}, %out_ptr: !tt.ptr<f32>) {{
    %cst = arith.constant dense<{divisor}> : tensor<1024xi32, #blocked>
    %c1024_i32 = arith.constant 1024 : i32
    %x = tt.get_program_id x : i32
    %x_0 = arith.muli %x, %c1024_i32 : i32
    %x_1 = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : tensor<1024xi32, #blocked>
    %x_2 = tt.splat %x_0 : i32 -> tensor<1024xi32, #blocked>
    %x_3 = arith.addi %x_2, %x_1 : tensor<1024xi32, #blocked>
    %v = arith.divsi %x_3, %cst : tensor<1024xi32, #blocked>
    %v_4 = tt.splat %in_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %v_5 = tt.addptr %v_4, %v : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v_6 = tt.load %v_5 : tensor<1024x!tt.ptr<f32>, #blocked>
    %0 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %1 = tt.addptr %0, %x_3 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %1, %v_6 : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }}
}}
"""


def _load(divisor):
    r = checker.verify(MODULE.format(divisor=divisor))
    (c,) = [c for c in r["checks"] if c["property"] == "coalesced" and ":tt.load:" in c["id"]]
    return c


def test_a_load_constant_over_runs_of_the_vector_is_a_broadcast():
    c = _load(784)                          # constancy gcd(1024, 784) = 16 >= the layout's 4-element vector
    assert c["verdict"] == "holds" and c["parameters"]["constancy"] == [16] and c["details"]["broadcast"]
    assert c["details"]["instruction"] == "ld.global.b32" and "suggestion" not in c["details"]
    assert c["explanation"] == (
        "ld.global.b32: the pointer is the same over runs of 16 elements along dim0 (its AxisInfo constancy; a "
        "broadcast): 1-element vectors read it all; sectors not counted (the address is not affine in the "
        "coordinates)")


@pytest.mark.parametrize("divisor, constancy", [(2, [2]), (3, None)])
def test_shorter_constant_runs_are_still_narrow_vectors(divisor, constancy):
    c = _load(divisor)                      # x // 2: pairs of equal addresses, under the 4-element vector
    assert c["verdict"] == "fails" and c["parameters"].get("constancy") == constancy
    assert c["counterexample"]["kind"] == "narrow_vector"
