"""Which Triton versions a text can come from: spellings that only some releases print.

    marks = find_marks(ttgir_text)                 # [Mark('colStride', line 7, since 3.6), ...]
    lo, hi = bounds(marks)                         # the supported versions the text can come from
    chosen, notes = choose(marks, given=None, installed=None)

TTGIR carries no version, but its spellings bound it: a release prints each attribute field and op
name its own way (`MARKS`, each with the Triton pull request that changed it). A text is read with
the union of every supported release's spellings (`checker.syntax.mlir_attr` accepts them all);
this module only says which releases could have printed it, so that a module is checked with the
semantics of a Triton it can come from.

`choose` picks the version, in this order: one given (``--triton-version``, the API keyword, a spec's
``triton_version:``), else the installed Triton that compiled the module (``layoutcheck run``), else the
newest supported version the text's marks allow, else the newest supported. A given or installed
version that a mark contradicts is kept, with a warning naming the mark; a text whose marks allow no
supported version at all (older than the oldest) is a `CheckerError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import CheckerError, InternalError
from ..versions import NEWEST, OLDEST, SUPPORTED, Selection, TritonVersion


@dataclass(frozen=True)
class Marker:
    """A spelling printed by Triton `first` .. `last` only (None: no bound on that side)."""

    name: str
    pattern: re.Pattern
    first: TritonVersion | None
    last: TritonVersion | None
    pr: int | None
    what: str
    requires: re.Pattern | None = None        # the mark counts only in a text where this matches too
    needle: str = ""                          # a substring of every match: a text without it has none

    def allows(self, v: TritonVersion) -> bool:
        return (self.first is None or v >= self.first) and (self.last is None or v <= self.last)

    def span(self) -> str:
        """``Triton <= 3.5``, ``Triton >= 3.6``, ``Triton 3.6 to 3.7``."""
        if self.first is None:
            return f"Triton <= {self.last}"
        if self.last is None:
            return f"Triton >= {self.first}"
        return f"Triton {self.first}" if self.first == self.last else f"Triton {self.first} to {self.last}"


def _v(text: str | None) -> TritonVersion | None:
    return None if text is None else TritonVersion(*map(int, text.split(".")))


MARKS: list[Marker] = []
# (amd_mfma's versionMajor/versionMinor is no mark: Triton's own 3.9 lit tests still write it, and its parser
# ignores it; docs/ttgir.md)


def _mark(name: str, pattern: str, first: str | None, last: str | None, pr: int | None, what: str,
          requires: str | None = None, *, needle: str) -> None:
    """`needle`: a plain substring of every match of `pattern`, looked for first (`find_marks`): a pattern that
    opens with ``\\b`` or a line anchor is tried at every position of the text (200 µs on a 14 kB module),
    the substring search takes a microsecond, and most texts have none of the rarer spellings."""
    if needle not in pattern.replace("\\", ""):
        raise InternalError(f"marker {name}: the needle {needle!r} is not spelled out in its pattern")
    MARKS.append(Marker(name, re.compile(pattern), _v(first), _v(last), pr, what,
                        re.compile(requires) if requires else None, needle))


_mark("tmem_unpacked", r"#ttng\.tensor_memory_encoding<\{?[^>]*\bunpacked\s*=", None, "3.5", 8136,
      "tensor_memory_encoding's 'unpacked' (colStride from Triton 3.6)", needle="#ttng.tensor_memory_encoding<")
_mark("tmem_col_stride", r"#ttng\.tensor_memory_encoding<\{?[^>]*\bcolStride\s*=", "3.6", None, 8136,
      "tensor_memory_encoding's 'colStride' (was 'unpacked' up to Triton 3.5)", needle="#ttng.tensor_memory_encoding<")
_mark("tmem_cta_split", r"\bCTASplit[MN]\s*=", None, "3.7", 9557,
      "a TMEM layout's 'CTASplitM/N' (a CGALayout from Triton 3.8)", needle="CTASplit")
_mark("tmem_subslice_n", r"ttng\.tmem_subslice\s+%[\w$.#-]+\s*\{[^}]*\bN\s*=", None, "3.8", None,
      "ttng.tmem_subslice's {N} (Triton 3.9 writes {offset, dim})", needle="ttng.tmem_subslice")
_mark("tmem_subslice_offset", r"ttng\.tmem_subslice\s+%[\w$.#-]+\s*\{[^}]*\boffset\s*=", "3.9", None, None,
      "ttng.tmem_subslice's {offset, dim} (Triton 3.8 and before write {N})", needle="ttng.tmem_subslice")
_mark("tmem_subslice_new_encoding",
      r"ttng\.tmem_subslice\s+%[\w$.#-]+\s*\{[^}]*\}\s*:\s*!ttg\.memdesc<[^,>]*,\s*(#[\w$.-]+)\s*,[^>]*>\s*->\s*"
      r"!ttg\.memdesc<[^,>]*,\s*(?!\1\s*,)#[\w$.-]+\s*,", None, "3.7", 7777,
      "ttng.tmem_subslice into another TMEM encoding than its source's (a narrower blockN: refused from Triton 3.8, "
      "whose verifier wants one encoding)", needle="ttng.tmem_subslice")
_mark("legacy_cta_layout", r"\bCTAsPerCGA\s*=", None, "3.5", 8770,
      "the CTAsPerCGA/CTASplitNum/CTAOrder triple (CGALayout from Triton 3.6)", needle="CTAsPerCGA")
_mark("mfma_two_entry_instr", r"#ttg\.amd_mfma<\{[^>]*\binstrShape\s*=\s*\[\s*\d+\s*,\s*\d+\s*\]", None, "3.5", 8213,
      "amd_mfma's two-entry instrShape ([M, N, K] from Triton 3.6)", needle="#ttg.amd_mfma<{")
_mark("mfma_element_type", r"#ttg\.amd_mfma<\{[^>]*\belementType\s*=", None, "3.5", 8213,
      "amd_mfma's 'elementType' (elementBitWidth from Triton 3.6)", needle="#ttg.amd_mfma<{")
_mark("wmma_cta_layout", r"#ttg\.amd_wmma<\{[^>]*\bctaLayout\s*=", "3.7", None, 8946,
      "amd_wmma's 'ctaLayout' (warpsPerCTA up to Triton 3.6)", needle="#ttg.amd_wmma<{")
_mark("wmma_warps_per_cta", r"#ttg\.amd_wmma<\{[^>]*\bwarpsPerCTA\s*=", None, "3.6", 8946,
      "amd_wmma's 'warpsPerCTA' (ctaLayout from Triton 3.7)", needle="#ttg.amd_wmma<{")
_mark("generic_linear", r"#ttg\.generic_linear<", "3.8", None, 9873, "#ttg.generic_linear (from Triton 3.8)",
      needle="#ttg.generic_linear<")
_mark("padded_shared_no_shape", r"#ttg\.padded_shared<\[[^\]]*\]\s*\{\s*order\s*=\s*\[[^\]]*\]\s*\}>",
      None, "3.5", 7929,
      "padded_shared with 'order' and no 'shape' (order and shape, or offset bases, from Triton 3.6)",
      needle="#ttg.padded_shared<[")
_mark("amdgpu_ops", r"(?m)^\s*(?:%[\w$.:#,\s%-]*=\s*)?\"?amdgpu\.[a-z_]+", None, "3.5", 8675,
      "the 'amdgpu.' op prefix (amdg. from Triton 3.6)", needle="amdgpu.")
_mark("amdg_ops", r"(?m)^\s*(?:%[\w$.:#,\s%-]*=\s*)?\"?amdg\.[a-z_]+", "3.6", None, 8675,
      "the 'amdg.' op prefix (amdgpu. up to Triton 3.5)", needle="amdg.")
_mark("buffer_op_value_type", r"amdg(?:pu)?\.buffer_(?:load|store|atomic_rmw|atomic_cas)\s[^\n:{]*"
      r"(?:\{[^}\n]*\}[^\n:]*)?:\s*tensor<", None,
      "3.8", None, "an AMD buffer load, store or atomic typed by its value alone (Triton 3.9 writes '!tt.ptr<T> ->' "
      "first)", needle=".buffer_")
_mark("buffer_op_pointer_type", r"amdg\.buffer_(?:load|store|atomic_rmw|atomic_cas)\s[^\n:{]*(?:\{[^}\n]*\}[^\n:]*)?"
      r":\s*!tt\.ptr<", "3.9",
      None, None, "an AMD buffer load, store or atomic typed '!tt.ptr<T> -> tensor<...>' (its value alone up to "
      "Triton 3.8)", needle=".buffer_")
_mark("shared_linear", r"#ttg\.shared_linear<", "3.6", None, 8116, "#ttg.shared_linear (from Triton 3.6)",
      needle="#ttg.shared_linear<")
_mark("padded_shared_shape", r"#ttg\.padded_shared<\[[^\]]*\]\s*\{[^}]*\bshape\s*=", "3.6", None, 7929,
      "padded_shared's 'shape' (from Triton 3.6)", needle="#ttg.padded_shared<[")
_mark("partitioned_shared", r"#ttg\.partitioned_shared<", "3.8", None, None,
      "#ttg.partitioned_shared (from Triton 3.8)", needle="#ttg.partitioned_shared<")
_mark("nvidia_without_two_ctas", r'module\s+attributes\s*\{(?![^}]*ttng\.two-ctas)[^}]*ttg\.target\s*=\s*"cuda:',
      None, "3.8", None, 'an NVIDIA module compiled by Triton without "ttng.two-ctas" (Triton 3.9 writes it on '
      'every NVIDIA module)', requires=r"(?m)^#loc\d* = loc\(",       # Triton's output: its #loc aliases
      needle='"cuda:')
_mark("tdm_fused_load", r"(?m)^\s*(?:%[\w$.:#,\s%-]*=\s*)?\"?amdg\.async_tdm_fused_copy_global_to_local\b", "3.9",
      None, None,
      "amdg.async_tdm_fused_copy_global_to_local (from Triton 3.9; Triton 3.8's parser: 'custom op ... is unknown')",
      needle="amdg.async_tdm_fused_copy_global_to_local")
_mark("memdesc_subview", r"\bttg\.memdesc_subview\b", None, "3.4", None,
      "ttg.memdesc_subview (memdesc_index from Triton 3.5)", needle="ttg.memdesc_subview")


@dataclass(frozen=True)
class Mark:
    """One occurrence of a marker in a text: the marker and its line (1-based, in the text given)."""

    marker: Marker
    line: int

    def describe(self) -> str:
        return f"{self.marker.what}, line {self.line}"


def find_marks(text: str, first_line: int = 1) -> list[Mark]:
    """The first occurrence of each marker in `text` (lines counted from `first_line`)."""
    out = []
    for marker in MARKS:
        if marker.needle not in text:
            continue
        m = marker.pattern.search(text)
        if m and (marker.requires is None or marker.requires.search(text)):
            out.append(Mark(marker, first_line + text.count("\n", 0, m.start())))
    return out


def section_marks(text: str) -> list[tuple[int, int, list[Mark]]]:
    """(first line, last line, marks) of each lit section of `text` (split at ``// -----`` lines, as
    `checker.syntax.ttgir.read_ttgir` splits modules)."""
    lines = text.splitlines()
    out, first = [], 0
    for k, line in enumerate(lines + ["// -----"]):
        if line.strip().startswith("// -----"):
            out.append((first + 1, k, find_marks("\n".join(lines[first:k]), first + 1)))
            first = k + 1
    return out


def bounds(marks: list[Mark]) -> list[TritonVersion]:
    """The supported versions every mark allows, oldest first (empty: none)."""
    return [v for v in SUPPORTED if all(m.marker.allows(v) for m in marks)]


def _older_than_supported(marks: list[Mark]) -> Mark | None:
    return next((m for m in marks if m.marker.last is not None and m.marker.last < OLDEST), None)


def choose(marks: list[Mark], given: TritonVersion | None = None, given_by: str = "given",
           installed: TritonVersion | None = None, what: str = "module") -> tuple[Selection, list[str], list[str]]:
    """(the selection, notes, warnings) for a text with `marks` (module docstring); `what` names the text in
    them ("module", "text"). A text older than every supported version, with no version given, is a
    `CheckerError` naming its mark."""
    notes: list[str] = []
    warnings: list[str] = []
    chosen = given or installed
    if chosen is not None:
        reason = given_by if given is not None else "installed"
        against = [m for m in marks if not m.marker.allows(chosen)]
        for m in against:
            warnings.append(f"this {what}'s syntax is from {m.marker.span()} ({m.marker.what}, line {m.line}), "
                            f"but it is checked with Triton {chosen} semantics ({reason})")
        return Selection(chosen, reason), notes, warnings
    old = _older_than_supported(marks)
    if old is not None:
        raise CheckerError(f"this {what}'s syntax is from {old.marker.span()} ({old.marker.what}): layoutcheck "
                           f"models Triton {OLDEST} to {NEWEST} (compile it with one of them, or give "
                           "--triton-version to check it anyway)", line=old.line)
    allowed = bounds(marks)
    if not marks or allowed[-1:] == [NEWEST]:            # nothing bounds it from above
        return Selection(NEWEST, "default", allowed=tuple(allowed)), notes, warnings
    if not allowed:
        a, b = next(((a, b) for i, a in enumerate(marks) for b in marks[i + 1:]
                     if not any(a.marker.allows(v) and b.marker.allows(v) for v in SUPPORTED)), (marks[0], marks[-1]))
        raise CheckerError(f"this {what} mixes the syntax of two Triton releases: {a.marker.what} (line {a.line}, "
                           f"{a.marker.span()}) and {b.marker.what} (line {b.line}, {b.marker.span()})",
                           line=b.line)
    version = allowed[-1]
    binding = [m for m in marks if m.marker.last is not None and m.marker.last == version] or marks
    detail = "; ".join(f"{m.marker.what}, line {m.line}" for m in binding[:2])
    if version != NEWEST:
        first = binding[0]
        notes.append(f"this {what}'s syntax is from {first.marker.span()} ({first.marker.what}); checking with "
                     f"Triton {version} semantics")
    return Selection(version, "detected", detail, tuple(allowed)), notes, warnings


__all__ = ["Marker", "Mark", "MARKS", "find_marks", "section_marks", "bounds", "choose"]
