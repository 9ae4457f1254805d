"""checker/reports/text.py: the headline, the findings by severity (the TTGIR input's problems and the failed
checks, spec failures with their witness and TTGIR findings as compiler diagnostics, then warnings, then notes),
the table grouped by file then property (by property alone when big), the checks skipped, and the recap that
repeats the errors and ends on the headline."""

import copy

from checker.reports import text
from checker.reports.text import (
    aligned_message,
    bank_conflict_message,
    conversion_note,
    failure_line,
    failure_sentence,
    finding,
    headline,
    more_than_needed,
    python_where,
    render_complete,
    render_text,
    show,
    skipped_lines,
    witness_line,
)

from .conftest import BAD_ALIAS, CONVERTED, SKIPPED, WARNED, record, report, verified


def test_text_table_groups_by_file_then_property():
    rep = report(record("a1"), record("a2", prop="injective", passed=False,
                                      witness={"kind": "collision", "lanes": [0, 1, 2, 3, 8]}),
                 record("b1", file="specs/b.yaml"), record("a3"))
    assert render_text(rep) == (
        "layoutcheck verify: 4 checks, 3 passed, 1 failed (engine both)\n"
        "\n"
        "FAIL a2  specs/a.yaml:3  expected holds, got fails\n"
        "     witness: collision: lanes=[0-3, 8]\n"
        "\n"
        "file          property    checks  passed  failed\n"
        "specs/a.yaml  injective        1       0       1\n"
        "              surjective       2       2       0\n"
        "specs/b.yaml  surjective       1       1       0\n"
        "total                          4       3       1\n"
        "\n"
        "1 error(s), repeated from above:\n"
        "FAIL a2  specs/a.yaml:3  expected holds, got fails\n"
        "layoutcheck verify: 4 checks, 3 passed, 1 failed (engine both)\n")
    assert rep["summary"]["properties"] == {"injective": {"checks": 1, "passed": 0, "failed": 1, "warnings": 0},
                                            "surjective": {"checks": 3, "passed": 3, "failed": 0, "warnings": 0}}
    assert rep["summary"]["files"] == ["specs/a.yaml", "specs/b.yaml"]
    assert render_text(report(record("a1"))) == (      # no finding: the table, and the headline closes the report
        "layoutcheck verify: 1 checks, 1 passed, 0 failed (engine both)\n"
        "\n"
        "file          property    checks  passed  failed\n"
        "specs/a.yaml  surjective       1       1       0\n"
        "total                          1       1       0\n"
        "\n"
        "layoutcheck verify: 1 checks, 1 passed, 0 failed (engine both)\n")


def ir_record(file, line, severity="error", level=None, more=False):
    """A TTGIR check of `file`:`line`: a failed bank-conflict check of that severity, or (`level`) a conversion
    proven at that level (Triton lowering it through shared memory when `more`)."""
    src = {"file": file, "line": line, "op": "ttg.convert_layout" if level else "ttg.local_load"}
    if level:
        return dict(record(f"{file}:{line}:ttg.convert_layout:conversion[#a -> #b]", file=file, prop="conversion"),
                    source=src, details={"level": level, "triton_lowering": "shared_memory" if more else None})
    return dict(record(f"{file}:{line}:ttg.local_load:bank_conflict_free[#s -> #r]", file=file,
                       prop="bank_conflict_free", passed=False), source=src, severity=severity,
                details={"conflicts": 1, "mnemonic": "LDS.32", "wavefronts": 2, "min_wavefronts": 1})


CONFLICT = "ttg.local_load: {}: 2-way bank conflict (LDS.32); 2 wavefronts where 1 would do"


