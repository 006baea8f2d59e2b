"""Java value semantics the broker's filter engine relies on: comparison with its (lopsided)
numeric promotion table, arithmetic with int/long wrap-around, ``String + x`` formatting and the
string-to-number parsing used by ``convert_string_expressions:``.

Promotion, as the broker's comparison does it (left type → what the right type may be):
Byte → Short/Integer/Long/Float/Double; Short → Integer/Long/Float/Double; Integer →
Long/Float/Double; Long → Integer/Float/Double; Float → Integer/Long/Double; Double →
Integer/Long/Float. Any other pair of different types compares as FALSE (so ``5 = byteProp``
is FALSE although ``byteProp = 5`` can be TRUE). Booleans only equal booleans, strings only
strings, unless the filter starts with ``convert_string_expressions:``.
"""

from __future__ import annotations

import math
import re

from ...javastr import bounded_int
from ..values import (
    INT_MAX,
    INT_MIN,
    LONG_MAX,
    LONG_MIN,
    JBigDecimal,
    JByte,
    JFloat,
    JLong,
    JShort,
    int_to_float32,
    to_float32,
    wrap_int,
)


class EvalError(Exception):
    """The broker's evaluation throws: it logs "invalid filter" and the message does not match."""


# Kind codes
BOOL, BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, STRING, BIGDEC = range(9)
KIND = {bool: BOOL, JByte: BYTE, JShort: SHORT, int: INT, JLong: LONG, JFloat: FLOAT, float: DOUBLE,
        str: STRING, JBigDecimal: BIGDEC}
FLOATING = (FLOAT, DOUBLE)
NUMBERS = frozenset({BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, BIGDEC})

# (left kind, right kind) -> which side is converted to what, for the number pairs the broker promotes.
_TO_LEFT_FLOAT = "lf"  # convert left to float
_TO_LEFT_DOUBLE = "ld"
_TO_RIGHT_FLOAT = "rf"
_TO_RIGHT_DOUBLE = "rd"
_AS_INTEGERS = "ii"  # both integral: compare the numbers
_PROMOTE: dict[tuple[int, int], str] = {
    (BYTE, SHORT): _AS_INTEGERS, (BYTE, INT): _AS_INTEGERS, (BYTE, LONG): _AS_INTEGERS,
    (BYTE, FLOAT): _TO_LEFT_FLOAT, (BYTE, DOUBLE): _TO_LEFT_DOUBLE,
    (SHORT, INT): _AS_INTEGERS, (SHORT, LONG): _AS_INTEGERS,
    (SHORT, FLOAT): _TO_LEFT_FLOAT, (SHORT, DOUBLE): _TO_LEFT_DOUBLE,
    (INT, LONG): _AS_INTEGERS, (INT, FLOAT): _TO_LEFT_FLOAT, (INT, DOUBLE): _TO_LEFT_DOUBLE,
    (LONG, INT): _AS_INTEGERS, (LONG, FLOAT): _TO_LEFT_FLOAT, (LONG, DOUBLE): _TO_LEFT_DOUBLE,
    (FLOAT, INT): _TO_RIGHT_FLOAT, (FLOAT, LONG): _TO_RIGHT_FLOAT, (FLOAT, DOUBLE): _TO_LEFT_DOUBLE,
    (DOUBLE, INT): _TO_RIGHT_DOUBLE, (DOUBLE, LONG): _TO_RIGHT_DOUBLE, (DOUBLE, FLOAT): _TO_RIGHT_DOUBLE,
}


def to_double(value: object) -> float:
    """Java ``Number.doubleValue()``."""
    if isinstance(value, float):
        return float(value)
    try:
        return float(value)  # type: ignore[arg-type]
    except OverflowError:
        return math.inf if value > 0 else -math.inf  # type: ignore[operator]


def to_float(value: object) -> float:
    """Java ``Number.floatValue()``."""
    if isinstance(value, float):
        return to_float32(value)
    return int_to_float32(value)  # type: ignore[arg-type]


def float_cmp(a: float, b: float) -> int:
    """Java ``Double.compare``: -0.0 < 0.0 and NaN equals itself and is above everything."""
    if a < b:
        return -1
    if a > b:
        return 1
    a_nan, b_nan = a != a, b != b
    if a_nan or b_nan:
        return (1 if a_nan else 0) - (1 if b_nan else 0)
    if a == 0.0:
        return (math.copysign(1.0, a) > 0) - (math.copysign(1.0, b) > 0)
    return 0


def string_cmp(a: str, b: str) -> int:
    """Java ``String.compareTo``: UTF-16 code unit order (differs from code points above U+FFFF)."""
    if a == b:
        return 0
    if a.isascii() and b.isascii():
        return -1 if a < b else 1
    ea, eb = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
    return -1 if ea < eb else 1


