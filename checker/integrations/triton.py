"""Every kernel Triton compiles, verified as it is compiled: `layoutcheck run`, notebooks, test suites.

    import checker.triton
    session = checker.triton.install(werror=False, report_dir=None, only=None)
    ...                                   # compile or launch kernels: each is verified once, findings on stderr
    session.kernels                       # what was verified (`Kernel`: name, target, report, errors, warnings)
    checker.triton.uninstall()            # or let the interpreter exit: the summary is printed, reports written

`install` sets Triton's compilation listener (``triton.knobs.compilation.listener``, called by
``triton.compile`` with ``src``, ``metadata``, ``metadata_group`` -- the paths of every stage, the
``.ttgir`` with its ``loc(...)`` among them --, ``times`` and ``cache_hit``; a listener already set is
kept and called first). Each kernel (by its hash: a cache hit of a kernel already seen is not verified
again) is verified as ``layoutcheck verify`` verifies a module (`checker.run.verification`), its findings
printed to stderr at once, in compiler style at the Python line they come from, the TTGIR line beside
it (`checker.reports.run`). At exit (or `Session.finish`) a summary goes to stderr and, with
`report_dir`, the reports of every kernel together (``report.json``, ``report.txt``, ...).

`layoutcheck run -- python script.py` runs the program with the listener installed at start-up
(`checker/integrations/_run/sitecustomize.py`, through ``PYTHONPATH``); the kernels' records go to a folder the
command reads back when the program ends (`collect`), so a program that exits through ``os._exit``
or dies still has its kernels summarised.

Needs Triton (``pip install triton==3.9.0``): without it `install` raises a `CheckerError`
saying so in one line.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from ..errors import CheckerError
from ..versions import VersionRequest, supported_text
from ..versions import installed as installed_version
from ..versions import parse as parse_version
from ..z3lib import require_z3

ENV = "LAYOUTCHECK_RUN"


def shared_mismatch(report: dict[str, Any], shared: int | None, name: str) -> str | None:
    """One line when the kernel's shared memory in layoutcheck's model is not what Triton allocated, with why
    (the model's uncertainty, or a difference it does not explain); None when they agree or either is missing."""
    return _figure_mismatch(report, "fits[kernel]", "kernel_bytes", shared, name, "bytes of shared memory")


def tmem_mismatch(report: dict[str, Any], tmem_size: int | None, name: str) -> str | None:
    """One line when the kernel's tensor memory in layoutcheck's model (``fits[tensor_memory]``) is not Triton's
    ``metadata.tmem_size``; None when they agree, either is missing, or the kernel has none."""
    return _figure_mismatch(report, "fits[tensor_memory]", "tmem_size", tmem_size or None, name,
                            "columns of tensor memory")


def _figure_mismatch(report: dict[str, Any], check: str, key: str, theirs: int | None, name: str,
                     unit: str) -> str | None:
    """The line of `shared_mismatch` / `tmem_mismatch`: the kernel check ending with `check`, its figure `key`."""
    if theirs is None:
        return None
    figure = next((c for c in report.get("checks", ()) if c.get("id", "").endswith(f":{check}")), None)
    details = (figure or {}).get("details") or {}
    ours = details.get(key)
    if ours is None or ours == theirs:
        return None
    why = "; ".join(details.get("uncertain") or ()) or "a difference the model does not explain (please report it)"
    return f"layoutcheck: kernel {name}: Triton allocated {theirs} {unit}, layoutcheck's model {ours}: {why}"


@dataclass
class Kernel:
    """One verified kernel: its name, target, TTGIR path, Triton's metadata ``shared`` (and ``tmem_size``), whether
    it came from Triton's cache, its report (``checker.verify``'s dict) and its findings."""

    name: str
    target: str
    ttgir: str
    hash: str
    cache_hit: bool
    shared: int | None
    report: dict[str, Any]
    errors: int = 0
    warnings: int = 0
    diagnostics: list[str] = field(default_factory=list)
    problem: str | None = None              # why it could not be verified (bad input, internal error)
    tmem_size: int | None = None            # Triton's metadata ``tmem_size`` (columns; Blackwell), when it has one

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "target": self.target, "ttgir": self.ttgir, "hash": self.hash,
                "cache_hit": self.cache_hit, "shared": self.shared, "report": self.report, "errors": self.errors,
                "warnings": self.warnings, "diagnostics": self.diagnostics, "problem": self.problem,
                "tmem_size": self.tmem_size}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Kernel:
        return cls(**d)


