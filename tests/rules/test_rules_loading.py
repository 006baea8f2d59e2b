"""AR706 (relative XInclude href) and AR707 (byte-order mark, ignored encoding declaration)."""

from __future__ import annotations

from pathlib import Path

from artemis_routing_cli.diagnostics import Severity
from artemis_routing_cli.linting import lint_path

from .helpers import only, wrap

XI = ' xmlns:xi="http://www.w3.org/2001/XInclude"'


def _write(path: Path, text: str, encoding: str = "utf-8", bom: bytes = b"") -> str:
    path.write_bytes(bom + text.encode(encoding))
    return str(path)


def test_ar706_relative_href_in_broker_xml(tmp_path: Path) -> None:
    (tmp_path / "amqp.xml").write_text('<acceptors xmlns="urn:activemq:core"><acceptor name="a">'
                                       'tcp://0.0.0.0:5672</acceptor></acceptors>', encoding="utf-8")
    path = _write(tmp_path / "broker.xml", wrap(f'<xi:include{XI} href="amqp.xml"/>'))
    [d] = only(lint_path(path).diagnostics, "AR706")
    assert d.severity is Severity.WARNING and d.line == 2 and "working directory" in d.message
    assert d.hint is not None and "${artemis.instance}/etc/amqp.xml" in d.hint


def test_ar706_not_for_absolute_or_nested_hrefs(tmp_path: Path) -> None:
    inner = tmp_path / "sub" / "acceptors.xml"
    inner.parent.mkdir()
    inner.write_text(f'<acceptors xmlns="urn:activemq:core"{XI}><xi:include href="one.xml"/></acceptors>',
                     encoding="utf-8")
    (inner.parent / "one.xml").write_text('<acceptor xmlns="urn:activemq:core" name="a">tcp://0.0.0.0:1</acceptor>',
                                          encoding="utf-8")
    path = _write(tmp_path / "broker.xml", wrap(f'<xi:include{XI} href="{inner}"/>'))
    assert only(lint_path(path).diagnostics, "AR706") == []  # nested ones resolve against the included file


def test_ar707_byte_order_mark_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "broker.xml", '<?xml version="1.0" encoding="UTF-8"?>\n' + wrap(""), bom=b"\xef\xbb\xbf")
    report = lint_path(path)
    assert report.fatal is None  # arouter reads on; the broker would not
    [d] = only(report.diagnostics, "AR707")
    assert d.severity is Severity.ERROR and (d.line, d.column) == (1, 1) and "prolog" in d.message


def test_ar707_utf16_with_bom(tmp_path: Path) -> None:
    path = _write(tmp_path / "broker.xml", wrap(""), encoding="utf-16")  # Python writes the BOM itself
    [d] = only(lint_path(path).diagnostics, "AR707")
    assert d.severity is Severity.ERROR and "UTF-16" in d.message


def test_ar707_declared_encoding_is_ignored(tmp_path: Path) -> None:
    text = '<?xml version="1.0" encoding="ISO-8859-1"?>\n' + wrap("<name>caf\u00e9</name>")
    [d] = only(lint_path(_write(tmp_path / "broker.xml", text, "latin-1")).diagnostics, "AR707")
    assert d.severity is Severity.WARNING and "ISO-8859-1" in d.message and "non-ASCII" in d.message
    ascii_only = '<?xml version="1.0" encoding="ISO-8859-1"?>\n' + wrap("")
    [d] = only(lint_path(_write(tmp_path / "b2.xml", ascii_only, "latin-1")).diagnostics, "AR707")
    assert "plain ASCII" in d.message


def test_ar707_quiet_for_utf8(tmp_path: Path) -> None:
    for text in ('<?xml version="1.0" encoding="UTF-8"?>\n' + wrap(""), '<?xml version="1.0"?>\n' + wrap(""),
                 wrap("<name>caf\u00e9</name>"), "<?xml version='1.0' encoding='utf8'?>" + wrap("")):
        assert only(lint_path(_write(tmp_path / "broker.xml", text)).diagnostics, "AR707") == []
