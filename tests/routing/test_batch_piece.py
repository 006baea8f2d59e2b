"""A text piece routed as bytes (routing/batch_piece.py) answers as route_batch does, key for key."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from artemis_routing_cli.routing.batch import route_batch  # noqa: E402
from artemis_routing_cli.routing.batch_piece import piece_line_count, piece_router, piece_units  # noqa: E402
from artemis_routing_cli.routing.keys import INTERNAL_CLIENT_ID_PREFIX  # noqa: E402
from artemis_routing_cli.routing.policies import ConsistentHashPolicy, FirstElementPolicy  # noqa: E402
from artemis_routing_cli.routing.targets import TargetState  # noqa: E402

from .test_batch import ROUTER_SHAPES, make_router, rows  # noqa: E402

# What a text keys file holds: valid UTF-8 (no lone surrogate), no newline inside a key.
TEXT_ALPHABET = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(min_codepoint=0xA0, max_codepoint=0x2FFF),
    st.characters(min_codepoint=0x1F600, max_codepoint=0x1F64F),
    st.sampled_from("FOO0123456789\r\t\"\\"),
)
TEXT_KEYS = st.lists(st.text(TEXT_ALPHABET, max_size=12), max_size=60)


def piece_of(keys: list[str], final_newline: bool) -> bytes:
    text = "\n".join(keys) + ("\n" if final_newline and keys else "")
    return text.encode("utf-8")


def keys_of(piece: bytes) -> list[str]:
    keys = piece.decode("utf-8").split("\n")
    if piece.endswith(b"\n") or not piece:
        keys.pop()
    return keys


def check(router_args: dict, piece: bytes, management: bool = False) -> bool:
    """Route ``piece`` both ways and compare; False when the piece path declines the router."""
    by_piece = piece_router(make_router(**router_args), management)
    if by_piece is None:
        return False
    keys = keys_of(piece)
    routed = by_piece(piece)
    if routed is None:
        assert not management and INTERNAL_CLIENT_ID_PREFIX.encode() in piece
        return True
    expected = rows(route_batch(make_router(**router_args), keys, management=management))
    assert routed.count == len(keys) == len(routed.slot)
    got = [routed.outcomes[s] for s in routed.slot.tolist()]
    assert got == [row[2:] for row in expected]
    assert [row[1] for row in expected] == keys  # the value shown is the key as written
    return True


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROUTER_SHAPES, TEXT_KEYS, st.booleans(), st.booleans(), st.data())
def test_piece_equals_route_batch_for_every_shape(shape: dict, keys: list[str], final_newline: bool,
                                                  management: bool, data) -> None:
    down = data.draw(st.sets(st.sampled_from(["c1", "c2", "c3", "c4", "c5", "local"]), max_size=3))
    ids = data.draw(st.dictionaries(st.sampled_from(["c1", "c2", "c3", "c4", "c5", "local"]),
                                    st.text(TEXT_ALPHABET, max_size=8), max_size=3))
    shape = {**shape, "state": TargetState(node_ids=ids, down=frozenset(down))}
    taken = check(shape, piece_of(keys + ["FOO1", "NULL", ""], final_newline), management)
    # routers whose answer is more than the key's hash are left to route_batch
    policy = make_router(**shape).policy  # (an unknown policy name deploys no policy)
    extra = shape["cache"] or shape["ltf"] is not None or (
        policy is not None and type(policy) not in (ConsistentHashPolicy, FirstElementPolicy))  # not MODULO
    if not management:
        extra = extra or shape["key_type"] in ("SNI_HOST", "ROLE_NAME") or shape["key_filter"] not in (None, "  ")
    assert taken != extra


@pytest.mark.parametrize("policy", ["CONSISTENT_HASH", "FIRST_ELEMENT", None])
@pytest.mark.parametrize("final_newline", [True, False])
def test_the_bench_shape_mixed_unicode(policy: str | None, final_newline: bool) -> None:
    rng = np.random.default_rng(3)
    pool = ["a", "Z", "0", "-", "\u00e9", "\u4e2d", "\U0001F600", "\u0130", "user."]
    keys = ["".join(rng.choice(pool, size=int(n))) for n in rng.integers(0, 30, size=5000)]
    ascii_keys = [f"client-{i}" for i in range(5000)]
    args = {"targets": 5, "policy": policy}
    for ks in (keys, ascii_keys, ["only"], [""]):
        assert check(args, piece_of(ks, final_newline))


def test_internal_client_ids_are_left_to_route_batch() -> None:
    piece = piece_of(["a", INTERNAL_CLIENT_ID_PREFIX + "x", "b"], True)
    by_piece = piece_router(make_router(targets=3), False)
    assert by_piece is not None and by_piece(piece) is None
    assert check({"targets": 3}, piece, management=True)  # getTarget(key) has no internal connections
    assert check({"targets": 3, "key_type": "USER_NAME"}, piece)


def test_piece_units_are_java_chars() -> None:
    piece = "a\u00e9\n\n\U0001F600x\nlast".encode()
    units, starts, lengths = piece_units(piece)
    assert lengths.tolist() == [2, 0, 3, 4]
    assert [units[s:s + n].tolist() for s, n in zip(starts, lengths, strict=True)][2] == [0xD83D, 0xDE00, ord("x")]
    assert piece_line_count(piece) == 4 and piece_line_count(b"a\n") == 1 and piece_line_count(b"") == 0
