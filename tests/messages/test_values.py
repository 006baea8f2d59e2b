"""Typed property values: CLI literals and JSON messages."""

from __future__ import annotations

import math

import pytest

from artemis_routing_cli.errors import UsageError
from artemis_routing_cli.messages import (
    JByte,
    JFloat,
    JLong,
    JShort,
    Message,
    kind,
    message_from_json,
    parse_filter,
    parse_typed_literal,
)
from artemis_routing_cli.messages.selector.javalang import double_to_string, float_to_string


@pytest.mark.parametrize(
    ("text", "expected", "type_name"),
    [
        ("42", 42, "int"),
        ("-7", -7, "int"),
        ("3000000000", 3000000000, "long"),
        ("42L", 42, "long"),
        ("1.5", 1.5, "double"),
        ("1.5D", 1.5, "double"),
        ("1.5F", 1.5, "float"),
        ("true", True, "boolean"),
        ("FALSE", False, "boolean"),
        ("'text'", "text", "string"),
        ("'it''s'", "it's", "string"),
        ("'42'", "42", "string"),
        ("byte:7", 7, "byte"),
        ("short:-3", -3, "short"),
        ("int:5", 5, "int"),
        ("long:5", 5, "long"),
        ("float:0.1", JFloat.of(0.1), "float"),
        ("double:2", 2.0, "double"),
        ("string:42", "42", "string"),
        ("boolean:true", True, "boolean"),
    ],
)
def test_parse_typed_literal(text, expected, type_name):
    value = parse_typed_literal(text)
    assert value == expected
    assert kind(value) == type_name


@pytest.mark.parametrize(
    "text", ["byte:300", "short:x", "int:3000000000", "boolean:yes", "float:abc", "99999999999999999999",
             "hello", "abc", "", "1.5.2", "'open"]
)
def test_parse_typed_literal_refuses(text):
    with pytest.raises(UsageError):
        parse_typed_literal(text)


def test_message_from_json_types():
    msg = message_from_json(
        {
            "properties": {
                "s": "x", "b": True, "i": 5, "big": 2**40, "d": 0.5,
                "y": {"byte": 1}, "h": {"short": 2}, "l": {"long": 3}, "f": {"float": 0.1}, "dd": {"double": 1},
                "gone": None,
            },
            "headers": {"priority": 9, "durable": True, "group_id": "g1", "user_id": "abc"},
        },
        address="orders",
    )
    props = msg.properties
    assert [kind(props[k]) for k in ("s", "b", "i", "big", "d", "y", "h", "l", "f", "dd")] == [
        "string", "boolean", "int", "long", "double", "byte", "short", "long", "float", "double"]
    assert "gone" not in props
    assert float(props["f"]) != 0.1 and props["f"] == JFloat.of(0.1)
    assert msg.address == "orders"
    for text in ["AMQPriority = 9", "AMQDurable = 'DURABLE'", "AMQGroupID = 'g1'", "AMQUserID = 'ID:abc'",
                 "AMQAddress = 'orders'", "y = 1", "l = 3"]:
        assert parse_filter(text).evaluate(msg) is True, text


@pytest.mark.parametrize(
    "obj",
    [
        {"properties": {"a": {"byte": 1000}}},
        {"properties": {"a": {"int": 1, "long": 2}}},
        {"properties": {"a": {"decimal": 1}}},
        {"properties": {"a": [1, 2]}},
        {"properties": {"a": 2**70}},
        {"headers": {"priority": "high"}},
        {"headers": {"colour": "red"}},
        {"body": "x"},
    ],
)
def test_message_from_json_refuses(obj):
    with pytest.raises(UsageError):
        message_from_json(obj)


def test_message_round_trips_through_json():
    msg = Message("q", {"a": JByte(1), "b": JShort(2), "c": JLong(3), "d": JFloat.of(1.1), "e": math.nan},
                  {"priority": 1})
    back = message_from_json(msg.to_json())
    assert {k: kind(v) for k, v in back.properties.items()} == {k: kind(v) for k, v in msg.properties.items()}
    assert back.properties["d"] == msg.properties["d"]
    assert math.isnan(back.properties["e"])


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1.0"), (1e7, "1.0E7"), (1234567.0, "1234567.0"), (0.001, "0.001"), (0.0001, "1.0E-4"),
     (-0.0, "-0.0"), (math.inf, "Infinity"), (math.nan, "NaN"), (1.5e-10, "1.5E-10"), (123.456, "123.456")],
)
def test_double_to_string_like_java(value, text):
    assert double_to_string(value) == text


def test_float_to_string_like_java():
    assert float_to_string(JFloat.of(1.1)) == "1.1"
    assert float_to_string(JFloat.of(16777217)) == "1.6777216E7"
