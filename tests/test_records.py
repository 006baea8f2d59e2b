"""``@record`` behaves as ``@dataclass`` does: equality, hashing, repr, frozenness, copies, replace."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import sys
from dataclasses import dataclass, field

import pytest

from artemis_routing_cli.records import record


@dataclass(frozen=True, slots=True)
class DPoint:
    x: int
    y: str = "a"
    secret: str = field(default="s", repr=False)
    note: str = field(default="n", compare=False)
    tags: tuple[str, ...] = ()


@record(frozen=True, slots=True)
class RPoint:
    x: int
    y: str = "a"
    secret: str = field(default="s", repr=False)
    note: str = field(default="n", compare=False)
    tags: tuple[str, ...] = ()


@dataclass
class DBox:
    items: list[object] = field(default_factory=list)


@record
class RBox:
    items: list[object] = field(default_factory=list)


@dataclass(frozen=True)
class DOne:
    v: int


@record(frozen=True)
class ROne:
    v: int


@record(frozen=True, slots=True)
class RBase:
    pos: int


@record(frozen=True, slots=True)
class RChild(RBase):
    name: str

    def __repr__(self) -> str:
        return "own repr"


def _as(d: object) -> str:
    return repr(d).replace("DPoint", "P").replace("RPoint", "P").replace("DBox", "B").replace("RBox", "B")


def test_equality_hash_and_repr_as_dataclass() -> None:
    cases = [(1, "a", "s", "n", ()), (1, "a", "t", "m", ("q",)), (2, "b", "s", "n", ())]
    for a in cases:
        for b in cases:
            assert (DPoint(*a) == DPoint(*b)) == (RPoint(*a) == RPoint(*b))
        assert hash(DPoint(*a)) == hash(RPoint(*a))
        assert _as(DPoint(*a)) == _as(RPoint(*a))
    assert RPoint(1) != DPoint(1) and RPoint(1).__eq__(object()) is NotImplemented
    assert hash(DOne(3)) == hash(ROne(3)) and repr(ROne(3)) == "ROne(v=3)"
    assert RChild(1, "x") == RChild(1, "x") != RChild(2, "x") and repr(RChild(1, "x")) == "own repr"
    assert repr(RBase(1)) == "RBase(pos=1)" and RBase(1) != RChild(1, "x")


def test_mutable_record_is_unhashable_and_repr_survives_recursion() -> None:
    d, r = DBox(), RBox()
    d.items.append(d)
    r.items.append(r)
    assert _as(d) == _as(r) == "B(items=[...])"
    with pytest.raises(TypeError):
        hash(RBox())
    assert RBox([1]) == RBox([1]) != RBox([2])


def test_frozen_copies_pickles_and_dataclass_functions() -> None:
    p = RPoint(1, "b", tags=("t",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del p.x  # type: ignore[misc]
    assert copy.copy(p) == p and copy.deepcopy(p) == p and pickle.loads(pickle.dumps(p)) == p
    assert dataclasses.replace(p, x=5) == RPoint(5, "b", tags=("t",))
    assert dataclasses.is_dataclass(p)
    assert [f.name for f in dataclasses.fields(p)] == ["x", "y", "secret", "note", "tags"]
    assert dataclasses.asdict(p) == dataclasses.asdict(DPoint(1, "b", tags=("t",)))
    assert RPoint.__match_args__ == DPoint.__match_args__ and not hasattr(p, "__dict__")


_compiles: list[str] | None = None


def _on_audit(event: str, args: tuple[object, ...]) -> None:
    if _compiles is not None and event in ("compile", "exec"):
        _compiles.append(event)


sys.addaudithook(_on_audit)


def test_creating_a_record_compiles_nothing_and_its_first_object_makes_init() -> None:
    global _compiles
    _compiles = []
    try:
        @record(frozen=True, slots=True)
        class Made:
            a: int
            b: list[int] = field(default_factory=list)
            c: str = "c"

        created = list(_compiles)
        first = Made(1)
        again = Made(2, [3], c="d")
    finally:
        _compiles = None
    assert created == []
    assert (first.a, first.b, first.c) == (1, [], "c") and first.b is not Made(1).b
    assert (again.a, again.b, again.c) == (2, [3], "d")
    with pytest.raises(TypeError):
        Made()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Made(1, [], "x", 4)  # type: ignore[call-arg]
    assert copy.copy(again) == again and dataclasses.replace(again, c="e").c == "e"
    assert Made.__init__.__qualname__ == "test_creating_a_record_compiles_nothing_and_its_first_object_makes_init" \
        ".<locals>.Made.__init__"


def test_record_keeps_dataclass_checks_and_fallbacks() -> None:
    with pytest.raises(TypeError):
        @record
        class Thawed(RBase):
            more: int = 0
    with pytest.raises(TypeError):
        @record(frozen=True)
        class OwnSet:
            v: int

            def __setattr__(self, name: str, value: object) -> None:
                pass

    @record(frozen=True, slots=True)
    class Posted:
        v: int
        twice: int = field(init=False, default=0)

        def __post_init__(self) -> None:
            object.__setattr__(self, "twice", self.v * 2)

    assert Posted(4).twice == 8 and Posted(4) == Posted(4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        Posted(1).v = 2  # type: ignore[misc]
