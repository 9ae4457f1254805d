"""The --explain view of one TTGIR line: every proof about the operation (verdicts first), then its layouts.

    == ttg.local_load bank_conflict_free: fails (warning)
       <explanation>
       witness: <the counterexample in one line>
       details: <the figures>
    == reg: #ttg.blocked<{...}> at 64x64
    <with grids: the layout's show view, who holds each element>

It renders a `checker.run.verification.Explained` (the checks and their results, the lowered layouts); it
proves nothing and lowers nothing itself.
"""

from __future__ import annotations

from ..padded import linear_part
from ..syntax.mlir_attr import print_attribute
from .text import show
from .views import layout_view


def render_explain(explained, *, grids: bool = False) -> str:
    out = [f"{explained.file}:{explained.line}: error: {msg}" for msg in explained.problems]
    for ob, r in explained.checks:
        out.append(f"== {ob.op} {ob.property}: {r.status}" + (f" ({ob.severity})" if r.status == "fails" else ""))
        out.append(f"   {r.explanation}")
        if r.counterexample:
            out.append("   witness: " + show(r.counterexample.to_dict()))
        if r.details:
            out.append("   details: " + show(r.details))
    for role, enc, shape, built in explained.layouts:
        out.append(f"== {role}: {print_attribute(enc)} at {'x'.join(map(str, shape))}")
        if grids:
            out.append(layout_view(linear_part(built)).rstrip() if not isinstance(built, str)
                       else f"(does not lower: {built})")
    if explained.layouts and not grids:
        out.append("(--grids shows who holds each element of each layout)")
    return "\n".join(out) + "\n"
