"""Recursive-descent parser for the broker's filter grammar, with the broker's operand checks.

Precedence, loosest first, exactly as the broker's grammar has it::

    OR  <  AND  <  = <> IS [NOT] NULL  <  > >= < <= [NOT] LIKE/BETWEEN/IN  <  + -  <  * / %
        <  unary + - NOT, XPATH/XQUERY  <  literal, property, ( ... )

Note that NOT binds tighter than comparisons: ``NOT a = 'x'`` means ``(NOT a) = 'x'``,
which never matches (a boolean never equals a string). ``IN`` lists and ``LIKE`` patterns
take string literals only, and ``IN`` needs a property on its left.
"""

from __future__ import annotations

from ...javastr import bounded_int
from ..values import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, JBigDecimal, JLong, wrap_int
from . import nodes as n
from .errors import FilterSyntaxError
from .lexer import DECIMAL, EOF, FLOAT, HEX, IDENT, KEYWORD, OCTAL, OP, STRING, Token, tokenize

# arouter's own limits (the broker's are its thread's stack): they keep parsing and evaluation
# well inside Python's recursion limit. Parentheses/unary operators cost ~8 frames a level.
MAX_NESTING = 64
MAX_DEPTH = 300

# Keywords that continue a comparison (NOT only when LIKE, BETWEEN or IN follows).
_COMPARISON_WORDS = frozenset({"NOT", "LIKE", "BETWEEN", "IN"})


def _narrow(value: int) -> object:
    """The broker keeps integer literals as Integer when their long value fits an int."""
    as_long = wrap_int(value, 64)
    if INT_MIN <= as_long <= INT_MAX:
        return wrap_int(value, 32)
    if LONG_MIN <= value <= LONG_MAX:
        return JLong(value)
    return JBigDecimal(value)


