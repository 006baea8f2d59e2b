"""``@record``: a dataclass whose comparison, hash, repr and frozenness are not compiled at import.

``dataclasses.dataclass`` writes each method as source text and compiles it when the class is
created: about a millisecond a class, and ``validate`` creates some eighty at start-up (its
model, the filter and regex syntax trees), which was the largest single part of its import time.
``record`` lets the dataclass machinery write ``__init__`` (the method that runs per object) and
the frozen ``__setattr__``/``__delattr__`` only, and gives the rest as shared functions over the
fields, with the dataclass's own behaviour: ``__eq__`` compares the ``compare`` fields of two
objects of the same class (else NotImplemented), ``__hash__`` hashes the ``hash`` fields (frozen
only; a non-frozen record is unhashable), ``__repr__`` is ``Name(field=value, ...)`` over the
``repr`` fields (``...`` on recursion). Methods the class writes itself are kept, as dataclass
keeps them. ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work as on any
dataclass (its ``__dataclass_params__`` say eq and repr are not generated: they are not, here).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


def record(cls: type[T] | None = None, /, *, frozen: bool = False,
           slots: bool = False) -> Any:
    """``@dataclass`` / ``@dataclass(frozen=..., slots=...)`` with eq and repr, made cheaply."""
    def wrap(c: type[T]) -> type[T]:
        return _record(c, frozen, slots)
    return wrap if cls is None else wrap(cls)


def _key(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """The tuple of these attributes of an object (attrgetter gives a bare value for one name)."""
    if not names:
        return lambda obj: ()
    get = attrgetter(*names)
    if len(names) == 1:
        return lambda obj: (get(obj),)
    return get  # type: ignore[return-value]


def _record(cls: type[T], frozen: bool, slots: bool) -> type[T]:
    body = cls.__dict__
    own = {name for name in ("__repr__", "__eq__") if name in body}
    class_hash = body.get("__hash__", dataclasses.MISSING)
    explicit_hash = not (class_hash is dataclasses.MISSING or (class_hash is None and "__eq__" in body))
    made: Any = dataclasses.dataclass(cls, repr=False, eq=False, frozen=frozen, slots=slots)
    fields = dataclasses.fields(made)
    shown = tuple(f.name for f in fields if f.repr)
    compared = _key(tuple(f.name for f in fields if f.compare))
    hashed = _key(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))

    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    methods: dict[str, Any] = {"__repr__": reprlib.recursive_repr("...")(__repr__), "__eq__": __eq__}
    if not explicit_hash:
        methods["__hash__"] = __hash__ if frozen else None
    for name, fn in methods.items():
        if name in own:
            continue
        if fn is not None:
            fn.__qualname__ = f"{made.__qualname__}.{name}"
        setattr(made, name, fn)
    return made  # type: ignore[no-any-return]