def source_file(src: Any) -> str | None:
    """The Python file a compiled kernel's function is defined in now (``src.fn``, a JITFunction, in
    ``triton.compile``'s listener call), or None (a kernel compiled from IR text has none)."""
    fn = getattr(src, "fn", None)
    path = getattr(fn, "file_name", None)
    if path is None:
        code = getattr(getattr(fn, "fn", fn), "__code__", None)
        path = getattr(code, "co_filename", None)
    return path if isinstance(path, str) and path and not path.startswith("<") else None


def relocate_python(report: dict[str, Any], current: str) -> None:
    """Point the Python locations of a kernel taken from Triton's cache at the files as they are now.

    Triton's cache key hashes a kernel's source text, not its path: the same program run from another
    folder (a fresh checkout, a CI workspace) gets the TTGIR of the first compilation, whose ``loc(...)``
    name the old folder. The old path of the kernel's own file is the one location file with the current
    file's name; when there is exactly one such, every location under its folder is moved to the current
    folder where that file exists (the kernel file itself always). Nothing is changed when it is ambiguous."""
    located = [(c.get("source") or {}).get("python") for c in report.get("checks", ())]
    located = [py for py in located if py and isinstance(py.get("file"), str)]
    name = os.path.basename(current)
    old = {py["file"] for py in located if os.path.basename(py["file"]) == name and py["file"] != current}
    if len(old) != 1 or any(py["file"] == current for py in located):
        return
    old_dir, new_dir = os.path.dirname(old.pop()), os.path.dirname(current)
    for py in located:
        if py["file"].startswith(old_dir + os.sep):
            target = os.path.join(new_dir, os.path.relpath(py["file"], old_dir))
            if target == current or os.path.exists(target):
                py["file"] = target


def _target_text(target: Any) -> str:
    if target is None:
        return "?"
    if isinstance(target, (list, tuple)) and len(target) >= 2:
        return f"{target[0]}:{target[1]}"
    backend, arch = getattr(target, "backend", None), getattr(target, "arch", None)
    return f"{backend}:{arch}" if backend is not None else str(target)


