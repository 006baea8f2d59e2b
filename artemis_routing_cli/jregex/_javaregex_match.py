"""A backtracking matcher with java.util.regex's own semantics, over UTF-16 code units.

The fast path of :mod:`javaregex` translates a Java pattern for the ``regex`` package, which is
exact on texts of BMP characters. Java, though, walks a ``String`` in UTF-16 units: ``find()``
tries every unit as a start (a low surrogate too, unless the pattern holds supplementary
characters), a character class reads a code point where it stands (a lone low surrogate is one),
a look-behind steps back a fixed window of units (or code points), and ``\\X``, ``\\b{g}`` and a
class under ``(?c)`` follow JDK 17's own grapheme rules. This module runs the parsed pattern
(:class:`Node` trees built by the parser) the way ``java.util.regex.Pattern``'s node classes do:
each node matches at ``i`` and calls its successor, and the same node kinds exist here (Curly,
GroupCurly, Loop, Branch, Ques, Pos/Neg, Behind/BehindS, BackRef/CIBackRef, Bound, Caret, Dollar,
LineEnding, XGrapheme, GraphemeBound, NFCCharProperty, Slice/SliceS). It is used for texts with
surrogates and for the constructs the translation cannot express.
"""

from __future__ import annotations

import sys
import time
import unicodedata
from collections.abc import Callable
from dataclasses import field

from artemis_routing_cli.jregex import _javaregex_charset as cs
from artemis_routing_cli.jregex._javaregex_charset import CharSet
from artemis_routing_cli.jregex._javaregex_grapheme import next_boundary
from artemis_routing_cli.jregex._match_budget import MATCH_DEADLINE, WORK_PER_CHECK
from artemis_routing_cli.records import record

Fn = Callable[["State", int], bool]

#: Steps (node visits) one find() or matches() may take before it is given up as too costly:
#: a hostile pattern backtracks exponentially in Java too, and a key is answered in bounded time.
STEP_LIMIT = 2_000_000
#: Python frames one match may nest (one or two per atom and iteration; only direct Python-to-Python
#: calls, which CPython 3.11+ keeps off the C stack); Java itself overflows its thread stack earlier.
_RECURSION = 100_000


class TooComplex(Exception):
    """The pattern needs more steps (or deeper recursion) on this text than arouter allows."""


class JavaThrows(TooComplex):
    """java.util.regex itself throws on this text (an index out of bounds inside the matcher)."""


def _i32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _is_high(u: int) -> bool:
    return 0xD800 <= u <= 0xDBFF


def _is_low(u: int) -> bool:
    return 0xDC00 <= u <= 0xDFFF


def units(text: str) -> list[int]:
    """A Python str as the UTF-16 code units of the Java String it stands for."""
    out: list[int] = []
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            out.append(0xD800 + (cp >> 10))
            out.append(0xDC00 + (cp & 0x3FF))
        else:
            out.append(cp)
    return out


def to_text(us: list[int]) -> str:
    """UTF-16 units back to a Python str (pairs joined, lone surrogates kept)."""
    raw = b"".join(u.to_bytes(2, "little") for u in us)
    return raw.decode("utf-16-le", "surrogatepass")


