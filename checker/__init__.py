"""layoutcheck: Triton's TritonGPU layout encodings as exact F2 LinearLayouts, and proofs about them.

    import checker
    enc = checker.parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], "
                                 "warpsPerCTA = [4, 1], order = [1, 0]}>")
    L = checker.lower(enc, [128, 32])          # a checker.LinearLayout, as Triton 3.9 builds it
    L = checker.lower(enc, [64, 1], triton_version="3.6")   # as Triton 3.6 builds it
    r = checker.prove.injective(L)             # a Result: bool(r) is True exactly when it holds
    report = checker.verify("kernel.ttgir")    # the report `layoutcheck verify` writes, as a dict
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import versions
from .encodings import lower as _lower
from .encodings.base import Encoding
from .errors import CheckerError, ParseError, names_argument
from .layout import LinearLayout
from .padded import PaddedLayout

if TYPE_CHECKING:
    from types import ModuleType

    prove: ModuleType

Spec = str | Mapping[str, Any]


@functools.cache
def _pasted() -> ModuleType:
    """`checker.syntax.pasted`, imported on first use (not at ``import checker``: start-up) and then at the
    cost of a call, where an import statement in the function would cost microseconds on every call."""
    from .syntax import pasted  # lazy: the text reader loads on first parse, not at `import checker`
    return pasted


@names_argument("spec", params=("triton_version",))
@versions.keyword
def parse_encoding(spec: Spec) -> Encoding:
    """An encoding from any of its written forms, validated by Triton's verifier rules.

    - ``"#ttg.blocked<{...}>"``: Triton attribute text; also what a TTGIR file shows around it
      (`checker.syntax.pasted`): an alias line ``#blocked = #ttg.blocked<{...}>``, a type
      ``tensor<64x64xf16, #ttg.blocked<{...}>>`` or ``!ttg.memdesc<64x64xf16, #shared, #smem>``
      (a trailing ``loc(...)`` is ignored), alias lines followed by one type or attribute;
    - ``{"kind": "blocked", "size_per_thread": [...], ...}`` or ``{"attr": "..."}``:
      a declaration as written in ``encodings/*.yaml`` (docs/encodings.md);
    - ``{"class": "BlockedLayout", "params": {...}}``: a Gluon layout spec;
    - a Gluon layout object, ``gl.BlockedLayout(...)`` and every other Gluon layout class (NVIDIA, AMD,
      shared, tensor memory), read through its fields (`checker.syntax.gluon.gluon_object_spec`; Triton
      is imported only by whoever built the object).

    Text that is no layout raises a `ParseError` saying what it is (a memory space, a location,
    an Intel or Gluon auto encoding, ...). ``triton_version="3.6"``: read and verify it as that Triton
    does (`checker.versions`; default the newest supported); text spelled as only another Triton
    spells it says so in the error.
    """
    if isinstance(spec, str):
        pasted = _pasted()
        enc = pasted.plain_encoding(spec)
        if enc is None:
            enc = pasted.read_pasted(spec).encoding
    elif isinstance(spec, Mapping) and "class" in spec:
        from .syntax.gluon import from_gluon  # lazy: Gluon specs are rare; keeps `import checker` light
        enc = from_gluon(spec)
    elif type(spec).__module__.startswith("triton.experimental.gluon"):
        from .syntax.gluon import from_gluon  # lazy: Gluon objects are rare; keeps `import checker` light
        enc = from_gluon(spec)
    elif isinstance(spec, Mapping):
        from .syntax.yaml_decl import encoding_from_mapping  # lazy: the YAML reader (and PyYAML) only for mappings
        return encoding_from_mapping(spec)
    else:
        raise ParseError(f"an encoding is attribute text or a mapping, got {type(spec).__name__}")
    enc.validated  # noqa: B018  the property validates, once per encoding value (lower asks again: answered)
    return enc


@names_argument("encoding", params=("shape", "triton_version"), replaces=("spec",))
@versions.keyword
def lower(encoding: Encoding | Spec, shape: Sequence[int] | None = None) -> LinearLayout | PaddedLayout:
    """The LinearLayout Triton builds for an encoding at `shape` (a `PaddedLayout` for ``padded_shared``).

    `encoding` may also be any form `parse_encoding` reads; `shape` then defaults to the shape of a
    pasted type (``tensor<64x64xf16, ...>``), and one given must agree with it. ``triton_version="3.6"``:
    the layout that Triton builds (`checker.versions`; default the newest supported)."""
    if isinstance(encoding, Encoding):
        if shape is None:
            raise CheckerError(f"a {encoding.kind} encoding needs a tensor shape to be lowered", field="shape")
        return _lower(encoding, shape)
    typed = None
    if isinstance(encoding, str):
        got = _pasted().read_pasted(encoding)
        got.encoding.validated  # noqa: B018  the property access validates the encoding (once per value)
        encoding, typed = got.encoding, got.shape
    else:
        encoding = parse_encoding(encoding)
    if shape is None:
        if typed is None:
            raise CheckerError(f"a {encoding.kind} encoding needs a tensor shape to be lowered", field="shape")
        shape = typed
    elif typed is not None and list(shape) != list(typed):
        raise CheckerError(f"shape {list(shape)} disagrees with the type's shape {list(typed)}", field="shape")
    return _lower(encoding, shape)


def verify(paths_or_text: str | os.PathLike | Iterable[str | os.PathLike], *, hardware: str | None = None,
           engine: str = "both", jobs: int | None = 1, timeout_ms: int = 10_000, only: Sequence[str] = (),
           skip: Sequence[str] = (), werror: bool = False, report_dir: str | os.PathLike | None = None,
           formats: Sequence[str] | str = ("text", "json"), timings: bool = False,
           figures: str = "failed", differential: bool = False, triton_figures: bool = False,
           executor: str | None = None, pretty: bool | None = None,
           triton_version: str | None = None) -> dict[str, Any]:
    """Run `layoutcheck verify` in-process and return the report it writes to report.json
    (``{"schema_version", "summary", "checks"}``, docs/report-schema.md).

    paths_or_text: a spec file (``*.yaml``), a TTGIR file (``*.ttgir``, ``*.mlir``), a folder searched
    for both, TTGIR text (anything with a line break, or that starts ``module`` / ``#``), or a list of
    these; TTGIR text is named ``<text>`` in the report. The keywords are the command's options:
    hardware (a preset name overriding the modules' ttg.target), engine ("f2", "z3", "both" or "all"), jobs
    (worker processes; None: one per core), timeout_ms, only / skip (shell patterns of check ids),
    werror, differential (``matches_triton`` for every encoding of the TTGIR: Triton must be installed),
    triton_figures (Triton's own figures beside every conversion and bank check: ``--triton-figures``),
    executor (None: processes; "ray" or "ray://HOST:PORT": Ray tasks, ``pip install ray``),
    triton_version ("3.5" to "3.9": whose semantics every check follows; default: a spec's own
    ``triton_version:``, else what a module's syntax says (`checker.syntax.version_marks`), else the newest;
    ``report["summary"]["triton_version"]`` says which and why).
    Identical checks are proved once and every distinct (encoding, shape) is lowered once per process, so
    calling it again on an edited kernel redoes only the lowering of new encodings (the cache is kept).
    Nothing is written unless report_dir is given (then `formats`, ``timings.json`` with
    timings=True, the HTML report's `figures`, and `pretty` for the JSON files, as on the command line).

    Raises `CheckerError` for bad input (a spec that does not load, nothing selected) as the command
    exits 2; a TTGIR file's unreadable constructs do not raise: they are in
    ``report["summary"]["ttgir"][i]["problems"]``.
    """
    from .api import verify as run  # lazy: the verification pipeline loads on first call, not at `import checker`
    return run(paths_or_text, hardware=hardware, engine=engine, jobs=jobs, timeout_ms=timeout_ms, only=only,
               skip=skip, werror=werror, report_dir=report_dir, formats=formats, timings=timings,
               figures=figures, differential=differential, triton_figures=triton_figures, executor=executor,
               pretty=pretty, triton_version=triton_version)


def diff(old: str | os.PathLike | Iterable[str | os.PathLike], new: str | os.PathLike | Iterable[str | os.PathLike], *,
         old_triton_version: str | None = None, new_triton_version: str | None = None, hardware: str | None = None,
         engine: str = "both", jobs: int | None = 1, timeout_ms: int = 10_000) -> dict[str, Any]:
    """What `layoutcheck diff OLD NEW` reports, as the data it writes to diff.json (docs/diff.md): every module
    of `old` (TTGIR files or folders) matched by kernel and target with one of `new`, both verified (each with
    its Triton version: given, or each module's detected one), and every change of a layout, a shared-memory
    access, a conversion or the kernel's shared memory, classed ``regression``, ``improvement`` or
    ``neutral``. ``checker.run.diff.exit_status(result, "regression")`` is the command's exit status."""
    from .run.diff import diff as run  # lazy: the diff pipeline loads on first call, not at `import checker`
    return run(old, new, old_triton_version=old_triton_version, new_triton_version=new_triton_version,
               hardware=hardware, engine=engine, jobs=jobs, timeout_ms=timeout_ms)


def __getattr__(name: str) -> Any:
    """``checker.prove`` (the proof API) is imported on first use, so ``import checker`` stays light."""
    if name == "prove":
        import importlib
        return importlib.import_module(".prove", __name__)
    raise AttributeError(f"module 'checker' has no attribute {name!r}")


__all__ = ["parse_encoding", "lower", "prove", "verify", "diff", "LinearLayout", "PaddedLayout", "Encoding",
           "CheckerError"]
