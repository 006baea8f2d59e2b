"""Code-point sets for the Java-regex adapter: Java's character classes, properties and case rules.

Every Java character class, property (``\\p{..}``), shorthand (``\\w``) and case-insensitive literal
is turned into an explicit set of code points computed from the JVM's own Unicode data
(``_javaregex_unicode``), then written out as one flat ``[...]`` class for the ``regex`` package.
That keeps the answers those of ``java.util.regex`` whatever Unicode version Python has.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import cache, lru_cache
from types import ModuleType
from typing import Any

MAX_CP = 0x10FFFF


class _LazyTables:
    """The JVM's Unicode tables (``_javaregex_unicode``, a large module), imported on first use:
    most patterns (literals, ASCII classes, ``.``) never need them."""

    _module: ModuleType | None = None

    def __getattr__(self, name: str) -> Any:
        if _LazyTables._module is None:
            _LazyTables._module = importlib.import_module("artemis_routing_cli.jregex._javaregex_unicode")
        return getattr(_LazyTables._module, name)


uni = _LazyTables()

# Java's line terminators for '.', '^' and '$' (outside UNIX_LINES): \n \r \u0085 \u2028 \u2029.
LINE_TERMINATORS = (0x0A, 0x0D, 0x85, 0x2028, 0x2029)


class CharSet:
    """An immutable set of code points kept as sorted, disjoint, non-adjacent inclusive ranges."""

    __slots__ = ("ranges",)

    def __init__(self, ranges: Iterable[tuple[int, int]] = ()) -> None:
        merged: list[tuple[int, int]] = []
        for lo, hi in sorted(ranges):
            if merged and lo <= merged[-1][1] + 1:
                if hi > merged[-1][1]:
                    merged[-1] = (merged[-1][0], hi)
            else:
                merged.append((lo, hi))
        self.ranges: tuple[tuple[int, int], ...] = tuple(merged)

    @classmethod
    def of(cls, *cps: int) -> CharSet:
        return cls((c, c) for c in cps)

    @classmethod
    def flat(cls, flat: tuple[int, ...]) -> CharSet:
        return cls(zip(flat[0::2], flat[1::2], strict=True))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CharSet) and self.ranges == other.ranges

    def __hash__(self) -> int:
        return hash(self.ranges)

    def __repr__(self) -> str:
        return f"CharSet({self.ranges!r})"

    def __contains__(self, cp: object) -> bool:
        if not isinstance(cp, int):
            return False
        lo_i, hi_i = 0, len(self.ranges)
        while lo_i < hi_i:
            mid = (lo_i + hi_i) // 2
            lo, hi = self.ranges[mid]
            if cp < lo:
                hi_i = mid
            elif cp > hi:
                lo_i = mid + 1
            else:
                return True
        return False

    def is_empty(self) -> bool:
        return not self.ranges

    def single(self) -> int | None:
        """The one code point of a one-element set, else None."""
        if len(self.ranges) == 1 and self.ranges[0][0] == self.ranges[0][1]:
            return self.ranges[0][0]
        return None

    def union(self, *others: CharSet) -> CharSet:
        rs = list(self.ranges)
        for o in others:
            rs.extend(o.ranges)
        return CharSet(rs)

    def negate(self) -> CharSet:
        out: list[tuple[int, int]] = []
        nxt = 0
        for lo, hi in self.ranges:
            if lo > nxt:
                out.append((nxt, lo - 1))
            nxt = hi + 1
        if nxt <= MAX_CP:
            out.append((nxt, MAX_CP))
        return CharSet(out)

    def intersect(self, other: CharSet) -> CharSet:
        out: list[tuple[int, int]] = []
        a, b = self.ranges, other.ranges
        i = j = 0
        while i < len(a) and j < len(b):
            lo = max(a[i][0], b[j][0])
            hi = min(a[i][1], b[j][1])
            if lo <= hi:
                out.append((lo, hi))
            if a[i][1] < b[j][1]:
                i += 1
            else:
                j += 1
        return CharSet(out)

    def minus(self, other: CharSet) -> CharSet:
        return self.intersect(other.negate())

    def bmp_only(self) -> CharSet:
        return self.intersect(BMP)

    def to_regex(self) -> str:
        """This set as a pattern for the ``regex`` package matching exactly one of its code points."""
        one = self.single()
        if one is not None:
            return literal(one)
        if not self.ranges:
            return "[^\\x00-\\U0010ffff]"
        parts = []
        for lo, hi in self.ranges:
            if lo == hi:
                parts.append(_class_char(lo))
            elif hi == lo + 1:
                parts.append(_class_char(lo) + _class_char(hi))
            else:
                parts.append(_class_char(lo) + "-" + _class_char(hi))
        return "[" + "".join(parts) + "]"


def _escape_cp(cp: int) -> str:
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _class_char(cp: int) -> str:
    if cp < 0x80:
        return chr(cp) if chr(cp).isalnum() or chr(cp) == "_" else _escape_cp(cp)
    # Letters and other graphic characters as themselves: the regex package parses a class of
    # thousands of ranges (\p{L}) far faster without an escape per character.
    if chr(cp).isprintable() and not 0xD800 <= cp <= 0xDFFF:
        return chr(cp)
    return _escape_cp(cp)


def literal(cp: int) -> str:
    """One code point as a literal outside a class."""
    if cp < 0x80 and (chr(cp).isalnum() or chr(cp) == "_"):
        return chr(cp)
    return _escape_cp(cp)


BMP = CharSet([(0, 0xFFFF)])
ALL = CharSet([(0, MAX_CP)])
EMPTY = CharSet()


def _rng(*pairs: tuple[int, int]) -> CharSet:
    return CharSet(pairs)


def _chars(text: str) -> CharSet:
    return CharSet.of(*(ord(c) for c in text))


# --- Java's ASCII ctype classes (java.util.regex.ASCII) -------------------------------------------
ASCII_DIGIT = _rng((0x30, 0x39))
ASCII_UPPER = _rng((0x41, 0x5A))
ASCII_LOWER = _rng((0x61, 0x7A))
ASCII_ALPHA = ASCII_UPPER.union(ASCII_LOWER)
ASCII_ALNUM = ASCII_ALPHA.union(ASCII_DIGIT)
ASCII_WORD = ASCII_ALNUM.union(CharSet.of(0x5F))
ASCII_SPACE = _chars(" \t\n\x0b\f\r")
ASCII_BLANK = _chars(" \t")
ASCII_CNTRL = _rng((0x00, 0x1F), (0x7F, 0x7F))
ASCII_PUNCT = _rng((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E))
ASCII_GRAPH = _rng((0x21, 0x7E))
ASCII_PRINT = _rng((0x20, 0x7E))
ASCII_XDIGIT = ASCII_DIGIT.union(_rng((0x41, 0x46), (0x61, 0x66)))
ASCII_ALL = _rng((0x00, 0x7F))

# \h and \v (Pattern.HorizWS / Pattern.VertWS)
HORIZ_WS = _rng((0x09, 0x09), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x180E, 0x180E),
                (0x2000, 0x200A), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))
VERT_WS = _rng((0x0A, 0x0D), (0x85, 0x85), (0x2028, 0x2029))

DOT = CharSet.of(*LINE_TERMINATORS).negate()
UNIX_DOT = CharSet.of(0x0A).negate()


# --- Unicode data of the JVM -------------------------------------------------------------------------
@cache
def category(*names: str) -> CharSet:
    return EMPTY.union(*(CharSet.flat(uni.CATEGORIES[n]) for n in names))


@cache
def java_property(name: str) -> CharSet:
    return CharSet.flat(uni.PROPERTIES[name])


LETTER_CATS = ("Lu", "Ll", "Lt", "Lm", "Lo")
CASED_CATS = ("Lu", "Ll", "Lt")
PUNCT_CATS = ("Pd", "Ps", "Pe", "Pc", "Po", "Pi", "Pf")


@cache
def _unicode_predicate(name: str) -> CharSet | None:
    """CharPredicates' Unicode predicates (names upper-case), case-sensitive variants."""
    if name == "ALPHABETIC":
        return java_property("Alphabetic")
    if name == "DIGIT":
        return category("Nd")
    if name == "LETTER":
        return category(*LETTER_CATS)
    if name == "IDEOGRAPHIC":
        return java_property("Ideographic")
    if name == "LOWERCASE":
        return java_property("LowerCase")
    if name == "UPPERCASE":
        return java_property("UpperCase")
    if name == "TITLECASE":
        return category("Lt")
    if name in ("WHITESPACE", "WHITE_SPACE"):
        return category("Zs", "Zl", "Zp").union(_rng((0x09, 0x0D), (0x85, 0x85)))
    if name == "CONTROL":
        return category("Cc")
    if name == "PUNCTUATION":
        return category(*PUNCT_CATS)
    if name in ("HEXDIGIT", "HEX_DIGIT"):
        return category("Nd").union(ASCII_XDIGIT, _rng((0xFF10, 0xFF19), (0xFF21, 0xFF26), (0xFF41, 0xFF46)))
    if name == "ASSIGNED":
        return category("Cn").negate()
    if name in ("NONCHARACTERCODEPOINT", "NONCHARACTER_CODE_POINT"):
        nonchars = [(0xFDD0, 0xFDEF)] + [(p * 0x10000 + 0xFFFE, p * 0x10000 + 0xFFFF) for p in range(17)]
        return CharSet(nonchars)
    if name == "ALNUM":
        return java_property("Alphabetic").union(category("Nd"))
    if name == "BLANK":
        return category("Zs").union(CharSet.of(0x09))
    if name == "GRAPH":
        return category("Zs", "Zl", "Zp", "Cc", "Cs", "Cn").negate()
    if name == "PRINT":
        graph = category("Zs", "Zl", "Zp", "Cc", "Cs", "Cn").negate()
        return graph.union(category("Zs"), CharSet.of(0x09)).minus(category("Cc"))
    if name in ("JOINCONTROL", "JOIN_CONTROL"):
        return _rng((0x200C, 0x200D))
    if name == "WORD":
        return java_property("Alphabetic").union(category("Mn", "Me", "Mc", "Nd", "Pc"), _rng((0x200C, 0x200D)))
    return None


