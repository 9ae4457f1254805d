"""pytest plugin: ``pytest --layoutcheck`` verifies every kernel Triton compiles during the test session.

Registered through the ``pytest11`` entry point of pyproject.toml, so it is there whenever layoutcheck is
installed; it does nothing (and imports nothing of Triton) unless ``--layoutcheck`` is given. Then
`checker.triton.install` runs for the session: each kernel compiled is verified once, its findings printed
as they come; a test during which a kernel with errors was compiled (or, with
``--layoutcheck-werror``, with warnings) fails with those findings; the summary is printed at the end of
the session, the reports written to ``--layoutcheck-report-dir``.
"""

from __future__ import annotations

import pytest

from checker.errors import CheckerError

KEY = "_layoutcheck_session"


def pytest_addoption(parser):
    group = parser.getgroup("layoutcheck", "layoutcheck: verify the layouts of every Triton kernel compiled")
    group.addoption("--layoutcheck", action="store_true", default=False,
                    help="verify every kernel Triton compiles; fail the tests whose kernels have errors")
    group.addoption("--layoutcheck-werror", action="store_true", default=False,
                    help="with --layoutcheck, warnings (bank conflicts) fail the test too")
    group.addoption("--layoutcheck-report-dir", default=None, metavar="DIR",
                    help="with --layoutcheck, write the reports of every kernel there at the end")
    group.addoption("--layoutcheck-only", action="append", default=[], metavar="PATTERN",
                    help="with --layoutcheck, run only checks whose id matches this shell pattern (repeatable)")
    group.addoption("--layoutcheck-differential", action="store_true", default=False,
                    help="with --layoutcheck, also check every lowering against the installed Triton's")
    group.addoption("--layoutcheck-triton-version", default=None, metavar="X.Y",
                    help="with --layoutcheck, check with that Triton's semantics (default: the installed Triton's)")


def pytest_configure(config):
    if not config.getoption("layoutcheck"):
        return
    from .triton import install  # lazy: a pytest run without --layoutcheck loads none of the checking
    try:
        session = install(werror=config.getoption("layoutcheck_werror"),
                          report_dir=config.getoption("layoutcheck_report_dir"),
                          only=config.getoption("layoutcheck_only") or None,
                          differential=config.getoption("layoutcheck_differential"), summary=False,
                          triton_version=config.getoption("layoutcheck_triton_version"))
    except CheckerError as e:
        raise pytest.UsageError(f"--layoutcheck: {e}") from None
    setattr(config, KEY, session)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    session = getattr(item.config, KEY, None)
    if session is None:
        return
    if call.when == "setup":
        item._layoutcheck_kernels = []
        session.watchers.append(item._layoutcheck_kernels)
        return
    if call.when != "call":
        if call.when == "teardown":
            seen = getattr(item, "_layoutcheck_kernels", None)
            if seen is not None and seen in session.watchers:
                session.watchers.remove(seen)
        return
    report = outcome.get_result()
    seen = getattr(item, "_layoutcheck_kernels", [])
    unique = list({id(k): k for k in seen}.values())
    bad = [k for k in unique if k.errors or k.problem or (session.werror and k.warnings)]
    if bad and report.passed:
        lines = [f"layoutcheck: {len(bad)} kernel(s) compiled by this test have "
                 f"{'errors or warnings' if session.werror else 'errors'}:"]
        for k in bad:
            lines.append(f"  kernel {k.name} ({k.target}): {k.errors} error(s), {k.warnings} warning(s)")
            lines += [f"    {d}" for d in k.diagnostics if session.werror or ": error: " in d]
            if k.problem:
                lines.append(f"    {k.problem}")
        report.outcome = "failed"
        report.longrepr = "\n".join(lines)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    session = getattr(config, KEY, None)
    if session is None:
        return
    # lazy: a pytest run without --layoutcheck loads none of the checking
    from checker.reports.run import summary_lines

    from .triton import merged_report
    terminalreporter.section("layoutcheck")
    for line in summary_lines(session.kernels, merged_report(session.kernels)):
        terminalreporter.write_line(line)


def pytest_unconfigure(config):
    session = getattr(config, KEY, None)
    if session is None:
        return
    from .triton import uninstall  # lazy: a pytest run without --layoutcheck loads none of the checking
    uninstall()