def test_findings_come_by_severity_whatever_their_file():
    rep = report(ir_record("a.ttgir", 5, "warning"), ir_record("a.ttgir", 9, level="cta", more=True),
                 ir_record("b.ttgir", 7), record("s1", file="specs/z.yaml", passed=False),
                 ir_record("a.ttgir", 30), ir_record("c.ttgir", 1, level="register"))
    assert render_text(rep).splitlines()[:11] == [
        "layoutcheck verify: 6 checks, 2 passed, 3 failed, 1 warnings (engine both)",
        "",
        f"a.ttgir:30: {CONFLICT.format('error')}",
        f"b.ttgir:7: {CONFLICT.format('error')}",
        "FAIL s1  specs/z.yaml:3  expected holds, got fails",
        "",
        f"a.ttgir:5: {CONFLICT.format('warning')}",
        "",
        "a.ttgir:9: ttg.convert_layout: note: cta-level conversion #a -> #b: data moves between warps (through "
        "shared memory); Triton emits a round trip through shared memory",
        "c.ttgir:1: ttg.convert_layout: note: register-level conversion #a -> #b: every thread already holds what "
        "it needs (register moves only)",
        ""]
    assert render_text(rep).splitlines()[-5:] == [
        "3 error(s), repeated from above:",
        f"a.ttgir:30: {CONFLICT.format('error')}",
        f"b.ttgir:7: {CONFLICT.format('error')}",
        "FAIL s1  specs/z.yaml:3  expected holds, got fails",
        "layoutcheck verify: 6 checks, 2 passed, 3 failed, 1 warnings (engine both)"]


def test_the_recap_repeats_the_first_errors_only():
    many = text.RECAP_ERRORS + 3
    lines = render_text(report(*[ir_record("k.ttgir", n) for n in range(1, many + 1)])).splitlines()
    head = f"layoutcheck verify: {many} checks, 0 passed, {many} failed (engine both)"
    assert lines[:2] == [head, ""] and lines[2] == f"k.ttgir:1: {CONFLICT.format('error')}"
    assert lines[-(text.RECAP_ERRORS + 3):] == [f"{many} error(s), repeated from above:"] + [
        f"k.ttgir:{n}: {CONFLICT.format('error')}" for n in range(1, text.RECAP_ERRORS + 1)] + [
        "... and 3 more above", head]


def test_a_big_table_is_printed_by_property_unless_asked():
    files = [f"specs/f{n:03}.yaml" for n in range(text.TABLE_ROWS + 1)]
    rep = report(*[record(f"c{n}", file=file) for n, file in enumerate(files)],
                 dict(record("w", file=files[0], prop="injective", passed=False), severity="warning"))
    assert render_text(rep).splitlines() == [
        headline(rep),
        "",
        "FAIL w  specs/f000.yaml:3  expected holds, got fails",
        "",
        "property    checks  passed  failed  warnings",
        "injective        1       0       0         1",
        f"surjective     {len(files)}     {len(files)}       0         0",
        f"total          {len(files) + 1}     {len(files)}       0         1",
        f"({len(files) + 1} rows by file and property: --table prints them, report.txt has them)",
        "",
        headline(rep)]
    whole = render_text(rep, table=True).splitlines()
    assert whole[4:7] == ["file             property    checks  passed  failed  warnings",
                          "specs/f000.yaml  injective        1       0       0         1",
                          "                 surjective       1       1       0         0"]
    assert len(whole) == 4 + 1 + len(files) + 2 + 2 and render_complete(rep) == render_text(rep, table=True)


def test_many_notes_are_counted_by_level_unless_asked():
    levels = ["register"] * 10 + ["warp"] * 20 + ["cta"] * (text.NOTES_SHOWN - 29) + ["cross_cta"]
    rep = report(*[ir_record("k.ttgir", n, level=level, more=level == "warp") for n, level in enumerate(levels)])
    lines = render_text(rep).splitlines()
    assert lines[2:4] == [
        f"{len(levels)} notes (the level of each ttg.convert_layout): 10 register-level, 20 warp-level, "
        f"{text.NOTES_SHOWN - 29} cta-level, 1 cross_cta-level; for 20 Triton emits more than the proof needs",
        f"(more than {text.NOTES_SHOWN} notes are counted, not listed: --notes lists them, report.txt has them)"]
    assert not any(": note: " in line for line in lines)
    listed = [line for line in render_text(rep, notes=True).splitlines() if ": note: " in line]
    assert len(listed) == len(levels) and listed[0].startswith("k.ttgir:0: ttg.convert_layout: note: register-level")
    assert render_complete(rep) == render_text(rep, notes=True)
    few = report(*[ir_record("k.ttgir", n, level="warp") for n in range(text.NOTES_SHOWN)])
    assert sum(": note: " in line for line in render_text(few).splitlines()) == text.NOTES_SHOWN


