"""The static properties of operation rules (TTGIR op checks), by name: each evaluates one
`Obligation` (its operands and parameters) into a `Result` with no engine verdicts.

    tmem_access   a tcgen05.ld/st message moves the register layout (tmem_access.py)
    mma_operands  tc_gen5_mma(_scaled) operands (mma_operands.py)
    tma_copy      TMA copy / gather / scatter / reduce layouts and box (tma.py)
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


OP_PROPERTIES: dict[str, Callable] = {
    "tmem_access": _tmem_access,
    "mma_operands": _mma_operands,
    "tma_copy": _tma_copy,
}

