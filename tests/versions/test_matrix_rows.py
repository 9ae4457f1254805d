"""The instruction and the lane rows of every ldmatrix/stmatrix (and vector) shared access, per Triton version.

tests/versions/ldst_matrix_rows/<X.Y>.jsonl: tools/ldmatrix_rows.py (with ``--probes``) run under Triton X.Y
on a CPU; each record holds every thread's shared-memory address read off that version's PTX
(tools/ptx_lanes.py) for a store R -> S and a load S -> R2 (or, for the ``gpu_convert_*`` probes, a
``convert_layout`` R -> R2 through Triton's scratch). 3.5 to 3.8 emit the same code on every record; 3.9
picks other rows for 31 transposed sides (`checker.versions` change ``matrix_trans_rows_scored``).
"""

import collections

import pytest

from checker.hardware import PRESETS
from checker.layout import LinearLayout
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.conversion_cost import lower_conversion
from checker.properties.smem.plan import normalize, plan
from checker.verdict import Engines
from checker.versions import using

from ..properties.smem.test_plan import _asm_module, _plan_lane_rows, _ptx_wavefronts
from .conftest import VERSIONS, load_version_jsonl

NV_TARGETS = {"cuda:80": "sm80", "cuda:90": "sm90", "cuda:100": "sm100"}
RECORDS = {v: load_version_jsonl("ldst_matrix_rows", v) for v in VERSIONS}
LAYOUTS = {c["id"]: c["triton_ll"] for c in RECORDS["3.9"]}     # 3.5 has no Python lowering: 3.9's (equal)
CASES = [(v, c) for v in VERSIONS for c in RECORDS[v]]


def _emitted(case, side):
    asm = _asm_module()
    out = collections.Counter()
    for ins, n in case[side]["instructions"].items():
        out[asm.normalize(ins.replace(".shared::cta", ".shared"))] += n
    return dict(out)


def _scored(case, side, version):
    """(asm, instructions per warp, matrices, vector bytes, wavefronts, the lane rows or None) layoutcheck gives."""
    ll = LAYOUTS[case["id"]]
    hw = PRESETS[NV_TARGETS[case["target"]]]
    R = LinearLayout.from_triton_json(ll["R" if side == "store" or "S" not in ll else "R2"])
    with using(version):
        if "S" not in ll:                       # a convert_layout probe: Triton's scratch round trip
            lw = lower_conversion(LinearLayout.from_triton_json(ll["R"]), LinearLayout.from_triton_json(ll["R2"]),
                                  case["bits"], hw)
            s = lw.store if side == "store" else lw.load
            p = s.plan
            return p.asm(hw), s.instructions_per_warp, p.matrices, p.vector_bytes, s.wavefronts, None
        S = LinearLayout.from_triton_json(ll["S"])
        d = bank_conflict_free(R, S, case["bits"], direction=side, hardware=hw, engines=Engines("f2")).details
        rows = None
        if d["matrices"]:
            rows = _plan_lane_rows(plan(*normalize(R, S), case["bits"], side, "auto", hw), case["num_warps"])
        return d["asm"], d["instructions_per_warp"], d["matrices"], d["vector_bytes"], d["wavefronts"], rows


@pytest.mark.parametrize("side", ["store", "load"])
@pytest.mark.parametrize("version,case", CASES, ids=[f"{v}-{c['id']}" for v, c in CASES])
def test_instruction_rows_and_wavefronts_are_that_versions(version, case, side):
    asm, count, matrices, vector_bytes, wavefronts, rows = _scored(case, side, version)
    assert _emitted(case, side) == {asm: count}
    addresses = case[side]["addresses"]
    if rows is not None:
        want, lanes = rows
        assert [sorted(tuple(ins[:lanes]) for ins in warp) for warp in addresses] == want
    hw = PRESETS[NV_TARGETS[case["target"]]]
    groups = hw.groups(side, vector_bytes) if not matrices else None
    assert _ptx_wavefronts(addresses, 16 if matrices else vector_bytes, bool(matrices), groups, hw.banks,
                           hw.bank_bytes) == wavefronts


def test_the_versions_differ_exactly_on_the_transposed_rows():
    """3.5 to 3.8 emit the same addresses everywhere; 3.9 moves the rows of 31 transposed sides."""
    def sides(v):
        return {(c["id"], s): c[s]["addresses"] for c in RECORDS[v] for s in ("store", "load")}
    base = sides("3.5")
    assert all(sides(v) == base for v in ("3.6", "3.7", "3.8"))
    moved = {k for k, a in sides("3.9").items() if a != base[k]}
    assert len(moved) == 31
    assert all(set(_emitted(next(c for c in RECORDS["3.9"] if c["id"] == i), s)) <= {"ldmatrix.x4.trans",
                                                                                     "stmatrix.x4.trans"}
               for i, s in moved)


def test_the_held_back_probe_loads_in_2048_wavefronts_with_36_and_1024_with_39():
    """The case of the issue: fp16 64x64, [1, 8] per thread stored into an unswizzled tile, loaded as dot operand 1."""
    case = next(c for c in RECORDS["3.6"] if c["id"] == "gpu_bank_f16_64x64_row8_to_dot1_unswz_90")
    assert _scored(case, "load", "3.6")[4] == 2048
    assert _scored(case, "load", "3.9")[4] == 1024
    assert _scored(case, "load", "3.8")[:2] == ("ldmatrix.x4.trans", 16)
