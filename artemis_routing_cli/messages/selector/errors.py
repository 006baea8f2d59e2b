"""The one error a filter string can raise when the broker would refuse it."""

from __future__ import annotations

from ...errors import ArouterError


class FilterSyntaxError(ArouterError):
    """A filter the broker rejects ("invalid filter"): bad syntax, or an operand the broker's
    parser refuses (``a = NULL``, ``a > 'x'``, ``'x' IN ('x')``, a two-character ESCAPE).

    ``column`` is 1-based within the filter text (after the broker's trim and ``prefix:``
    handling, counted from the first character of the original text); ``text`` is the filter.
    """

    def __init__(self, message: str, *, column: int, text: str) -> None:
        super().__init__(f"invalid filter: {message} (column {column})", column=column)
        self.reason = message
        self.text = text