class Parser:
    __slots__ = ("text", "tokens", "i", "nesting", "tok")

    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.nesting = 0
        self.tok: Token = tokens[0]  # always tokens[i]

    # -- helpers -----------------------------------------------------------------------------
    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tok
        if token.kind != EOF:
            self.i += 1
            self.tok = self.tokens[self.i]
        return token

    def is_op(self, text: str, token: Token | None = None) -> bool:
        if token is None:
            token = self.tokens[self.i]
        return token.text == text and token.kind == OP

    def is_kw(self, word: str, token: Token | None = None) -> bool:
        if token is None:
            token = self.tokens[self.i]
        return token.text == word and token.kind == KEYWORD

    def fail(self, message: str, token: Token | None = None) -> FilterSyntaxError:
        pos = (token or self.tok).pos
        return FilterSyntaxError(message, column=pos + 1, text=self.text)

    def fail_at(self, message: str, node: n.Node) -> FilterSyntaxError:
        return FilterSyntaxError(message, column=node.pos + 1, text=self.text)

    def expected(self, what: str) -> FilterSyntaxError:
        return self.fail(f"expected {what}, found {self.tok.describe()}")

    def enter(self) -> None:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise self.fail(f"filter is nested more than {MAX_NESTING} levels deep")

    # -- broker operand checks ---------------------------------------------------------------
    def as_boolean(self, node: n.Node) -> n.Node:
        if n.is_boolean(node):
            return node
        if isinstance(node, n.Prop):
            return n.BoolCast(node.pos, node)
        raise self.fail_at("expression will not result in a boolean value", node)

    def check_ordering_operand(self, node: n.Node, op: str) -> None:
        if isinstance(node, n.Const) and isinstance(node.value, str):
            raise self.fail_at(f"a string literal cannot be used with {op} (only numbers can be ordered)", node)
        if n.is_boolean(node):
            raise self.fail_at(f"a boolean value cannot be used with {op} (only numbers can be ordered)", node)

    def check_equality(self, left: n.Node, right: n.Node, op: str) -> None:
        for side in (left, right):
            if isinstance(side, n.BoolConst) and side.value is None:
                raise self.fail_at(f"NULL cannot be compared with {op}: use IS NULL / IS NOT NULL", side)
        if isinstance(left, n.BoolConst) and isinstance(right, n.Const):
            raise self.fail_at("a TRUE/FALSE literal cannot be compared with a non-boolean literal", left)

    # -- grammar -----------------------------------------------------------------------------
    def parse(self) -> n.Node:
        node = self.or_expr()
        if self.tok.kind != EOF:
            raise self.fail(f"unexpected {self.tok.describe()} after a complete expression "
                            "(missing AND/OR or an operator?)")
        return self.as_boolean(node)

    def or_expr(self) -> n.Node:
        left = self.and_expr()
        tok = self.tok
        if tok.kind != KEYWORD or tok.text != "OR":
            return left
        operands = [self.as_boolean(left)]
        while self.is_kw("OR"):
            self.advance()
            operands.append(self.as_boolean(self.and_expr()))
        return n.Logic(left.pos, "OR", tuple(operands))

    def and_expr(self) -> n.Node:
        left = self.equality_expr()
        tok = self.tok
        if tok.kind != KEYWORD or tok.text != "AND":
            return left
        operands = [self.as_boolean(left)]
        while self.is_kw("AND"):
            self.advance()
            operands.append(self.as_boolean(self.equality_expr()))
        return n.Logic(left.pos, "AND", tuple(operands))

    def equality_expr(self) -> n.Node:
        left = self.comparison_expr()
        while True:
            tok = self.tok
            kind = tok.kind
            if kind != OP and kind != KEYWORD:
                return left  # neither an operator nor IS: the common end of an operand
            if kind == OP and (tok.text == "=" or tok.text == "<>"):
                op = self.advance().text
                right = self.comparison_expr()
                self.check_equality(left, right, op)
                left = n.Compare(left.pos, op, left, right)
            elif kind == KEYWORD and tok.text == "IS":
                self.advance()
                negated = False
                if self.is_kw("NOT"):
                    self.advance()
                    negated = True
                if not self.is_kw("NULL"):
                    raise self.fail(f"expected NULL after {'IS NOT' if negated else 'IS'}, "
                                    f"found {self.tok.describe()}")
                self.advance()
                left = n.IsNull(left.pos, left, negated)
            else:
                return left

    def comparison_expr(self) -> n.Node:
        left = self.add_expr()
        while True:
            tok = self.tok
            if tok.kind == OP:
                if tok.text not in (">", ">=", "<", "<="):
                    return left
            elif tok.kind != KEYWORD or tok.text not in _COMPARISON_WORDS:
                return left
            if tok.kind == OP:
                op = self.advance().text
                right = self.add_expr()
                self.check_ordering_operand(left, op)
                self.check_ordering_operand(right, op)
                left = n.Compare(left.pos, op, left, right)
                continue
            negated = False
            if self.is_kw("NOT") and self.peek().kind == KEYWORD and self.peek().text in ("LIKE", "BETWEEN", "IN"):
                self.advance()
                negated = True
            if self.is_kw("LIKE"):
                self.advance()
                pattern = self.string_literal("a string pattern after LIKE")
                escape = None
                if self.is_kw("ESCAPE"):
                    self.advance()
                    esc_token = self.tok
                    escape = self.string_literal("a one-character string after ESCAPE")
                    if len(escape) != 1:
                        raise self.fail(f"the ESCAPE string must be exactly one character, got '{escape}'", esc_token)
                left = n.Like(left.pos, left, pattern, escape, negated)
            elif self.is_kw("BETWEEN"):
                word = "NOT BETWEEN" if negated else "BETWEEN"
                self.advance()
                low = self.add_expr()
                if not self.is_kw("AND"):
                    raise self.expected(f"AND in {word} ... AND ...")
                self.advance()
                high = self.add_expr()
                for operand in (left, low, high):
                    self.check_ordering_operand(operand, word)
                left = n.Between(left.pos, left, low, high, negated)
            elif self.is_kw("IN"):
                in_token = self.advance()
                if not self.is_op("("):
                    raise self.expected("'(' after IN")
                self.advance()
                values = [self.string_literal("a string literal in the IN list (only strings are allowed)")]
                while self.is_op(","):
                    self.advance()
                    values.append(self.string_literal("a string literal in the IN list (only strings are allowed)"))
                if not self.is_op(")"):
                    raise self.expected("',' or ')' in the IN list")
                self.advance()
                if not isinstance(left, n.Prop):
                    raise self.fail("IN needs a property name on its left", in_token)
                left = n.In(left.pos, left, tuple(values), negated)
            else:
                return left

    def string_literal(self, what: str) -> str:
        if self.tok.kind != STRING:
            raise self.expected(what)
        return self.advance().text

    def add_expr(self) -> n.Node:
        left = self.mult_expr()
        while (tok := self.tok).kind == OP and (tok.text == "+" or tok.text == "-"):
            op = self.advance().text
            right = self.mult_expr()
            left = n.Arith(left.pos, op, left, right)
        return left

    def mult_expr(self) -> n.Node:
        left = self.unary_expr()
        while (tok := self.tok).kind == OP and tok.text in ("*", "/", "%"):
            op = self.advance().text
            right = self.unary_expr()
            left = n.Arith(left.pos, op, left, right)
        return left

    def unary_expr(self) -> n.Node:
        tok = self.tok
        kind = tok.kind
        if kind != OP and kind != KEYWORD:
            return self.primary_expr()
        if (kind == OP and (tok.text == "+" or tok.text == "-")) or (kind == KEYWORD and tok.text == "NOT"):
            self.advance()
            self.enter()
            operand = self.unary_expr()
            self.nesting -= 1
            if tok.text == "+":
                return operand
            if tok.text == "-":
                return n.Negate(tok.pos, operand)
            return n.Not(tok.pos, self.as_boolean(operand))
        if kind == KEYWORD and (tok.text == "XPATH" or tok.text == "XQUERY"):
            self.advance()
            query = self.string_literal(f"a string literal after {tok.text}")
            return n.BodyQuery(tok.pos, tok.text, query)
        return self.primary_expr()

    def primary_expr(self) -> n.Node:
        tok = self.tok
        if tok.kind == STRING:
            self.advance()
            return n.Const(tok.pos, tok.text)
        if tok.kind in (DECIMAL, HEX, OCTAL, FLOAT):
            self.advance()
            return n.Const(tok.pos, self.number(tok))
        if tok.kind == KEYWORD and tok.text in ("TRUE", "FALSE", "NULL"):
            self.advance()
            return n.BoolConst(tok.pos, {"TRUE": True, "FALSE": False, "NULL": None}[tok.text])
        if tok.kind == IDENT:
            self.advance()
            return n.Prop(tok.pos, tok.text)
        if self.is_op("("):
            self.advance()
            self.enter()
            inner = self.or_expr()
            self.nesting -= 1
            if not self.is_op(")"):
                raise self.expected("')'")
            self.advance()
            return inner
        if tok.kind == KEYWORD:
            raise self.fail(f"expected an expression, found keyword {tok.text} "
                            "(keywords cannot be property names; quote them as \"name\")")
        raise self.expected("an expression (a property, a literal or '(')")

    def number(self, tok: Token) -> object:
        text = tok.text
        if tok.kind == FLOAT:
            return float(text)
        if tok.kind == DECIMAL:
            # A literal beyond a long is a BigDecimal, exact up to 4,299 digits (Python's limit); a longer one is
            # taken as 10**4299 (still above every double and long it can be compared with).
            return _narrow(bounded_int(text.rstrip("lL"), 4299))
        value = int(text[2:], 16) if tok.kind == HEX else int(text, 8)
        if value > LONG_MAX:
            raise self.fail(f"number {text} does not fit in a long", tok)
        return _narrow(value)


def parse_tree(text: str, *, hyphenated: bool = False, offset: int = 0, source: str | None = None) -> n.Node:
    """Parse the filter body ``text`` (prefixes already removed) into a tree."""
    full = source if source is not None else text
    try:
        tokens = tokenize(text, hyphenated=hyphenated, offset=offset)
    except FilterSyntaxError as err:
        failure: tuple[str, int] | None = (err.reason, err.column or 1)
    else:
        failure = None
    if failure is not None:  # raised out here: inside the handler this frame would hold the old error
        raise FilterSyntaxError(failure[0], column=failure[1], text=full) from None
    tree = Parser(full, tokens).parse()
    # Every node but a BoolCast (only ever right above a property) is made on reading a token of its
    # own, so a tree from no more than MAX_DEPTH tokens (EOF included) cannot be deeper than that.
    if len(tokens) > MAX_DEPTH and n.depth(tree) > MAX_DEPTH:
        raise FilterSyntaxError(f"filter is nested more than {MAX_DEPTH} levels deep", column=1, text=full)
    return tree