class State:
    """Matcher state: the text, group bounds, loop counters, and the step budget."""

    __slots__ = ("s", "n", "groups", "locals", "last", "lb_to", "steps", "first", "deadline", "work")

    def __init__(self, s: list[int], ngroups: int, nlocals: int) -> None:
        self.deadline = MATCH_DEADLINE.get()
        self.work = 0  # units since the clock was last looked at (a budget only)
        self.s = s
        self.n = len(s)
        self.groups = [-1] * (2 * ngroups + 2)
        self.locals = [-1] * max(nlocals, 1)
        self.last = 0
        self.lb_to = -1
        self.steps = 0
        self.first = 0

    def cp_at(self, i: int) -> int:
        """Character.codePointAt(seq, i)."""
        u = self.s[i]
        if 0xD800 <= u <= 0xDBFF and i + 1 < self.n:
            v = self.s[i + 1]
            if 0xDC00 <= v <= 0xDFFF:
                return 0x10000 + ((u - 0xD800) << 10) + (v - 0xDC00)
        return u

    def cp_before(self, i: int) -> int:
        """Character.codePointBefore(seq, i)."""
        u = self.s[i - 1]
        if 0xDC00 <= u <= 0xDFFF and i - 2 >= 0:
            h = self.s[i - 2]
            if 0xD800 <= h <= 0xDBFF:
                return 0x10000 + ((h - 0xD800) << 10) + (u - 0xDC00)
        return u

    def tick(self) -> None:
        self.steps += 1
        if self.steps > STEP_LIMIT:
            raise TooComplex
        if self.deadline is not None:
            self.charge(1)

    def charge(self, units: int) -> None:
        """Count ``units`` of work against the budget; past :data:`WORK_PER_CHECK`, look at the clock."""
        if self.deadline is None:
            return
        self.work += units
        if self.work >= WORK_PER_CHECK:
            self.work = 0
            if time.monotonic() > self.deadline:
                raise TimeoutError("regex evaluation exceeded its time budget")


def _accept(st: State, i: int) -> bool:
    """Pattern.accept: the end of an atom matched on its own (Curly, lookarounds, groups)."""
    st.last = i
    return True


def _charcount(cp: int) -> int:
    return 2 if cp > 0xFFFF else 1


# --- the tree -----------------------------------------------------------------------------------------
@record
class Node:
    """One java.util.regex node kind; ``compile(next)`` gives the function matching it then ``next``."""

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:  # pragma: no cover - abstract
        raise NotImplementedError


@record
class Ctx:
    """What compiling needs beyond one node: local slots (loop counters, group starts)."""

    nlocals: int = 0

    def local(self) -> int:
        self.nlocals += 1
        return self.nlocals - 1


@record
class Empty(Node):
    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        return nxt


@record
class Seq(Node):
    items: list[Node] = field(default_factory=list)

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        fn = nxt
        for item in reversed(self.items):
            fn = item.compile(fn, ctx)
        return fn


@record
class Prop(Node):
    """CharProperty (reads a code point) or BmpCharProperty (``bmp``: reads one unit)."""

    chars: CharSet = field(default_factory=CharSet)
    bmp: bool = False

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        chars = self.chars
        if self.bmp:
            def bmp_prop(st: State, i: int) -> bool:
                st.tick()
                return i < st.n and st.s[i] in chars and nxt(st, i + 1)
            return bmp_prop

        def prop(st: State, i: int) -> bool:
            st.tick()
            if i >= st.n:
                return False
            cp = st.cp_at(i)
            return cp in chars and nxt(st, i + _charcount(cp))
        return prop


@record
class NfcProp(Node):
    """NFCCharProperty: a class or ``\\p{..}`` under an embedded ``(?c)``: the longest prefix of the
    grapheme cluster at ``i`` (two code points or more) whose NFC is one member, else one code point
    when the cluster is one."""

    chars: CharSet = field(default_factory=CharSet)

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        chars = self.chars

        def nfc(st: State, i: int) -> bool:
            st.tick()
            if i >= st.n:
                return False
            ch0 = st.cp_at(i)
            n = _charcount(ch0)
            j = next_boundary(st.s, i, st.n, st.cp_at)
            if i + n == j:
                return ch0 in chars and nxt(st, j)
            while i + n < j:
                form = unicodedata.normalize("NFC", to_text(st.s[i:j]))
                if len(form) == 1 and ord(form) in chars and nxt(st, j):
                    return True
                j -= _charcount(st.cp_before(j))
            return False
        return nfc


