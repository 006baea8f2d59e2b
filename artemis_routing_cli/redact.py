"""Values that must not reach a report: secrets, never configuration.

validate runs in CI on pull requests, whose logs anyone may read. Names and routing settings are
configuration and always shown, whichever file or ``${}`` they came from. What is hidden: the value
of a ``${NAME}`` whose name says secret (:func:`secret_name`: ``*PASSWORD*``, ``*SECRET*``,
``*TOKEN*``, ``*KEY*``...) - replaced by where it came from (``<value of ${DB_PASSWORD} from the
environment>``) - and the text of an included file that is not broker XML (a ``parse="text"``
include, or XML in no ``urn:activemq`` namespace: ``<text from FILE>``), unless the user asks for
values (``--show-values``). Passwords (elements, attributes and URL parameters whose name holds
"password") are hidden always.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from lxml import etree

from .diagnostics import Diagnostic

# Quoted values in a message: 'text' or "text" (a long quote ends with "...").
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_SINGLE_QUOTED = re.compile(r"'([^'\n]*)'")
_DOUBLE_QUOTED = re.compile(r"(?!)()|\"([^\"\n]*)\"")  # group 2, as in _QUOTED
_URL_PASSWORD = re.compile(r"(?i)[a-z]*password=([^;&\s<>\"']+)")
# Printable ASCII but quotes and backslash: JSON, a repr and one line print it unchanged.
_PLAIN_SECRET = re.compile(r"[ !#-&(-\[\]-~]+")
# A <password> element's text as written between its tags (see _plain_password_texts); markup that
# is no element; the XML declaration (a processing instruction in form only).
_PASSWORD_TEXT = re.compile(r"<password>([^<&\r]*)</password>")
_PI = re.compile(r"<\?")  # (two literals: the regex engine finds them quicker than "in" or a class)
_COMMENT = re.compile("<!")
_DECLARATION = re.compile(r"\s*<\?xml\s[^>]*\?>")
_URL_PASSWORD_START = re.compile("assword=")  # a literal: the regex engine's search for it is quick
# Secrets shorter than this are hidden only where a quote is exactly them ('1', 'NIO' are common).
_MIN_ANYWHERE = 6
# Secrets looked for inside every message (the others only as whole quotes): bounds the work.
_MAX_SCANNED = 2_000
# A quote cut short ("...") is hidden when it is the start of a secret at least this long.
_MIN_PREFIX = 8
# The rest of a name after "password" (bytes), and what follows an attribute's name.
_NAME_REST = re.compile(rb"[^\s<>/!?=\"']*")
_EQUALS = re.compile(rb"\s*=")


# Words that make a ${NAME}'s value a secret (matched in the name, any case): its value is hidden.
SECRET_NAME_WORDS = ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "KEY", "CREDENTIAL", "PRIVATE")
# The namespaces of broker XML (urn:activemq, urn:activemq:core, ...): an included element in them is
# configuration, shown; one in no such namespace is an included file that is not broker XML, hidden.
_BROKER_NS = "{urn:activemq"


def secret_name(name: str) -> bool:
    """Whether a ``${NAME}`` says its value is secret (``*PASSWORD*``, ``*SECRET*``, ``*TOKEN*``, ``*KEY*``...)."""
    upper = name.upper()
    return any(word in upper for word in SECRET_NAME_WORDS)


def _plain(name: str) -> str:
    """A file name fit for a label inside a JSON string or a quote."""
    return re.sub(r"[\"'\\\x00-\x1f<>]", "?", name)


def _one_line(text: str) -> str:
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\r")


def _json_forms(value: str) -> tuple[str, str]:
    """``json.dumps(value)`` and ``json.dumps(value, ensure_ascii=False)`` without their quotes: for a
    str, json's own string encoders (C) called directly, without an encoder object made per call."""
    import json  # (here: a plain secret, the usual one, never needs it)
    from json.encoder import encode_basestring, encode_basestring_ascii

    if type(value) is not str:
        return json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]
    return encode_basestring_ascii(value)[1:-1], encode_basestring(value)[1:-1]


