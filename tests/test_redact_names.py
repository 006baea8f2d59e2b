"""The secrets of a document found from its text (``collect(main_text=...)``) are those of the walk
over every element: the same values, labels and order."""

from __future__ import annotations

import random

import pytest

from artemis_routing_cli.config import LoadOptions, load_document
from artemis_routing_cli.redact import collect

HEAD = '<configuration xmlns="urn:activemq" xmlns:p="urn:other"><core xmlns="urn:activemq:core">'
TAIL = "</core></configuration>"

PIECES = (
    "<password>secret-one</password>",
    "<Password>Secret-Two</Password>",
    "<p:xPassWordy>prefixed-three</p:xPassWordy>",
    "<cluster-password>cluster-four</cluster-password>",
    "<passwordpassword>twice-five</passwordpassword>",
    "<password/>",
    "<password\n>spaced-six</password\n>",
    "<note>a password in text, not a name</note>",
    "<!-- <password>in-a-comment</password> -->",
    '<item key="password" value="not-a-name"/>',
    '<item passwordKey="attribute-seven"/>',
    '<item p:PASSWORD_x = "attribute-eight"/>',
    "<name>plain</name>",
    "<connector name=\"c\">tcp://h:1?password=url-nine</connector>",
    "<nested><mask-password>true</mask-password><inner><password>deep-ten</password></inner></nested>",
    "<password>secret-one</password>",  # the same value again: added once
    "<name>caf\u00e9</name>",
    "<!-- <password>in-a-comment-twelve</password> -->",
    "<password>cr\r\nlf-thirteen</password>",  # a text that is not ASCII: the counts are taken on its bytes
    "<\u00e9-password>accented-eleven</\u00e9-password>",
)


def _values(path: str, fast: bool) -> list[tuple[str, str]]:
    doc = load_document(path, LoadOptions({}, {}, None))
    secrets = collect(doc.root, doc.replacements, doc.locator.text_includes, doc.locator.file_of,
                      doc.locator.main_file, show_values=False, has_includes=doc.locator.has_includes,
                      main_text=doc.locator.verbatim_text if fast else None)
    return list(secrets.values.items())


@pytest.mark.parametrize("seed", range(40))
def test_found_from_the_text_as_by_the_walk(tmp_path, seed: int) -> None:
    rng = random.Random(seed)
    body = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 12)))
    path = tmp_path / "broker.xml"
    path.write_text(HEAD + body + TAIL, encoding="utf-8")
    assert _values(str(path), True) == _values(str(path), False)


def test_every_kind_of_name_and_attribute(tmp_path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(HEAD + "".join(p for p in PIECES if "url-nine" not in p) + TAIL, encoding="utf-8")
    found = dict(_values(str(path), True))
    for secret in ("secret-one", "Secret-Two", "prefixed-three", "cluster-four", "twice-five", "spaced-six",
                   "attribute-seven", "attribute-eight", "deep-ten"):
        assert found.get(secret), secret
    assert "in-a-comment" not in found and "not-a-name" not in found
    assert _values(str(path), True) == _values(str(path), False)


@pytest.mark.parametrize("body", [
    "<password>a&#98;c</password>",  # a character reference
    "<password><![CDATA[x]]>y</password>",  # CDATA joined to the text around it
    "<password>${UNSET:dflt}</password>",  # substituted
])
def test_text_that_is_not_the_tree_is_not_used(tmp_path, body: str) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(HEAD + body + TAIL, encoding="utf-8")
    doc = load_document(str(path), LoadOptions({}, {}, None))
    if "${" in body:
        assert doc.locator.verbatim_text is not None  # substituted before parsing: the text is the tree's
    else:
        assert doc.locator.verbatim_text is None
    assert _values(str(path), True) == _values(str(path), False)


def test_json_forms_of_a_secret_are_json_dumps_without_quotes() -> None:
    """The JSON forms a secret is also hidden in are what json.dumps writes (ASCII or not), for any
    text: quotes, backslashes, controls, non-ASCII, lone surrogates, and str subclasses."""
    import json

    from lxml import etree

    from artemis_routing_cli.redact import _json_forms

    rng = random.Random(7)
    alphabet = ['"', "\\", "/", "\x00", "\x1f", "\x7f", "a", " ", "é", "\u2028", "😀", "\ud800", "\udfff", "\n"]
    texts = ["", "plain"] + ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    smart = etree.fromstring('<a p="s\u00e9cret&quot;"/>').xpath("@p")[0]  # lxml's str subclass
    for text in [*texts, smart]:
        assert _json_forms(text) == (json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]), text