def test_findings_only_keeps_errors_warnings_and_the_recap(skipped_report):
    rep = report(ir_record("a.ttgir", 5, "warning"), ir_record("a.ttgir", 9, level="cta"), ir_record("b.ttgir", 7))
    assert render_text(rep, findings_only=True).splitlines() == [
        "layoutcheck verify: 3 checks, 1 passed, 1 failed, 1 warnings (engine both)",
        "",
        f"b.ttgir:7: {CONFLICT.format('error')}",
        "",
        f"a.ttgir:5: {CONFLICT.format('warning')}",
        "",
        "1 error(s), repeated from above:",
        f"b.ttgir:7: {CONFLICT.format('error')}",
        "layoutcheck verify: 3 checks, 1 passed, 1 failed, 1 warnings (engine both)"]
    # a note and a skipped check, nothing else: the headline twice
    assert render_text(skipped_report, findings_only=True) == (
        f"{headline(skipped_report)}\n\n{headline(skipped_report)}\n")


def test_witness_line_is_one_line_and_bounded():
    assert show({"dim0": 4, "dim1": [0, 1]}) == "(dim0=4, dim1=[0, 1])"
    long = record("x", passed=False, witness={"kind": "k", "values": list(range(0, 400, 2))})
    line = witness_line(long)
    assert len(line) == 320 and line.endswith("...") and "\n" not in line
    assert witness_line(record("y")) == ""


def test_show_writes_runs_booleans_and_null():
    assert show([0, 1, 2, 4, 5, 7, 8, 9, 10]) == "[0-2, 4, 5, 7-10]"       # runs of three or more only
    assert show([True, False, None, "x"]) == "[true, false, null, x]"
    assert show([]) == "[]" and show([[0, 1, 2]]) == "[[0-2]]"
    assert show({"a": {"b": None}}) == "(a=(b=null))"
    assert witness_line(record("w", passed=False, witness={"kind": "k", "n": 1}), limit=8) == "k: n=1"
    assert witness_line(record("w", passed=False, witness={"kind": "kind", "n": 12345}), limit=8) == "kind:..."


def test_failure_line_and_headline():
    failed = record("f", passed=False, witness={"kind": "collision", "lanes": [1, 2]})
    assert failure_line(failed) == "expected holds, got fails; witness: collision: lanes=[1, 2]"
    assert failure_line(dict(failed, failure=None, counterexample=None)) == "expected holds, got fails"
    assert failure_line(dict(failed, failure="expected 3 conflicts, got 7")) == (
        "expected 3 conflicts, got 7; witness: collision: lanes=[1, 2]")
    rep = report(record("a"), dict(failed, severity="warning"))
    assert headline(rep) == "layoutcheck verify: 2 checks, 1 passed, 0 failed, 1 warnings (engine both)"


def test_a_real_failing_spec(failing_report):
    witness = ("bank_conflict: model=hardware hardware=sm80 instruction=st.shared mnemonic=STS.U16 warp=0 "
               "instruction_registers=[0] phase=(lanes=[0-31], registers=[0]) accesses=[(register=0, lane=0, "
               "warp=0, offset=0, byte_address=0, word=0), (register=0, lane=1, warp=0, offset=512, "
               "byte_address=1024, word=256)] bank=0")
    fails = ["FAIL bad-duplicates  tests/verify/specs/failing.yaml:15  expected holds, got fails",
             "FAIL bad-conflicts  tests/verify/specs/failing.yaml:19  expected holds, got fails",
             "FAIL bad-conflict-count  tests/verify/specs/failing.yaml:25  expected 3 conflicts, got 7",
             "FAIL bad-level  tests/verify/specs/failing.yaml:32  expected level register, got cta",
             "FAIL bad-expected-failure  tests/verify/specs/failing.yaml:38  expected fails, got holds"]
    head = "layoutcheck verify: 6 checks, 1 passed, 5 failed (engine both, Triton 3.9: default)"
    assert render_text(failing_report).splitlines() == [
        head,
        "",
        fails[0],
        "     witness: collision: indices=[(register=0, lane=0, warp=4, block=0), (register=0, lane=0, warp=0, "
        "block=0)] coordinate=(dim0=0, dim1=0)",
        fails[1],
        f"     witness: {witness}",
        fails[2],
        f"     witness: {witness}",
        fails[3],
        fails[4],
        "",
        "file                             property            checks  passed  failed",
        "tests/verify/specs/failing.yaml  bank_conflict_free       2       0       2",
        "                                 conversion               1       0       1",
        "                                 injective                2       0       2",
        "                                 surjective               1       1       0",
        "total                                                     6       1       5",
        "",
        "5 error(s), repeated from above:"] + fails + [head]