def same_kind_cmp(k: int, a: object, b: object) -> int:
    if k in FLOATING:
        return float_cmp(a, b)  # type: ignore[arg-type]
    if k == STRING:
        return string_cmp(a, b)  # type: ignore[arg-type]
    return (a > b) - (a < b)  # type: ignore[operator]


# --- string parsing (convert_string_expressions:) ------------------------------------------

_JAVA_INT = re.compile(r"[+-]?\d+")
_JAVA_FLOAT = re.compile(r"[+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)", re.ASCII)
_INT_BITS = {BYTE: 8, SHORT: 16, INT: 32, LONG: 64}
_INT_TYPES = {BYTE: JByte, SHORT: JShort, INT: int, LONG: JLong}


def parse_java_integer(text: str, k: int) -> object | None:
    """``Byte/Short/Integer/Long.valueOf(text)``; None where Java throws NumberFormatException."""
    if not _JAVA_INT.fullmatch(text):
        return None
    value = bounded_int(text)
    bits = _INT_BITS[k]
    if not -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
        return None
    return _INT_TYPES[k](value)


def parse_java_double(text: str) -> float | None:
    """``Double.valueOf(text)`` (decimal forms; surrounding control/space characters trimmed)."""
    stripped = java_trim(text)
    if not _JAVA_FLOAT.fullmatch(stripped):
        return None
    body = stripped.rstrip("fFdD") if stripped[-1:] in "fFdD" and "Infinity" not in stripped else stripped
    return float(body.replace("Infinity", "inf"))


