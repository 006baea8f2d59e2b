"""A frozen slotted record filled through its open twin (``records._open_twin``) is the record
dataclass would make: its own class, frozen, equal, hashable, picklable; ``_build`` makes the same."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from artemis_routing_cli.records import record

EMPTY: Any = frozenset()  # (a mapping proxy does not pickle)


def _empty() -> Any:
    return EMPTY


_empty.__record_constant__ = EMPTY  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class DWide:
    a: int
    b: str
    c: tuple[int, ...] = ()
    d: Any = field(default_factory=_empty)
    e: list[int] = field(default_factory=list)
    f: str | None = field(default=None, repr=False)


@record(frozen=True, slots=True)
class RWide:
    a: int
    b: str
    c: tuple[int, ...] = ()
    d: Any = field(default_factory=_empty)
    e: list[int] = field(default_factory=list)
    f: str | None = field(default=None, repr=False)


@record(frozen=True, slots=True)
class RSub(RWide):
    g: int = 7


@record(frozen=True, slots=True)
class RPost:
    a: int
    b: int
    c: int

    def __post_init__(self) -> None:
        if self.a < 0:
            raise ValueError("negative")
        object.__setattr__(self, "c", self.a + self.b)


@record(frozen=True, slots=True)
class RTwo:  # too few fields for the twin: filled slot by slot
    a: int
    b: int = 2


def _hashed(obj: object) -> object:
    try:
        return hash(obj)
    except TypeError as exc:  # a list among the fields: dataclass's hash fails so too
        return str(exc)


CASES: list[tuple[Any, ...]] = [(1, "x"), (2, "y", (1, 2)), (3, "z", (), {"k": 1}, [4], "secret")]


@pytest.mark.parametrize("args", CASES)
@pytest.mark.parametrize("make", ["call", "build", "keywords"])
def test_filled_through_the_twin_as_dataclass_fills_it(args: tuple[Any, ...], make: str) -> None:
    names = ("a", "b", "c", "d", "e", "f")[:len(args)]
    if make == "call":
        obj = RWide(*args)
    elif make == "build":
        obj = RWide._record_build(*args)  # type: ignore[attr-defined]
    else:
        obj = RWide._record_build(**dict(zip(names, args, strict=True)))  # type: ignore[attr-defined]
    plain = DWide(*args)
    assert type(obj) is RWide
    assert [getattr(obj, f.name) for f in dataclasses.fields(obj)] == [
        getattr(plain, f.name) for f in dataclasses.fields(plain)]
    assert obj.d is (args[3] if len(args) > 3 else EMPTY)
    assert obj.e == (args[4] if len(args) > 4 else []) and (len(args) > 4 or obj.e is not RWide(1, "x").e)
    assert obj == RWide(*args) and _hashed(obj) == _hashed(RWide(*args)) == _hashed(plain)
    assert repr(obj).replace("RWide", "W") == repr(plain).replace("DWide", "W")
    with pytest.raises(dataclasses.FrozenInstanceError):
        obj.a = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del obj.b  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(obj)) == obj and copy.deepcopy(obj) == obj
    assert dataclasses.replace(obj, a=9) == RWide(9, *args[1:])
    assert type(dataclasses.replace(obj, a=9)) is RWide


def test_subclass_post_init_and_small_records() -> None:
    sub = RSub(1, "x", g=3)
    assert type(sub) is RSub and sub.g == 3 and sub.d is EMPTY and sub != RWide(1, "x")
    assert type(RSub._record_build(1, "x")) is RSub  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        sub.g = 4  # type: ignore[misc]
    post = RPost(1, 2, 0)
    assert type(post) is RPost and post.c == 3 and RPost._record_build(1, 2, 0) == post  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="negative"):
        RPost(-1, 2, 0)
    with pytest.raises(ValueError, match="negative"):
        RPost._record_build(-1, 2, 0)  # type: ignore[attr-defined]
    assert type(RTwo(1)) is RTwo and RTwo._record_build(1) == RTwo(1, 2)  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        RWide(1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        RWide._record_build(1)  # type: ignore[attr-defined]


def test_a_method_of_the_class_is_never_replaced_by_the_builder() -> None:
    """A record's own methods keep their names (the jregex Program has a ``_build`` of its own)."""

    @record
    class Lazy:
        a: int
        b: int
        c: int
        built: list[int] | None = None

        def _build(self) -> int:
            return self.a + self.b + self.c

    assert Lazy(1, 2, 3)._build() == 6
    assert Lazy._record_build(1, 2, 3) == Lazy(1, 2, 3)  # type: ignore[attr-defined]


def test_the_builder_name_is_refused_as_a_method() -> None:
    with pytest.raises(TypeError, match="_record_build"):
        @record
        class Clash:
            a: int

            def _record_build(self) -> None:
                pass