@record
class Slice(Node):
    """A literal run: per UTF-16 unit (Slice, SliceI, SliceU) or per code point (``supp``: SliceS...)."""

    chars: list[CharSet] = field(default_factory=list)
    supp: bool = False

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        chars = self.chars
        if not self.supp:
            size = len(chars)

            def slice_units(st: State, i: int) -> bool:
                st.tick()
                if i + size > st.n:
                    return False
                st.charge(size)
                s = st.s
                for k in range(size):
                    if s[i + k] not in chars[k]:
                        return False
                return nxt(st, i + size)
            return slice_units

        def slice_cps(st: State, i: int) -> bool:
            st.tick()
            st.charge(len(chars))
            x = i
            for one in chars:
                if x >= st.n:
                    return False
                cp = st.cp_at(x)
                if cp not in one:
                    return False
                x += _charcount(cp)
                if x > st.n:
                    return False
            return nxt(st, x)
        return slice_cps


@record
class Branch(Node):
    alternatives: list[Node] = field(default_factory=list)

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        fns = [alt.compile(nxt, ctx) for alt in self.alternatives]

        def branch(st: State, i: int) -> bool:
            st.tick()
            for fn in fns:  # plain calls, no generator: deep recursion stays off the C stack
                if fn(st, i):
                    return True
            return False
        return branch


@record
class Group(Node):
    """GroupHead ... GroupTail: ``number`` > 0 captures (0: a non-capturing group)."""

    body: Node = field(default_factory=Empty)
    number: int = 0

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        return self.compile_group(nxt, ctx)[0]

    def compile_group(self, nxt: Fn, ctx: Ctx) -> tuple[Fn, int]:
        """The GroupHead function and its local slot (the start of the current iteration)."""
        slot = ctx.local()
        number = self.number

        def tail(st: State, i: int) -> bool:
            start = st.locals[slot]
            if start < 0:  # inside GroupCurly: the curly records the group
                st.last = i
                return True
            if number == 0:
                return nxt(st, i)
            g = st.groups
            save0, save1 = g[2 * number], g[2 * number + 1]
            g[2 * number], g[2 * number + 1] = start, i
            if nxt(st, i):
                return True
            g[2 * number], g[2 * number + 1] = save0, save1
            return False

        body = self.body.compile(tail, ctx)

        def head(st: State, i: int) -> bool:
            st.tick()
            save = st.locals[slot]
            st.locals[slot] = i
            ok = body(st, i)
            st.locals[slot] = save
            return ok
        return head, slot


@record
class Curly(Node):
    """Curly: ``atom`` (matched on its own, first way only) repeated; mode "" greedy, "?" lazy, "+"
    possessive."""

    atom: Node = field(default_factory=Empty)
    cmin: int = 0
    cmax: int = 0
    mode: str = ""

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        atom = self.atom.compile(_accept, ctx)
        cmin, cmax, mode = self.cmin, self.cmax, self.mode

        def curly(st: State, i: int) -> bool:
            st.tick()
            j = 0
            while j < cmin:
                if not atom(st, i):
                    return False
                i = st.last
                j += 1
            if mode == "?":
                while True:
                    if nxt(st, i):
                        return True
                    if j >= cmax or not atom(st, i) or st.last == i:
                        return False
                    i = st.last
                    j += 1
            if mode == "+":
                while j < cmax and atom(st, i) and st.last != i:
                    i = st.last
                    j += 1
                return nxt(st, i)
            ends = [i]
            while j < cmax and atom(st, i) and st.last != i:
                i = st.last
                ends.append(i)
                j += 1
            for end in reversed(ends):
                if nxt(st, end):
                    return True
            return False
        return curly


@record
class Greedy(Node):
    """CharPropertyGreedy / BmpCharPropertyGreedy (``X*``, ``X+``, ``X{n,}`` over one character class):
    as far as it goes, then backs off one code point (``codePointBefore``) or unit at a time."""

    prop: Prop = field(default_factory=Prop)
    cmin: int = 0

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        chars, bmp, cmin = self.prop.chars, self.prop.bmp, self.cmin

        def greedy(st: State, i: int) -> bool:
            st.tick()
            n = 0
            s = st.s
            if bmp:
                while i < st.n and s[i] in chars:
                    i += 1
                    n += 1
            else:
                while i < st.n:
                    cp = st.cp_at(i)
                    if cp not in chars:
                        break
                    i += _charcount(cp)
                    n += 1
            st.charge(n)
            while n >= cmin:
                if nxt(st, i):
                    return True
                if n == cmin and not bmp:
                    return False
                i -= 1 if bmp else _charcount(st.cp_before(i))
                n -= 1
            return False
        return greedy


