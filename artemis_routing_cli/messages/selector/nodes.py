"""The syntax tree of a parsed filter.

Node classes mirror the expression kinds the broker builds, because its parser accepts or
refuses operands by kind: a *constant* (``Const``), a *boolean constant* (TRUE, FALSE and
NULL), a *property* (``Prop``), arithmetic (``Arith``, ``Negate``) and the *boolean
expressions* (everything that yields TRUE/FALSE/unknown).
"""

from __future__ import annotations

from ...records import record


@record(frozen=True, slots=True)
class Node:
    pos: int  # 0-based offset in the original filter text


@record(frozen=True, slots=True)
class Const(Node):
    value: object  # str or a number (see messages.values)


@record(frozen=True, slots=True)
class BoolConst(Node):
    value: bool | None  # TRUE, FALSE or NULL


@record(frozen=True, slots=True)
class Prop(Node):
    name: str


@record(frozen=True, slots=True)
class Negate(Node):
    operand: Node


@record(frozen=True, slots=True)
class Arith(Node):
    op: str  # + - * / %
    left: Node
    right: Node


@record(frozen=True, slots=True)
class Compare(Node):
    op: str  # = <> < <= > >=
    left: Node
    right: Node


@record(frozen=True, slots=True)
class IsNull(Node):
    operand: Node
    negated: bool


@record(frozen=True, slots=True)
class Like(Node):
    operand: Node
    pattern: str
    escape: str | None
    negated: bool


@record(frozen=True, slots=True)
class Between(Node):
    operand: Node
    low: Node
    high: Node
    negated: bool


@record(frozen=True, slots=True)
class In(Node):
    operand: Prop
    values: tuple[str, ...]
    negated: bool


@record(frozen=True, slots=True)
class Logic(Node):
    op: str  # AND / OR
    operands: tuple[Node, ...]


@record(frozen=True, slots=True)
class Not(Node):
    operand: Node


@record(frozen=True, slots=True)
class BoolCast(Node):
    """A property used where a boolean is needed (``WHERE flag``): TRUE only for a boolean true."""

    operand: Prop


@record(frozen=True, slots=True)
class BodyQuery(Node):
    """``XPATH '...'`` or ``XQUERY '...'``: evaluated on the message body, which arouter does not have."""

    language: str
    query: str


BOOLEAN_NODES = (BoolConst, Compare, IsNull, Like, Between, In, Logic, Not, BoolCast, BodyQuery)


def is_boolean(node: Node) -> bool:
    return isinstance(node, BOOLEAN_NODES)


def children(node: Node) -> tuple[Node, ...]:
    kind = type(node)
    if kind in _LEAVES:
        return ()
    if kind in _UNARY:
        return (node.operand,)  # type: ignore[attr-defined]
    if isinstance(node, (Negate, IsNull, Like, In, Not, BoolCast)):
        return (node.operand,)
    if isinstance(node, (Arith, Compare)):
        return (node.left, node.right)
    if isinstance(node, Between):
        return (node.operand, node.low, node.high)
    if isinstance(node, Logic):
        return node.operands
    return ()


# Exact node types answered before the isinstance chain in children() (the hot path of depth()).
_LEAVES = frozenset({Const, BoolConst, Prop, BodyQuery})
_UNARY = frozenset({Negate, IsNull, Like, In, Not, BoolCast})


def depth(node: Node) -> int:
    """Nesting depth, computed without recursion."""
    best = 0
    stack = [(node, 1)]
    while stack:
        current, level = stack.pop()
        best = max(best, level)
        stack.extend((child, level + 1) for child in children(current))
    return best


def body_queries(node: Node) -> list[BodyQuery]:
    found: list[BodyQuery] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, BodyQuery):
            found.append(current)
        stack.extend(children(current))
    return found