def test_ttgir_warnings_are_diagnostics_before_the_table(warned_report):
    lines = render_text(warned_report).splitlines()
    head = "layoutcheck verify: 98 checks, 94 passed, 0 failed, 4 warnings (engine both, Triton 3.9: default)"
    assert lines[0] == head and lines[-2:] == ["", head]              # no error to repeat: the headline closes it
    assert not any(line.startswith("FAIL ") for line in lines)           # a TTGIR check is a diagnostic
    # each store now pairs with its load through the loop that carries the buffer: a suggested layout, proven
    assert lines[2:5] == [
        f"{WARNED}:{n}: ttg.local_store: warning: 2-way bank conflict (ds_write2_b32): lanes 0 and 9 hit bank 0 "
        "(addresses 0x0, 0x1200); 128 wavefronts where 64 would do; suggested shared layout #ttg.shared_linear<"
        "{offset = [[1, 0], [2, 0], [0, 64], [0, 1], [0, 2], [0, 16], [0, 4], [4, 0], [8, 0], [16, 0], [0, 9], "
        "[0, 34]]}, alignment = 16> (store + load: 256 -> 192 wavefronts, proven minimal)" for n in (84, 105, 131)]
    # the MFMA accumulator stored as it is: each lane's 8 bytes a row apart
    assert lines[5] == f"{WARNED}:171: tt.store: warning: " + COALESCED_171
    assert lines[7].split() == ["file", "property", "checks", "passed", "failed", "warnings"]
    assert lines[9].split() == ["bank_conflict_free", "12", "9", "0", "3"]
    assert lines[10].split() == ["coalesced", "7", "6", "0", "1"]
    assert lines[11].split() == ["data_movement", "3", "3", "0", "0"]         # the in-thread transposes
    assert lines[18].split() == ["total", "98", "94", "0", "4"]


COALESCED_171 = ("uncoalesced store (global_store_dwordx2, 8 B per lane): 2048 sectors in 64 requests where 1024 would "
                 "do if the runtime stride is a sector (32 B) or more; warp 0's request at register 0 touches 32 "
                 "sectors for 512 bytes (minimum 16): lanes 0 and 1 are a runtime stride apart; suggested: lanes of a "
                 "warp should take consecutive vectors along the contiguous dim (a coalesced layout)")


def test_a_conversion_is_a_note_with_its_level(converted_report):
    lines = render_text(converted_report).splitlines()
    assert lines[1:4] == [
        "", f"{CONVERTED}:172: ttg.convert_layout: note: cta-level conversion #mma -> #blocked: data moves between "
        "warps (through shared memory); Triton emits a round trip through shared memory", ""]
    assert lines[4].startswith("file ") and lines[-1] == lines[0]


def test_skipped_checks_with_their_first_line_and_python_source(skipped_report):
    lines = render_text(skipped_report).splitlines()
    assert lines[2] == (
        f"{SKIPPED}:26 (gl_nvidia.py:230:9): ttg.convert_layout: note: cross_cta-level conversion #blocked -> "
        "#blocked1: data moves between CTAs (distributed shared memory); Triton emits a round trip through "
        "distributed shared memory")
    assert lines[-5:] == [
        "",
        "1 check(s) skipped (not covered by the models; the reason for each):",
        f"  skipped 1x  {SKIPPED}:26: conversion_cost: a conversion between CTAs (distributed shared memory) is "
        "not modelled",
        "",
        headline(skipped_report)]
    rep = copy.deepcopy(skipped_report)
    rep["summary"]["ttgir"][0]["skips"] = []                      # no line known: the file alone
    assert skipped_lines(rep)[-1].startswith(f"  skipped 1x  {SKIPPED}: conversion_cost: ")