@dataclass
class Secrets:
    """What must not be printed, each with the label shown in its place."""

    values: dict[str, str] = field(default_factory=dict)  # value (as printed on one line) -> label
    keep_quotes: bool = False  # a quoted secret keeps its quotes around the label (JSON stays JSON)
    _prefilter: tuple[int, tuple[str, ...]] | None = None
    _long_cache: tuple[dict[str, str], list[tuple[str, str]]] | None = None
    _added: set[tuple[str, str]] = field(default_factory=set, repr=False, compare=False)
    _byte_forms: tuple[int, tuple[bytes, ...]] | None = None

    def add(self, value: str | None, label: str) -> None:
        """``value`` is shown as ``label``; so are its forms in JSON (escaped, ASCII or not) and in a
        Python repr (``'a\\\\d'``), where it is printed that way."""
        if value is None:
            return
        pair = (value, label)
        if pair in self._added:
            return  # its forms are there already (the same password on every router: added once)
        self._added.add(pair)
        value = value.strip()
        values = self.values
        if _PLAIN_SECRET.fullmatch(value) is not None:  # every form below is the text itself
            if value not in values:
                values[value] = label
            return
        for form in (_one_line(value), *_json_forms(value), repr(value)[1:-1]):
            if form and form not in values:
                values[form] = label

    def _long(self) -> list[tuple[str, str]]:
        """Secrets long enough to be looked for inside text (the longest first, at most a few thousand)."""
        if self._long_cache is None or len(self._long_cache[0]) != len(self.values):
            found = sorted(((s, lb) for s, lb in self.values.items() if len(s) >= _MIN_ANYWHERE),
                           key=lambda item: -len(item[0]))[:_MAX_SCANNED]
            self._long_cache = (dict(self.values), found)
        return self._long_cache[1]

    def _label_for(self, quoted: str) -> str | None:
        label = self.values.get(quoted)
        if label is not None or self.keep_quotes:  # outputs: the long ones are replaced where they are
            return label
        cut = quoted[:-3] if quoted.endswith("...") else quoted[:-1] if quoted.endswith("\u2026") else None
        for secret, label in self._long():
            if cut is not None and len(cut) >= _MIN_PREFIX and secret.startswith(cut):
                return label
            if len(secret) >= _MIN_ANYWHERE and secret in quoted:
                return label
        return None

    def redact_bytes(self, data: bytes) -> bytes:
        """:meth:`redact_text` of UTF-8 text given as its bytes (bytes that are not UTF-8 kept as they are).
        Output text with none of the secrets anywhere is given back as it is, unread."""
        if not self.values:
            return data
        if self.keep_quotes:
            if self._byte_forms is None or self._byte_forms[0] != len(self.values):
                self._byte_forms = (len(self.values), tuple(f.encode("utf-8", "surrogatepass") for f in self.values))
            if not any(form in data for form in self._byte_forms[1]):
                return data
        return self.redact_text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def _could_hold(self, text: str) -> bool:
        """False when ``text`` holds none of the secrets anywhere: a line of output costs a substring
        search per secret (C speed), not the quoted-string passes."""
        if self._prefilter is None or self._prefilter[0] != len(self.values):
            self._prefilter = (len(self.values), tuple(self.values))
        return any(form in text for form in self._prefilter[1])

    def redact_text(self, text: str) -> str:
        if not self.values or (self.keep_quotes and not self._could_hold(text)):
            return text

        def one(m: re.Match[str]) -> str:
            quoted = m.group(1) if m.group(1) is not None else m.group(2)
            label = self._label_for(quoted)
            if label is None:
                return m.group(0)
            return m.group(0)[0] + label + m.group(0)[-1] if self.keep_quotes else label

        if self.keep_quotes:  # 'x' inside "..." (an explanation in JSON) is a quote of its own
            text = _DOUBLE_QUOTED.sub(one, _SINGLE_QUOTED.sub(one, text))
        else:
            text = _QUOTED.sub(one, text)
        for secret, label in self._long():
            if secret in text:
                text = text.replace(secret, label)
        return text

    def redact(self, diags: Iterable[Diagnostic]) -> list[Diagnostic]:
        out = []
        done: dict[str, str] = {}  # the same text gives the same answer (many findings say one thing)

        def once(text: str) -> str:
            found = done.get(text)
            if found is None:
                found = done[text] = self.redact_text(text)
            return found

        for d in diags:
            message = once(d.message)
            hint = once(d.hint) if d.hint else d.hint
            out.append(d if message == d.message and hint == d.hint else replace(d, message=message, hint=hint))
        return out


