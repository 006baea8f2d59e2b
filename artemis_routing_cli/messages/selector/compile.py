"""Turn a filter tree into nested closures: evaluation is then plain function calls.

Each compiled function takes a ``Message`` and returns a Java-typed value, ``None`` for SQL
unknown/null, or raises ``EvalError`` (the broker throws; the message does not match) or
``Unsupported`` (an XPATH/XQUERY term whose value decides the result).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..message import Message, header_value
from . import nodes as n
from .javalang import EvalError, arithmetic, compare, equal, negate

Fn = Callable[[Message], object]


class Unsupported(Exception):
    """An XPATH/XQUERY body query decided the result; arouter has no message bodies."""

    def __init__(self, query: n.BodyQuery) -> None:
        super().__init__(f"{query.language} '{query.query}'")
        self.query = query


def like_regex(pattern: str, escape: str | None) -> re.Pattern[str]:
    """The broker's LIKE: ``%`` any run, ``_`` one character, whole-string match, newlines
    included; the escape character quotes only a following ``%``, ``_`` or itself."""
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if escape is not None and ch == escape and i + 1 < len(pattern) and pattern[i + 1] in ("%", "_", escape):
            parts.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "%":
            parts.append(".*?")
        elif ch == "_":
            parts.append(".")
        else:
            parts.append(re.escape(ch))
        i += 1
    return re.compile("".join(parts), re.DOTALL)


def compile_node(node: n.Node, convert: bool) -> Fn:  # noqa: C901 - one dispatch over node kinds
    if isinstance(node, n.Const):
        value = node.value
        return lambda m: value
    if isinstance(node, n.BoolConst):
        bvalue = node.value
        return lambda m: bvalue
    if isinstance(node, n.Prop):
        return _property(node.name)
    if isinstance(node, n.Negate):
        operand = compile_node(node.operand, convert)

        def neg(m: Message) -> object:
            value = operand(m)
            return None if value is None else negate(value)

        return neg
    if isinstance(node, n.Arith):
        return _arith(node, convert)
    if isinstance(node, n.Compare):
        return _compare(node, convert)
    if isinstance(node, n.IsNull):
        operand = compile_node(node.operand, convert)
        if node.negated:
            return lambda m: operand(m) is not None
        return lambda m: operand(m) is None
    if isinstance(node, n.Like):
        return _like(node, convert)
    if isinstance(node, n.Between):
        return _between(node, convert)
    if isinstance(node, n.In):
        return _in(node)
    if isinstance(node, n.Logic):
        return _logic(node, convert)
    if isinstance(node, n.Not):
        operand = compile_node(node.operand, convert)

        def not_(m: Message) -> object:
            value = operand(m)
            return None if value is None else not value

        return not_
    if isinstance(node, n.BoolCast):
        operand = compile_node(node.operand, convert)

        def cast(m: Message) -> object:
            value = operand(m)
            if value is None:
                return None
            return value if type(value) is bool else False

        return cast
    if isinstance(node, n.BodyQuery):
        query = node

        def body(m: Message) -> object:
            raise Unsupported(query)

        return body
    raise TypeError(f"unknown node {node!r}")  # pragma: no cover


def _property(name: str) -> Fn:
    if name.startswith("AMQ"):

        def header_or_property(m: Message) -> object:
            value = header_value(m, name)
            return m.properties.get(name) if value is None else value

        return header_or_property

    def prop(m: Message) -> object:
        return m.properties.get(name)

    return prop


def _arith(node: n.Arith, convert: bool) -> Fn:
    left = compile_node(node.left, convert)
    right = compile_node(node.right, convert)
    op = node.op

    def arith(m: Message) -> object:
        lv = left(m)
        if lv is None:
            return None
        rv = right(m)
        if rv is None:
            return None
        return arithmetic(op, lv, rv, convert)

    return arith


_ORDER = {"<": lambda c: c < 0, "<=": lambda c: c <= 0, ">": lambda c: c > 0, ">=": lambda c: c >= 0}


def _ordering(left: Fn, right: Fn, op: str, convert: bool) -> Fn:
    test = _ORDER[op]

    def ordered(m: Message) -> object:
        lv = left(m)
        if lv is None:
            return None
        rv = right(m)
        if rv is None:
            return None
        if type(lv) is type(rv) and type(lv) in (int, str) and (type(lv) is int or (lv.isascii() and rv.isascii())):
            return test((lv > rv) - (lv < rv))
        result = compare(lv, rv, convert)
        return False if result is None else test(result)

    return ordered


def _compare(node: n.Compare, convert: bool) -> Fn:
    left = compile_node(node.left, convert)
    right = compile_node(node.right, convert)
    if node.op in ("=", "<>"):
        negated = node.op == "<>"

        def eq(m: Message) -> object:
            lv = left(m)
            rv = right(m)
            if lv is not None and rv is not None and type(lv) is type(rv) and type(lv) in (str, int, bool):
                result: object = lv == rv
            else:
                result = equal(lv, rv, convert)
            if negated and result is not None:
                return not result
            return result

        return eq
    return _ordering(left, right, node.op, convert)


def _like(node: n.Like, convert: bool) -> Fn:
    operand = compile_node(node.operand, convert)
    match = like_regex(node.pattern, node.escape).fullmatch
    negated = node.negated

    def like(m: Message) -> object:
        value = operand(m)
        if value is None:
            return None
        if type(value) is not str:
            return negated
        return (match(value) is not None) != negated

    return like


def _between(node: n.Between, convert: bool) -> Fn:
    value = compile_node(node.operand, convert)
    low = compile_node(node.low, convert)
    high = compile_node(node.high, convert)
    if node.negated:
        first, second, op = _ordering(value, low, "<", convert), _ordering(value, high, ">", convert), "OR"
    else:
        first, second, op = _ordering(value, low, ">=", convert), _ordering(value, high, "<=", convert), "AND"
    return _logic_of(op, (first, second))


def _in(node: n.In) -> Fn:
    operand = _property(node.operand.name)
    values = frozenset(node.values)
    negated = node.negated

    def in_(m: Message) -> object:
        value = operand(m)
        if value is None or type(value) is not str:
            return None
        return (value in values) != negated

    return in_


def _logic(node: n.Logic, convert: bool) -> Fn:
    return _logic_of(node.op, tuple(compile_node(o, convert) for o in node.operands))


def _logic_of(op: str, operands: tuple[Fn, ...]) -> Fn:
    """AND/OR left to right with unknowns; an XPATH term only matters when nothing else decides."""
    decisive = op == "OR"  # OR stops at TRUE, AND stops at FALSE

    def logic(m: Message) -> object:
        unknown = False
        unsupported: Unsupported | None = None
        for fn in operands:
            try:
                value = fn(m)
            except Unsupported as exc:
                unsupported = unsupported or exc
                continue
            except EvalError:
                if unsupported is not None:
                    raise unsupported from None
                raise
            if value is None:
                unknown = True
            elif value is decisive:
                return decisive
        if unsupported is not None:
            raise unsupported
        return None if unknown else not decisive

    return logic