def _cased_union() -> CharSet:
    return java_property("LowerCase").union(java_property("UpperCase"), category("Lt"))


def _posix_unicode(name: str, ci: bool) -> CharSet | None:
    """CharPredicates.getPosixPredicate: POSIX names under UNICODE_CHARACTER_CLASS (name upper-case)."""
    table = {
        "ALPHA": "ALPHABETIC", "SPACE": "WHITE_SPACE", "PUNCT": "PUNCTUATION", "XDIGIT": "HEX_DIGIT",
        "ALNUM": "ALNUM", "CNTRL": "CONTROL", "DIGIT": "DIGIT", "BLANK": "BLANK", "GRAPH": "GRAPH",
        "PRINT": "PRINT",
    }
    if name in ("LOWER", "UPPER"):
        if ci:
            return _cased_union()
        return java_property("LowerCase" if name == "LOWER" else "UpperCase")
    if name in table:
        return _unicode_predicate(table[name])
    return None


def for_unicode_property(name: str, ci: bool) -> CharSet | None:
    """CharPredicates.forUnicodeProperty (the name after ``Is``)."""
    up = name.upper()
    if up in ("LOWERCASE", "UPPERCASE", "TITLECASE") and ci:
        return _cased_union()
    p = _unicode_predicate(up) if up not in ("DIGIT", "ALNUM", "BLANK", "GRAPH", "PRINT") else None
    if p is not None:
        return p
    return _posix_unicode(up, ci)


