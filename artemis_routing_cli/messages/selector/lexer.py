"""Tokens of the broker's filter language, cut the way its generated lexer cuts them.

The broker's lexer takes the longest token at each position (ties go to the token declared
first). Facts that follow from its token table and that this module reproduces:

* white space is only space, tab, CR, LF and form feed; ``/* ... */`` comments are skipped and
  ``-- ...`` comments only when a line break ends them (otherwise ``--`` is two minus signs);
* keywords (NOT AND OR BETWEEN LIKE ESCAPE IN IS TRUE FALSE NULL XPATH XQUERY) ignore case;
* identifiers are ASCII letters, ``_`` and ``$`` then also digits (``-`` too in
  ``hyphenated_props:`` mode); a character whose lower case is an ASCII letter counts as one
  (the Kelvin sign does, for instance); quoted identifiers ``"a b"`` with ``""`` as a quote
  exist in the strict mode only;
* numbers: ``[1-9][0-9]*`` with an optional ``L``; ``0x`` hex; ``0[0-7]*`` octal (so ``09`` is
  two tokens); floating point ``1.``, ``.5``, ``1.5e3``, ``5E10`` (no ``F``/``D`` suffix);
* strings are single-quoted with ``''`` for a quote and may span lines.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .errors import FilterSyntaxError

KEYWORDS = frozenset(
    {"NOT", "AND", "OR", "BETWEEN", "LIKE", "ESCAPE", "IN", "IS", "TRUE", "FALSE", "NULL", "XPATH", "XQUERY"}
)

# Token kinds
KEYWORD = "keyword"
IDENT = "identifier"
STRING = "string"
DECIMAL = "decimal"
HEX = "hex"
OCTAL = "octal"
FLOAT = "float"
OP = "operator"
EOF = "end of filter"

_WHITESPACE = " \t\n\r\f"
_LINE_COMMENT = re.compile(r"--[^\n\r]*(?:\r\n|\n|\r)")
_BLOCK_COMMENT = re.compile(r"/\*[^*]*\*+(?:[^*/][^*]*\*+)*/")
_STRING = re.compile(r"'(?:''|[^'])*'")
_QUOTED_ID = re.compile(r'"(?:""|[^"])*"')
# Numeric token candidates in declaration order (ties go to the earlier one).
_NUMBERS = (
    (DECIMAL, re.compile(r"[1-9][0-9]*[lL]?")),
    (HEX, re.compile(r"0[xX][0-9a-fA-F]+")),
    (OCTAL, re.compile(r"0[0-7]*")),
    (FLOAT, re.compile(r"[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+")),
)
_ASCII_ID = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_ASCII_ID_HYPHENATED = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")
_OPERATORS = ("<>", "<=", ">=", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",")
# The operators by first character, longest first as in _OPERATORS.
_OPERATORS_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _op in _OPERATORS:
    _OPERATORS_BY_FIRST[_op[0]] = (*_OPERATORS_BY_FIRST.get(_op[0], ()), _op)
del _op

# One regex step for the common tokens: white space, then an ASCII identifier or keyword (not
# followed by an identifier character it did not take, such as a non-ASCII letter), a string, a
# decimal that no longer number token could extend, or an operator other than ``-`` and ``/``
# (which may open a comment). Anything else, and every error, takes the general path below,
# which decides exactly as before.
_FAST_TAIL = (
    r"|(?P<str>'(?:''|[^'])*')"
    r"|(?P<dec>[1-9][0-9]*)(?![0-9.eElL])"
    r"|(?P<op><>|<=|>=|[=<>+*%(),])"
    r")"
)
# The same steps for a whole filter in one ``findall`` (each match: white space, identifier,
# string, decimal, operator). ``findall`` skips what no step matches, so the result only counts
# when the matches cover the text up to its trailing white space.
_ALL_TAIL = r"|('(?:''|[^'])*')|([1-9][0-9]*)(?![0-9.eElL])|(<>|<=|>=|[=<>+*%(),]))"
_ALL = re.compile(r"([ \t\n\r\f]*)(?:([A-Za-z_$][A-Za-z0-9_$]*)(?![A-Za-z0-9_$]|[^\x00-\x7f])" + _ALL_TAIL)
_ALL_HYPHENATED = re.compile(
    r"([ \t\n\r\f]*)(?:([A-Za-z_$][A-Za-z0-9_$-]*)(?![A-Za-z0-9_$-]|[^\x00-\x7f])" + _ALL_TAIL)
_FAST = re.compile(r"[ \t\n\r\f]*(?:(?P<id>[A-Za-z_$][A-Za-z0-9_$]*)(?![A-Za-z0-9_$]|[^\x00-\x7f])" + _FAST_TAIL)
_FAST_HYPHENATED = re.compile(
    r"[ \t\n\r\f]*(?:(?P<id>[A-Za-z_$][A-Za-z0-9_$-]*)(?![A-Za-z0-9_$-]|[^\x00-\x7f])" + _FAST_TAIL)


class Token(NamedTuple):
    """One token (a named tuple: the lexer makes tens of thousands of them for a large broker.xml)."""

    kind: str
    text: str  # the token as written (keywords upper-cased; strings and quoted ids decoded)
    pos: int  # 0-based offset in the lexed text

    def describe(self) -> str:
        if self.kind == EOF:
            return "end of filter"
        if self.kind == STRING:
            return "string '" + self.text.replace("'", "''") + "'"
        if self.kind == KEYWORD:
            return self.text
        if self.kind == OP:
            return repr(self.text)
        return f"{self.kind} {self.text!r}" if self.kind == IDENT else f"number {self.text}"


_new_token = tuple.__new__  # Token(kind, text, pos) without the Python-level __new__


def _is_id_start(ch: str) -> bool:
    if ch in "_$":
        return True
    if ch.isascii():
        return ch.isalpha()
    low = ch.lower()
    return len(low) == 1 and low.isascii() and low.isalpha()


def _is_id_part(ch: str, hyphenated: bool) -> bool:
    return _is_id_start(ch) or ("0" <= ch <= "9") or (hyphenated and ch == "-")


def tokenize(text: str, *, hyphenated: bool = False, offset: int = 0) -> list[Token]:
    """Cut ``text`` into tokens (the last one is EOF). ``offset`` is added to every position so
    that errors point into the original filter string. Raises FilterSyntaxError."""
    quick = _tokenize_common(text, hyphenated, offset)
    if quick is not None:
        return quick
    tokens: list[Token] = []
    append = tokens.append
    i = 0
    n = len(text)
    fast = (_FAST_HYPHENATED if hyphenated else _FAST).match
    keywords = KEYWORDS
    while True:
        m = fast(text, i)
        if m is not None:
            group = m.lastgroup
            start = m.start(group)  # type: ignore[arg-type]
            i = m.end()
            if group == "id":
                word = text[start:i]
                upper = word.upper()
                if upper in keywords:
                    append(_new_token(Token, (KEYWORD, upper, offset + start)))
                else:
                    append(_new_token(Token, (IDENT, word, offset + start)))
            elif group == "op":
                append(_new_token(Token, (OP, text[start:i], offset + start)))
            elif group == "str":
                append(_new_token(Token, (STRING, text[start + 1 : i - 1].replace("''", "'"), offset + start)))
            else:
                append(_new_token(Token, (DECIMAL, text[start:i], offset + start)))
            continue
        while i < n:
            ch = text[i]
            if ch in _WHITESPACE:
                i += 1
                continue
            if ch == "-" and text.startswith("--", i):
                m = _LINE_COMMENT.match(text, i)
                if m:
                    i = m.end()
                    continue
            elif ch == "/" and text.startswith("/*", i):
                m = _BLOCK_COMMENT.match(text, i)
                if m:
                    i = m.end()
                    continue
            break
        if i >= n:
            tokens.append(Token(EOF, "", offset + n))
            return tokens
        ch = text[i]
        start = i
        if _is_id_start(ch):
            # ASCII identifier characters in one regex step, then any others one by one
            m = (_ASCII_ID_HYPHENATED if hyphenated else _ASCII_ID).match(text, i)
            i = m.end() if m else i + 1
            while i < n and _is_id_part(text[i], hyphenated):
                i += 1
            word = text[start:i]
            upper = word.upper()
            if upper in KEYWORDS:
                tokens.append(Token(KEYWORD, upper, offset + start))
            else:
                tokens.append(Token(IDENT, word, offset + start))
            continue
        if ch == "'":
            m = _STRING.match(text, i)
            if not m:
                raise FilterSyntaxError("string literal is not closed (a quote inside is written '')",
                                        column=offset + start + 1, text=text)
            i = m.end()
            tokens.append(Token(STRING, text[start + 1 : i - 1].replace("''", "'"), offset + start))
            continue
        if ch == '"' and not hyphenated:
            m = _QUOTED_ID.match(text, i)
            if not m:
                raise FilterSyntaxError('quoted identifier is not closed (a quote inside is written "")',
                                        column=offset + start + 1, text=text)
            i = m.end()
            tokens.append(Token(IDENT, text[start + 1 : i - 1].replace('""', '"'), offset + start))
            continue
        if "0" <= ch <= "9" or (ch == "." and i + 1 < n and "0" <= text[i + 1] <= "9"):
            best_kind, best_end = "", -1
            for kind, pattern in _NUMBERS:
                m = pattern.match(text, i)
                if m and m.end() > best_end:
                    best_kind, best_end = kind, m.end()
            i = best_end
            tokens.append(Token(best_kind, text[start:i], offset + start))
            continue
        for op in _OPERATORS_BY_FIRST.get(ch, ()):
            if text.startswith(op, i):
                i += len(op)
                tokens.append(Token(OP, op, offset + start))
                break
        else:
            shown = repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"
            hint = ""
            if ch == "!" and text.startswith("!=", i):
                hint = " (not-equal is written <>)"
            elif ch == '"':
                hint = " (quoted identifiers are not allowed with hyphenated_props:)"
            raise FilterSyntaxError(f"unexpected character {shown}{hint}", column=offset + start + 1, text=text)


def _tokenize_common(text: str, hyphenated: bool, offset: int) -> list[Token] | None:
    """The tokens of a filter made only of the common tokens (see ``_ALL``), else None."""
    tokens: list[Token] = []
    append = tokens.append
    keywords = KEYWORDS
    pos = offset
    for space, word, string, decimal, op in (_ALL_HYPHENATED if hyphenated else _ALL).findall(text):
        pos += len(space)
        if word:
            upper = word.upper()
            if upper in keywords:
                append(_new_token(Token, (KEYWORD, upper, pos)))
            else:
                append(_new_token(Token, (IDENT, word, pos)))
            pos += len(word)
        elif op:
            append(_new_token(Token, (OP, op, pos)))
            pos += len(op)
        elif string:
            append(_new_token(Token, (STRING, string[1:-1].replace("''", "'"), pos)))
            pos += len(string)
        else:
            append(_new_token(Token, (DECIMAL, decimal, pos)))
            pos += len(decimal)
    if pos - offset != len(text.rstrip(_WHITESPACE)):
        return None  # something between the matches that only the general path can read
    append(_new_token(Token, (EOF, "", offset + len(text))))
    return tokens


def common_shape(text: str, hyphenated: bool = False) -> tuple[str, ...] | None:
    """The kinds of ``text``'s tokens, with keywords and operators as written (upper case), when
    every token is a common one (see ``_ALL``); else None. Two filters with one shape parse alike
    but for the values of their literals."""
    shape: list[str] = []
    append = shape.append
    keywords = KEYWORDS
    length = 0
    for space, word, string, decimal, op in (_ALL_HYPHENATED if hyphenated else _ALL).findall(text):
        if word:
            upper = word.upper()
            append(upper if upper in keywords else IDENT)
            length += len(space) + len(word)
        elif op:
            append(op)
            length += len(space) + len(op)
        elif string:
            append(STRING)
            length += len(space) + len(string)
        else:
            append(DECIMAL)
            length += len(space) + len(decimal)
    if length != len(text.rstrip(_WHITESPACE)):
        return None
    return tuple(shape)
