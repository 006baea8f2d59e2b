"""The broker's own loader as a second judge of one broker.xml (``validate --broker-home``).

:func:`run_loader` runs the installation's classes (``java/Judge.java``, see there for the stages) and
reads their verdict; :func:`judge_findings` makes it a finding (AR004, at the element the exception
names where it can be found) and, where arouter's own verdict differs, AR005: a bug in arouter, said loudly.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import DEPLOYS, REFUSES, Diagnostic
from ..errors import UsageError
from .jvm import java_properties, run_driver

if TYPE_CHECKING:
    from ..config.brokerhome import BrokerHome

# The broker's schema message is long (it lists every allowed element): a finding keeps its start.
MAX_MESSAGE = 400
_SAX_ELEMENT = re.compile(r"""'\{"[^"]*":([\w.-]+)\}'|element '([\w.-]+)'""")


@dataclass(frozen=True, slots=True)
class LoaderVerdict:
    starts: bool
    stage: str = ""  # parse, properties, routers, start
    router: str = ""
    error: str = ""  # the exception's class
    message: str = ""
    routers: tuple[str, ...] = ()
    status: str = ""  # ConfigurationImpl.getStatus(): the properties' errors


def _unescape(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}.get(text[i + 1], text[i + 1]))
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def parse_output(text: str) -> LoaderVerdict:
    routers: list[str] = []
    status = ""
    for line in text.splitlines():
        kind, _, rest = line.partition("\t")
        if kind == "ROUTER":
            routers.append(_unescape(rest))
        elif kind == "STATUS":
            status = _unescape(rest)
        elif kind == "VERDICT":
            parts = rest.split("\t")
            if parts[0] == "starts":
                return LoaderVerdict(True, routers=tuple(routers), status=status)
            if parts[0] == "refuses" and len(parts) >= 5:
                return LoaderVerdict(False, parts[1], _unescape(parts[2]), parts[3], _unescape("\t".join(parts[4:])),
                                     tuple(routers), status)
    raise UsageError("the broker's loader gave no verdict (arouter's driver and this installation do not agree "
                     "on their protocol)")


def run_batch(home: BrokerHome, items: Sequence[tuple[str, str]], defines: Mapping[str, str] | None = None,
              *, timeout: float | None = None) -> list[LoaderVerdict]:
    """The loader's verdict on each (broker.xml, properties list) in one JVM."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".list", delete=False) as fh:
        for xml, props in items:
            if "\t" in xml or "\n" in xml or "\t" in props or "\n" in props:
                raise UsageError(f"{xml!r}: a path with a tab or line break cannot go to the broker's loader")
            fh.write(f"{Path(xml).resolve()}\t{props}\n")
    try:
        text = run_driver(home, ["batch", fh.name], java_properties(dict(defines or {})), timeout=timeout)
    finally:
        os.unlink(fh.name)
    chunks = text.split("FILE\t")[1:]
    if len(chunks) != len(items):
        raise UsageError(f"the broker's loader judged {len(chunks)} of {len(items)} files")
    return [parse_output(chunk) for chunk in chunks]


def properties_spec(xml_path: str, paths: Sequence[str], defines: Mapping[str, str]) -> str:
    """The ``broker.properties`` list the broker would read, as arouter reads it: the system property,
    else ``--properties``, else broker.properties beside broker.xml; "" for none."""
    if "broker.properties" in defines:
        return ""  # the driver gets it as a system property, as the broker does
    if paths:
        return ",".join(paths)
    beside = Path(xml_path).parent / "broker.properties"
    return os.path.relpath(beside) if beside.is_file() else ""


def run_loader(home: BrokerHome, xml_path: str, defines: Mapping[str, str], properties: str = "") -> LoaderVerdict:
    """The installation's own verdict on ``xml_path`` (``defines``: the ``-D`` values for ``${}``)."""
    args = ["load", str(Path(xml_path).resolve())]
    if properties:
        args.append(properties)
    return parse_output(run_driver(home, args, java_properties(dict(defines))))


def _short(message: str) -> str:
    message = message.replace('"urn:activemq:core":', "")
    cut = message.find(" One of '{")
    if cut >= 0:  # Xerces lists every element allowed there
        message = message[:cut]
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "..."