def for_posix_name(name: str, ci: bool) -> CharSet | None:
    return _posix_unicode(name.upper(), ci)


_CATEGORY_GROUPS = {
    "L": LETTER_CATS,
    "M": ("Mn", "Me", "Mc"),
    "N": ("Nd", "Nl", "No"),
    "Z": ("Zs", "Zl", "Zp"),
    "C": ("Cc", "Cf", "Co", "Cs", "Cn"),
    "P": PUNCT_CATS,
    "S": ("Sm", "Sc", "Sk", "So"),
    "LC": CASED_CATS,
    "LD": LETTER_CATS + ("Nd",),
}

_JAVA_METHODS = {
    "javaAlphabetic": lambda: java_property("Alphabetic"),
    "javaIdeographic": lambda: java_property("Ideographic"),
    "javaDigit": lambda: category("Nd"),
    "javaDefined": lambda: category("Cn").negate(),
    "javaLetter": lambda: category(*LETTER_CATS),
    "javaLetterOrDigit": lambda: category(*LETTER_CATS, "Nd"),
    "javaJavaIdentifierStart": lambda: java_property("JavaIdentifierStart"),
    "javaJavaIdentifierPart": lambda: java_property("JavaIdentifierPart"),
    "javaUnicodeIdentifierStart": lambda: java_property("UnicodeIdentifierStart"),
    "javaUnicodeIdentifierPart": lambda: java_property("UnicodeIdentifierPart"),
    "javaIdentifierIgnorable": lambda: java_property("IdentifierIgnorable"),
    "javaSpaceChar": lambda: category("Zs", "Zl", "Zp"),
    "javaWhitespace": lambda: java_property("Whitespace"),
    "javaISOControl": lambda: _rng((0x00, 0x1F), (0x7F, 0x9F)),
    "javaMirrored": lambda: java_property("Mirrored"),
}