def test_problems_of_the_ttgir_input_come_first_and_are_repeated():
    report_ = verified(BAD_ALIAS)
    head = "layoutcheck verify: 4 checks, 4 passed, 0 failed (engine both, Triton 3.9: default)"
    problems = ["<text>:1: error: alias #blocked: blocked: every entry must be a power of two, got [3, 1]",
                "<text>:4: error: tt.func: alias '#blocked' cannot be used: its definition on line 1 was rejected"]
    lines = render_text(report_).splitlines()
    assert lines[:5] == [head, "", "2 problem(s) in the TTGIR input (the rest was checked):"] + problems
    assert lines[-4:] == ["2 error(s), repeated from above:"] + problems + [head]


def test_python_where_names_the_file_without_its_folder():
    assert python_where({"python": {"file": "/home/u/matmul.py", "line": 42, "col": 5}}) == " (matmul.py:42:5)"
    assert python_where({"python": {"file": "C:\\src\\k.py", "line": 1, "col": 2}}) == " (k.py:1:2)"
    assert python_where({"file": "k.ttgir"}) == ""


def test_finding_of_each_kind_of_failed_ir_check():
    unknown = {"id": "k.ttgir:3:ttg.local_load:injective[#a]", "property": "injective", "verdict": "unknown",
               "explanation": "timeout"}
    assert finding(unknown) == "injective #a: unknown (timeout)"
    static = {"id": "x:well_formed[#b]", "property": "well_formed", "verdict": "fails", "explanation": "bad basis"}
    assert finding(static) == "well_formed #b: bad basis"
    assert finding(dict(static, id="x:well_formed")) == "well_formed: bad basis"     # no label, no double space
    proved = {"id": "x:surjective[#c]", "property": "surjective", "verdict": "fails", "explanation": "misses",
              "counterexample": {"kind": "missing_coordinate", "coordinate": {"dim0": 4}}}
    assert finding(proved) == "surjective fails #c; witness: missing_coordinate: coordinate=(dim0=4)"
    assert finding(dict(proved, counterexample=None)) == "surjective fails #c: misses"


def test_bank_conflict_and_alignment_messages():
    cx = {"bank": 3, "accesses": [{"lane": 4, "register": 0, "byte_address": 0},
                                  {"lane": 4, "register": 2, "byte_address": 4096}]}
    details = {"conflicts": 3, "mnemonic": "LDS.32", "wavefronts": 16, "min_wavefronts": 4,
               "suggestion": {"layout": "#s", "before": 20, "wavefronts": 8, "proven": True}}
    assert bank_conflict_message(details, cx) == (
        "4-way bank conflict (LDS.32): lane 4 registers 0 and 2 hit bank 3 (addresses 0x0, 0x1000); 16 wavefronts "
        "where 4 would do; suggested shared layout #s (store + load: 20 -> 8 wavefronts, proven minimal)")
    assert bank_conflict_message({"instruction": "st.shared", "conflicts": 1, "wavefronts": 8, "min_wavefronts": 4},
                                 {}) == "2-way bank conflict (st.shared); 8 wavefronts where 4 would do"
    cx = {"vector_bytes": 16, "byte_address": 132, "mnemonic": "LDS.128", "lane": 8, "register": 0, "warp": 0,
          "offset": 32, "physical_offset": 33}
    head = ("misaligned 16-byte access (LDS.128): lane 8 register 0 of warp 0 at offset 32 (slot 33) is byte 132, "
            "4 past a 16-byte boundary ")
    assert aligned_message(cx, "sm90") == head + "(it faults: cudaErrorMisalignedAddress)"
    assert aligned_message(cx, "gfx942") == head + (
        "(LDS serves it in the unaligned access mode, split into smaller accesses)")
    assert aligned_message(cx) == aligned_message(cx, "sm90")                     # unknown target: NVIDIA's


def test_conversion_note_compares_the_proof_with_triton():
    check = {"id": "k:3:ttg.convert_layout:conversion[#a -> #b]", "details": {"level": "warp"}}
    assert conversion_note(check) == "warp-level conversion #a -> #b: data moves between lanes of a warp (shuffles)"
    more = dict(check, details={"level": "warp", "triton_lowering": "shared_memory"})
    assert conversion_note(more) == (
        "warp-level conversion #a -> #b: data moves between lanes of a warp (shuffles); Triton emits a round trip "
        "through shared memory, more than needed: the proof shows warp level suffices")
    by_class = dict(check, details={"level": "register", "triton_class": "warp_shuffle"})
    assert conversion_note(by_class).endswith("(register moves only) (Triton lowers it as warp_shuffle)")
    assert [more_than_needed(c) for c in (check, more, by_class)] == [False, True, False]
    assert not more_than_needed(dict(check, details={"level": "cta", "triton_lowering": "shared_memory"}))