@record
class GroupCurly(Node):
    """GroupCurly: a deterministic group repeated, each iteration its first way, capture kept."""

    group: Group = field(default_factory=Group)
    cmin: int = 0
    cmax: int = 0
    mode: str = ""

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        number = self.group.number
        cmin, cmax, mode = self.cmin, self.cmax, self.mode
        # GroupCurly runs the group's body on its own; its GroupTail only records "last".
        one = self.group.body.compile(_tail_last, ctx)

        def groupcurly(st: State, i: int) -> bool:
            st.tick()
            g = st.groups
            save0 = g[2 * number] if number else 0
            save1 = g[2 * number + 1] if number else 0
            j = 0
            ok = True
            while j < cmin:
                if not one(st, i):
                    ok = False
                    break
                if number:
                    g[2 * number], g[2 * number + 1] = i, st.last
                i = st.last
                j += 1
            if ok:
                ok = rest(st, i, j)
            if not ok and number:
                g[2 * number], g[2 * number + 1] = save0, save1
            return ok

        def rest(st: State, i: int, j: int) -> bool:
            g = st.groups
            if mode == "?":
                while True:
                    if nxt(st, i):
                        return True
                    if j >= cmax or not one(st, i) or st.last == i:
                        return False
                    if number:
                        g[2 * number], g[2 * number + 1] = i, st.last
                    i = st.last
                    j += 1
            if mode == "+":  # pragma: no cover - Java builds a Curly for a possessive group
                while j < cmax and one(st, i) and st.last != i:
                    if number:
                        g[2 * number], g[2 * number + 1] = i, st.last
                    i = st.last
                    j += 1
                return nxt(st, i)
            save0 = g[2 * number] if number else 0
            save1 = g[2 * number + 1] if number else 0
            spans = []
            while j < cmax and one(st, i) and st.last != i:
                spans.append((i, st.last))
                i = st.last
                j += 1
            for start, end in reversed(spans):
                if number:
                    g[2 * number], g[2 * number + 1] = start, end
                if nxt(st, end):
                    return True
            if number:
                g[2 * number], g[2 * number + 1] = save0, save1
            return nxt(st, spans[0][0] if spans else i)
        return groupcurly


def _tail_last(st: State, i: int) -> bool:
    st.last = i
    return True


@record
class Loop(Node):
    """Prolog + Loop (greedy) or LazyLoop: a non-deterministic group repeated with backtracking into
    each iteration; an iteration that matched nothing ends the loop (Java's zero-length guard)."""

    group: Group = field(default_factory=Group)
    cmin: int = 0
    cmax: int = 0
    lazy: bool = False

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        count = ctx.local()
        cmin, cmax, lazy = self.cmin, self.cmax, self.lazy
        holder: list[Fn] = []

        def loop(st: State, i: int) -> bool:
            st.tick()
            if i > st.locals[begin]:
                c = st.locals[count]
                if c < cmin:
                    st.locals[count] = c + 1
                    ok = holder[0](st, i)
                    if not ok:
                        st.locals[count] = c
                    return ok
                if lazy:
                    if nxt(st, i):
                        return True
                    if c < cmax:
                        st.locals[count] = c + 1
                        ok = holder[0](st, i)
                        if not ok:
                            st.locals[count] = c
                        return ok
                    return False
                if c < cmax:
                    st.locals[count] = c + 1
                    if holder[0](st, i):
                        return True
                    st.locals[count] = c
            return nxt(st, i)

        head, begin = self.group.compile_group(loop, ctx)
        holder.append(head)

        def prolog(st: State, i: int) -> bool:
            st.tick()
            save = st.locals[count]
            if 0 < cmin:
                st.locals[count] = 1
                ok = head(st, i)
            elif lazy:
                ok = nxt(st, i)
                if not ok and 0 < cmax:
                    st.locals[count] = 1
                    ok = head(st, i)
            elif 0 < cmax:
                st.locals[count] = 1
                ok = head(st, i) or nxt(st, i)
            else:
                ok = nxt(st, i)
            st.locals[count] = save
            return ok
        return prolog


