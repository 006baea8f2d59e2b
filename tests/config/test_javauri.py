"""java.net.URI, URLDecoder and Java's UTF-8 decoding, against answers recorded from real JVMs.

``data/java_uri_hosts.tsv`` holds what ``new URI(url)`` returned on OpenJDK 17 and Temurin 25 for
a table of hosts and ports (the hosts Java refuses fall back to a registry authority: host null,
port -1). When a JDK is installed the same table is also replayed live.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from artemis_routing_cli.config.javauri import (
    JavaUriError,
    UrlDecodeError,
    parse_java_uri,
    parse_query,
    server_authority_problem,
    uri_decode,
    url_decode,
)
from artemis_routing_cli.javastr import java_utf8_decode
from tests.javacache import compiled

DATA = Path(__file__).parent / "data"


def _rows() -> list[list[str]]:
    lines = (DATA / "java_uri_hosts.tsv").read_text(encoding="utf-8").split("\n")
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


ROWS = _rows()


def _ours(url: str) -> list[str]:
    try:
        uri = parse_java_uri(url)
    except JavaUriError as err:
        return [url, "ERR", err.reason]
    return [url, "OK", uri.host if uri.host is not None else "<null>", str(uri.port),
            uri.raw_authority if uri.raw_authority is not None else "<null>"]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_host_and_port_as_the_jvm_recorded_them(row: list[str]) -> None:
    assert _ours(row[0]) == row


def test_the_table_covers_the_traps() -> None:
    answers = {r[0]: r for r in ROWS}
    for url in ("tcp://my_broker:61616", "tcp://-bad:61616", "tcp://node-1.10:61616", "tcp://10.0.0.300:61616",
                "tcp://broker1:6161x", "tcp://kafka_1:61616"):
        assert answers[url][1:4] == ["OK", "<null>", "-1"], url  # a registry authority, no exception
    assert answers["tcp://[::1]:61616"][2] == "[::1]"  # IPv6 keeps its brackets
    assert answers["tcp://broker1:99999"][3] == "99999"  # no range check in java.net.URI
    assert answers["tcp://[fe80:::1]:61616"][1] == "ERR"  # a broken IPv6 literal is a syntax error
    assert answers["tcp://h|x:61616"][1] == "ERR"


def test_why_a_host_is_refused() -> None:
    assert "'_' is not allowed" in (server_authority_problem("my_broker:61616") or "")
    assert "starts with a digit" in (server_authority_problem("node-1.10:1") or "")
    assert "not an IPv4 address" in (server_authority_problem("10.0.0.300:1") or "")
    assert "not a number" in (server_authority_problem("broker1:6161x") or "")
    assert server_authority_problem("broker1:61616") is None


@pytest.mark.skipif(shutil.which("java") is None, reason="no JVM here")
def test_the_table_replays_on_this_jvm(tmp_path: Path) -> None:
    source = tmp_path / "UriHosts.java"
    source.write_text("""
import java.io.*; import java.net.*; import java.nio.charset.StandardCharsets;
public class UriHosts { public static void main(String[] a) throws Exception {
  BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
  PrintStream out = new PrintStream(System.out, true, "UTF-8"); String line;
  while ((line = r.readLine()) != null) {
    try { URI u = new URI(line); out.println(line + "\\tOK\\t" + (u.getHost() == null ? "<null>" : u.getHost()) + "\\t"
      + u.getPort() + "\\t" + (u.getRawAuthority() == null ? "<null>" : u.getRawAuthority())); }
    catch (URISyntaxException e) { out.println(line + "\\tERR\\t" + e.getReason()); } } } }
