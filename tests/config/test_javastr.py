"""Java String and number parsing, as the broker's parser uses them (answers checked on OpenJDK 17)."""

from __future__ import annotations

import math

import pytest

from artemis_routing_cli.config.values import convert_text_bytes
from artemis_routing_cli.javastr import (
    java_equals_ignore_case,
    java_hashmap_order,
    java_parse_boolean,
    java_parse_double,
    java_parse_int,
    java_parse_long,
    java_trim,
)


@pytest.mark.parametrize(("text", "trimmed"), [
    ("  CLIENT_ID \t\n", "CLIENT_ID"),
    ("\u00a0CLIENT_ID ", "\u00a0CLIENT_ID"),  # U+00A0 is above U+0020: String.trim keeps it
    ("\x01x\x1f", "x"),  # every char up to U+0020 goes, control chars included
    ("\u2003x\u3000", "\u2003x\u3000"),  # so do other Unicode spaces stay
    ("", ""),
])
def test_java_trim(text: str, trimmed: str) -> None:
    assert java_trim(text) == trimmed


@pytest.mark.parametrize(("text", "value"), [
    ("5", 5), ("+5", 5), ("-5", -5), ("\u0663", 3), ("007", 7),
    ("2147483647", 2147483647), ("2147483648", None), (" 5", None), ("5.0", None), ("", None), ("+", None),
    (None, None),
])
def test_integer_parse_int(text: str | None, value: int | None) -> None:
    assert java_parse_int(text) == value


def test_long_parse_long() -> None:
    assert java_parse_long("3000000000") == 3000000000
    assert java_parse_long("9223372036854775808") is None


@pytest.mark.parametrize(("text", "value"), [
    ("1.5", 1.5), (" 1.5 ", 1.5), ("1.5f", 1.5), ("1.5D", 1.5), (".5", 0.5), ("5.", 5.0), ("1e3", 1000.0),
    ("0x1p3", 8.0), ("Infinity", math.inf), ("-Infinity", -math.inf),
    ("INF", None), ("inf", None), ("1_5", None), ("nan", None), ("", None), ("0x1", None),
])
def test_double_parse_double(text: str, value: float | None) -> None:
    assert java_parse_double(text) == value


def test_double_nan() -> None:
    parsed = java_parse_double("NaN")
    assert parsed is not None and math.isnan(parsed)


@pytest.mark.parametrize(("text", "value"), [
    ("true", True), ("TRUE", True), ("tRuE", True), (" true", False), ("1", False), ("yes", False), (None, False),
])
def test_parse_boolean(text: str | None, value: bool) -> None:
    assert java_parse_boolean(text) is value
    assert java_equals_ignore_case(text, "true") is value


@pytest.mark.parametrize(("text", "value"), [
    ("1048576", 1048576), ("1k", 1024), ("1 KiB", 1024), ("2mb", 2 << 20), ("1GiB", 1 << 30), (" 3 b ", 3),
    ("lots", None), ("1.5MiB", None), ("", None),
])
def test_convert_text_bytes(text: str, value: int | None) -> None:
    assert convert_text_bytes(text) == value


def test_hashmap_order_of_transport_keys() -> None:
    """``new HashMap<>()`` after put("scheme"), put("host"), put("port"), put("router"), put("protocols"),
    iterated on OpenJDK 17: router, scheme, port, host, protocols."""
    assert java_hashmap_order(["scheme", "host", "port", "router", "protocols"]) == [
        "router", "scheme", "port", "host", "protocols"]


_IS_BLANK = """
public final class IsBlank {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        for (int cp = 0; cp <= 0xFFFF; cp++) {
            if (String.valueOf((char) cp).isBlank()) {
                out.append(cp).append('\\n');
            }
        }
        out.append(String.valueOf(Character.toChars(0x1D7CE)).isBlank()).append('\\n');
        System.out.print(out);
    }
}
"""


def test_java_is_blank_on_the_jdk(tmp_path) -> None:
    """String.isBlank is Character.isWhitespace: U+00A0 and U+0085 are not blank, U+2003 and U+001C are."""
    from artemis_routing_cli.javastr import java_is_blank
    from tests.javarun import run_java

    lines = run_java(tmp_path, _IS_BLANK).split()
    blank = {int(x) for x in lines[:-1]}
    assert {cp for cp in range(0x10000) if 0xD800 > cp or cp > 0xDFFF if java_is_blank(chr(cp))} == blank
    assert lines[-1] == "false" and not java_is_blank("\U0001D7CE")
    assert java_is_blank("") and java_is_blank(" \u2003\t")
    assert not java_is_blank("\u00a0") and not java_is_blank("\x85")