def judge_findings(verdict: LoaderVerdict, home: BrokerHome, path: str, arouter_findings: Sequence[Diagnostic],
                   locate: object = None) -> list[Diagnostic]:
    """AR004 for the broker's refusal and AR005 where arouter's verdict differs. ``locate``: a callable
    (element local name, kind, name) -> (file, line, column) or None."""
    from ..rules import all_rules

    metas = all_rules()
    ours = [d for d in arouter_findings if d.broker == REFUSES]
    where = (path, 1, 1)
    out: list[Diagnostic] = []
    who = f"Artemis {home.version}'s own loader"
    if not verdict.starts:
        m = _SAX_ELEMENT.search(verdict.message)
        element = next((g for g in m.groups() if g), None) if m else None
        kind = "divert" if verdict.stage == "diverts" else "connection-router"
        if callable(locate):
            found = locate(element, kind, verdict.router or None)
            if found is not None:
                where = found
        router = f" ({kind.replace('-', ' ')} {verdict.router})" if verdict.router else ""
        meta = metas["AR004"]
        out.append(Diagnostic("AR004", meta.severity, meta.category,
                              f"{who} refuses this file at {verdict.stage}{router}: {verdict.error}: "
                              f"{_short(verdict.message)}", *where, None, None, REFUSES))
    if bool(ours) == (not verdict.starts):
        return out
    meta = metas["AR005"]
    if ours:
        first = ours[0]
        text = (f"arouter says the broker refuses to start ({first.rule} at {first.file}:{first.line}:{first.column}) "
                f"but {who} deploys this file: a bug in arouter, please report it with this file")
        where = (first.file, first.line, first.column)
        broker = DEPLOYS
    else:
        text = (f"arouter found nothing that stops the broker but {who} refuses this file: a bug in arouter, "
                "please report it with this file")
        broker = REFUSES
    out.append(Diagnostic("AR005", meta.severity, meta.category, text, *where, None, None, broker))
    return out


def judge_report(report: object, path: str, home: BrokerHome, defines: Mapping[str, str],
                 properties_paths: Sequence[str], environ: Mapping[str, str] | None = None) -> LoaderVerdict:
    """Run the broker's loader on ``path`` and add its findings to ``report`` (a linting.FileReport)."""
    from ..linting import ordered

    verdict = run_loader(home, path, defines, properties_spec(path, properties_paths, defines))
    found = judge_findings(verdict, home, report.path, report.raw,  # type: ignore[attr-defined]
                           _locator(path, defines, environ))
    if found:
        found = _redacted(found, path, defines, environ)
        report.raw = ordered([*report.raw, *found])  # type: ignore[attr-defined]
        report.diagnostics = ordered([*report.diagnostics, *found])  # type: ignore[attr-defined]
    return verdict


def _redacted(found: list[Diagnostic], path: str, defines: Mapping[str, str],
              environ: Mapping[str, str] | None) -> list[Diagnostic]:
    """The broker's messages with what validate never shows hidden: values from the environment, -D and
    included files, and passwords (the exception text may quote them)."""
    from ..config import LoadOptions, load_document
    from ..errors import ArouterError
    from ..redact import collect

    try:
        doc = load_document(path, LoadOptions(dict(defines), environ))
    except ArouterError:
        return found
    secrets = collect(doc.root, doc.replacements, doc.locator.text_includes, doc.locator.file_of,
                      doc.locator.main_file, show_values=False, has_includes=doc.locator.has_includes,
                      main_text=doc.locator.verbatim_text)
    return list(secrets.redact(found))


def _locator(path: str, defines: Mapping[str, str], environ: Mapping[str, str] | None) -> object:
    """(element name, kind, name) -> (file, line, column) of the first such element, else of the named
    router or divert (``kind``), or None."""
    def locate(element: str | None, kind: str, name: str | None) -> tuple[str, int, int] | None:
        from ..config import LoadOptions, load_document
        from ..errors import ArouterError

        try:
            doc = load_document(path, LoadOptions(dict(defines), environ))
        except ArouterError:
            return None
        for el in doc.core.iter():
            if not isinstance(el.tag, str):
                continue
            local = el.tag.rpartition("}")[2]
            if (element is not None and local == element) or \
                    (element is None and name is not None and local == kind and el.get("name") == name):
                pos = doc.locator.locate(el)
                return pos.file, pos.line, pos.column
        return None

    return locate
