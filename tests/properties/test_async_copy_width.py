"""The vector of an asynchronous copy's shared-memory write is what its global pointer allows, not only what its
layouts allow: Triton's lowering of ``ttg.async_copy_global_to_local`` moves, per lane, the pointer's AxisInfo
contiguity / alignment / mask constancy (at most 16 bytes), so a copy read at ``c // d`` is a 4-byte cp.async
whatever its layouts. Fixtures: tools/compile_async_copies.py (Triton 3.9.0 on a CPU, cuda:80 and cuda:90), with
the byte count of every cp.async in the PTX by the kernel's Python line (facts.jsonl)."""

from __future__ import annotations

import json
import pathlib

import pytest

import checker
from checker.encodings import lower
from checker.errors import CheckerError
from checker.hardware import resolve
from checker.properties.bank_conflicts import bank_conflict_free
from checker.properties.smem.plan import async_plan, local_conversion, normalize
from checker.syntax.mlir_attr import parse_attribute

ROOT = pathlib.Path(__file__).parent / "fixtures" / "async_copies"
FACTS = [json.loads(line) for line in (ROOT / "facts.jsonl").read_text().splitlines() if line]


# (kernel, Python line) -> the elements its pointer allows, where fewer than the layouts do (the checks' ``vector``);
# divided_columns' line 44 copies 8 bytes of f16 because its layouts give a thread 4 elements, not for its pointer
NARROWED = {("divided_columns", 45): 1, ("masked_columns", 59): 1, ("hinted_pairs", 74): 2, ("strided_rows", 86): 1}


def _copies(report: dict, prop: str) -> list[dict]:
    return [c for c in report["checks"] if c["property"] == prop
            and c["source"].get("op") == "ttg.async_copy_global_to_local"]


@pytest.mark.parametrize("fact", FACTS, ids=lambda f: f"{f['kernel']}.{f['target']}")
def test_every_copy_is_scored_at_the_width_triton_emits(fact):
    """Each copy's bank check scores the cp.async width of the PTX at its Python line, and so does its coalesced
    check; the ``vector`` parameter is there exactly where the pointer allows less than the layouts."""
    report = checker.verify(str(ROOT / f"{fact['kernel']}.{fact['target']}.ttgir"))
    banks, coalesced = _copies(report, "bank_conflict_free"), _copies(report, "coalesced")
    assert len(banks) == len(coalesced) == 3 * len(fact["cp_async"])        # 3 stages: 2 ahead, 1 in the loop
    for bank, co in zip(banks, coalesced):
        line = str(bank["source"]["python"]["line"])
        (emitted, _), = fact["cp_async"][line].items()
        width = int(emitted.split(":")[1])
        assert (bank["details"]["vector_bytes"], co["details"]["vector_bytes"]) == (width, width), (line, emitted)
        assert bank["details"]["asm"] == f"cp.async.b{8 * width}"
        assert bank["parameters"].get("vector") == NARROWED.get((fact["kernel"], int(line)))


def test_a_copy_at_a_runtime_divisor_is_a_4_way_conflicting_4_byte_copy():
    """divided_columns' z tile (i32 at ``c // d``, blocked [1, 4] per thread into swizzled_shared vec 8, perPhase 2,
    maxPhase 2): each lane writes one word; lanes 4 rows apart land in one bank (rows are 16 words, the swizzle
    XORs 8 into the columns of every other pair of rows), so every phase touches 4 words of a bank. Scored at the
    layouts' 16 bytes it was conflict-free."""
    report = checker.verify(str(ROOT / "divided_columns.cuda90.ttgir"))
    z = [c for c in _copies(report, "bank_conflict_free") if c["source"]["python"]["line"] == 45]
    assert [c["verdict"] for c in z] == ["fails"] * 3
    d = z[0]["details"]
    assert (d["mnemonic"], d["vector_bytes"], d["instructions_per_warp"], d["conflicts"], d["wavefronts"],
            d["min_wavefronts"]) == ("LDGSTS", 4, 4, 3, 64, 16)
    assert z[0]["explanation"].startswith("LDGSTS (cp.async, 4 B per lane), 4 per warp")
    assert "suggestion" not in d            # the synthesis scores the layouts' widest copy: no suggestion here
    R = lower(parse_attribute(z[0]["operands"]["reg"]), [32, 16])
    S = lower(parse_attribute(z[0]["operands"]["shared"]), [32, 16])
    wide = bank_conflict_free(R, S, 32, access="cp.async", hardware="sm90")
    assert (wide.status, wide.details["vector_bytes"]) == ("holds", 16)


def test_the_cap_is_validated_and_applies_to_copies_only():
    R = lower(parse_attribute("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
                              "order = [1, 0]}>"), [32, 16])
    S = lower(parse_attribute("#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 2, order = [1, 0]}>"), [32, 16])
    capped = bank_conflict_free(R, S, 32, access="cp.async", hardware="sm90", max_vector=2)
    assert (capped.details["vector_bytes"], capped.details["asm"]) == (8, "cp.async.b64")
    with pytest.raises(CheckerError, match="not st.shared") as e:
        bank_conflict_free(R, S, 32, access="st.shared", hardware="sm90", max_vector=2)
    assert e.value.field == "vector"
    with pytest.raises(CheckerError, match="positive number of elements"):
        bank_conflict_free(R, S, 32, access="cp.async", hardware="sm90", max_vector=0)
    Rn, Sn = normalize(R, S)
    cvt, origin = local_conversion(Rn, Sn, 16, resolve("sm90"))
    with pytest.raises(CheckerError, match="cp.async moves 4, 8 or 16 bytes a lane; the global pointer allows 2") as e:
        async_plan(cvt, origin, 16, "cp.async", resolve("sm90"), max_vector=1)
    assert e.value.field == "vector"
    assert async_plan(cvt, origin, 16, "cp.async", resolve("sm90"), max_vector=4).vector_bytes == 8
