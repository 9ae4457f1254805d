"""Op checks of amdg.async_tdm_copy_global_to_local (checker/ttgir/ops_amd.py): a small gfx1250 module with
a padded buffer (holds) and a swizzled one (fails: TDM does not swizzle)."""

from tests.ttgir.ops_cases import TDM, results, run_text


def test_tdm_module():
    rs = results(run_text(TDM))
    assert [(ob.op, r.status) for ob, r in rs] == [("amdg.async_tdm_copy_global_to_local", "holds"),
                                                   ("amdg.async_tdm_copy_global_to_local", "fails")]
    assert rs[0][1].details["pad_interval_dwords"] == 16 and rs[0][1].details["pad_amount_dwords"] == 2
    assert "TDM does not support swizzling (maxPhase 8)" in rs[1][1].explanation


def test_buffer_ops_get_a_coalesced_check_with_the_buffer_instruction():
    """amdg.buffer_load / buffer_store: `coalesced` with the vector of BufferLoadOpConversion (the offsets' AxisInfo,
    the base's divisibility); no longer listed as skipped."""
    from pathlib import Path

    from checker.run.runner import evaluate
    from checker.ttgir.kernel import read_ir_file
    corpus = Path(__file__).resolve().parents[1] / "corpus"
    for name, want in (("tl_interleave.gfx942.ttgir", ["buffer_load_dword", "buffer_store_dwordx2"]),
                       ("tl_interleave.gfx1250.ttgir", ["buffer_load_b64", "buffer_store_b128"])):
        kc = read_ir_file(str(corpus / name))
        obs = [ob for ob in kc.obligations if ob.property == "coalesced" and ob.op.startswith("amdg.")]
        assert [ob.op for ob in obs] == ["amdg.buffer_load", "amdg.buffer_store"] and not kc.skipped
        rs = [evaluate(ob) for ob in obs]
        assert [r.details["instruction"] for r in rs] == want and all(r.holds for r in rs)


def test_direct_to_lds_copies_get_a_coalesced_check_after_their_bank_check():
    from checker.run.runner import evaluate
    from checker.syntax.ttgir import read_ttgir
    from checker.ttgir.kernel import kernel_checks
    from tests.ttgir.test_axis_info import COPIES
    kc = kernel_checks(read_ttgir(COPIES, "k.ttgir"), "k.ttgir")
    got = [(ob.op, ob.property) for ob in kc.obligations if ob.property in ("coalesced", "bank_conflict_free")]
    assert got[:4] == [("amdg.buffer_load_to_local", "bank_conflict_free"), ("amdg.buffer_load_to_local", "coalesced"),
                       ("ttg.async_copy_global_to_local", "bank_conflict_free"),
                       ("ttg.async_copy_global_to_local", "coalesced")]
    rs = {ob.op: evaluate(ob) for ob in kc.obligations if ob.property == "coalesced"}
    assert rs["amdg.buffer_load_to_local"].details["instruction"] == "buffer_load_dwordx4 lds"
    assert rs["ttg.async_copy_global_to_local"].details["instruction"] == "global_load_lds_dwordx4"
    assert rs["tt.atomic_rmw"].details["instruction"] == "global_atomic_pk_b16x2"        # f16 pairs
    assert rs["tt.atomic_cas"].details["instruction"] == "global_atomic_b16"             # scalar


def test_scaled_upcast_fp4_is_checked_as_an_unpacking_that_moves_no_data():
    """amdg.scaled_upcast_fp4 (its lowering, ScaledUpcastToLLVM, writes each byte's two fp4 values into two
    consecutive result registers along `axis`, as ttg.fp4_to_fp does): the corpus's six on gfx942 hold; a result
    whose kWidth was not doubled along the axis would need data from other threads, and fails with a witness."""
    from pathlib import Path

    from checker.run.runner import evaluate
    path = Path(__file__).resolve().parents[1] / "corpus" / "tl_dot_scaled_mxfp4.gfx942.ttgir"
    text = path.read_text()
    checks = [ob for ob in run_text(text).obligations if ob.op == "amdg.scaled_upcast_fp4"]
    assert [(ob.line, ob.property, ob.param("kind"), ob.param("axis")) for ob in checks] == [
        (158, "data_movement", "fp4_to_fp", 1), (172, "data_movement", "fp4_to_fp", 0),
        (216, "data_movement", "fp4_to_fp", 1), (235, "data_movement", "fp4_to_fp", 0)]
    assert [evaluate(ob).status for ob in checks] == ["holds"] * 4
    lines = text.split("\n")
    bad = lines[157].replace("-> tensor<128x128xbf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>",
                             "-> tensor<128x128xbf16, #ttg.dot_op<{opIdx = 0, parent = #mma, kWidth = 8}>>")
    assert bad != lines[157]
    (ob,) = [o for o in run_text("\n".join(lines[:157] + [bad] + lines[158:])).obligations
             if o.op == "amdg.scaled_upcast_fp4" and o.line == 158 and o.property == "data_movement"]
    r = evaluate(ob)
    assert r.status == "fails" and r.counterexample is not None and r.counterexample.replay()