class Session:
    """The kernels verified since `install` (module docstring)."""

    def __init__(self, *, werror: bool = False, report_dir: str | os.PathLike | None = None,
                 only: Sequence[str] | str | None = None, differential: bool = False, engine: str = "both",
                 formats: Sequence[str] | str = ("text", "json"), stream: TextIO | None = None,
                 record_dir: str | None = None, summary: bool = True, triton_version: str | None = None):
        self.werror, self.differential, self.engine = werror, differential, engine
        # whose semantics: the version given, else the installed Triton's (it compiles every kernel seen)
        self.version = (VersionRequest(parse_version(triton_version)) if triton_version is not None
                        else VersionRequest(installed=installed_version()))
        self.report_dir = os.fspath(report_dir) if report_dir is not None else None
        self.only = [only] if isinstance(only, str) else list(only or ())
        self.formats = formats if isinstance(formats, str) else ",".join(formats)
        self.stream = stream
        self.record_dir, self.summary = record_dir, summary
        self.kernels: list[Kernel] = []
        self.seen: dict[str, Kernel] = {}
        self.watchers: list[list[Kernel]] = []    # open windows (a pytest test) collecting the kernels they see
        self.previous = None
        self.finished = False
        self.lock = threading.Lock()

    # ------------------------------------------------------------ the listener

    def listener(self, *, src=None, metadata=None, metadata_group=None, times=None, cache_hit=False, **_):
        if self.previous is not None:
            self.previous(src=src, metadata=metadata, metadata_group=metadata_group, times=times, cache_hit=cache_hit)
        metadata = dict(metadata or {})
        paths = dict(metadata_group or {})
        ttgir = next((p for k, p in paths.items() if k.endswith(".ttgir")), None)
        key = str(metadata.get("hash") or ttgir)
        with self.lock:
            k = self.seen.get(key)
            if k is None and ttgir is not None:
                k = self.verify_kernel(ttgir, metadata, key, bool(cache_hit), source_file(src))
                self.seen[key] = k
                self.kernels.append(k)
            if k is not None:
                for w in self.watchers:
                    w.append(k)

    def verify_kernel(self, ttgir: str, metadata: dict, key: str, cache_hit: bool,
                      python_file: str | None = None) -> Kernel:
        """Verify one kernel's TTGIR as ``layoutcheck verify`` does; print its findings. python_file: where
        the kernel's function is defined now (a cached TTGIR keeps the path it was first compiled from:
        `relocate_python`)."""
        # lazy: this module loads at the start of every `layoutcheck run` child; the checking, with the first kernel
        from ..reports.run import diagnostics
        from ..run.verification import collector_paused, load_inputs, verify_inputs
        name = str(metadata.get("name") or os.path.basename(ttgir).rsplit(".", 1)[0])
        kernel = Kernel(name, _target_text(metadata.get("target")), ttgir, key, cache_hit,
                        metadata.get("shared"), {}, tmem_size=metadata.get("tmem_size") or None)
        try:
            with collector_paused():       # one scope for reading and proving (`checker.verify`'s)
                inputs = load_inputs([ttgir], werror=self.werror, differential=self.differential,
                                     version=self.version)
                done = verify_inputs(inputs, only=self.only, engine=self.engine, jobs=1)
            kernel.report = done.report
            if cache_hit and python_file:
                relocate_python(kernel.report, python_file)
        except CheckerError as e:
            kernel.problem = f"cannot verify kernel {name}: {e}"
        except Exception as e:                 # never break the user's program: say so and go on
            kernel.problem = f"internal error verifying kernel {name}: {type(e).__name__}: {e}"
        if kernel.report:
            s = kernel.report["summary"]
            kernel.errors = s["failed"] + sum(1 for p in s.get("ttgir", ()) for _ in p.get("problems", ()))
            kernel.warnings = s.get("warnings", 0)
            kernel.diagnostics = diagnostics(kernel.report, os.path.basename(ttgir))
            for mismatch in (shared_mismatch(kernel.report, kernel.shared, name),
                             tmem_mismatch(kernel.report, kernel.tmem_size, name)):
                if mismatch:
                    kernel.diagnostics.append(mismatch)
        out = self.stream or sys.stderr
        for line in kernel.diagnostics:
            print(line, file=out)
        if kernel.problem:
            print(f"layoutcheck: {kernel.problem}", file=out)
        out.flush()
        if self.record_dir:
            self._record(kernel)
        return kernel

    def _record(self, kernel: Kernel) -> None:
        os.makedirs(self.record_dir, exist_ok=True)
        path = os.path.join(self.record_dir, f"{os.getpid()}-{len(self.kernels):05d}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(kernel.to_dict(), f)
        os.replace(path + ".tmp", path)

    # ------------------------------------------------------------ results

    @property
    def errors(self) -> int:
        return sum(k.errors + (k.problem is not None) for k in self.kernels)

    @property
    def warnings(self) -> int:
        return sum(k.warnings for k in self.kernels)

    def exit_status(self, program_status: int = 0) -> int:
        """The program's own status when it failed; else 1 when a kernel has errors (or warnings under
        werror); else 0."""
        if program_status:
            return program_status
        return 1 if self.errors or (self.werror and self.warnings) else 0

    def finish(self) -> None:
        """The summary on stderr and the reports in report_dir (once)."""
        if self.finished:
            return
        self.finished = True
        finish(self.kernels, report_dir=self.report_dir, formats=self.formats, stream=self.stream,
               summary=self.summary)


KERNELS = "kernels"      # the report folder's copies of the kernels' TTGIR (`kernel_files`)


def kernel_files(kernels: Sequence[Kernel], folder: str) -> dict[str, str]:
    """Copy each kernel's TTGIR into `folder` under a name a person can read, ``staged.cuda80.ttgir`` (kernel
    name, target), with the first 8 characters of Triton's hash added when two kernels would share a name
    (constexpr specializations); the {cache path: copy} map. The reports then name kernels, not cache
    hashes, and keep their sources after Triton's cache is cleared."""
    import shutil
    names: dict[str, str] = {}
    taken: set[str] = set()
    for k in kernels:
        if not k.report or k.ttgir in names or not os.path.isfile(k.ttgir):
            continue
        backend, _, arch = k.target.partition(":")
        base = f"{k.name}.{arch if backend == 'hip' else backend + arch}"       # staged.cuda80, staged.gfx942
        name = f"{base}.ttgir" if f"{base}.ttgir" not in taken else f"{base}.{k.hash[:8]}.ttgir"
        taken.add(name)
        os.makedirs(folder, exist_ok=True)
        names[k.ttgir] = os.path.join(folder, name)
        shutil.copyfile(k.ttgir, names[k.ttgir])
    return names


def renamed(report: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """`report` with every TTGIR path in `names` replaced by its new name (check ids, sources, module summaries)."""
    def move(path: Any) -> Any:
        return names.get(path, path)

    checks = []
    for c in report["checks"]:
        src = dict(c.get("source") or {})
        old = src.get("file")
        if old in names:
            c = dict(c, source=dict(src, file=names[old]))
            if c["id"].startswith(old + ":"):
                c["id"] = names[old] + c["id"][len(old):]
        checks.append(c)
    summary = dict(report["summary"],
                   ttgir=[dict(t, file=move(t.get("file"))) for t in report["summary"].get("ttgir", ())])
    return dict(report, checks=checks, summary=summary)


def merged_report(kernels: Sequence[Kernel], engine: str = "both", timeout_ms: int = 10_000,
                  names: dict[str, str] | None = None) -> dict[str, Any]:
    """One report (report.json's dict) holding every kernel's checks; an empty one when no kernel was verified
    (so that the reports of an earlier run are never left in place). names: {TTGIR path: the name the report
    gives it} (`kernel_files`)."""
    from types import SimpleNamespace

    from ..run.record import build_report  # lazy: loads at a `run` child's start; reports only at the end
    reports = [renamed(k.report, names) if names else k.report for k in kernels if k.report]
    if not reports:
        return build_report([], engine=engine, timeout_ms=timeout_ms, ttgir=[])
    outcomes = [SimpleNamespace(record=c) for r in reports for c in r["checks"]]
    ttgir = [t for r in reports for t in r["summary"].get("ttgir", ())]
    first = reports[0]["summary"]
    report = build_report(outcomes, engine=first["engine"], timeout_ms=first["timeout_ms"], ttgir=ttgir)
    for key in ("triton_version", "triton_version_reason", "triton_installed"):
        values = list(dict.fromkeys(r["summary"][key] for r in reports if key in r["summary"]))
        if values:
            report["summary"][key] = "; ".join(values) if key == "triton_version_reason" else ", ".join(values)
    return report


def finish(kernels: Sequence[Kernel], *, report_dir: str | None, formats: str = "text,json",
           stream: TextIO | None = None, summary: bool = True) -> list[str]:
    """Print the summary of `kernels` and write their merged reports to report_dir; the paths written."""
    if not summary and report_dir is None:
        return []       # a `run` child at exit: nothing to do, nothing imported (the program may be dying of a signal)
    # lazy: loads at a `run` child's start; reports only at the end (and not when the child is dying: above)
    from ..reports.run import summary_lines
    from ..reports.writer import parse_formats, write_reports, written_line
    out = stream or sys.stderr
    written: list = []
    if report_dir is not None:
        report = merged_report(kernels, names=kernel_files(kernels, os.path.join(report_dir, KERNELS)))
        written = write_reports(report, None, parse_formats(formats), report_dir)
    else:
        report = merged_report(kernels)
    if summary:
        for line in summary_lines(kernels, report):
            print(line, file=out)
        if written:
            print(written_line(written), file=out)
        out.flush()
    return written


def collect(record_dir: str) -> list[Kernel]:
    """The kernels a `layoutcheck run` child recorded, in the order they were verified."""
    if not os.path.isdir(record_dir):
        return []
    out = []
    for name in sorted(os.listdir(record_dir), key=lambda n: (n.split("-")[0], n)):
        if name.endswith(".json"):
            with open(os.path.join(record_dir, name)) as f:
                out.append(Kernel.from_dict(json.load(f)))
    return out


# ---------------------------------------------------------------- install / uninstall

_SESSION: list[Session] = []


def require() -> Any:
    """Triton's knobs module, or a `CheckerError` (one line, exit 2) saying Triton is not installed."""
    try:
        from triton import knobs  # lazy: Triton is optional (this raises the one-line error without it)
    except ImportError:
        raise CheckerError("checker.triton needs Triton, which is not installed "
                           "(pip install triton==3.9.0)") from None
    return knobs


def require_modelled() -> None:
    """The installed Triton is a release layoutcheck models, or a `CheckerError` saying which it follows."""
    from importlib.metadata import version
    text = version("triton")
    try:
        parse_version(text)
    except CheckerError:
        raise CheckerError(f"the installed Triton {text} is not modelled: layoutcheck follows Triton "
                           f"{supported_text()} (give --triton-version to check with one of them anyway)") from None


def install(werror: bool = False, report_dir: str | os.PathLike | None = None,
            only: Sequence[str] | str | None = None, *, differential: bool = False, engine: str = "both",
            formats: Sequence[str] | str = ("text", "json"), stream: TextIO | None = None,
            summary: bool = True, record_dir: str | None = None, triton_version: str | None = None) -> Session:
    """Verify every kernel Triton compiles from now on (module docstring); returns the `Session`.
    werror: warnings count as errors (`Session.exit_status`); report_dir: where the reports go at exit;
    only: shell patterns of check ids, as ``verify --only``; differential: ``matches_triton`` checks;
    triton_version: whose semantics (default: the installed Triton's, which compiles the kernels; one
    layoutcheck does not model is refused in one line). Installing again replaces the session (its
    summary is printed first)."""
    knobs = require()
    require_z3(engine)
    if triton_version is None:
        require_modelled()
    if differential:
        from ..properties.matches_triton import require_lowering_triton  # lazy: only with --differential
        require_lowering_triton("--differential")
    if _SESSION:
        uninstall()
    session = Session(werror=werror, report_dir=report_dir, only=only, differential=differential, engine=engine,
                      formats=formats, stream=stream, record_dir=record_dir, summary=summary,
                      triton_version=triton_version)
    session.previous = knobs.compilation.listener
    knobs.compilation.listener = session.listener
    _keep_listener(knobs.compilation)
    _SESSION.append(session)
    import atexit
    atexit.register(session.finish)
    return session


def _keep_listener(compilation) -> None:
    """Chain, do not lose: a program that sets its own ``knobs.compilation.listener`` after the session is
    installed would silently switch layoutcheck off (and a gate would pass having seen nothing). The knobs
    object's class is given a subclass whose assignment to ``listener`` makes the program's listener the one
    the session calls first (`Session.listener`), while the session's stays installed."""
    cls = type(compilation)
    if getattr(cls, "_layoutcheck_chained", False):
        return

    class Chained(cls):                                 # type: ignore[misc, valid-type]
        _layoutcheck_chained = True

        def __setattr__(self, name, value):
            current = _SESSION[-1] if _SESSION else None
            if name == "listener" and current is not None and value != current.listener:
                current.previous = value                # the program's own, called before ours
                return
            super().__setattr__(name, value)

    Chained.__name__ = Chained.__qualname__ = cls.__name__
    compilation.__class__ = Chained


def uninstall() -> Session | None:
    """Remove the listener (restoring the one it replaced), print the summary and write the reports."""
    if not _SESSION:
        return None
    session = _SESSION.pop()
    try:
        from triton import knobs  # lazy: Triton is optional
        if knobs.compilation.listener == session.listener:
            knobs.compilation.listener = session.previous
    except ImportError:
        pass
    session.finish()
    return session


def session() -> Session | None:
    """The installed session, if any."""
    return _SESSION[-1] if _SESSION else None


def install_from_environment() -> Session | None:
    """What `checker/integrations/_run/sitecustomize.py` calls in a `layoutcheck run` child: the settings are in
    ``$LAYOUTCHECK_RUN`` (JSON); the kernels' records go to its ``record_dir``; the summary is the
    command's."""
    text = os.environ.get(ENV)
    if not text:
        return None
    cfg = json.loads(text)
    try:
        return install(werror=cfg.get("werror", False), only=cfg.get("only") or None,
                       differential=cfg.get("differential", False), engine=cfg.get("engine", "both"),
                       record_dir=cfg["record_dir"], summary=False, triton_version=cfg.get("triton_version"))
    except CheckerError:
        return None          # the program's Python has no Triton: it compiles no kernel


__all__ = ["Kernel", "Session", "install", "uninstall", "session", "collect", "finish", "merged_report"]
