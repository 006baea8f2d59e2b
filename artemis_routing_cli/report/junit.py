"""``--format junit``: one test suite per file, one failing test case per finding."""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from ..diagnostics import VERDICT_TEXT, Severity
from ..linting import FileReport


def render(reports: Sequence[FileReport], *, fail_on: Severity = Severity.ERROR) -> str:
    suites = etree.Element("testsuites", name="arouter validate")
    total = failures = 0
    for r in reports:
        suite = etree.SubElement(suites, "testsuite", name=r.path)
        suite_failures = 0
        if not r.diagnostics:
            etree.SubElement(suite, "testcase", classname=r.path, name="broker.xml is valid")
            total += 1
        for d in r.diagnostics:
            case = etree.SubElement(suite, "testcase", classname=r.path,
                                    name=f"{d.rule} {d.file}:{d.line}:{d.column}")
            total += 1
            if d.severity.rank >= fail_on.rank:
                fail = etree.SubElement(case, "failure", type=d.rule, message=d.message)
                fail.text = (f"{d.file}:{d.line}:{d.column}: {d.severity.value} {d.rule}: {d.message} "
                             f"[{VERDICT_TEXT[d.broker]}]")
                suite_failures += 1
            else:
                out = etree.SubElement(case, "system-out")
                out.text = f"{d.severity.value}: {d.message}"
        suite.set("tests", str(max(len(r.diagnostics), 1)))
        suite.set("failures", str(suite_failures))
        suite.set("errors", "0")
        failures += suite_failures
    suites.set("tests", str(total))
    suites.set("failures", str(failures))
    return etree.tostring(suites, pretty_print=True, xml_declaration=True, encoding="UTF-8").decode("utf-8")