@record
class Ques(Node):
    """Ques over an atom: greedy, lazy ("?"), possessive ("+") or independent ("atomic", (?>..))."""

    atom: Node = field(default_factory=Empty)
    mode: str = ""

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        atom = self.atom.compile(_accept, ctx)
        mode = self.mode

        def ques(st: State, i: int) -> bool:
            st.tick()
            if mode == "":
                return (atom(st, i) and nxt(st, st.last)) or nxt(st, i)
            if mode == "?":
                return nxt(st, i) or (atom(st, i) and nxt(st, st.last))
            if mode == "+":
                if atom(st, i):
                    i = st.last
                return nxt(st, i)
            return atom(st, i) and nxt(st, st.last)
        return ques


@record
class Look(Node):
    """Pos / Neg: a look-ahead; its body matches on its own (its first way)."""

    body: Node = field(default_factory=Empty)
    negative: bool = False

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        body = self.body.compile(_accept, ctx)
        negative = self.negative

        def look(st: State, i: int) -> bool:
            st.tick()
            hit = body(st, i)
            return (hit != negative) and nxt(st, i)
        return look


def _count_back(s: list[int], index: int, count: int) -> int:
    """Pattern.countChars(seq, index, -count) for count >= 0: units spanned by ``count`` code points
    before ``index``."""
    x = index
    k = 0
    while x > 0 and k < count:
        x -= 1
        if _is_low(s[x]) and x > 0 and _is_high(s[x - 1]):
            x -= 1
        k += 1
    return index - x


def _count_forward(s: list[int], index: int, count: int) -> int:
    """Pattern.countChars(seq, index, count) for count >= 0."""
    n = len(s)
    x = index
    k = 0
    while x < n and k < count:
        x += 1
        if _is_high(s[x - 1]) and x < n and _is_low(s[x]):
            x += 1
        k += 1
    return x - index


def _count_chars(s: list[int], index: int, length: int) -> int:
    if length == 1 and 0 <= index < len(s) and not _is_high(s[index]):
        return 1
    if length >= 0:
        return _count_forward(s, index, length)
    if index == 0:
        return 0
    return _count_back(s, index, -length)


@record
class Behind(Node):
    """Behind / NotBehind (UTF-16 window) or BehindS / NotBehindS (``supp``: a window of code points):
    the body must match from some start in the window and end exactly here."""

    body: Node = field(default_factory=Empty)
    rmin: int = 0
    rmax: int = 0
    negative: bool = False
    supp: bool = False

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        def end(st: State, i: int) -> bool:
            return i == st.lb_to

        body = self.body.compile(end, ctx)
        rmin, rmax, negative, supp = self.rmin, self.rmax, self.negative, self.supp

        def behind(st: State, i: int) -> bool:
            st.tick()
            if supp:
                span_max = _count_chars(st.s, i, _i32(-rmax))
                span_min = _count_chars(st.s, i, _i32(-rmin))
            else:
                span_max, span_min = rmax, rmin
            low = max(_i32(i - span_max), 0)
            saved = st.lb_to
            st.lb_to = i
            hit = False
            j = _i32(i - span_min)
            while not hit and j >= low:
                hit = body(st, j)
                if supp:
                    j -= _count_chars(st.s, j, -1) if j > low else 1
                else:
                    j -= 1
            st.lb_to = saved
            return (hit != negative) and nxt(st, i)
        return behind


