"""Checks derived from TritonGPU IR: what `layoutcheck verify kernel.ttgir` proves.

A module read by `checker.syntax.ttgir.read_ttgir` turns into obligations,
each tied to the source line and operation it comes from:

- every distinct (encoding, shape) of a ``tensor`` type, at its first use:
  ``well_formed`` (verifier rules, lowering, the module's threads-per-warp,
  warps and CTAs), ``surjective`` onto the shape and
  ``injective_up_to_broadcast`` (no accidental duplication);
- every distinct shared ``!ttg.memdesc`` (encoding, allocation shape):
  ``well_formed`` and ``invertible`` (each element has exactly one offset);
- ``ttg.convert_layout``: ``conversion`` (its level: register, warp, cta,
  cross_cta, and a witness of the data that moves) and, on NVIDIA targets,
  ``conversion_cost`` (how Triton lowers it, its scratch and wavefronts; a
  warning when a side of the round trip costs more than its minimum);
- ``ttg.local_alloc`` with a value, ``ttg.local_store``,
  ``ttg.async_copy_global_to_local``: ``bank_conflict_free`` of the store;
  ``ttg.local_load``: of the load (a warning, not an error: conflicts cost
  time, not correctness); ``ttg.local_alloc``: ``fits`` in the target's
  shared memory (an allocation of B buffers fits when one buffer fits in
  capacity // B);
- ``tt.dot`` / ``ttng.warp_group_dot``: ``dot_operands``.

A shared encoding whose rank is below its memdesc's (multi-buffering:
``3x128x64`` with a rank-2 ``#shared``) is checked on the trailing dims. An
access through a subslice view (``!ttg.memdesc<128x16xf16, #shared, #smem,
mutable, 128x32>``) is checked against the allocation's layout (parameter
``view_of``): the view starts at a multiple of its own shape, so its offsets
are the allocation's offsets of the view's coordinates XOR one constant, and a
constant XOR keeps which accesses share a word and which share a bank. The
hardware comes from ``ttg.target`` (``cuda:80`` -> sm80, ``hip:gfx942`` ->
gfx942, ...), or from ``--hardware``; with neither, bank and fits checks are
skipped and counted. Every other operation is counted by name, its types
still checked.

`kernel_checks` builds them for the modules of one file, each with the Triton version its syntax (or the caller)
chooses; `read_ir_file` reads the file first. Importing this module registers every op rule (`ops_memory`,
`ops_common`, `ops_nvidia`, `ops_amd`).
"""

from __future__ import annotations

from ..errors import CheckerError
from ..hardware import Hardware
from ..limits import read_stdin, read_text
from ..syntax.ttgir import Module, read_ttgir
from ..syntax.version_marks import choose, section_marks
from ..versions import VersionRequest, using
from . import ops_amd, ops_common, ops_memory, ops_nvidia  # noqa: F401  (they register their op rules)
from .builder import OP_CHECKS, Builder, KernelChecks


def kernel_checks(modules: list[Module], file: str, hardware: Hardware | None = None, *,
                  differential: bool = False, text: str | None = None,
                  version: VersionRequest = VersionRequest()) -> KernelChecks:  # noqa: B008  immutable (frozen)
    """Every obligation of every module of one file (module docstring), in source order; differential:
    also ``matches_triton`` for every distinct (encoding, shape) (`checker.properties.matches_triton`).
    Each module is checked with the Triton version `version` asks for, or the one its syntax (in `text`)
    says it comes from (`checker.syntax.version_marks.choose`): its checks carry it, the module's summary
    says which and why, and a note or warning says where the syntax and the choice part."""
    out = KernelChecks(file)
    sections = section_marks(text) if text is not None else []
    for module in modules:
        marks = next((mk for first, last, mk in sections if first <= module.line <= last), [])
        try:
            selection, notes, warnings = choose(marks, version.given, version.given_by, version.installed)
        except CheckerError as e:
            out.problems.append((e.line or module.line, e.message))
            continue
        out.notes += [(module.line, n) for n in notes]
        out.warnings += [(module.line, w) for w in warnings]
        with using(selection.version):
            Builder(module, file, hardware, out, differential=differential, selection=selection).build()
    return out


def checked_ops() -> frozenset[str]:
    """The operations that get checks of their own (beyond the checks of their types)."""
    return frozenset(OP_CHECKS)


def read_ir_file(path: str, hardware: Hardware | None = None, *, differential: bool = False,
                 version: VersionRequest = VersionRequest()) -> KernelChecks:  # noqa: B008  immutable (frozen)
    """Read one TTGIR file (``-``: stdin, named ``<stdin>``) and derive its checks."""
    name = "<stdin>" if path == "-" else path
    text = read_stdin("-") if path == "-" else read_text(path)     # UTF-8 text only, else one line, exit 2
    return kernel_checks(read_ttgir(text, name), name, hardware, differential=differential, text=text,
                         version=version)
