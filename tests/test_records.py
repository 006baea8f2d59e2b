"""``@record`` behaves as ``@dataclass`` does: equality, hashing, repr, frozenness, copies, replace."""

from __future__ import annotations

import copy
import dataclasses
import pickle
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