@record
class BackRef(Node):
    """BackRef (unit by unit) or CIBackRef (``ci``; ``unicode``: UNICODE_CASE)."""

    number: int = 0
    ci: bool = False
    unicode: bool = False

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        number, ci, uc = self.number, self.ci, self.unicode

        def ref(st: State, i: int) -> bool:
            st.tick()
            if 2 * number + 1 >= len(st.groups):
                return False
            j = st.groups[2 * number]
            k = st.groups[2 * number + 1]
            if j < 0:
                return False
            size = k - j
            if i + size > st.n:
                return False
            s = st.s
            st.charge(size)
            if not ci:
                for x in range(size):
                    if s[i + x] != s[j + x]:
                        return False
                return nxt(st, i + size)
            x = i
            for _ in range(size):
                if x >= st.n or j >= st.n:
                    raise JavaThrows("StringIndexOutOfBoundsException in CIBackRef")
                c1, c2 = st.cp_at(x), st.cp_at(j)
                if c1 != c2:
                    if uc:
                        u1, u2 = cs.to_upper(c1), cs.to_upper(c2)
                        if u1 != u2 and cs.to_lower(u1) != cs.to_lower(u2):
                            return False
                    elif _ascii_lower(c1) != _ascii_lower(c2):
                        return False
                x += _charcount(c1)
                j += _charcount(c2)
            return nxt(st, i + size)
        return ref


def _ascii_lower(cp: int) -> int:
    return cp + 0x20 if 0x41 <= cp <= 0x5A else cp


@record
class Anchor(Node):
    """Begin (\\A, ^), End (\\z), Caret / UnixCaret ((?m)^), Dollar / UnixDollar ($, \\Z)."""

    kind: str = "begin"
    multiline: bool = False
    unix: bool = False

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        kind, multiline, unix = self.kind, self.multiline, self.unix
        if kind == "begin":
            return lambda st, i: i == 0 and nxt(st, i)
        if kind == "end":
            return lambda st, i: i == st.n and nxt(st, i)
        if kind == "caret":
            def caret(st: State, i: int) -> bool:
                if i == st.n:
                    return False
                if i > 0:
                    ch = st.s[i - 1]
                    if unix:
                        if ch != 0x0A:
                            return False
                    else:
                        if ch not in (0x0A, 0x0D, 0x85, 0x2028, 0x2029):
                            return False
                        if ch == 0x0D and st.s[i] == 0x0A:
                            return False
                return nxt(st, i)
            return caret
        if unix:
            def unix_dollar(st: State, i: int) -> bool:
                if i < st.n:
                    if st.s[i] != 0x0A:
                        return False
                    if not multiline and i != st.n - 1:
                        return False
                return nxt(st, i)
            return unix_dollar

        def dollar(st: State, i: int) -> bool:
            n = st.n
            s = st.s
            if not multiline:
                if i < n - 2:
                    return False
                if i == n - 2 and (s[i] != 0x0D or s[i + 1] != 0x0A):
                    return False
            if i < n:
                ch = s[i]
                if ch == 0x0A:
                    if i > 0 and s[i - 1] == 0x0D:
                        return False
                elif ch not in (0x0D, 0x85, 0x2028, 0x2029):
                    return False
            return nxt(st, i)
        return dollar


@record
class Bound(Node):
    """Bound: \\b (``boundary``) or \\B, Java 17's word test (Unicode letters/digits, or WORD with (?U)),
    with a non-spacing mark after a base character counted as a word character."""

    boundary: bool = True
    word: CharSet = field(default_factory=CharSet)

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        word = self.word
        mn = cs.category("Mn")
        base = cs.letter_or_digit()
        boundary = self.boundary

        def has_base(st: State, i: int) -> bool:
            x = i
            while x >= 0:
                cp = st.cp_at(x)
                if cp in base:
                    return True
                if cp in mn:
                    x -= 1
                    continue
                return False
            return False

        def bound(st: State, i: int) -> bool:
            st.tick()
            left = right = False
            if i > 0:
                cp = st.cp_before(i)
                left = cp in word or (cp in mn and has_base(st, i - 1))
            if i < st.n:
                cp = st.cp_at(i)
                right = cp in word or (cp in mn and has_base(st, i))
            return ((left != right) == boundary) and nxt(st, i)
        return bound