def test_failure_sentence_is_the_finding_of_a_ttgir_check():
    conflict = ir_record("k.ttgir", 3)
    assert (failure_sentence(conflict) == finding(conflict)
            == "2-way bank conflict (LDS.32); 2 wavefronts where 1 would do")
    spec = record("s", passed=False, witness={"kind": "collision", "lanes": [1, 2]})
    assert failure_sentence(spec) == failure_line(spec) == "expected holds, got fails; witness: collision: lanes=[1, 2]"


def test_a_coalescing_finding_reads_as_one_sentence():
    """A failed coalesced check: the instruction, sectors against the minimum, the property's explanation and its
    suggestion, not the 32-lane witness dump."""
    from checker.reports.text import finding
    details = {"instruction": "global_store_dwordx2", "vector_bytes": 8, "access": "store", "requests": 16,
               "sectors": 512, "min_sectors": 256, "suggestion": "lanes of a warp should take consecutive vectors"}
    check = {"id": "k.ttgir:201:tt.store:coalesced[#mma1 64x64]", "property": "coalesced", "verdict": "fails",
             "details": details, "explanation": "warp 0's request at register 0 touches 32 sectors for 512 bytes "
             "(minimum 16): lanes 0 and 1 are a runtime stride apart",
             "counterexample": {"kind": "split_sectors", "warp": 0, "register": 0, "lanes": [{"lane": 0}] * 64}}
    assert finding(check) == (
        "uncoalesced store (global_store_dwordx2, 8 B per lane): 512 sectors in 16 requests where 256 would do; "
        "warp 0's request at register 0 touches 32 sectors for 512 bytes (minimum 16): lanes 0 and 1 are a runtime "
        "stride apart; suggested: lanes of a warp should take consecutive vectors")
    details["strides_bytes"] = [None, 8]        # a stride known at run time only: the figures are conditional
    assert finding(check).startswith("uncoalesced store (global_store_dwordx2, 8 B per lane): 512 sectors in 16 "
                                     "requests where 256 would do if the runtime stride is a sector (32 B) or more; "
                                     "warp 0's request")
    check["counterexample"] = {"kind": "narrow_vector", "vec": 1, "layout_vec": 4}
    check["explanation"] = "1-element vectors where the layout allows 4 along dim1: the pointer is provably aligned"
    details.update(instruction="ld.global.b32", vector_bytes=4, access="load")
    details.pop("suggestion")
    assert finding(check) == ("narrow load vectors (ld.global.b32, 4 B per lane): 1-element vectors where the layout "
                              "allows 4 along dim1: the pointer is provably aligned")


OVERSIZED = """\
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k() {
    %0 = ttg.local_alloc : () -> !ttg.memdesc<3x256x256xf16, #shared, #smem, mutable>
    %1 = ttg.local_alloc : () -> !ttg.memdesc<512x256xf16, #shared, #smem, mutable>
    ttg.local_dealloc %0 : !ttg.memdesc<3x256x256xf16, #shared, #smem, mutable>
    ttg.local_dealloc %1 : !ttg.memdesc<512x256xf16, #shared, #smem, mutable>
    tt.return
  }
}
"""


def test_a_buffer_past_the_capacity_says_its_size_and_its_copies():
    """A pipelined allocation (3 copies) is checked copy by copy against a third of the capacity: the finding says
    so in words, where its witness alone read "capacity_bits=445096" (confusing, a hunt of lightllm found)."""
    import checker
    lines = [ln for ln in text.ir_diagnostics(checker.verify(OVERSIZED)) if ": ttg.local_alloc: " in ln]
    assert lines == [
        "<text>:5: ttg.local_alloc: error: fits fails #shared 3x256x256: its 3 copies need 3 x 131072 = 393216 "
        "bytes; one copy gets 55637 bytes (1/3 of the capacity); the first element past it is offset 27818 "
        "(element (dim0=108, dim1=170))",
        "<text>:6: ttg.local_alloc: error: fits fails #shared 512x256: the buffer needs 262144 bytes, past the "
        "166912-byte capacity; the first element past it is offset 83456 (element (dim0=326, dim1=0))"]