""", encoding="utf-8")
    javac = shutil.which("javac")
    if javac is None:
        pytest.skip("no javac here")
    classes = compiled(source, options=())
    urls = "".join(r[0] + "\n" for r in ROWS)
    out = subprocess.run(["java", "-cp", str(classes), "UriHosts"], input=urls, capture_output=True, text=True,
                         encoding="utf-8", check=True).stdout
    assert [line.split("\t") for line in out.split("\n") if line] == ROWS


@pytest.mark.parametrize(("raw", "decoded"), [
    ("x=%2526", "x=%26"),  # decoded once here, once more by URLDecoder
    ("x=%C3%A9", "x=\u00e9"),
    ("x=%FF", "x=\ufffd"),
    ("x=%ED%A0%80", "x=\ufffd"),  # an encoded surrogate is one U+FFFD for Java (three for Python's codec)
    ("x=[a%41]", "x=[aA]"),  # getQuery() decodes inside brackets too
])
def test_get_query_decoding(raw: str, decoded: str) -> None:
    assert uri_decode(raw) == decoded


def test_url_decoder() -> None:
    assert url_decode("a+b") == "a b"
    assert url_decode("%26") == "&"
    assert url_decode("%+F") == "\x0f"  # Integer.parseInt("+F", 16) is 15
    for bad in ("%", "%4", "%zz", "%-1"):
        with pytest.raises(UrlDecodeError):
            url_decode(bad)


def test_query_split_like_uri_schema() -> None:
    uri = parse_java_uri("tcp://h:1?x=%2526&y=%26z&w=a+b&flag&&a=1&a=2")
    query = parse_query(uri.query)
    # getQuery() already turned %26 into "&", so "y=" and "z" split apart; %2526 survives as "&"
    assert query == {"x": "&", "y": "", "z": None, "w": "a b", "flag": None, "a": "2"}
    assert list(query) == ["x", "y", "z", "w", "flag", "a"]  # a repeated key keeps its first place


def test_the_fragment_ends_the_query() -> None:
    uri = parse_java_uri("tcp://h:1?password=a#b")
    assert (uri.query, uri.fragment) == ("password=a", "b")


@given(st.binary(max_size=12))
def test_java_utf8_decode_agrees_with_python_on_valid_text(data: bytes) -> None:
    try:
        expected = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert java_utf8_decode(data) == expected


@pytest.mark.parametrize(("data", "text"), [
    (b"\xed\xa0\x80", "\ufffd"),
    (b"\xe2\x82", "\ufffd"),
    (b"\xf0\x9f\x98", "\ufffd"),
    (b"\xc0\x80", "\ufffd\ufffd"),
    (b"\xf4\x90\x80\x80", "\ufffd\ufffd\ufffd\ufffd"),
    (b"a\xffb", "a\ufffdb"),
])
def test_java_utf8_decode_replacement_counts(data: bytes, text: str) -> None:
    """Recorded with ``new String(bytes, UTF_8)`` on OpenJDK 17."""
    assert java_utf8_decode(data) == text


@pytest.mark.parametrize("seed", range(20))
def test_a_dotted_quad_is_taken_whole_exactly_when_each_part_is_a_byte(seed: int) -> None:
    """java.net.URI takes ``a.b.c.d`` as an IPv4 host when each part is at most 255 (leading zeros
    allowed); the check compares the parts as text, and looks for a quad before a hostname."""
    import random

    from artemis_routing_cli.config.javauri import _HOSTNAME, _QUAD, _plain_host

    rng = random.Random(seed)
    for _ in range(200):
        parts = ["0" * rng.choice((0, 0, 1, 5, 45)) + str(rng.choice((0, 9, 99, 199, 249, 255, 256, 299, 300,
                                                                      999, 1000, rng.randint(0, 9999))))
                 for _ in range(4)]
        host = ".".join(parts)
        assert _plain_host(host) == all(int(part) <= 255 for part in parts), host
        # any short text: a hostname by the grammar, else a quad of bytes (the quad is looked at first)
        text = "".join(rng.choice("0129a.-Z") for _ in range(rng.randint(0, 12)))
        quad = _QUAD.fullmatch(text)
        assert _plain_host(text) == (_HOSTNAME.fullmatch(text) is not None or quad is not None and all(
            int(part) <= 255 for part in quad.groups())), text
