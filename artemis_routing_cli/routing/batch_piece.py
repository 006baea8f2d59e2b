"""A piece of a text keys file routed as it is, without a Python object per key.

The common batch (a CLIENT_ID or USER_NAME router, or ``--management``, with no key-filter, no
local-target-filter and no cache, the policy CONSISTENT_HASH, FIRST_ELEMENT or none) routes each key
by its hash alone: the piece's bytes are turned into UTF-16 code units in one call (an all-ASCII
piece is its own code units: a Java ``char`` of an ASCII character is its byte), the lines found at
the newline units, every line hashed (:func:`batch.fnv1a32_units`) and looked up in the ring. What
comes out is one small integer per key (its *slot*) and the few outcomes the slots stand for.

Everything else (another router, a piece holding the internal client-id prefix) is left to
:mod:`.batch`: :func:`piece_router` answers None for such a router, and its router None for such a
piece. The answers are :func:`batch.route_batch`'s (``tests/routing/test_batch_piece.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..javastr import java_is_blank
from .batch import fnv1a32_units, ring_lookup, vectorisable
from .keys import INTERNAL_CLIENT_ID_PREFIX
from .policies import ConsistentHashPolicy, FirstElementPolicy, Ring
from .router import OK, REFUSED_UNAVAILABLE, REFUSED_USE_ANOTHER, Router

if TYPE_CHECKING:
    import numpy as np

# (status, target label, node id, local) of a routed key, as BatchResult holds them
Outcome = tuple[str, "str | None", "str | None", bool]

_INTERNAL = INTERNAL_CLIENT_ID_PREFIX.encode("utf-8")


@dataclass(frozen=True)
class PieceRoute:
    """The keys of one piece, in order: ``outcomes[slot[i]]`` is key i's."""

    count: int
    slot: np.ndarray  # int64, one per key
    outcomes: tuple[Outcome, ...]


def piece_router(router: Router, management: bool) -> Callable[[bytes], PieceRoute | None] | None:
    """A router of text pieces (whole lines of valid UTF-8; the last may lack its newline) for
    ``router``, or None when its answers need more than each key's hash."""
    if not vectorisable(router) or router.cache is not None or router.local_target_filter is not None:
        return None
    policy = router.policy
    if policy is not None and type(policy) not in (ConsistentHashPolicy, FirstElementPolicy):
        return None
    if not management:
        if router.key_type not in ("CLIENT_ID", "USER_NAME"):
            return None
        if router.key_filter is not None and not java_is_blank(router.key_filter):
            return None
    internal_prefix = not management and router.key_type == "CLIENT_ID"
    return lambda piece: None if internal_prefix and _INTERNAL in piece else _route(router, piece)


def _route(router: Router, piece: bytes) -> PieceRoute:
    import numpy as np

    policy, pool = router.policy, router.pool
    unrouted: Outcome = (REFUSED_USE_ANOTHER, None, None, False)
    if policy is None or pool is None:
        return _uniform(piece, (unrouted,))
    targets = pool.ready()
    if not targets:
        return _uniform(piece, ((REFUSED_UNAVAILABLE, None, None, False),))
    if isinstance(policy, FirstElementPolicy) or len(targets) == 1:
        return _uniform(piece, (_outcome(targets[0].local, targets[0].name, targets[0].node_id),))
    ring = Ring.build(targets)
    units, starts, lengths = piece_units(piece)
    slot = ring_lookup(ring, fnv1a32_units(units, starts, lengths))
    outcomes = tuple(_outcome(t.local, t.name, t.node_id) for t in ring.targets)
    return PieceRoute(len(lengths), slot.astype(np.int64, copy=False), outcomes)


def _outcome(local: bool, name: str, node_id: str) -> Outcome:
    return (OK, "local" if local else name, node_id, local)


def _uniform(piece: bytes, outcomes: tuple[Outcome, ...]) -> PieceRoute:
    import numpy as np

    count = piece_line_count(piece)
    return PieceRoute(count, np.zeros(count, dtype=np.int64), outcomes)


def piece_line_count(piece: bytes) -> int:
    """How many keys a piece holds: a line each, the final newline starting none."""
    return piece.count(b"\n") + (0 if piece.endswith(b"\n") or not piece else 1)


def piece_units(piece: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The UTF-16 code units of a piece's lines (uint8 when all ASCII, else uint16), with each line's
    start and length in units."""
    import numpy as np

    units: np.ndarray
    if piece.isascii():
        units = np.frombuffer(piece, dtype=np.uint8)
    else:
        # the piece is valid UTF-8 (checked when loaded): every character is one unit or a surrogate pair
        units = np.frombuffer(piece.decode("utf-8").encode("utf-16-le", "surrogatepass"), dtype=np.uint16)
    ends = np.flatnonzero(units == 0x0A)
    if piece and not piece.endswith(b"\n"):
        ends = np.append(ends, len(units))
    starts = np.empty_like(ends)
    if len(ends):
        starts[0] = 0
        starts[1:] = ends[:-1] + 1
    return units, starts, ends - starts
