"""SNI_HOST: from the host name a client connects to, to the text the broker's router sees.

The client writes the name into the TLS ``server_name`` extension as bytes; Netty
(``AbstractSniHandler``) reads those bytes one char per byte (``ByteBuf.toString(US_ASCII)``, whose
fast path maps each byte to the char of the same value, i.e. ISO-8859-1) and lower-cases the text
with ``toLowerCase(Locale.US)``. Which bytes arrive depends on the client:

* ``java`` (the default): the broker's own clients and every JSSE client build
  ``new SNIHostName(host)``, i.e. ``IDN.toASCII(host, IDN.USE_STD3_ASCII_RULES)`` (IDNA 2003:
  nameprep, punycode; ``CAFÉ`` goes out as ``xn--caf-dma``, ``straße`` as ``strasse``), and refuse
  a name that rule rejects (an underscore, a space, an emoji, an empty label, a label over 63
  characters) or that ends with a dot;
* ``raw``: a client that sends the name's UTF-8 bytes as they are (each byte then becomes one
  Latin-1 char: ``İstanbul`` is seen as ``ä°stanbul``);
* ``default``: a JSSE client that leaves SNI to the JDK (a client configured by URL: the engine
  or socket is made with the host, no ``SNIHostName`` set): the JDK's ``Utilities.rawToSNIHostName``
  drops one trailing dot and sends ``new SNIHostName(host)`` only for a name with a dot after its
  first character that is no IPv4 or IPv6 literal and that ``SNIHostName`` accepts; otherwise it
  sends no ``server_name`` at all and the broker's key is ``NULL`` (``über``, ``EXAMPLE``, ``café``;
  ``café.example`` still goes as ``xn--caf-dma.example``). tests/routing/test_sni_default.py holds
  it against the ClientHello of a JDK ``SSLEngine``.

The CLI calls these client kinds ``--sni-client explicit|default|raw``; ``explicit`` is the
``java`` encoding here.

:func:`java_idn_to_ascii` is built on Python's stringprep / Unicode 3.2 tables (the tables
``IDN`` uses) with Java's own rules on top: AllowUnassigned off, the STD3 ASCII rules, Java's
label splitting; tests/routing/test_sni_java.py holds it against the JDK.
"""

from __future__ import annotations

import re
import stringprep
from unicodedata import ucd_3_2_0

SNI_ENCODINGS = ("java", "raw", "default")
DEFAULT_SNI_ENCODING = "java"
# IDNA 2003 label separators (RFC 3490 3.1), the ones java.net.IDN splits on
_DOTS = re.compile("[.\u3002\uff0e\uff61]")
MAX_LABEL = 63  # IDN.MAX_LABEL_LENGTH
_ACE = "xn--"
_PROHIBITED = (stringprep.in_table_c12, stringprep.in_table_c22, stringprep.in_table_c3, stringprep.in_table_c4,
               stringprep.in_table_c5, stringprep.in_table_c6, stringprep.in_table_c7, stringprep.in_table_c8,
               stringprep.in_table_c9)


class SniNameError(ValueError):
    """A host name a Java client cannot send as SNI (``IllegalArgumentException`` there)."""


def _code_points(text: str) -> list[str]:
    # Python joins surrogate pairs already; a lone surrogate stays one (prohibited) char
    return list(text)


def _nameprep(label: str) -> str:
    """RFC 3491 nameprep as Java's ``IDN`` runs it: unassigned code points refused."""
    for ch in _code_points(label):
        if stringprep.in_table_a1(ch):
            raise SniNameError(f"unassigned code point U+{ord(ch):04X}")
    mapped = "".join("" if stringprep.in_table_b1(ch) else stringprep.map_table_b2(ch) for ch in label)
    out = ucd_3_2_0.normalize("NFKC", mapped)
    for ch in out:
        if any(table(ch) for table in _PROHIBITED):
            raise SniNameError(f"prohibited character U+{ord(ch):04X}")
        if stringprep.in_table_a1(ch):
            raise SniNameError(f"unassigned code point U+{ord(ch):04X}")
    rand_al = [stringprep.in_table_d1(ch) for ch in out]
    if any(rand_al):
        if any(stringprep.in_table_d2(ch) for ch in out):
            raise SniNameError("right-to-left and left-to-right letters mixed")
        if not (rand_al[0] and rand_al[-1]):
            raise SniNameError("a right-to-left label must start and end right-to-left")
    return out