def java_trim(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def from_string(text: str, k: int) -> object | None:
    """Convert a string to the Java type ``k`` like ``X.valueOf(String)``; None on failure."""
    if k == BOOL:
        return text.lower() == "true"
    if k in _INT_BITS:
        return parse_java_integer(text, k)
    value = parse_java_double(text)
    if value is None:
        return None
    return JFloat(to_float32(value)) if k == FLOAT else value


# --- comparison ------------------------------------------------------------------------------


def compare(lv: object, rv: object, convert: bool) -> int | None:
    """The broker's ``compare``: an ordering of two non-null values, or None meaning the
    comparison is FALSE whatever the operator (incompatible types, unparsable string)."""
    lk, rk = KIND[type(lv)], KIND[type(rv)]
    if lk == rk:
        return same_kind_cmp(lk, lv, rv)
    how = _PROMOTE.get((lk, rk))
    if how is not None:
        if how == _AS_INTEGERS:
            return (lv > rv) - (lv < rv)  # type: ignore[operator]
        if how == _TO_LEFT_FLOAT:
            return float_cmp(to_float(lv), float(rv))  # type: ignore[arg-type]
        if how == _TO_LEFT_DOUBLE:
            return float_cmp(to_double(lv), float(rv))  # type: ignore[arg-type]
        if how == _TO_RIGHT_FLOAT:
            return float_cmp(float(lv), to_float(rv))  # type: ignore[arg-type]
        return float_cmp(float(lv), to_double(rv))  # type: ignore[arg-type]
    if not convert:
        return None
    if rk == STRING and lk != BIGDEC:
        converted = from_string(rv, lk)  # type: ignore[arg-type]
        if converted is None:
            return None
        return same_kind_cmp(lk, lv, converted)
    if lk == STRING and rk not in (STRING, BIGDEC):
        converted = from_string(lv, rk)  # type: ignore[arg-type]
        if converted is None:
            return None
        return same_kind_cmp(rk, converted, rv)
    return None


def equal(lv: object, rv: object, convert: bool) -> bool | None:
    """The broker's ``=``: both null is TRUE; only the left null is unknown; only the right
    null is FALSE; else Java ``equals`` or a promoted comparison."""
    if lv is None:
        return True if rv is None else None
    if rv is None:
        return False
    tl, tr = type(lv), type(rv)
    if tl is tr:
        if tl is float or tl is JFloat:
            return float_cmp(lv, rv) == 0  # type: ignore[arg-type]
        return lv == rv
    result = compare(lv, rv, convert)
    return result == 0


# --- arithmetic ------------------------------------------------------------------------------


def as_number(value: object, convert: bool) -> object:
    k = KIND[type(value)]
    if k in NUMBERS:
        return value
    if convert and k == STRING:
        text = value  # type: str  # type: ignore[assignment]
        if "." in text:
            parsed = parse_java_double(text)
        else:
            parsed = parse_java_integer(text, LONG)
        if parsed is not None:
            return parsed
    raise EvalError(f"cannot convert {java_to_string(value)!r} ({kind_name(value)}) into a number")


def kind_name(value: object) -> str:
    from ..values import kind

    return kind(value)


def arithmetic(op: str, left: object, right: object, convert: bool) -> object:
    if op == "+" and type(left) is str:
        return left + java_to_string(right)
    a = as_number(left, convert)
    b = as_number(right, convert)
    if op == "/":
        return java_divide(to_double(a), to_double(b))
    if op == "%":
        return java_mod(to_double(a), to_double(b))
    ka, kb = KIND[type(a)], KIND[type(b)]
    if ka in FLOATING or kb in FLOATING:
        x, y = to_double(a), to_double(b)
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        return _mul(x, y)
    bits = 64 if LONG in (ka, kb) else 32
    x, y = wrap_int(int(a), bits), wrap_int(int(b), bits)  # type: ignore[call-overload]
    result = x + y if op == "+" else x - y if op == "-" else x * y
    result = wrap_int(result, bits)
    return JLong(result) if bits == 64 else result


def _mul(x: float, y: float) -> float:
    try:
        return x * y
    except OverflowError:  # pragma: no cover - float multiply does not raise in CPython
        return math.inf


def java_divide(x: float, y: float) -> float:
    if y == 0.0:
        if x == 0.0 or x != x:
            return math.nan
        return math.copysign(math.inf, x) * math.copysign(1.0, y)
    return x / y


def java_mod(x: float, y: float) -> float:
    if y == 0.0 or x != x or y != y or math.isinf(x):
        return math.nan
    if math.isinf(y):
        return x
    return math.fmod(x, y)


def negate(value: object) -> object:
    k = KIND.get(type(value))
    if k == INT:
        return wrap_int(-value, 32)  # type: ignore[operator]
    if k == LONG:
        return JLong(wrap_int(-value, 64))  # type: ignore[operator]
    if k == DOUBLE:
        return -value  # type: ignore[operator]
    if k == FLOAT:
        return JFloat(-value)  # type: ignore[operator]
    if k == BIGDEC:
        result = -int(value)  # type: ignore[call-overload]
        return JLong(result) if result == LONG_MIN else JBigDecimal(result)
    if k in (BYTE, SHORT):
        raise EvalError(f"the broker cannot negate a {kind_name(value)} value")
    return None  # strings and booleans negate to null


# --- String.valueOf ---------------------------------------------------------------------------


def java_to_string(value: object) -> str:
    """Java ``String.valueOf`` for the property types (used by ``'text' + x``)."""
    t = type(value)
    if t is str:
        return value  # type: ignore[return-value]
    if t is bool:
        return "true" if value else "false"
    if t is float:
        return double_to_string(value)  # type: ignore[arg-type]
    if t is JFloat:
        return float_to_string(value)  # type: ignore[arg-type]
    if value is None:
        return "null"
    return str(int(value))  # type: ignore[call-overload]


def _format_java(digits: str, exponent: int, negative: bool) -> str:
    """``digits`` d1d2... with value 0.d1d2... * 10**exponent, in Java's toString layout."""
    sign = "-" if negative else ""
    sci_exp = exponent - 1  # value = d1.d2... * 10**sci_exp
    if -3 <= sci_exp < 7:
        if exponent <= 0:
            return f"{sign}0.{'0' * -exponent}{digits}"
        if exponent >= len(digits):
            return f"{sign}{digits}{'0' * (exponent - len(digits))}.0"
        return f"{sign}{digits[:exponent]}.{digits[exponent:]}"
    mantissa = digits[0] + "." + (digits[1:] or "0")
    return f"{sign}{mantissa}E{sci_exp}"


def _shortest(value: float, text: str) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    from decimal import Decimal  # (here: most filters print no double)

    sign, digit_tuple, exp = Decimal(text).as_tuple()
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    exponent = len(digit_tuple) + int(exp)
    return _format_java(digits, exponent, bool(sign))


def double_to_string(value: float) -> str:
    """Java ``Double.toString`` (shortest digits that read back to the same double)."""
    return _shortest(value, repr(float(value)))


def float_to_string(value: float) -> str:
    """Java ``Float.toString`` (shortest digits that read back to the same float)."""
    if math.isnan(value) or math.isinf(value) or value == 0.0:
        return _shortest(value, "0")
    for precision in range(1, 10):
        text = f"{value:.{precision - 1}e}"
        if to_float32(float(text)) == value:
            return _shortest(value, text)
    return _shortest(value, repr(float(value)))  # pragma: no cover - 9 digits always suffice


__all__ = [
    "EvalError", "INT_MAX", "INT_MIN", "LONG_MAX", "LONG_MIN", "arithmetic", "compare", "equal",
    "java_to_string", "negate",
]
