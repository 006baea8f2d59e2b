"""Parser for java.util.regex syntax (Java 17) that writes an equivalent ``regex``-package pattern.

It walks the pattern the way ``java.util.regex.Pattern`` does (same cursor moves, same flag scoping,
same error descriptions and indexes) and emits, for each Java construct, Python text whose matching
behaviour is Java's: classes and properties become explicit code-point sets, anchors and ``\\b``
become look-arounds with Java's line terminators and word rules. Constructs with no faithful
translation raise :class:`TranslationError`; syntax errors raise :class:`SyntaxProblem`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import field

from artemis_routing_cli.jregex import _javaregex_charset as cs
from artemis_routing_cli.jregex import _javaregex_match as m
from artemis_routing_cli.jregex._javaregex_charset import CharSet
from artemis_routing_cli.jregex._notes import ascii_shorthand_note
from artemis_routing_cli.records import record

# Pattern flag bits, as in java.util.regex.Pattern.
UNIX_LINES = 0x01
CASE_INSENSITIVE = 0x02
COMMENTS = 0x04
MULTILINE = 0x08
DOTALL = 0x20
UNICODE_CASE = 0x40
CANON_EQ = 0x80
UNICODE_CHARACTER_CLASS = 0x100

MAX_REPS = 0x7FFFFFFF  # Pattern.MAX_REPS

_BACKSLASH = 0x5C


class SyntaxProblem(Exception):
    """Java would throw PatternSyntaxException(description, pattern, index)."""

    def __init__(self, description: str, index: int) -> None:
        super().__init__(description)
        self.description = description
        self.index = index


class TranslationError(Exception):
    """A valid Java construct that this adapter cannot reproduce exactly."""

    def __init__(self, construct: str, index: int, why: str) -> None:
        super().__init__(why)
        self.construct = construct
        self.index = index
        self.why = why


def _i32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


@record
class Info:
    """Java's TreeInfo, as far as look-behind checking needs it (maxLength, maxValid, deterministic)."""

    maxlen: int = 0
    valid: bool = True
    det: bool = True
    minlen: int = 0

    def reset(self) -> None:
        self.maxlen, self.valid, self.det, self.minlen = 0, True, True, 0


Cont = Callable[[Info], None]
Study = Callable[[Info, Cont], None]


def _noop(info: Info) -> None:
    return None


def _study_zero(info: Info, k: Cont) -> None:
    k(info)


def _study_add(n: int, minimum: int | None = None) -> Study:
    def study(info: Info, k: Cont) -> None:
        info.maxlen = _i32(info.maxlen + n)
        info.minlen = _i32(info.minlen + (n if minimum is None else minimum))
        k(info)

    return study


def _study_backref(info: Info, k: Cont) -> None:
    info.valid = False
    info.det = False
    k(info)


def _study_loop(info: Info, k: Cont) -> None:
    info.valid = False
    info.det = False


def _study_greedy_char(cmin: int) -> Study:
    def study(info: Info, k: Cont) -> None:
        info.minlen = _i32(info.minlen + cmin)
        _greedy_max(info, k)

    return study


def _greedy_max(info: Info, k: Cont) -> None:
    if info.valid:
        info.maxlen = _i32(info.maxlen + MAX_REPS)
    info.det = False
    k(info)


def _study_nfc(info: Info, k: Cont) -> None:
    """NFCCharProperty.study: one more to the minimum, nothing to the maximum, not deterministic."""
    info.minlen = _i32(info.minlen + 1)
    info.det = False
    k(info)


def _study_grapheme(info: Info, k: Cont) -> None:
    info.minlen = _i32(info.minlen + 1)
    info.det = False
    k(info)


def _study_seq(studies: list[Study]) -> Study:
    def run(info: Info, k: Cont, idx: int = 0) -> None:
        if idx == len(studies):
            k(info)
        else:
            studies[idx](info, lambda inf: run(inf, k, idx + 1))

    return run


def _study_branch(alternatives: list[Study]) -> Study:
    def study(info: Info, k: Cont) -> None:
        max_before, valid, min_before = info.maxlen, info.valid, info.minlen
        longest = -1
        shortest = MAX_REPS
        for alt in alternatives:
            info.reset()
            alt(info, _noop)
            longest = max(longest, info.maxlen)
            shortest = min(shortest, info.minlen)
            valid = valid and info.valid
        max_before = _i32(max_before + longest)
        min_before = _i32(min_before + shortest)
        info.reset()
        k(info)
        info.maxlen = _i32(info.maxlen + max_before)
        info.minlen = _i32(info.minlen + min_before)
        info.valid = info.valid and valid
        info.det = False

    return study


def _study_curly(atom: Study, cmin: int, cmax: int) -> Study:
    def study(info: Info, k: Cont) -> None:
        max_before, valid_before, det_before, min_before = info.maxlen, info.valid, info.det, info.minlen
        info.reset()
        atom(info, _noop)
        least = _i32(info.minlen * cmin + min_before)
        info.minlen = 0xFFFFFFF if least < min_before else least
        if valid_before and info.valid:
            total = _i32(info.maxlen * cmax + max_before)
            info.maxlen = total
            if total < max_before:
                info.valid = False
        else:
            info.valid = False
        info.det = det_before if info.det and cmin == cmax else False
        k(info)

    return study


def _study_ques(atom: Study) -> Study:
    def study(info: Info, k: Cont) -> None:
        min_before = info.minlen
        atom(info, _noop)
        info.minlen = min_before
        info.det = False
        k(info)

    return study


def _study_independent(atom: Study) -> Study:
    def study(info: Info, k: Cont) -> None:
        atom(info, _noop)
        k(info)

    return study


@record
class Node:
    """An emitted fragment plus how Java's TreeInfo.study walks it (for look-behind checks).

    kind: "set" (a CharProperty), "slice" (literal run), "group" ((...) or (?:...)), "solo"
    (look-around or atomic group, quantified as a whole) or "other".
    """

    text: str
    study: Study = _study_zero
    kind: str = "other"
    atomic: bool = False  # can take a quantifier without (?:...) around it
    ast: m.Node = field(default_factory=m.Empty)  # the same construct for the matcher of _javaregex_match