@pytest.mark.parametrize("seed", range(30))
def test_plain_password_tags_are_counted_not_read_one_by_one(tmp_path, seed: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose every "password" is a ``<password>`` or ``</password>`` tag written just so is
    answered from counts (no look at each one), with the secrets the walk over every element finds."""
    from artemis_routing_cli import redact

    rng = random.Random(seed)
    plain = ["<password>p-one</password>", "<name>x</name>", "<!-- no secret -->",
             "<nested><password>deep-two</password></nested>", "<password></password>"]
    body = "".join(rng.choice(plain) for _ in range(rng.randint(0, 10)))
    path = tmp_path / "broker.xml"
    path.write_text(HEAD + body + TAIL, encoding="utf-8")
    walked = _values(str(path), False)

    class Unread:
        def match(self, *args: object) -> None:
            raise AssertionError("each 'password' was looked at")

        fullmatch = match

    monkeypatch.setattr(redact, "_NAME_REST", Unread())
    assert _values(str(path), True) == walked
    names = ["password"] if "<password>" in body else []
    assert redact._password_names(HEAD + body + TAIL) == (names, False, body.count("<password>"))


def test_a_secret_is_hidden_in_every_form_it_may_be_printed_in() -> None:
    """``Secrets.add`` keeps each form a value may be printed in (one line, JSON with and without
    ASCII escapes, a repr), the first label for each, whatever the value: plain printable ASCII
    (one form) or not (quotes, backslashes, controls, line ends, non-ASCII)."""
    from artemis_routing_cli.redact import Secrets, _json_forms, _one_line

    rng = random.Random(11)
    alphabet = ["a", "Z", "9", " ", "!", "#", "~", "[", "]", '"', "'", "\\", "\n", "\r", "\t", "\x7f", "é", "\u2028"]
    added = Secrets()
    expected: dict[str, str] = {}
    for n in range(4000):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        label = f"<label {n % 7}>"
        added.add(value, label)
        stripped = value.strip()
        for form in (_one_line(stripped), *_json_forms(stripped), repr(stripped)[1:-1]):
            if form and form not in expected:
                expected[form] = label
    assert list(added.values.items()) == list(expected.items())


PLAIN_TAGS = (
    "<password>p-one</password>", "<password></password>", "<password>  spaced  </password>",
    "<name>x</name>", "<!-- a comment -->", "<?pi no secret?>", "<nested><password>deep-two</password></nested>",
    "<password>a>b</password>",
)
ODD_TAGS = (
    "<!-- <password>in-a-comment</password> -->",  # no element: not a secret
    "<?pi <password>in-a-pi</password>?>",
    "<password>cr\r\nlf</password>",  # libxml2 reads CRLF as LF
    "<password>a&amp;b</password>",  # a reference
    "<password>x<!-- c -->y</password>",  # the element's text ends at the comment
    "<password>x<inner/>y</password>",
)


@pytest.mark.parametrize("seed", range(60))
def test_password_texts_read_from_the_text_are_the_elements_texts(tmp_path, seed: int) -> None:
    """Where every "password" is a ``<password>`` tag written just so, the secrets are read from the
    text between the tags; what is no element text (comments, processing instructions) or not the
    text as written (CRLF, references, children) sends the file to lxml's walk: the same secrets,
    labels and order either way."""
    from artemis_routing_cli import redact

    rng = random.Random(seed)
    pieces = PLAIN_TAGS + (ODD_TAGS if seed % 2 else ())
    body = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))
    text = '<?xml version="1.0"?>\n' + HEAD + body + TAIL
    path = tmp_path / "broker.xml"
    path.write_bytes(text.encode("utf-8"))
    assert _values(str(path), True) == _values(str(path), False)
    doc = load_document(str(path), LoadOptions({}, {}, None))
    if seed % 2 == 0 and doc.locator.verbatim_text is not None and "<password>" in body:
        # only plain tags: the texts come from the text, not from the tree
        found = redact._password_names(doc.locator.verbatim_text)
        assert found is not None
        texts = redact._plain_password_texts(doc.locator.verbatim_text, found[2])
        assert texts == [el.text for el in doc.root.iter("{*}password")]
