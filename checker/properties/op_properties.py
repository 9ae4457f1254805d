"""The static properties of operation rules (TTGIR op checks): each function decides one
`checker.spec.Check` (its operands and parameters) into a `Result` with no engine verdicts; they are
the ``decide`` of their `checker.properties.PROPERTIES` entries (engine and timeout unused).

    tmem_access   a tcgen05.ld/st message moves the register layout (tmem_access.py)
    mma_operands  tc_gen5_mma(_scaled) operands (mma_operands.py)
    tma_copy      TMA copy / gather / scatter / reduce layouts and box (tma.py)
    tmem_subslice ttng.tmem_subslice column windows (tmem_views.py)
    tmem_copy     ttng.tmem_copy (tcgen05.cp) source and destination (tmem_views.py)
    local_gather  ttg.local_gather / ttg.local_scatter buffer, indices, values (gather.py)
    scaled_dot    tt.dot_scaled shapes, scale factor, lowering layouts (scaled_dot.py)
    tdm_copy      amdg.async_tdm_copy_global_to_local buffer and descriptor (tdm.py)
"""

from __future__ import annotations


def tmem_access(ob, engine=None, timeout_ms=None):
    from .tmem_access import tmem_access
    p = ob.param
    return tmem_access(ob.operand("reg"), ob.operand("tmem"), ob.shape, p("mem_shape"), ob.dtype_bits,
                       scales=bool(p("scales")), maxnreg=p("maxnreg") or 256)


def mma_operands(ob, engine=None, timeout_ms=None):
    from .mma_operands import check
    return check(ob)


def tma_copy(ob, engine=None, timeout_ms=None):
    from .tma import check
    return check(ob)


def tmem_subslice(ob, engine=None, timeout_ms=None):
    from .tmem_views import check_subslice
    return check_subslice(ob)


def tmem_copy(ob, engine=None, timeout_ms=None):
    from .tmem_views import check_copy
    return check_copy(ob)


def local_gather(ob, engine=None, timeout_ms=None):
    from .gather import check
    return check(ob)


def scaled_dot(ob, engine=None, timeout_ms=None):
    from .scaled_dot import check
    return check(ob)


def tdm_copy(ob, engine=None, timeout_ms=None):
    from .tdm import check
    return check(ob)