def _non_ldh(code: int) -> bool:
    return code <= 0x2C or 0x2E <= code <= 0x2F or 0x3A <= code <= 0x40 or 0x5B <= code <= 0x60 or 0x7B <= code <= 0x7F


def _label_to_ascii(label: str) -> str:
    ascii_label = label.isascii()
    dest = label if ascii_label else _nameprep(label)
    if not dest:
        raise SniNameError("empty label")
    if any(_non_ldh(ord(ch)) for ch in dest):
        raise SniNameError("a character other than letters, digits and '-' (STD3 rules)")
    if dest[0] == "-" or dest[-1] == "-":
        raise SniNameError("a label starts or ends with '-'")
    if not ascii_label and not dest.isascii():
        if dest[:4].lower() == _ACE:
            raise SniNameError("a non-ASCII label starts with 'xn--'")
        dest = _ACE + dest.encode("punycode").decode("ascii").lower()
    if len(dest) > MAX_LABEL:
        raise SniNameError(f"a label longer than {MAX_LABEL} characters")
    return dest


def java_idn_to_ascii(host: str) -> str:
    """``IDN.toASCII(host, IDN.USE_STD3_ASCII_RULES)``; SniNameError where Java throws."""
    if len(host) == 1 and _DOTS.fullmatch(host):
        return "."
    out: list[str] = []
    pos = 0
    while pos < len(host):
        m = _DOTS.search(host, pos)
        end = m.start() if m else len(host)
        out.append(_label_to_ascii(host[pos:end]))
        if end != len(host):
            out.append(".")
        pos = end + 1
    return "".join(out)


def java_sni_host_name(host: str) -> str:
    """``new SNIHostName(host).getAsciiName()``: the name a Java client sends."""
    name = java_idn_to_ascii(host)
    if not name:
        raise SniNameError("an empty name")
    if name.endswith("."):
        raise SniNameError("a trailing dot")
    return name


def _ipv4_literal(name: str) -> bool:
    """``IPAddressUtil.isIPv4LiteralAddress`` (JDK 17): ``a.b.c.d``, ``a.b.c``, ``a.b`` or ``a`` in decimal,
    each part within its range."""
    if not name or len(name) > 15:
        return False
    parts = name.split(".")
    if len(parts) > 4 or any(not p or not (p.isascii() and p.isdigit()) for p in parts):
        return False
    *head, last = (int(p) for p in parts)
    return all(v <= 0xFF for v in head) and last < 1 << ((5 - len(parts)) * 8)


def jdk_default_sni(host: str) -> str | None:
    """The name a JSSE client that leaves SNI to the JDK sends for ``host`` (``Utilities.rawToSNIHostName``
    then ``SNIHostName.getAsciiName``), None when it sends none."""
    name = host[:-1] if host.endswith(".") else host
    if name.find(".") <= 0 or name.endswith(".") or _ipv4_literal(name) or ":" in name:
        return None  # (a name with ':' is an IPv6 literal or one SNIHostName refuses: none either way)
    try:
        return java_sni_host_name(name)
    except SniNameError:
        return None


def sni_wire_bytes(host: str, encoding: str = DEFAULT_SNI_ENCODING) -> bytes | None:
    """The bytes of the ``server_name`` a client sends when it connects to ``host`` (None: it sends none)."""
    if encoding == "raw":
        return host.encode("utf-8", "surrogatepass")
    if encoding == "default":
        name = jdk_default_sni(host)
        return None if name is None else name.encode("ascii")
    return java_sni_host_name(host).encode("ascii")


def netty_sni_text(data: bytes) -> str:
    """The SNI name as Netty reads the bytes: one char per byte (before lower-casing)."""
    return data.decode("latin-1")


def sni_as_received(host: str, encoding: str = DEFAULT_SNI_ENCODING) -> str | None:
    """What the broker reads for a client connecting to ``host`` (before lower-casing); None when the
    client sends no name."""
    data = sni_wire_bytes(host, encoding)
    return None if data is None else netty_sni_text(data)
