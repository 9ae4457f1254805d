"""The JUnit XML report: one testsuite per spec file, one testcase per check; a failed check's
<failure> carries the reason and the witness in its message and the explanation in its text.

A warning (a check of severity ``warning`` that did not pass: a bank conflict found in TTGIR) is a
``<skipped message="warning: ...">`` testcase: the one outcome besides passed and failed that
every common viewer shows with its message (GitHub Actions test reporters, GitLab's test report,
Jenkins' JUnit plugin) and that does not fail the build; docs/report-schema.md says why.
The suites' ``skipped`` attributes count them."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from typing import Any, Mapping

from .text import failure_line


def _classname(file: str) -> str:
    """specs/ampere_matmul.yaml -> specs.ampere_matmul"""
    stem = os.path.splitext(os.path.normpath(file))[0]
    return stem.replace(os.sep, ".").lstrip(".")


def render_junit(report: Mapping[str, Any]) -> str:
    s = report["summary"]
    root = ET.Element("testsuites", name="layoutcheck", tests=str(s["checks"]), failures=str(s["failed"]),
                      errors="0", skipped=str(s.get("warnings", 0)))
    suites: dict[str, ET.Element] = {}
    counts: dict[str, list[int]] = {}        # file -> [tests, failures, warnings]
    for c in report["checks"]:
        file = c["source"]["file"]
        if file not in suites:
            suites[file] = ET.SubElement(root, "testsuite", name=file)
            counts[file] = [0, 0, 0]
        counts[file][0] += 1
        case = ET.SubElement(suites[file], "testcase", classname=_classname(file), name=c["id"], file=file,
                             line=str(c["source"]["line"]))
        if not c["passed"] and c.get("severity") == "warning":
            counts[file][2] += 1
            skipped = ET.SubElement(case, "skipped", message=f"warning: {failure_line(c)}", type="warning")
            skipped.text = c.get("explanation") or ""
            ET.SubElement(case, "system-out").text = f"warning: {failure_line(c)}"
        elif not c["passed"]:
            counts[file][1] += 1
            failure = ET.SubElement(case, "failure", message=failure_line(c), type=c["verdict"])
            failure.text = c.get("explanation") or ""
    for file, suite in suites.items():
        suite.set("tests", str(counts[file][0]))
        suite.set("failures", str(counts[file][1]))
        suite.set("errors", "0")
        suite.set("skipped", str(counts[file][2]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