def _password_names(text: str) -> tuple[list[str], bool, int] | None:
    """The local names holding "password" of the elements of a tree parsed from ``text`` alone
    (no character reference, CDATA section or second substitution pass), and whether some
    attribute's name may hold it, and how many ``<password>`` tags there are when every "password"
    is in one of those or their end tags written just so (else -1); None when some element's text
    may hold a URL password: then every element is read.

    A name is written as it is (no reference can make one), and no character but A-Z lower-cases
    to one of "password"'s letters, so the ASCII-lowered bytes show every such name."""
    if _URL_PASSWORD_START.search(text) is not None:  # ("in" reads a large text three times slower)
        return None
    if text.isascii():  # (known without reading the text) the counts need no copy of it as bytes
        total = text.lower().count("password")
        if not total:
            return [], False, 0
        opened = text.count("<password>")
        if opened + text.count("</password>") == total:
            # every one is a <password> tag written just so (the usual file): that name, no attribute
            return (["password"] if opened else []), False, opened
    raw = text.encode("utf-8", "surrogatepass")
    data = raw.lower()  # A-Z only: every byte stays where it was
    total = data.count(b"password")
    if not total:
        return [], False, 0
    opened = raw.count(b"<password>")
    if opened + raw.count(b"</password>") == total:
        return (["password"] if opened else []), False, opened
    names: set[bytes] = set()
    attributes = False
    end = 0
    at = data.find(b"password")
    while at >= 0:
        # the run of name characters holding this "password" ends at ``stop``; the next search
        # starts there, so each byte is looked at a bounded number of times
        rest = _NAME_REST.match(data, at + 8)
        stop = rest.end() if rest is not None else at + 8
        if data[at - 2:at] != b"</":  # an end tag's start tag has the name
            # a start tag's '<' comes right before the run (it comes after the previous run's end)
            start = at - 1 if data[at - 1:at] == b"<" else data.rfind(b"<", end, at)
            if start >= 0 and (start == at - 1 or _NAME_REST.fullmatch(data, start + 1, at) is not None):
                names.add(raw[start + 1:stop])  # as written
            attributes = attributes or _EQUALS.match(data, stop) is not None
        end = stop
        at = data.find(b"password", end)
    locals_ = {name.decode("utf-8", "surrogatepass").rpartition(":")[2] for name in names}
    return sorted(local for local in locals_ if "password" in local.lower()), attributes, -1


def _plain_password_texts(text: str, tags: int) -> list[str | None] | None:
    """``[el.text for el in tree.iter("{*}password")]`` for a tree parsed from ``text`` alone whose
    every "password" is in one of its ``tags`` ``<password>`` tags or their end tags, written just so
    (see :func:`_password_names`), read from the text: each element's text is what lies between its
    two tags when that holds no ``<`` (a child or a comment), no ``&`` (a reference) and no CR (libxml2
    reads CRLF as LF). None when some element's text is not so, or a comment, processing instruction
    or DOCTYPE may hold one of the tags (they are no elements)."""
    if _markup_holds_password(text):
        return None
    found = _PASSWORD_TEXT.findall(text)
    if len(found) != tags:
        return None
    return [value or None for value in found]  # lxml's text of an empty element is None


