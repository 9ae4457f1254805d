"""Op checks of amdg.async_tdm_copy_global_to_local (checker/ttgir/ops_amd.py): a small gfx1250 module with
a padded buffer (holds) and a swizzled one (fails: TDM does not swizzle)."""

from tests.ttgir.ops_cases import TDM, results, run_text


def test_tdm_module():
    rs = results(run_text(TDM))
    assert [(ob.op, r.status) for ob, r in rs] == [("amdg.async_tdm_copy_global_to_local", "holds"),
                                                   ("amdg.async_tdm_copy_global_to_local", "fails")]
    assert rs[0][1].details["pad_interval_dwords"] == 16 and rs[0][1].details["pad_amount_dwords"] == 2
    assert "TDM does not support swizzling (maxPhase 8)" in rs[1][1].explanation