_POSIX_ASCII = {
    "ASCII": ASCII_ALL, "Alnum": ASCII_ALNUM, "Alpha": ASCII_ALPHA, "Blank": ASCII_BLANK,
    "Cntrl": ASCII_CNTRL, "Digit": ASCII_DIGIT, "Graph": ASCII_GRAPH, "Print": ASCII_PRINT,
    "Punct": ASCII_PUNCT, "Space": ASCII_SPACE, "XDigit": ASCII_XDIGIT,
}

#: Names that CharPredicates.forProperty knows, for the portability notes.
POSIX_ASCII_NAMES = frozenset(_POSIX_ASCII) | {"Lower", "Upper"}


def for_property(name: str, ci: bool) -> CharSet | None:
    """CharPredicates.forProperty: categories, POSIX (US-ASCII) names and javaXxx methods."""
    if name in ("Lu", "Ll", "Lt"):
        return category(*CASED_CATS) if ci else category(name)
    if name in uni.CATEGORIES:
        return category(name)
    if name in _CATEGORY_GROUPS:
        return category(*_CATEGORY_GROUPS[name])
    if name == "L1":
        return _rng((0x00, 0xFF))
    if name == "all":
        return ALL
    if name in _POSIX_ASCII:
        return _POSIX_ASCII[name]
    if name == "Lower":
        return ASCII_ALPHA if ci else ASCII_LOWER
    if name == "Upper":
        return ASCII_ALPHA if ci else ASCII_UPPER
    if name in ("javaLowerCase", "javaUpperCase", "javaTitleCase"):
        if ci:
            return _cased_union()
        return {"javaLowerCase": java_property("LowerCase"), "javaUpperCase": java_property("UpperCase"),
                "javaTitleCase": category("Lt")}[name]
    if name in _JAVA_METHODS:
        return _JAVA_METHODS[name]()
    return None


@cache
def for_script(name: str) -> CharSet | None:
    """Character.UnicodeScript.forName: ISO 15924 alias or enum name, case-insensitive."""
    up = name.upper()
    key = uni.SCRIPT_ALIASES.get(up, up)
    if key not in uni.SCRIPTS:
        return None
    return CharSet.flat(uni.SCRIPTS[key])


@cache
def for_block(name: str) -> CharSet | None:
    """Character.UnicodeBlock.forName: canonical name, no-space name or field name."""
    key = uni.BLOCK_NAMES.get(name.upper())
    if key is None:
        return None
    return CharSet.flat(uni.BLOCKS[key])


# --- case mappings (Character.toUpperCase / toLowerCase, simple) --------------------------------------
@cache
def _case_map(name: str) -> dict[int, int]:
    flat: tuple[int, ...] = getattr(uni, name)
    return dict(zip(flat[0::2], flat[1::2], strict=True))


def to_upper(cp: int) -> int:
    return _case_map("TO_UPPER").get(cp, cp)


def to_lower(cp: int) -> int:
    return _case_map("TO_LOWER").get(cp, cp)


def fold(cp: int) -> int:
    """Character.toLowerCase(Character.toUpperCase(cp)): Java's UNICODE_CASE comparison key."""
    return to_lower(to_upper(cp))