@record
class Result:
    python: str
    notes: list[str] = field(default_factory=list)
    group_count: int = 0
    needs_ascii: bool = False
    uses_grapheme: bool = False
    #: the translation is not exact even on BMP texts: always run the matcher (``program``)
    engine_only: bool = False
    program: m.Program | None = None


def _is_ascii_space(ch: int) -> bool:
    return ch in (0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D)


def _is_ascii_alpha(ch: int) -> bool:
    return 0x41 <= ch <= 0x5A or 0x61 <= ch <= 0x7A


def _is_ascii_digit(ch: int) -> bool:
    return 0x30 <= ch <= 0x39


def _is_hex(ch: int) -> bool:
    return _is_ascii_digit(ch) or 0x41 <= ch <= 0x46 or 0x61 <= ch <= 0x66


def _remove_qe_quoting(temp: list[int]) -> list[int]:
    """Pattern.RemoveQEQuoting: turn \\Q...\\E into escaped literals before parsing."""
    n = len(temp)
    i = 0
    while i < n - 1:
        if temp[i] != _BACKSLASH:
            i += 1
            continue
        if temp[i + 1] == ord("Q"):
            break
        i += 2
    if i >= n - 1:
        return temp
    out = temp[:i]
    i += 2
    in_quote = True
    begin_quote = True
    while i < n:
        c = temp[i]
        i += 1
        if c >= 0x80 or _is_ascii_alpha(c):
            out.append(c)
        elif _is_ascii_digit(c):
            if begin_quote:
                out.extend((_BACKSLASH, ord("x"), ord("3")))
            out.append(c)
        elif c != _BACKSLASH:
            if in_quote:
                out.append(_BACKSLASH)
            out.append(c)
        elif in_quote:
            if i < n and temp[i] == ord("E"):
                i += 1
                in_quote = False
            else:
                out.extend((_BACKSLASH, _BACKSLASH))
        else:
            if i < n and temp[i] == ord("Q"):
                i += 1
                in_quote = True
                begin_quote = True
                continue
            out.append(c)
            if i != n:
                out.append(temp[i])
                i += 1
        begin_quote = False
    return out


def _code_points(pattern: str) -> list[int]:
    """The pattern's code points as Java sees them (a surrogate pair is one code point)."""
    if any(0xD800 <= ord(c) <= 0xDFFF for c in pattern):
        pattern = pattern.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return [ord(c) for c in pattern]


def _seq(nodes: list[Node]) -> Node:
    if len(nodes) == 1:
        return nodes[0]
    return Node("".join(n.text for n in nodes), _study_seq([n.study for n in nodes]),
                ast=m.Seq([n.ast for n in nodes]))


def _check(study: Study) -> Info:
    info = Info()
    try:
        study(info, _noop)
    except RecursionError:  # pragma: no cover - absurdly long look-behind
        pass
    return info


_NEVER = "(?!)"


