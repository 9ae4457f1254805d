"""The static properties of operation rules (TTGIR op checks), by name: each evaluates one
`Obligation` (its operands and parameters) into a `Result` with no engine verdicts.

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

from typing import Callable


def _tmem_access(ob):
    from .tmem_access import tmem_access
    p = ob.param
    return tmem_access(ob.operand("reg"), ob.operand("tmem"), ob.shape, p("mem_shape"), ob.dtype_bits,
                       scales=bool(p("scales")), maxnreg=p("maxnreg") or 256)


def _mma_operands(ob):
    from .mma_operands import check
    return check(ob)


def _tma_copy(ob):
    from .tma import check
    return check(ob)


def _tmem_subslice(ob):
    from .tmem_views import check_subslice
    return check_subslice(ob)


def _tmem_copy(ob):
    from .tmem_views import check_copy
    return check_copy(ob)


def _local_gather(ob):
    from .gather import check
    return check(ob)


def _scaled_dot(ob):
    from .scaled_dot import check
    return check(ob)


def _tdm_copy(ob):
    from .tdm import check
    return check(ob)


OP_PROPERTIES: dict[str, Callable] = {
    "tmem_access": _tmem_access,
    "mma_operands": _mma_operands,
    "tma_copy": _tma_copy,
    "tmem_subslice": _tmem_subslice,
    "tmem_copy": _tmem_copy,
    "local_gather": _local_gather,
    "scaled_dot": _scaled_dot,
    "tdm_copy": _tdm_copy,
}