@lru_cache(maxsize=1)
def _fold_classes() -> dict[int, frozenset[int]]:
    classes: dict[int, set[int]] = {}
    for cp in set(_case_map("TO_UPPER")) | set(_case_map("TO_LOWER")):
        key = fold(cp)
        if key != cp:
            classes.setdefault(key, set()).add(cp)
    return {k: frozenset(v) for k, v in classes.items()}


def _ascii_lower(cp: int) -> int:
    return cp + 0x20 if 0x41 <= cp <= 0x5A else cp


def _ascii_upper(cp: int) -> int:
    return cp - 0x20 if 0x61 <= cp <= 0x7A else cp


def single_u(lower: int) -> CharSet:
    """Pattern.SingleU(lower): lower itself, or any ch with fold(ch) == lower."""
    return CharSet.of(lower, *_fold_classes().get(lower, ()))


def single(cp: int, ci: bool, uc: bool) -> CharSet:
    """Pattern.single(ch): one literal character under the current case flags."""
    if ci:
        if uc:
            upper = to_upper(cp)
            lower = to_lower(upper)
            if upper != lower:
                return single_u(lower)
        elif cp < 0x80 and _ascii_lower(cp) != _ascii_upper(cp):
            return CharSet.of(_ascii_lower(cp), _ascii_upper(cp))
    return CharSet.of(cp)


def slice_char(cp: int, ci: bool, uc: bool) -> CharSet:
    """One character of a multi-character literal run (Pattern.SliceI / SliceU)."""
    if ci:
        if uc:
            return single_u(fold(cp))
        if cp < 0x80 and _ascii_lower(cp) != _ascii_upper(cp):
            return CharSet.of(_ascii_lower(cp), _ascii_upper(cp))
    return CharSet.of(cp)


# Latin-1 characters that a class under CASE_INSENSITIVE|UNICODE_CASE does not keep as bits.
_NOT_BITS = frozenset((0xFF, 0xB5, 0x49, 0x69, 0x53, 0x73, 0x4B, 0x6B, 0xC5, 0xE5))


def class_char(cp: int, ci: bool, uc: bool) -> CharSet:
    """Pattern.bitsOrSingle: one character inside [...]."""
    if cp < 256 and not (ci and uc and cp in _NOT_BITS):
        if ci:
            if cp < 0x80:
                return CharSet.of(cp, _ascii_upper(cp), _ascii_lower(cp))
            if uc:
                return CharSet.of(cp, to_lower(cp), to_upper(cp))
        return CharSet.of(cp)
    return single(cp, ci, uc)


def class_range(lo: int, hi: int, ci: bool, uc: bool) -> CharSet:
    """Pattern.Range / CIRange / CIRangeU."""
    base = CharSet([(lo, hi)])
    if not ci:
        return base
    extra: list[int] = []
    if uc:
        for cp in set(_case_map("TO_UPPER")) | set(_case_map("TO_LOWER")):
            up = to_upper(cp)
            if lo <= up <= hi or lo <= to_lower(up) <= hi:
                extra.append(cp)
    else:
        for cp in range(0x80):
            if lo <= _ascii_upper(cp) <= hi or lo <= _ascii_lower(cp) <= hi:
                extra.append(cp)
    return base.union(CharSet.of(*extra))


# --- shorthands -------------------------------------------------------------------------------------
def word_set(ucc: bool) -> CharSet:
    return _unicode_predicate("WORD") if ucc else ASCII_WORD  # type: ignore[return-value]


def digit_set(ucc: bool) -> CharSet:
    return category("Nd") if ucc else ASCII_DIGIT


def space_set(ucc: bool) -> CharSet:
    return _unicode_predicate("WHITE_SPACE") if ucc else ASCII_SPACE  # type: ignore[return-value]


def bound_word_set(ucc: bool) -> CharSet:
    """Pattern.Bound.isWord on Java 17: WORD under (?U), else '_' or Character.isLetterOrDigit."""
    if ucc:
        return word_set(True)
    return category(*LETTER_CATS, "Nd").union(CharSet.of(0x5F))


def letter_or_digit() -> CharSet:
    return category(*LETTER_CATS, "Nd")
