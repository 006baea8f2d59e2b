"""Loading (AR706, AR707): where the broker reads broker.xml differently from every other XML tool.

The broker reads the file through a `java.io.Reader` in the JVM's default charset (UTF-8 on
JDK 18 and later, the locale's charset on JDK 17) and hands the text to the XML parser without a
file name. So the parser never sees the bytes (a byte-order mark is text before the prolog, the
declaration's `encoding=` is ignored) and has no base to resolve a relative XInclude `href`
against but the broker's working directory.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..config.positions import Pos
from ..diagnostics import DEPLOYS, REFUSES, Diagnostic, RuleMeta, Severity
from .base import Context

_UTF8_NAMES = {"utf-8", "utf8"}

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR706",
        name="xinclude-relative-href",
        severity=Severity.WARNING,
        category="semantics",
        summary="A relative XInclude `href` in broker.xml: the broker resolves it against its working directory.",
        doc="""\
The broker parses broker.xml from a string, without its file name, so Xerces resolves a
relative `href` against the current working directory of the broker process, not against the
folder of broker.xml (`etc/`). The `artemis` start script restores the directory it was started
from, so `bin/artemis run` from the instance folder looks for `amqp.xml` there, not in
`etc/`. arouter reads the file next to broker.xml (what is meant) and says so. Write an
absolute path, or one built from `${artemis.instance}`: `${artemis.instance}/etc/amqp.xml`.""",
        fail="""<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="arouter-included.xml">
  <xi:fallback/>
</xi:include>""",
        ok="""<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/nonexistent/arouter-included.xml">
  <xi:fallback/>
</xi:include>""",
    ),
    RuleMeta(
        id="AR707",
        name="file-encoding",
        severity=Severity.ERROR,
        category="semantics",
        broker=REFUSES,
        summary="broker.xml starts with a byte-order mark (the broker does not start), declares an ignored encoding "
                "or holds bytes that are not UTF-8 (the broker reads U+FFFD).",
        doc="""\
The broker decodes the file itself, in the JVM's default charset, and passes text to the XML
parser. A byte-order mark (which some Windows editors write) becomes a character before
`<?xml`: "Content is not allowed in prolog", the broker does not start (error). An `encoding=`
other than UTF-8 in the XML declaration is ignored (warning): on JDK 18+ the file is read as
UTF-8 and every non-ASCII byte of, say, an ISO-8859-1 file becomes U+FFFD. Bytes that are not
valid UTF-8 in a file read as UTF-8 (an emoji written as two encoded surrogates, `ED A0 BD ED B8 80`,
as CESU-8 and some generators write it) are read by the broker as U+FFFD, one for each malformed
sequence as Java's decoder counts them, and it deploys with that text: a key-filter `[😀-🙏]` so
written becomes `[\ufffd\ufffd-\ufffd\ufffd]` (error, `broker: deploys`; arouter reads the file
as the broker does and every command says so). The same holds for a broker properties file in the
JSON form, which the broker reads through a `Reader` as well. Save broker.xml as UTF-8 without BOM and declare
`encoding="UTF-8"`. (The examples are whole files.)""",
        fail="""<?xml version="1.0" encoding="ISO-8859-1"?>
<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <name>broker-\u00e9</name>
  </core>
</configuration>""",
        ok="""<?xml version="1.0" encoding="UTF-8"?>
<configuration xmlns="urn:activemq">
  <core xmlns="urn:activemq:core">
    <name>broker-\u00e9</name>
  </core>
</configuration>""",
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    for inc in config.relative_includes:
        yield ctx.report("AR706", inc.pos,
                         f"<xi:include href=\"{inc.href}\"> is relative: the broker resolves it against its working "
                         f"directory, not broker.xml's folder (arouter read {inc.resolved})",
                         hint="use an absolute path, e.g. ${artemis.instance}/etc/" + inc.href.rsplit("/", 1)[-1])
    encoding = config.encoding
    if encoding is None:
        return
    top = Pos(config.path, 1, 1)
    yield from _replaced(ctx, config.path, encoding.replaced)
    if encoding.bom is not None:
        yield ctx.report("AR707", top,
                         f"the file starts with a {encoding.bom} byte-order mark: the broker reads it as a character "
                         "before the XML declaration ('Content is not allowed in prolog') and does not start",
                         hint="save the file as UTF-8 without BOM")
    elif encoding.declared is not None and encoding.declared.lower() not in _UTF8_NAMES:
        effect = ("the file is plain ASCII, so it reads the same today" if encoding.ascii_only
                  else "its non-ASCII bytes are read as the JVM's default charset (UTF-8 on JDK 18+), not as "
                       f"{encoding.declared}")
        yield ctx.report("AR707", top,
                         f"encoding=\"{encoding.declared}\" is ignored by the broker, which decodes the file itself: "
                         f"{effect}", severity=Severity.WARNING, hint="save as UTF-8 and declare encoding=\"UTF-8\"",
                         broker=DEPLOYS)


def _replaced(ctx: Context, path: str, replaced: tuple[tuple[int, int], ...]) -> Iterator[Diagnostic]:
    """One finding per line where the broker's reader put U+FFFD for bytes that are not UTF-8."""
    lines: dict[int, list[int]] = {}
    for line, column in replaced:
        lines.setdefault(line, []).append(column)
    for line, columns in lines.items():
        many = f" ({len(columns)} U+FFFD on this line)" if len(columns) > 1 else ""
        yield ctx.report("AR707", Pos(path, line, columns[0]),
                         "bytes that are not valid UTF-8: the broker reads U+FFFD here (its reader decodes "
                         f"UTF-8 on JDK 18+, one U+FFFD per malformed sequence) and deploys with that text{many}; "
                         "arouter reads it as the broker does",
                         hint="save the file as UTF-8 (an emoji is one 4-byte sequence, not two encoded "
                              "surrogates)", broker=DEPLOYS)
