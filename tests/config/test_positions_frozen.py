"""Positions stay immutable without a class-wide ``__setattr__``: every public field refuses to be
set or deleted, lazy or not, before and after it is worked out."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError

import pytest

from artemis_routing_cli.config import LoadOptions, load_document
from artemis_routing_cli.config.positions import Pos
from tests.conftest import broker_xml


@pytest.mark.parametrize("name", ["file", "line", "column"])
def test_every_field_refuses_assignment_and_deletion(tmp_path, name: str) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml("<diverts><divert name='d'><address>a</address></divert></diverts>"),
                    encoding="utf-8")
    doc = load_document(str(path), LoadOptions(environ={}))
    lazy = doc.locator.locate(next(doc.core.iter("{*}divert")))
    for pos in (Pos("f.xml", 1, 2), lazy):
        before = pos.place() if pos is not lazy else None
        with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(pos, name, 9)
        with pytest.raises(FrozenInstanceError, match=f"cannot delete field '{name}'"):
            delattr(pos, name)
        with pytest.raises(AttributeError):
            pos.other = 1  # type: ignore[attr-defined]
        assert before is None or pos.place() == before
    assert lazy == Pos(lazy.file, lazy.line, lazy.column)
    assert pickle.loads(pickle.dumps(lazy)) == lazy and type(lazy) is Pos
    with pytest.raises(FrozenInstanceError):
        lazy.line = 3  # type: ignore[misc]
