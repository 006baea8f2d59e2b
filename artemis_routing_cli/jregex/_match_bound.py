"""How long a text a pattern can be evaluated on without a time limit: a bound on the work of a
backtracking evaluation, worked out from the pattern's java.util.regex nodes (issue 37).

Under a budget (:mod:`._match_budget`) the ``regex`` module gets a ``timeout``, and that costs two
reads of the thread's CPU clock - system calls, several microseconds on a loaded machine, more than the
match itself. A filter such as ``^load.*`` or ``NULL|0`` cannot backtrack much: on a key of ordinary
length its worst case is a few thousand steps, far inside the budget. :func:`quick_length` gives, for
such a pattern, the longest text whose evaluation (``find`` or ``matches``) is bounded by
:data:`QUICK_WORK` units of work whatever the text holds; :class:`~.javaregex.JavaPattern` evaluates
texts up to that length without a timeout, and longer ones under the budget as before. A pattern the
bound does not cover (nested or alternating repetition, look-arounds, back-references: where
backtracking can grow exponentially) gets -1: every text is evaluated under the budget.

The bound follows the backtracking search. For a node ``a`` followed by the rest ``r``,
``work(a r) <= work(a) + exits(a) * work(r)``, where ``work(a)`` counts the steps (a node entered, a
character read) that enumerating every way ``a`` can match takes and ``exits(a)`` how many ways there
are: a class run ``X*`` reads at most n characters and backs off to n + 1 ends; ``X{m,k}`` over an atom
with one way, at least one character long, has ``min(k, n) - m + 1`` ends; an alternation adds its
branches' ways. A repetition over an atom with more than one way, or one that can match nothing, is
not covered. ``find`` tries each of the n + 1 starts (one step each when the pattern begins with
``^``/``\\A``). The ``regex`` translation has the same structure (a repeated group Java deems
deterministic is atomic there too), so the same bound holds for it; tests/routing/test_match_bound.py
holds the bound against the UTF-16 matcher's own count of the characters it reads.
"""

from __future__ import annotations

from . import _javaregex_match as m

__all__ = ["QUICK_WORK", "quick_length"]

QUICK_WORK = 10_000
"""Units of work an evaluation may take without a time limit: a unit (a node entered, a character
compared) costs the ``regex`` module tens of nanoseconds, so 10,000 stay well under a millisecond even on
a process that gets a fraction of a core (the budget is 5 ms)."""

LONGEST = 1 << 20
"""The longest text :func:`quick_length` answers for (longer than any key serve reads)."""


class _Unbounded(Exception):
    """A node whose backtracking the bound does not cover."""


def _min_length(node: m.Node) -> int:
    """The fewest UTF-16 units ``node`` can match (0 where unsure)."""
    if isinstance(node, m.Prop):
        return 1
    if isinstance(node, m.Slice):
        return len(node.chars)
    if isinstance(node, m.Seq):
        return sum(_min_length(item) for item in node.items)
    if isinstance(node, m.Branch):
        return min((_min_length(alt) for alt in node.alternatives), default=0)
    if isinstance(node, m.Group):
        return _min_length(node.body)
    if isinstance(node, m.Greedy):
        return node.cmin
    if isinstance(node, m.Curly):
        return node.cmin * _min_length(node.atom)
    if isinstance(node, m.GroupCurly | m.Loop):
        return node.cmin * _min_length(node.group)
    if isinstance(node, m.LineBreak):
        return 1
    return 0


def _bound(node: m.Node, n: int) -> tuple[int, int]:
    """(work, exits) of ``node`` on a text of ``n`` units (see the module's docstring)."""
    if isinstance(node, m.Empty):
        return 0, 1
    if isinstance(node, m.Prop | m.Anchor):
        return 1, 1
    if isinstance(node, m.Slice):
        return len(node.chars) + 1, 1
    if isinstance(node, m.Bound):
        return n + 2, 1  # \b may look back over non-spacing marks
    if isinstance(node, m.LineBreak):
        return 3, 2
    if isinstance(node, m.Group):
        return _bound(node.body, n)
    if isinstance(node, m.Seq):
        work, exits = 0, 1
        for item in reversed(node.items):  # work(a r) <= work(a) + exits(a) * work(r)
            item_work, item_exits = _bound(item, n)
            work = item_work + item_exits * work
            exits *= item_exits
        return work, exits
    if isinstance(node, m.Branch):
        work, exits = 1, 0
        for alt in node.alternatives:
            alt_work, alt_exits = _bound(alt, n)
            work += alt_work
            exits += alt_exits
        return work, max(exits, 1)
    if isinstance(node, m.Greedy):
        return 2 * n + 2, n + 1  # the run read once, then each end tried backing off
    if isinstance(node, m.Ques):
        work, exits = _bound(node.atom, n)
        return work + 1, exits + 1
    if isinstance(node, m.Curly):
        return _repeated(node.atom, node.cmin, node.cmax, node.mode == "+", n)
    if isinstance(node, m.GroupCurly):
        return _repeated(node.group, node.cmin, node.cmax, node.mode == "+", n)
    if isinstance(node, m.Loop):
        return _repeated(node.group, node.cmin, node.cmax, False, n)
    raise _Unbounded  # look-arounds, back-references, grapheme clusters, (?c) classes


def _repeated(atom: m.Node, cmin: int, cmax: int, possessive: bool, n: int) -> tuple[int, int]:
    """A repetition of ``atom``, ``cmin`` to ``cmax`` times, over a text of ``n`` units."""
    work, exits = _bound(atom, n)
    if exits != 1 or _min_length(atom) < 1:
        raise _Unbounded  # backtracking into iterations, or iterations that read nothing
    tries = min(cmax, n) + 1  # each iteration reads a character: at most n succeed, and one fails
    ends = 1 if possessive else max(min(cmax, n) - cmin + 1, 1)
    return tries * (work + 1), ends


def _work(program: m.Program, n: int, find: bool) -> int:
    work, exits = _bound(program.root, n)
    whole = work + exits  # each way the pattern matches is then checked (the end of the text, for matches)
    if not find:
        return whole
    items = program.root.items if isinstance(program.root, m.Seq) else [program.root]
    first = items[0] if items else None
    if isinstance(first, m.Anchor) and first.kind == "begin":
        return whole + n + 1  # every other start fails at its first step
    return (n + 1) * whole


def quick_length(program: m.Program | None, find: bool) -> int:
    """The longest text (in UTF-16 units, at most :data:`LONGEST`) on which ``find`` (or, ``find``
    false, ``matches``) of ``program`` takes at most :data:`QUICK_WORK` units of work; -1 where no
    bound is known."""
    if program is None:
        return -1
    try:
        if _work(program, 0, find) > QUICK_WORK:
            return -1
        if _work(program, LONGEST, find) <= QUICK_WORK:
            return LONGEST
    except _Unbounded:
        return -1
    low, high = 0, LONGEST  # work(low) within, work(high) beyond: the work grows with n
    while high - low > 1:
        middle = (low + high) // 2
        if _work(program, middle, find) <= QUICK_WORK:
            low = middle
        else:
            high = middle
    return low