@record
class LineBreak(Node):
    """LineEnding (\\R): \\r\\n, else one of \\n \\x0B \\f \\r \\x85 \\u2028 \\u2029."""

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        def linebreak(st: State, i: int) -> bool:
            st.tick()
            if i >= st.n:
                return False
            ch = st.s[i]
            if ch in (0x0A, 0x0B, 0x0C, 0x85, 0x2028, 0x2029):
                return nxt(st, i + 1)
            if ch == 0x0D:
                i += 1
                if i < st.n and st.s[i] == 0x0A and nxt(st, i + 1):
                    return True
                return nxt(st, i)
            return False
        return linebreak


@record
class Grapheme(Node):
    """XGrapheme (\\X): up to JDK 17's next grapheme cluster boundary."""

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        def grapheme(st: State, i: int) -> bool:
            st.tick()
            return i < st.n and nxt(st, next_boundary(st.s, i, st.n, st.cp_at))
        return grapheme


@record
class GraphemeBound(Node):
    """GraphemeBound (\\b{g}): at the ends, or where JDK 17 puts a boundary between two code points."""

    def compile(self, nxt: Fn, ctx: Ctx) -> Fn:
        def gbound(st: State, i: int) -> bool:
            st.tick()
            if i == 0:
                return nxt(st, i)
            if i < st.n:
                if _is_high(st.s[i - 1]) and _is_low(st.s[i]):
                    return False
                # JDK 17 looks for the next boundary from the end of the last atom matched
                # (Matcher.last), not from i - 1.
                if st.last >= st.n:
                    raise JavaThrows("StringIndexOutOfBoundsException in GraphemeBound")
                if next_boundary(st.s, st.last, st.n, st.cp_at) > i:
                    return False
            return nxt(st, i)
        return gbound


# --- running ------------------------------------------------------------------------------------------
@record
class Program:
    """A compiled pattern: ``find_start`` is Java's Start (every unit) or StartS (``supp``: not inside a
    surrogate pair); ``minlen`` is TreeInfo's minimum length, Start's guard."""

    root: Node
    group_count: int
    supp: bool
    minlen: int
    _find: Fn | None = None
    _whole: Fn | None = None
    _nlocals: int = 0

    def _build(self) -> None:
        ctx = Ctx()

        def last(st: State, i: int) -> bool:
            st.last = i
            return True

        def last_end(st: State, i: int) -> bool:
            if i != st.n:
                return False
            st.last = i
            return True

        self._find = self.root.compile(last, ctx)
        self._whole = self.root.compile(last_end, ctx)
        self._nlocals = ctx.nlocals

    def _run(self, fn: Callable[[State], bool | None], s: list[int]) -> State | None:
        old = sys.getrecursionlimit()
        if old < _RECURSION:
            sys.setrecursionlimit(_RECURSION)
        try:
            st = State(s, self.group_count, self._nlocals)
            return st if fn(st) else None
        except RecursionError:
            raise TooComplex from None
        finally:
            if old < _RECURSION:
                sys.setrecursionlimit(old)

    def prepare(self) -> None:
        """Build both entry points now rather than at the first match."""
        if self._find is None or self._whole is None:
            self._build()

    def find(self, s: list[int]) -> tuple[int, int] | None:
        """Matcher.find() from 0: the (start, end) units of the first match."""
        if self._find is None:
            self._build()
        fn = self._find
        assert fn is not None
        supp = self.supp
        guard = len(s) - self.minlen

        def search(st: State) -> bool:
            i = 0
            while i <= guard:
                if fn(st, i):
                    st.first = i
                    return True
                if supp and i + 1 < len(s) and _is_high(s[i]) and _is_low(s[i + 1]):
                    i += 2
                else:
                    i += 1
            return False

        st = self._run(search, s)
        return None if st is None else (st.first, st.last)

    def matches(self, s: list[int]) -> bool:
        """Matcher.matches(): the whole text, from 0."""
        if self._whole is None:
            self._build()
        fn = self._whole
        assert fn is not None
        return self._run(lambda st: fn(st, 0), s) is not None