def _markup_holds_password(text: str) -> bool:
    """Whether a comment or processing instruction of ``text`` (after its XML declaration) may hold
    "password", or ``text`` has some other ``<!`` markup (a DOCTYPE)."""
    declaration = _DECLARATION.match(text)
    for opening, closing, start in ((_PI, "?>", declaration.end() if declaration is not None else 0),
                                    (_COMMENT, "-->", 0)):
        if opening is _COMMENT and "!" not in text:  # (one character: found at memchr's pace)
            continue
        found = opening.search(text, start)
        while found is not None:
            at = found.start()
            if opening is _COMMENT and not text.startswith("<!--", at):
                return True  # a DOCTYPE (a CDATA section makes the text not the tree's: never here)
            end = text.find(closing, at + 2)
            if end < 0 or "password" in text[at:end].lower():
                return True
            found = opening.search(text, end)
    return False


def collect(root: etree._Element, replacements: Iterable[tuple[object, ...]], included_texts: Iterable[tuple[str, str]],
            file_of: object, main_file: str, *, show_values: bool, references: bool = False,
            secrets: Secrets | None = None, has_includes: bool = True, main_text: str | None = None) -> Secrets:
    """The secrets of one loaded document (see the module docstring). ``references``: a substituted
    value is shown as the token written in the file (``${FILTER}``) and an included one as
    ``<from FILE>`` - the shorter form outputs other than findings use. ``main_text``: the text the
    tree was parsed from when it says exactly what the tree does (``Locator.verbatim_text``), which
    lets the password elements be found without a Python object per element."""
    secrets = secrets if secrets is not None else Secrets()
    found = None if has_includes or main_text is None else _password_names(main_text)
    names, attributes, tags = found if found is not None else ([], True, -1)
    texts = _plain_password_texts(main_text, tags) if tags > 0 and main_text is not None else None
    if texts is not None:  # the <password> elements' texts, in document order, read from the text
        for text in texts:
            secrets.add(text, "<password hidden>")
    elif found is None:
        for el in root.iter(etree.Element):
            local = el.tag.rpartition("}")[2]  # the local name, without QName's object per element
            text = el.text
            if "password" in local.lower():
                secrets.add(text, f"<{local} hidden>")
            if text and "assword=" in text:
                for m in _URL_PASSWORD.finditer(text):
                    secrets.add(m.group(1), "<password hidden>")
    elif names:  # the same elements in the same (document) order, found by lxml
        for el in root.iter(*("{*}" + name for name in names)):
            local = el.tag.rpartition("}")[2]
            secrets.add(el.text, f"<{local} hidden>")
    # attributes through one XPath (walking a huge attribute list from Python is slow)
    query = "//@*[contains(translate(local-name(), 'PASSWORD', 'password'), 'password')]"
    for attr in root.xpath(query) if attributes else ():
        secrets.add(str(attr), f"<{attr.attrname} hidden>")
    if show_values:
        return secrets
    for item in replacements:
        rep = item[-1]
        source = getattr(rep, "source", "")
        if source in ("env", "property") and secret_name(getattr(rep, "name", "")):
            where = "the environment" if source == "env" else "a property"
            token = rep.token  # type: ignore[attr-defined]
            secrets.add(rep.value, token if references else f"<value of {token} from {where}>")  # type: ignore[attr-defined]
    for display, text in included_texts:
        label = f"<from {_plain(display)}>" if references else f"<text from {display}>"
        secrets.add(text, label)
        for line in text.splitlines():
            if len(line.strip()) >= _MIN_ANYWHERE:
                secrets.add(line, label)
    if not has_includes:
        return secrets  # every element is from main_file
    for el in root.iter(etree.Element):
        if el.tag.startswith(_BROKER_NS):
            continue  # broker XML from an included file: names and routing settings, shown
        display = file_of(el)  # type: ignore[operator]
        if display != main_file:
            label = f"<from {_plain(display)}>" if references else f"<value from {display}>"
            secrets.add(el.text, label)
            if len(el.attrib) <= 64:
                for value in el.attrib.values():
                    secrets.add(value, label)
    return secrets
