"""The JUnit XML report: one testsuite per spec file, one testcase per check; a failed check's
<failure> carries in its message the sentence the text report prints (`checker.reports.text.failure_sentence`:
a spec check's reason and witness, a TTGIR check's finding) and the explanation in its text.

A warning (a check of severity ``warning`` that did not pass: a bank conflict found in TTGIR) is a
``<skipped message="warning: ...">`` testcase: the one outcome besides passed and failed that
every common viewer shows with its message (GitHub Actions test reporters, GitLab's test report,
Jenkins' JUnit plugin) and that does not fail the build; docs/report-schema.md says why.
The suites' ``skipped`` attributes count them. A part of the TTGIR input the reader could not read
(exit code 2) is a testcase ``input:LINE`` with an ``<error type="input">``, counted in ``errors``."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from .text import failure_sentence, input_problems


def _classname(file: str) -> str:
    """specs/ampere_matmul.yaml -> specs.ampere_matmul"""
    stem = os.path.splitext(os.path.normpath(file))[0]
    return stem.replace(os.sep, ".").lstrip(".")


def render_junit(report: Mapping[str, Any]) -> str:
    s = report["summary"]
    problems = input_problems(report)
    root = ET.Element("testsuites", name="layoutcheck", tests=str(s["checks"] + len(problems)),
                      failures=str(s["failed"]), errors=str(len(problems)), skipped=str(s.get("warnings", 0)))
    suites: dict[str, ET.Element] = {}
    counts: dict[str, list[int]] = {}        # file -> [tests, failures, warnings, errors]

    def suite(file: str) -> ET.Element:
        if file not in suites:
            suites[file] = ET.SubElement(root, "testsuite", name=file)
            counts[file] = [0, 0, 0, 0]
        return suites[file]

    for c in report["checks"]:
        file = c["source"]["file"]
        suite(file)
        counts[file][0] += 1
        case = ET.SubElement(suites[file], "testcase", classname=_classname(file), name=c["id"], file=file,
                             line=str(c["source"]["line"]))
        if not c["passed"] and c.get("severity") == "warning":
            counts[file][2] += 1
            skipped = ET.SubElement(case, "skipped", message=f"warning: {failure_sentence(c)}", type="warning")
            skipped.text = c.get("explanation") or ""
            ET.SubElement(case, "system-out").text = f"warning: {failure_sentence(c)}"
        elif not c["passed"]:
            counts[file][1] += 1
            failure = ET.SubElement(case, "failure", message=failure_sentence(c), type=c["verdict"])
            failure.text = c.get("explanation") or ""
    for file, line, message in problems:
        case = ET.SubElement(suite(file), "testcase", classname=_classname(file), name=f"input:{line}", file=file,
                             line=str(line))
        ET.SubElement(case, "error", message=message, type="input")
        counts[file][0] += 1
        counts[file][3] += 1
    for file, element in suites.items():
        element.set("tests", str(counts[file][0]))
        element.set("failures", str(counts[file][1]))
        element.set("errors", str(counts[file][3]))
        element.set("skipped", str(counts[file][2]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
