"""The broker's filter (JMS selector) language: ``parse_filter(text).evaluate(message)``.

Parsing follows the broker's ``FilterImpl`` + ``SelectorParser``: the text is trimmed; an
empty filter means "no filter" (``parse_filter`` refuses it, ``parse_optional_filter`` returns
None); the prefixes ``convert_string_expressions:``, ``hyphenated_props:`` and their ``no_``
forms may lead, in any order. Evaluation is SQL three-valued: ``evaluate`` returns True, False
or None (unknown; the broker treats it as no match).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ...records import record
from ..message import Message
from . import nodes
from .compile import Unsupported, compile_node
from .errors import FilterSyntaxError
from .javalang import EvalError
from .lexer import common_shape
from .parser import parse_tree

__all__ = [
    "UNSUPPORTED",
    "Filter",
    "FilterSyntaxError",
    "UnsupportedResult",
    "Verdict",
    "blank_filter",
    "clear_filter_caches",
    "filter_syntax_error",
    "literal_key",
    "may_query_body",
    "parse_filter",
    "parse_optional_filter",
]

_PREFIXES = {
    "convert_string_expressions:": ("convert", True),
    "hyphenated_props:": ("hyphenated", True),
    "no_convert_string_expressions:": ("convert", False),
    "no_hyphenated_props:": ("hyphenated", False),
}


class UnsupportedResult:
    """The marker ``Filter.evaluate`` returns when an XPATH/XQUERY term decides the outcome."""

    _instance: UnsupportedResult | None = None

    def __new__(cls) -> UnsupportedResult:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "UNSUPPORTED"


UNSUPPORTED = UnsupportedResult()


@record(frozen=True, slots=True)
class Verdict:
    """The outcome of one evaluation, for reports.

    ``value``: True / False / None (unknown) / UNSUPPORTED; ``matched``: what the broker does
    (only True matches); ``reason``: why it is not a plain answer (evaluation error, body query).
    """

    value: bool | None | UnsupportedResult
    reason: str | None = None

    @property
    def matched(self) -> bool:
        return self.value is True

    @property
    def label(self) -> str:
        if self.value is UNSUPPORTED:
            return "unsupported"
        if self.value is None:
            return "unknown"
        return "true" if self.value else "false"


class Filter:
    """A parsed filter. ``text`` is the filter as given (before trimming)."""

    __slots__ = ("text", "tree", "convert_strings", "hyphenated", "_fn")

    def __init__(self, text: str, tree: nodes.Node, convert_strings: bool, hyphenated: bool) -> None:
        self.text = text
        self.tree = tree
        self.convert_strings = convert_strings
        self.hyphenated = hyphenated
        self._fn: Callable[[Message], object] | None = None  # compiled on first use: validate only parses

    def _compiled(self) -> Callable[[Message], object]:
        if self._fn is None:
            self._fn = compile_node(self.tree, self.convert_strings)
        return self._fn

    @property
    def body_queries(self) -> list[str]:
        """The XPATH/XQUERY terms, as written: arouter cannot evaluate them."""
        if not may_query_body(self.text):
            return []
        return [f"{q.language} '{q.query}'" for q in nodes.body_queries(self.tree)]

    def evaluate(self, msg: Message) -> bool | None | UnsupportedResult:
        """True, False, None (unknown) or UNSUPPORTED. An evaluation error (e.g. ``'a' * 2``)
        makes the broker log "invalid filter" and not match: that is False here; ``verdict``
        says why."""
        try:
            value = self._compiled()(msg)
        except EvalError:
            return False
        except Unsupported:
            return UNSUPPORTED
        return value  # type: ignore[return-value]

    def matches(self, msg: Message) -> bool:
        """What the broker decides: only a TRUE result matches."""
        return self.evaluate(msg) is True

    def verdict(self, msg: Message) -> Verdict:
        try:
            return Verdict(self._compiled()(msg))  # type: ignore[arg-type]
        except EvalError as exc:
            return Verdict(False, f"evaluation error: {exc}; the broker logs 'invalid filter' and does not match")
        except Unsupported as exc:
            return Verdict(UNSUPPORTED, f"{exc} reads the message body, which arouter does not simulate")

    def __repr__(self) -> str:
        return f"Filter({self.text!r})"


def _strip_prefixes(text: str) -> tuple[str, int, bool, bool]:
    convert = hyphenated = False
    offset = 0
    while True:
        for prefix, (flag, value) in _PREFIXES.items():
            if text.startswith(prefix, offset):
                offset += len(prefix)
                if flag == "convert":
                    convert = value
                else:
                    hyphenated = value
                break
        else:
            return text[offset:], offset, convert, hyphenated


def _java_trim_bounds(text: str) -> tuple[int, int]:
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return start, end


@lru_cache(maxsize=65536)
def parse_filter(text: str) -> Filter:
    """Parse a filter as the broker does; raises FilterSyntaxError (``.column`` is 1-based)."""
    start, end = _java_trim_bounds(text)
    if start == end:
        raise FilterSyntaxError("the filter is empty (the broker treats an empty filter as no filter)",
                                column=1, text=text)
    trimmed = text[start:end]
    body, prefix_len, convert, hyphenated = _strip_prefixes(trimmed)
    tree = parse_tree(body, hyphenated=hyphenated, offset=start + prefix_len, source=text)
    return Filter(text, tree, convert, hyphenated)


def parse_optional_filter(text: str | None) -> Filter | None:
    """None for a missing or blank filter (the broker's "no filter": everything matches)."""
    if text is None:
        return None
    start, end = _java_trim_bounds(text)
    if start == end:
        return None
    return parse_filter(text)


def blank_filter(text: str) -> bool:
    """Whether the broker reads ``text`` as no filter at all (empty once trimmed)."""
    start, end = _java_trim_bounds(text)
    return start == end


def may_query_body(text: str) -> bool:
    """False when ``text`` certainly has no XPATH/XQUERY term (a keyword's letters are in the text)."""
    upper = text.upper()
    return "XPATH" in upper or "XQUERY" in upper


# Token shapes (see lexer.common_shape) some filter of which parsed: any filter of the same shape
# parses too, because the parser decides by token kinds, keywords and operators. The one check that
# reads a literal's value, the length of an ESCAPE string, keeps such shapes out.
_PARSED_SHAPES: dict[tuple[str, ...], None] = {}
_MAX_SHAPES = 4096


# Literal keys (see ``literal_key``) of filters of such shapes: a filter with the same key has the
# same tokens but for its literals' values, so it parses too; found without lexing it.
_PARSED_KEYS: dict[str | bytes, None] = {}
_MAX_KEYS = 4096
_MAX_KEYED_LENGTH = 1024  # longer filters take the shape path (a key is a copy of the text)
_LITERAL_STRING = re.compile(r"'(?:''|[^'])*'")
# Each ASCII digit to one of its lexical classes: 0 (opens an octal, hex or float), 1-7 (octal
# digits), 8-9. Every pattern of the lexer treats the digits of one class alike.
_DIGIT_CLASSES = str.maketrans("0123456789", "0111111188")
_ASCII_DIGIT_CLASSES = bytes.maketrans(b"0123456789", b"0111111188")  # the same for ASCII text, quicker


def literal_key(text: str) -> str | bytes:
    """``text`` with every string literal emptied and every digit replaced by its class's first
    (as bytes when the result is ASCII: a str key and a bytes key are never equal).

    Two filters with one key lex to the same tokens but for the values of their string and number
    literals (a quote outside a string literal is the last one, an unclosed string, and stays)."""
    emptied = _LITERAL_STRING.sub("''", text)
    if emptied.isascii():
        return emptied.encode("ascii").translate(_ASCII_DIGIT_CLASSES)
    return emptied.translate(_DIGIT_CLASSES)


@lru_cache(maxsize=65536)
def filter_syntax_error(text: str) -> FilterSyntaxError | None:
    """The error ``parse_filter(text)`` raises, or None when it parses (without building the
    filter when one of the same token shape parsed before: validating many similar filters).
    Cached per text: the divert rules and the message-flow checks both ask about every filter."""
    key = literal_key(text) if len(text) <= _MAX_KEYED_LENGTH else None
    if key is not None and key in _PARSED_KEYS:
        return None
    start, end = _java_trim_bounds(text)
    shape = None
    if start != end:
        body, _, _, hyphenated = _strip_prefixes(text[start:end])
        shape = common_shape(body, hyphenated)
        if shape is not None and shape in _PARSED_SHAPES:  # (shapes with ESCAPE are never kept)
            _remember(_PARSED_KEYS, key, _MAX_KEYS)
            return None
    try:
        parse_filter(text)
    except FilterSyntaxError as err:
        # without its traceback: frames kept alive by a caller holding the error would be a cycle
        return err.with_traceback(None)
    if shape is not None and "ESCAPE" not in shape:
        _remember(_PARSED_SHAPES, shape, _MAX_SHAPES)
        _remember(_PARSED_KEYS, key, _MAX_KEYS)
    return None


def _remember(seen: dict, key: object, limit: int) -> None:
    """Add ``key`` (unless None) to ``seen``, which is emptied first when it holds ``limit`` keys."""
    if key is None:
        return
    if len(seen) >= limit:
        seen.clear()
    seen[key] = None


def clear_filter_caches() -> None:
    """Forget every parsed filter and shape (for measurements of a cold start)."""
    parse_filter.cache_clear()
    filter_syntax_error.cache_clear()
    _PARSED_SHAPES.clear()
    _PARSED_KEYS.clear()