class Parser:
    def __init__(self, pattern: str) -> None:
        self.source = pattern
        temp = _remove_qe_quoting(_code_points(pattern))
        self.length = len(temp)
        self.temp = temp + [0, 0]
        self.cursor = 0
        self.flags = 0
        self.group_count = 1  # Java's capturingGroupCount (group 0 included)
        self.named: dict[str, int] = {}
        self.open_groups: list[int] = []
        self.lookbehind_depth = 0
        self.notes: list[str] = []
        self.refs: list[tuple[str, int, int]] = []  # (placeholder, group number, index)
        self.needs_ascii = False
        self.ci_unicode_ref: int | None = None
        self.uses_grapheme = False
        self.pending: TranslationError | None = None
        # Pattern.hasSupplementary: a supplementary or surrogate code point in the pattern text, or
        # (as the parse goes) from an escape in a literal run.
        self.has_supp = any(c >= 0x10000 or 0xD800 <= c <= 0xDFFF for c in temp)
        # How many non-BMP predicates (not a BmpCharPredicate in Java: properties, negations,
        # case-insensitive ranges, SingleU, surrogate or supplementary singles) were built so far:
        # Pattern.newCharProperty sets hasSupplementary for one of them.
        self.nonbmp = 0
        self.engine_only = False

    # --- cursor primitives (Pattern.peek/read/next/skip/...) ------------------------------------------
    def has(self, flag: int) -> bool:
        return bool(self.flags & flag)

    def _is_line_sep(self, ch: int) -> bool:
        if self.has(UNIX_LINES):
            return ch == 0x0A
        return ch in (0x0A, 0x0D, 0x85, 0x2028, 0x2029)

    def _peek_past_ws(self, ch: int) -> int:
        while _is_ascii_space(ch) or ch == 0x23:
            while _is_ascii_space(ch):
                self.cursor += 1
                ch = self.temp[self.cursor]
            if ch == 0x23:
                self.cursor += 1
                ch = self.temp[self.cursor]
                while ch != 0 and not self._is_line_sep(ch):
                    self.cursor += 1
                    ch = self.temp[self.cursor]
                if ch == 0 and self.cursor > self.length:
                    self.cursor = self.length
                    ch = self.temp[self.cursor]
        return ch

    def _parse_past_ws(self, ch: int) -> int:
        while _is_ascii_space(ch) or ch == 0x23:
            while _is_ascii_space(ch):
                ch = self.temp[self.cursor]
                self.cursor += 1
            if ch == 0x23:
                ch = self.temp[self.cursor]
                self.cursor += 1
                while ch != 0 and not self._is_line_sep(ch):
                    ch = self.temp[self.cursor]
                    self.cursor += 1
                if ch == 0 and self.cursor > self.length:
                    self.cursor = self.length
                    ch = self.temp[self.cursor]
                    self.cursor += 1
        return ch

    def peek(self) -> int:
        ch = self.temp[self.cursor]
        if self.has(COMMENTS):
            ch = self._peek_past_ws(ch)
        return ch

    def read(self) -> int:
        ch = self.temp[self.cursor]
        self.cursor += 1
        if self.has(COMMENTS):
            ch = self._parse_past_ws(ch)
        return ch

    def next(self) -> int:
        self.cursor += 1
        ch = self.temp[self.cursor]
        if self.has(COMMENTS):
            ch = self._peek_past_ws(ch)
        return ch

    def next_escaped(self) -> int:
        self.cursor += 1
        return self.temp[self.cursor]

    def skip(self) -> int:
        ch = self.temp[self.cursor + 1]
        self.cursor += 2
        return ch

    def unread(self) -> None:
        self.cursor -= 1

    def error(self, description: str) -> SyntaxProblem:
        return SyntaxProblem(description, self.cursor - 1)

    def untranslatable(self, construct: str, index: int, why: str) -> TranslationError:
        return TranslationError(construct, index, why)

    def defer(self, construct: str, index: int, why: str) -> None:
        """A construct the ``regex`` translation cannot express: the matcher runs this pattern."""
        self.engine_only = True

    def no_backtrack_in_lookbehind(self) -> None:
        """A possessive quantifier, an atomic group or a repeated ``\\R`` was just parsed: inside a
        look-behind the matcher runs the pattern. Java bounds a look-behind's atoms by the region's end,
        not by the look-behind's position (only its last node checks that it ends there), so such a node
        can take characters after the position and, never giving them back, fail the look-behind where
        the ``regex`` package, which stops at the position, matches (``\\h(?<!ı{0,3}+)`` before ``ı``)."""
        if self.lookbehind_depth:
            self.engine_only = True

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    # --- top level --------------------------------------------------------------------------------------
    def parse(self) -> Result:
        if self.length == 0:
            return Result(python="", group_count=0, program=m.Program(m.Empty(), 0, False, 0))
        node = self.expr()
        if self.length != self.cursor:
            if self.peek() == 0x29:
                raise self.error("Unmatched closing ')'")
            raise self.error("Unexpected internal error")
        if self.pending is not None:
            raise self.pending
        text = node.text
        total = self.group_count - 1
        for placeholder, number, _index in self.refs:
            text = text.replace(placeholder, f"(?:\\{number})" if number <= total else _NEVER)
            if number > total:
                self.note(f"back-reference \\{number} names a group that does not exist, so it never matches")
        if self.refs:
            # Java keeps a group's capture when a look-around or an atomic group around it fails or is
            # left, where the regex package restores it: a back-reference can see the difference.
            self.engine_only = True
        minlen = _check(node.study).minlen
        program = m.Program(node.ast, total, self.has_supp, minlen)
        return Result(python=text, notes=self.notes, group_count=total, needs_ascii=self.needs_ascii,
                      uses_grapheme=self.uses_grapheme, engine_only=self.engine_only or self.uses_grapheme,
                      program=program)

    def expr(self) -> Node:
        branches = [self.sequence()]
        while self.peek() == 0x7C:  # '|'
            self.next()
            branches.append(self.sequence())
        if len(branches) == 1:
            return branches[0]
        return Node("|".join(b.text for b in branches), _study_branch([b.study for b in branches]),
                    ast=m.Branch([b.ast for b in branches]))

    def sequence(self) -> Node:
        nodes: list[Node] = []
        while True:
            nonbmp_before = self.nonbmp
            ch = self.peek()
            if ch == 0x28:  # '('
                group = self.group0()
                if group is not None:
                    nodes.append(group)
                continue
            if ch == 0x5B:  # '['
                node = self.class_node(self.clazz(True))
            elif ch == _BACKSLASH:
                ch = self.next_escaped()
                if ch in (0x70, 0x50):  # p P
                    node = self.class_node(self.property_escape(ch))
                else:
                    self.unread()
                    node = self.atom()
            elif ch == 0x5E:  # '^'
                self.next()
                node = self.caret()
            elif ch == 0x24:  # '$'
                self.next()
                node = self.dollar(self.has(MULTILINE))
            elif ch == 0x2E:  # '.'
                self.next()
                if self.has(DOTALL):
                    node = self.set_node(cs.ALL)
                elif self.has(UNIX_LINES):
                    node = self.set_node(cs.UNIX_DOT)
                else:
                    self.note("'.' does not match the Java line terminators \\n \\r \\u0085 \\u2028 \\u2029 "
                              "unless (?s) is on")
                    node = self.set_node(cs.DOT)
            elif ch in (0x29, 0x7C):  # ')' '|'
                break
            elif ch in (0x5D, 0x7D):  # ']' '}'
                node = self.atom()
            elif ch in (0x2A, 0x2B, 0x3F):  # * + ?
                self.next()
                raise self.error(f"Dangling meta character '{chr(ch)}'")
            elif ch == 0 and self.cursor >= self.length:
                break
            else:
                node = self.atom()
            if node.kind == "set" and self.nonbmp > nonbmp_before:
                self.has_supp = True  # Pattern.newCharProperty of a predicate that is not a BmpCharPredicate
            nodes.append(self.closure(node))
        return _seq(nodes)

    # --- nodes --------------------------------------------------------------------------------------------
    def set_node(self, chars: CharSet) -> Node:
        # Java reads one UTF-16 unit for a BmpCharProperty and a code point for a CharProperty; as a
        # BmpCharPredicate never holds a surrogate (a surrogate single is SingleS), both read the same.
        return Node(chars.to_regex(), _study_add(1), kind="set", atomic=True, ast=m.Prop(chars))

    def class_node(self, chars: CharSet) -> Node:
        """A class or \\p{..} in a sequence: under an embedded (?c) Java's NFCCharProperty."""
        if not self.has(CANON_EQ):
            return self.set_node(chars)
        self.engine_only = True
        self.note("(?c) makes a class or \\p{..} match a grapheme cluster that composes (NFC) to one of its "
                  "characters; literals and '.' stay as written")
        return Node(chars.to_regex(), _study_nfc, kind="nfc", ast=m.NfcProp(chars))

    def caret(self) -> Node:
        if not self.has(MULTILINE):
            return Node("\\A", ast=m.Anchor("begin"))
        ast = m.Anchor("caret", unix=self.has(UNIX_LINES))
        if self.has(UNIX_LINES):
            return Node("(?:(?!\\Z)(?:\\A|(?<=\\n)))", ast=ast)
        term = CharSet.of(*cs.LINE_TERMINATORS).to_regex()
        # Java's Caret: never at the end of input, and not between \r and \n.
        return Node(f"(?:(?!\\Z)(?:\\A|(?<={term}))(?!(?<=\\r)\\n))", ast=ast)

    def dollar(self, multiline: bool) -> Node:
        ast = m.Anchor("dollar", multiline=multiline, unix=self.has(UNIX_LINES))
        if self.has(UNIX_LINES):
            return Node("(?=\\n|\\Z)" if multiline else "(?=\\n?\\Z)", ast=ast)
        term = CharSet.of(*cs.LINE_TERMINATORS).to_regex()
        if multiline:
            return Node(f"(?:(?={term}|\\Z)(?!(?<=\\r)\\n))", ast=ast)
        self.note("'$' (and \\Z) also match before a final line terminator (\\n, \\r\\n, \\r, \\u0085, "
                  "\\u2028, \\u2029); use \\z for the very end")
        return Node(f"(?:(?=(?:\\r\\n|{term})?\\Z)(?!(?<=\\r)\\n))", ast=ast)

    def bound(self, boundary: bool) -> Node:
        ucc = self.has(UNICODE_CHARACTER_CLASS)
        word = cs.bound_word_set(ucc).to_regex()
        base = cs.letter_or_digit().bmp_only().to_regex()
        mn_bmp = cs.category("Mn").bmp_only().to_regex()
        mn_any = cs.category("Mn").to_regex()
        left = f"(?:(?<={word})|(?<={base}{mn_bmp}+))"
        right = f"(?:(?={word})|(?={mn_any})(?<={base}{mn_bmp}*))"
        if not ucc:
            self.note("\\b on Java 17 counts every Unicode letter and digit as a word character (unlike "
                      "\\w, which is ASCII-only); Java 19+ makes \\b ASCII-only like \\w")
        ast = m.Bound(boundary, cs.bound_word_set(ucc))
        if boundary:
            return Node(f"(?:{left}(?!{right})|(?!{left}){right})", ast=ast)
        return Node(f"(?:{left}{right}|(?!{left})(?!{right}))", ast=ast)

    def closure(self, node: Node) -> Node:
        ch = self.peek()
        if ch == 0x3F:  # ?
            return self.quantify(node, 0, 1, self.qtype())
        if ch == 0x2A:
            return self.quantify(node, 0, MAX_REPS, self.qtype())
        if ch == 0x2B:
            return self.quantify(node, 1, MAX_REPS, self.qtype())
        if ch == 0x7B:  # {
            ch = self.skip()
            if not _is_ascii_digit(ch):
                raise self.error("Illegal repetition")
            cmin = 0
            while True:
                cmin = cmin * 10 + (ch - 0x30)
                if cmin > MAX_REPS:
                    raise self.error("Illegal repetition range")
                ch = self.read()
                if not _is_ascii_digit(ch):
                    break
            if ch == 0x2C:  # ,
                ch = self.read()
                if ch == 0x7D:
                    self.unread()
                    return self.quantify(node, cmin, MAX_REPS, self.qtype(), counted=True)
                cmax = 0
                while _is_ascii_digit(ch):
                    cmax = cmax * 10 + (ch - 0x30)
                    if cmax > MAX_REPS:
                        raise self.error("Illegal repetition range")
                    ch = self.read()
            else:
                cmax = cmin
            if ch != 0x7D:
                raise self.error("Unclosed counted closure")
            if cmax < cmin:
                raise self.error("Illegal repetition range")
            self.unread()
            return self.quantify(node, cmin, cmax, self.qtype(), counted=True)
        return node

    def qtype(self) -> str:
        ch = self.next()
        if ch == 0x3F:
            self.next()
            return "?"
        if ch == 0x2B:
            self.next()
            self.note("possessive quantifiers (*+ ++ ?+ {n,m}+) are not supported by Python's re before "
                      "3.11 nor by JavaScript")
            return "+"
        return ""

    def quantify(self, node: Node, cmin: int, cmax: int, mode: str, counted: bool = False) -> Node:
        if cmin == 0 and cmax == 1:
            q = "?"
        elif cmax == MAX_REPS:
            q = "*" if cmin == 0 and not counted else "+" if cmin == 1 and not counted else f"{{{cmin},}}"
        elif cmin == cmax:
            q = f"{{{cmin}}}"
        else:
            q = f"{{{cmin},{cmax}}}"
        body = node.text if node.atomic else f"(?:{node.text})"
        if node.kind == "linebreak":
            body = f"(?>{node.text})"  # Java's Curly/Ques never backtrack into \R
            self.no_backtrack_in_lookbehind()
        if mode == "+":
            self.no_backtrack_in_lookbehind()
        text = body + q + mode
        java_mode = {"": "", "?": "?", "+": "+"}[mode]
        # Which node Java builds decides how its look-behind length check sees it.
        if cmin == 0 and cmax == 1:
            if node.kind == "group" and mode != "+":
                alts = [node.ast, m.Empty()] if mode == "" else [m.Empty(), node.ast]
                return Node(text, _study_branch([node.study, _study_zero]), ast=m.Branch(alts))
            return Node(text, _study_ques(node.study), ast=m.Ques(node.ast, java_mode))
        if cmax == MAX_REPS and mode == "" and node.kind == "set":
            assert isinstance(node.ast, m.Prop)
            return Node(text, _study_greedy_char(cmin), ast=m.Greedy(node.ast, cmin))
        if node.kind == "group" and mode != "+":
            assert isinstance(node.ast, m.Group)
            if not _check(node.study).det:
                # Java's Loop: length unknown
                return Node(text, _study_loop, ast=m.Loop(node.ast, cmin, cmax, lazy=mode == "?"))
            # Java's GroupCurly never backtracks into one iteration of a fixed-length body
            # (which matters only for \R, whose length varies although Java deems it fixed).
            text = f"(?>{node.text}){q}{mode}"
            self.no_backtrack_in_lookbehind()
            return Node(text, _study_curly(node.study, cmin, cmax),
                        ast=m.GroupCurly(node.ast, cmin, cmax, java_mode))
        return Node(text, _study_curly(node.study, cmin, cmax), ast=m.Curly(node.ast, cmin, cmax, java_mode))

    def atom(self) -> Node:
        chars: list[int] = []
        prev = -1
        ch = self.peek()
        while True:
            if ch in (0x2A, 0x2B, 0x3F, 0x7B):  # * + ? {
                if len(chars) > 1:
                    self.cursor = prev
                    chars.pop()
                break
            if ch in (0x24, 0x28, 0x29, 0x2E, 0x5B, 0x5E, 0x7C):  # $ ( ) . [ ^ |
                break
            if ch == _BACKSLASH:
                ch = self.next_escaped()
                if ch in (0x70, 0x50):
                    if chars:
                        self.unread()
                        break
                    return self.set_node(self.property_escape(ch))
                self.unread()
                prev = self.cursor
                got = self.escape(inclass=False, create=not chars, isrange=False)
                if isinstance(got, int):
                    chars.append(got)
                    ch = self.peek()
                    continue
                if not chars:
                    assert isinstance(got, Node)
                    return got
                self.cursor = prev
                break
            if ch == 0 and self.cursor >= self.length:
                break
            prev = self.cursor
            chars.append(ch)
            ch = self.next()
        ci = self.has(CASE_INSENSITIVE)
        uc = self.has(UNICODE_CASE)
        if ci and not uc and any(_is_letter(c) and c >= 0x80 for c in chars):
            self.note("(?i) is ASCII-only in Java: non-ASCII letters only match case-insensitively with (?iu)")
        if len(chars) == 1:
            if self._single_is_nonbmp(chars[0]):
                self.nonbmp += 1
            return self.set_node(cs.single(chars[0], ci, uc))
        if not chars:
            return Node("", kind="slice")
        sets = [cs.slice_char(c, ci, uc) for c in chars]
        parts = [one.to_regex() for one in sets]
        # Pattern.atom's own hasSupplementary (a local): SliceS reads code points when the run holds a
        # supplementary or surrogate character, Slice compares UTF-16 units.
        supp = any(c >= 0x10000 or 0xD800 <= c <= 0xDFFF for c in chars)
        return Node("".join(parts), _study_add(len(chars)), kind="slice", ast=m.Slice(sets, supp))

    # --- escapes -----------------------------------------------------------------------------------------
    def property_escape(self, letter: int) -> CharSet:
        comp = letter == 0x50
        one_letter = True
        ch = self.next()
        if ch != 0x7B:
            self.unread()
        else:
            one_letter = False
        return self.family(one_letter, comp)

    def escape(self, inclass: bool, create: bool, isrange: bool) -> int | Node | CharSet:
        start = self.cursor
        ch = self.skip()
        c = chr(ch) if ch < 0x110000 else ""
        ucc = self.has(UNICODE_CHARACTER_CLASS)
        if c == "0":
            return self.octal()
        if c in "123456789" and ch != 0:
            if inclass:
                raise self.error("Illegal/unsupported escape sequence")
            return self.ref(ch - 0x30, start) if create else Node("")
        if c in ("A", "G", "Z", "z", "B", "R", "X") and ch != 0:
            if inclass:
                raise self.error("Illegal/unsupported escape sequence")
            if c == "A":
                return Node("\\A", ast=m.Anchor("begin"))
            if c == "G":
                self.note("\\G is the end of the previous match; for the broker's single find() it is the "
                          "start of input")
                return Node("\\A", ast=m.Anchor("begin"))
            if c == "Z":
                return self.dollar(False)
            if c == "z":
                self.note("\\z is Java's absolute end of input; Python's re spells it \\Z (Java's \\Z is "
                          "different)")
                return Node("\\Z", ast=m.Anchor("end"))
            if c == "B":
                return self.bound(False)
            if c == "R":
                self.note("\\R (any line break, \\r\\n as one) is not supported by Python's re nor "
                          "JavaScript")
                return Node("(?:\\r\\n|[\\n\\x0b\\x0c\\r\\x85\\u2028\\u2029])", _study_add(2, 1), kind="linebreak",
                            ast=m.LineBreak())
            self.uses_grapheme = True
            self.note("\\X (grapheme cluster) follows Java 17's own cluster rules (an older Unicode text "
                      "segmentation: an Indic conjunct is two clusters there); other engines and Java versions differ")
            return Node("\\X", _study_grapheme, ast=m.Grapheme())
        if c == "b" and ch != 0:
            if inclass:
                raise self.error("Illegal/unsupported escape sequence")
            if create and self.peek() == 0x7B:
                if self.skip() == 0x67:  # g
                    if self.read() == 0x7D:
                        self.engine_only = True
                        self.note("\\b{g} (grapheme cluster boundary) is Java 17's: it looks for the next "
                                  "boundary from where the last atom ended, which other engines do not")
                        return Node("", ast=m.GraphemeBound())
                    raise self.error("Illegal/unsupported escape sequence")
                self.unread()
                self.unread()
            return self.bound(True)
        shorthand = {
            "d": lambda: cs.digit_set(ucc),
            "D": lambda: cs.digit_set(ucc).negate(),
            "s": lambda: cs.space_set(ucc),
            "S": lambda: cs.space_set(ucc).negate(),
            "w": lambda: cs.word_set(ucc),
            "W": lambda: cs.word_set(ucc).negate(),
            "h": lambda: cs.HORIZ_WS,
            "H": lambda: cs.HORIZ_WS.negate(),
            "V": lambda: cs.VERT_WS.negate(),
        }
        if c == "v" and ch != 0:
            if isrange:
                return 0x0B
            self.note("\\v is vertical whitespace [\\n\\x0B\\f\\r\\x85\\u2028\\u2029] in Java but only \\x0B "
                      "in Python's re")
            return self._set_escape(cs.VERT_WS, inclass)
        if c in shorthand and ch != 0:
            if c in "DSWHV" or (ucc and c in "dsw"):
                self.nonbmp += 1
            if c in "dswDSW" and not ucc:
                self.note(ascii_shorthand_note(c))
            if c in "hH":
                self.note("\\h (horizontal whitespace) is not supported by Python's re nor JavaScript")
            return self._set_escape(shorthand[c](), inclass)
        if c == "a" and ch != 0:
            return 0x07
        if c == "e" and ch != 0:
            return 0x1B
        if c == "f" and ch != 0:
            return 0x0C
        if c == "n" and ch != 0:
            return 0x0A
        if c == "r" and ch != 0:
            return 0x0D
        if c == "t" and ch != 0:
            return 0x09
        if c == "c" and ch != 0:
            if self.cursor < self.length:
                return self.read() ^ 64
            raise self.error("Illegal control escape sequence")
        if c == "x" and ch != 0:
            return self.hex_escape()
        if c == "u" and ch != 0:
            return self.unicode_escape()
        if c == "N" and ch != 0:
            return self.named_char()
        if c == "k" and ch != 0:
            if inclass:
                raise self.error("Illegal/unsupported escape sequence")
            if self.read() != 0x3C:
                raise self.error("\\k is not followed by '<' for named capturing group")
            name = self.groupname(self.read())
            if name not in self.named:
                raise self.error(f"named capturing group <{name}> does not exist")
            return self.make_ref(self.named[name], start) if create else Node("")
        if ch < 0x80 and _is_ascii_alpha(ch):
            raise self.error("Illegal/unsupported escape sequence")
        return ch

    def _set_escape(self, chars: CharSet, inclass: bool) -> Node | CharSet:
        return chars if inclass else self.set_node(chars)

    def octal(self) -> int:
        n = self.read()
        if 0x30 <= n <= 0x37:
            m = self.read()
            if 0x30 <= m <= 0x37:
                o = self.read()
                if 0x30 <= o <= 0x37 and 0x30 <= n <= 0x33:
                    return (n - 0x30) * 64 + (m - 0x30) * 8 + (o - 0x30)
                self.unread()
                return (n - 0x30) * 8 + (m - 0x30)
            self.unread()
            return n - 0x30
        raise self.error("Illegal octal escape sequence")

    def hex_escape(self) -> int:
        n = self.read()
        if _is_hex(n):
            m = self.read()
            if _is_hex(m):
                return int(chr(n) + chr(m), 16)
        elif n == 0x7B and _is_hex(self.peek()):
            value = 0
            while True:
                n = self.read()
                if not _is_hex(n):
                    break
                value = (value << 4) + int(chr(n), 16)
                if value > 0x10FFFF:
                    raise self.error("Hexadecimal codepoint is too big")
            if n != 0x7D:
                raise self.error("Unclosed hexadecimal escape sequence")
            return value
        raise self.error("Illegal hexadecimal escape sequence")

    def _uxxxx(self) -> int:
        n = 0
        for _ in range(4):
            ch = self.read()
            if not _is_hex(ch):
                raise self.error("Illegal Unicode escape sequence")
            n = n * 16 + int(chr(ch), 16)
        return n

    def unicode_escape(self) -> int:
        n = self._uxxxx()
        if 0xD800 <= n <= 0xDBFF:
            cur = self.cursor
            if self.read() == _BACKSLASH and self.read() == 0x75:
                n2 = self._uxxxx()
                if 0xDC00 <= n2 <= 0xDFFF:
                    return 0x10000 + ((n - 0xD800) << 10) + (n2 - 0xDC00)
            self.cursor = cur
        return n

    def named_char(self) -> int:
        if self.read() == 0x7B:
            i = self.cursor
            while self.read() != 0x7D:
                if self.cursor >= self.length:
                    raise self.error("Unclosed character name escape sequence")
            name = "".join(chr(c) for c in self.temp[i:self.cursor - 1])
            try:
                found = unicodedata.lookup(name.strip().upper())
            except KeyError:
                found = ""
            if len(found) != 1:
                raise self.error(f"Unknown character name [{name}]")
            return ord(found)
        raise self.error("Illegal character name escape sequence")

    def ref(self, number: int, start: int) -> Node:
        while True:
            ch = self.peek()
            if not _is_ascii_digit(ch):
                break
            candidate = number * 10 + (ch - 0x30)
            if self.group_count - 1 < candidate:
                break
            number = candidate
            self.read()
        return self.make_ref(number, start)

    def make_ref(self, number: int, start: int) -> Node:
        if number in self.open_groups:
            self.defer(f"\\{number}", start, f"a back-reference to group {number} from inside that group has "
                       "no exact Python equivalent")
        if self.has(CASE_INSENSITIVE):
            if self.has(UNICODE_CASE):
                self.defer(f"\\{number}", start, "a case-insensitive back-reference with UNICODE_CASE ((?iu)) has "
                           "no exact Python equivalent")
            self.needs_ascii = True
            self.note("case-insensitive back-references compare ASCII letters only in Java unless (?u)")
        placeholder = f"\x00{len(self.refs)}\x00"
        self.refs.append((placeholder, number, start))
        ast = m.BackRef(number, self.has(CASE_INSENSITIVE), self.has(UNICODE_CASE))
        if self.has(CASE_INSENSITIVE):
            placeholder = f"(?i:{placeholder})"
        return Node(placeholder, _study_backref, ast=ast)

    # --- character classes ---------------------------------------------------------------------------------
    def clazz(self, consume: bool) -> CharSet:
        prev: CharSet | None = None
        curr: CharSet | None = None
        bits = cs.EMPTY
        is_neg = False
        has_bits = False
        ch = self.next()
        if ch == 0x5E and self.temp[self.cursor - 1] == 0x5B:
            ch = self.next()
            is_neg = True
        while True:
            if ch == 0x5B:
                curr = self.clazz(True)
                prev = curr if prev is None else prev.union(curr)
                self.note("nested classes and intersections ([a-z[A-Z]], [a-z&&[^aeiou]]) are Java "
                          "syntax; most other engines read them differently")
                ch = self.peek()
                continue
            if ch == 0x26:  # &
                ch = self.next()
                if ch == 0x26:
                    self.note("nested classes and intersections ([a-z[A-Z]], [a-z&&[^aeiou]]) are Java "
                              "syntax; most other engines read them differently")
                    ch = self.next()
                    right: CharSet | None = None
                    while ch not in (0x5D, 0x26):
                        if ch == 0x5B:
                            got = self.clazz(True)
                        else:
                            self.unread()
                            got = self.clazz(False)
                        right = got if right is None else right.union(got)
                        ch = self.peek()
                    if has_bits:
                        if prev is None:
                            prev = curr = bits
                        else:
                            prev = prev.union(bits)
                        has_bits = False
                    if right is not None:
                        curr = right
                    if prev is None:
                        if right is None:
                            raise self.error("Bad class syntax")
                        prev = right
                        continue
                    if curr is None:
                        raise self.error("Bad intersection syntax")
                    prev = prev.intersect(curr)
                    continue
                self.unread()
            elif ch == 0:
                if self.cursor >= self.length:
                    raise self.error("Unclosed character class")
            elif ch == 0x5D:
                if prev is not None or has_bits:
                    if consume:
                        self.next()
                    if prev is None:
                        prev = bits
                    elif has_bits:
                        prev = prev.union(bits)
                    if is_neg:
                        self.nonbmp += 1
                    return prev.negate() if is_neg else prev
            got = self.range(bits)
            if isinstance(got, tuple):
                bits = got[0]
                has_bits = True
            else:
                curr = got
                prev = got if prev is None else prev.union(got)
            ch = self.peek()

    def _single_is_nonbmp(self, ch: int) -> bool:
        """Pattern.single(ch) is no BmpCharPredicate: SingleS (supplementary or surrogate) or SingleU."""
        if ch >= 0x10000 or 0xD800 <= ch <= 0xDFFF:
            return True
        if self.has(CASE_INSENSITIVE) and self.has(UNICODE_CASE):
            upper = cs.to_upper(ch)
            return upper != cs.to_lower(upper)
        return False

    def _bits_or_single(self, bits: CharSet, ch: int) -> CharSet | tuple[CharSet]:
        ci = self.has(CASE_INSENSITIVE)
        uc = self.has(UNICODE_CASE)
        one = cs.class_char(ch, ci, uc)
        if ch < 256 and not (ci and uc and ch in cs._NOT_BITS):
            return (bits.union(one),)
        if self._single_is_nonbmp(ch):
            self.nonbmp += 1
        return one

    def range(self, bits: CharSet) -> CharSet | tuple[CharSet]:
        ch = self.peek()
        if ch == _BACKSLASH:
            ch = self.next_escaped()
            if ch in (0x70, 0x50):
                return self.property_escape(ch)
            isrange = self.temp[self.cursor + 1] == 0x2D
            self.unread()
            got = self.escape(inclass=True, create=True, isrange=isrange)
            if isinstance(got, CharSet):
                return got
            assert isinstance(got, int)
            ch = got
        else:
            self.next()
        if self.peek() == 0x2D:
            end_range = self.temp[self.cursor + 1]
            if end_range == 0x5B:
                return self._bits_or_single(bits, ch)
            if end_range != 0x5D:
                self.next()
                m = self.peek()
                if m == _BACKSLASH:
                    got = self.escape(inclass=True, create=False, isrange=True)
                    m = got if isinstance(got, int) else -1
                else:
                    self.next()
                if m < ch:
                    raise self.error("Illegal character range")
                if self.has(CASE_INSENSITIVE) or not (m < 0xD800 or (ch > 0xDFFF and m <= 0xFFFF)):
                    self.nonbmp += 1  # CIRange / CIRangeU, or a Range reaching surrogates or beyond the BMP
                return cs.class_range(ch, m, self.has(CASE_INSENSITIVE), self.has(UNICODE_CASE))
        return self._bits_or_single(bits, ch)

    def family(self, single_letter: bool, complement: bool) -> CharSet:
        self.next()
        if single_letter:
            name = chr(self.temp[self.cursor])
            self.read()
        else:
            i = self.cursor
            self.temp[self.length] = 0x7D
            while self.read() != 0x7D:
                pass
            self.temp[self.length] = 0
            j = self.cursor
            if j > self.length:
                raise self.error("Unclosed character family")
            if i + 1 >= j:
                raise self.error("Empty character family")
            name = "".join(chr(c) for c in self.temp[i:j - 1])
        ci = self.has(CASE_INSENSITIVE)
        found: CharSet | None = None
        if "=" in name:
            key, value = name.split("=", 1)
            key = key.lower()
            if key in ("sc", "script"):
                found = cs.for_script(value)
            elif key in ("blk", "block"):
                found = cs.for_block(value)
            elif key in ("gc", "general_category"):
                found = cs.for_property(value, ci)
            if found is None:
                raise self.error(f"Unknown Unicode property {{name=<{key}>, value=<{value}>}}")
        else:
            if name.startswith("In"):
                found = cs.for_block(name[2:])
            elif name.startswith("Is"):
                short = name[2:]
                found = cs.for_unicode_property(short, ci)
                if found is None:
                    found = cs.for_property(short, ci)
                if found is None:
                    found = cs.for_script(short)
            else:
                if self.has(UNICODE_CHARACTER_CLASS):
                    found = cs.for_posix_name(name, ci)
                if found is None:
                    found = cs.for_property(name, ci)
                    if name in cs.POSIX_ASCII_NAMES and not self.has(UNICODE_CHARACTER_CLASS):
                        self.note(f"\\p{{{name}}} is a POSIX class limited to US-ASCII in Java unless (?U) "
                                  "is on")
            if found is None:
                raise self.error(f"Unknown character property name {{{name}}}")
        self.note("Unicode properties follow the JVM's Unicode data (Java 17: Unicode 13); newer characters "
                  "can differ between Java versions and other engines")
        bmp = not self.has(UNICODE_CHARACTER_CLASS) and "=" not in name and (
            name in cs.POSIX_ASCII_NAMES or name == "ASCII")
        if complement:
            self.has_supp = True  # Pattern.family sets it for every \P{..}
        if complement or not bmp:
            self.nonbmp += 1
        return found.negate() if complement else found

    # --- groups --------------------------------------------------------------------------------------------
    def groupname(self, ch: int) -> str:
        if not _is_ascii_alpha(ch):
            raise self.error("capturing group name does not start with a Latin letter")
        out = []
        while True:
            out.append(chr(ch))
            ch = self.read()
            if not (_is_ascii_alpha(ch) or _is_ascii_digit(ch)):
                break
        if ch != 0x3E:
            raise self.error("named capturing group is missing trailing '>'")
        return "".join(out)

    def group0(self) -> Node | None:
        save = self.flags
        start = self.cursor
        ch = self.next()
        group_number: int | None = None
        if ch == 0x3F:  # ?
            ch = self.skip()
            if ch == 0x3A:  # (?:
                body = self.expr()
                node = Node(f"(?:{body.text})", body.study, kind="group", ast=m.Group(body.ast, 0))
            elif ch in (0x3D, 0x21):  # (?= (?!
                body = self.expr()
                op = "=" if ch == 0x3D else "!"
                node = Node(f"(?{op}{body.text})", kind="solo", ast=m.Look(body.ast, negative=ch == 0x21))
            elif ch == 0x3E:  # (?>
                self.note("atomic groups (?>...) are not supported by Python's re before 3.11 nor by "
                          "JavaScript")
                body = self.expr()
                self.no_backtrack_in_lookbehind()
                node = Node(f"(?>{body.text})", _study_independent(body.study), kind="solo",
                            ast=m.Ques(m.Group(body.ast, 0), "atomic"))
            elif ch == 0x3C:  # (?<
                ch = self.read()
                if ch not in (0x3D, 0x21):
                    name = self.groupname(ch)
                    if name in self.named:
                        raise self.error(f"Named capturing group <{name}> is already defined")
                    self.note("named groups (?<name>...) are written (?P<name>...) in Python's re")
                    group_number = self.group_count
                    self.group_count += 1
                    self.named[name] = group_number
                    node = self._capture(group_number)
                else:
                    node = self.lookbehind(ch == 0x3D, start)
            elif ch in (0x24, 0x40):  # $ @
                raise self.error("Unknown group type")
            else:
                self.unread()
                self.add_flags(start)
                ch = self.read()
                if ch == 0x29:
                    return None
                if ch != 0x3A:
                    raise self.error("Unknown inline modifier")
                body = self.expr()
                node = Node(f"(?:{body.text})", body.study, kind="group", ast=m.Group(body.ast, 0))
        else:
            group_number = self.group_count
            self.group_count += 1
            node = self._capture(group_number)
        self._accept_close()
        self.flags = save
        return self.closure(node)

    def lookbehind(self, positive: bool, start: int) -> Node:
        body_start = self.cursor
        self.lookbehind_depth += 1
        try:
            body = self.expr()
        finally:
            self.lookbehind_depth -= 1
        info = _check(body.study)
        if not info.valid:
            raise self.error("Look-behind group does not have an obvious maximum length")
        op = "=" if positive else "!"
        # Java bounds the look-behind by its computed maximum length (an int that can wrap), and
        # without supplementary characters in the rest of the pattern (Pattern.findSupplementary from
        # the body to the end) it steps back in UTF-16 units (Behind), else in code points (BehindS).
        supplementary = any(c >= 0x10000 or 0xD800 <= c <= 0xDFFF for c in self.temp[body_start:self.length])
        rmax, rmin = info.maxlen, info.minlen
        ast = m.Behind(m.Group(body.ast, 0), rmin, rmax, negative=not positive, supp=supplementary)
        node = Node(f"(?<{op}{body.text})", kind="solo", ast=ast)
        if rmax < 0:
            if supplementary:
                self.defer("(?<" + op + "...)", start, "this look-behind's maximum length overflows in Java, "
                           "which then searches a window Python cannot reproduce")
            elif rmax >= -(1 << 30):
                # Java's window is empty: the body is never tried.
                node = Node("(?!)" if positive else "", kind="solo", ast=ast)
                self.note("a look-behind whose maximum length overflows (two unbounded repeats) is never "
                          "satisfied in Java 17")
            elif rmax + (1 << 31) > rmin:
                self.defer("(?<" + op + "...)", start, "this look-behind's maximum length overflows in Java, "
                           "which then searches a window Python cannot reproduce")
        return node

    def _capture(self, number: int) -> Node:
        self.open_groups.append(number)
        try:
            body = self.expr()
        finally:
            self.open_groups.pop()
        return Node(f"({body.text})", body.study, kind="group", ast=m.Group(body.ast, number))

    def _accept_close(self) -> None:
        ch = self.temp[self.cursor]
        self.cursor += 1
        if self.has(COMMENTS):
            ch = self._parse_past_ws(ch)
        if ch != 0x29:
            raise self.error("Unclosed group")

    def add_flags(self, start: int) -> None:
        table = {
            0x69: CASE_INSENSITIVE, 0x6D: MULTILINE, 0x73: DOTALL, 0x64: UNIX_LINES, 0x75: UNICODE_CASE,
            0x63: CANON_EQ, 0x78: COMMENTS, 0x55: UNICODE_CHARACTER_CLASS | UNICODE_CASE,
        }
        ch = self.peek()
        while True:
            if ch in table:
                self.flags |= table[ch]
            elif ch == 0x2D:  # -
                self.next()
                self.sub_flags(table)
                return
            else:
                return
            ch = self.next()

    def sub_flags(self, table: dict[int, int]) -> None:
        ch = self.peek()
        while ch in table:
            self.flags &= ~table[ch]
            ch = self.next()


def _is_letter(cp: int) -> bool:
    return unicodedata.category(chr(cp)).startswith("L")
