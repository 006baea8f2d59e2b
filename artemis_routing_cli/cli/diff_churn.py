"""Who moves, locally: every key through the old and the new router (routing.batch, the engine's
vectorised twin, exactly as ``simulate --keys-file``), counted by routing.transfer.

A side that has no router (added/removed) or that the broker would not deploy answers ``NO_ROUTER``
/ ``NOT_DEPLOYED`` for every key: a router the broker refuses is never routed as if it worked.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..routing.batch import BatchResult, batch_router
from ..routing.keys import NULL_KEY, Connection
from ..routing.router import Router
from ..routing.transfer import (
    Answer,
    AnswerKey,
    KeyTotals,
    Side,
    Transfer,
    becomes_refused,
    count_transfer,
    moves,
    side_answer,
)

if TYPE_CHECKING:
    import numpy as np

    from .simulate_batch import KeysFile


@dataclass(frozen=True)
class Keys:
    """The key population: a keys file (as simulate reads it) or generated connections."""

    file: KeysFile | None = None
    path: str = ""
    connections: Sequence[Connection] | None = None

    def __len__(self) -> int:
        return len(self.file) if self.file is not None else len(self.connections or ())


def _chunks(router: Router, keys: Keys) -> Iterator[BatchResult]:
    route = batch_router(router)
    if keys.connections is not None:
        step = 1 << 14
        for start in range(0, len(keys.connections), step):
            yield route(keys.connections[start:start + step])
        return
    from .simulate_batch import _input_chunks

    assert keys.file is not None
    for _shown, inputs, _lines in _input_chunks(router, keys.file, keys.path, False):
        yield route(inputs)


# An answer packed in one int: status index << 24 | target index << 2 | local << 1 | NULL key.
_TARGET_SHIFT, _STATUS_SHIFT = 2, 24


def _indices(table: dict[object, int], column: list[object]) -> np.ndarray:
    """Each value's index in ``table`` (new values appended), in one C-level pass per chunk."""
    import numpy as np

    for value in dict.fromkeys(column):
        table.setdefault(value, len(table))
    return np.fromiter(map(table.__getitem__, column), dtype=np.int64, count=len(column))


def answer_codes(router: Router, keys: Keys) -> tuple[np.ndarray, _Decoder]:
    """Every key's answer as an int, and (by int) the answers those ints stand for."""
    import numpy as np

    router.tracing = False
    statuses: dict[object, int] = {}
    targets: dict[object, int] = {}
    parts = []
    for res in _chunks(router, keys):
        code = _indices(statuses, res.status.tolist()) << _STATUS_SHIFT
        code |= _indices(targets, res.target.tolist()) << _TARGET_SHIFT
        code |= res.local.astype(np.int64) << 1
        code |= (res.key == NULL_KEY).astype(np.int64)
        parts.append(code)
    if len(targets) >= 1 << (_STATUS_SHIFT - _TARGET_SHIFT):
        raise ValueError("too many distinct targets to count")
    codes = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return codes, _Decoder(list(statuses), list(targets))


class _Decoder:
    """The answer an int of :func:`answer_codes` stands for."""

    def __init__(self, statuses: list[object], targets: list[object]) -> None:
        self._statuses, self._targets = statuses, targets

    def __getitem__(self, code: int) -> AnswerKey:
        return (str(self._statuses[code >> _STATUS_SHIFT]), _label(self._targets[(code >> _TARGET_SHIFT) & 0x3FFFFF]),
                bool(code & 2), bool(code & 1))


def _label(target: object) -> str | None:
    return None if target is None else str(target)


def local_transfers(pairs: Sequence[tuple[str, Side, Side]], keys: Keys) -> tuple[dict[str, Transfer], KeyTotals]:
    """The transfer matrix of every ``(name, old, new)`` router pair, and the keys (not answers) that move."""
    import numpy as np

    n = len(keys)
    moved, refused = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
    out: dict[str, Transfer] = {}
    for name, old, new in pairs:
        out[name] = _one_transfer(old, new, keys, moved, refused)
    return out, KeyTotals(n, int(moved.sum()), int(refused.sum()))


def local_transfer(old: Side, new: Side, keys: Keys) -> Transfer:
    """The transfer matrix of one router pair over every key."""
    import numpy as np

    n = len(keys)
    return _one_transfer(old, new, keys, np.zeros(n, dtype=bool), np.zeros(n, dtype=bool))


def _one_transfer(old: Side, new: Side, keys: Keys, moved: np.ndarray, refused: np.ndarray) -> Transfer:
    """One pair's transfer; the keys that move (are newly refused) are also set in ``moved`` (``refused``)."""
    import numpy as np

    n = len(keys)
    fixed = {0: ("", None, False, False)}
    a, ta = (np.zeros(n, dtype=np.int64), fixed) if isinstance(old, Answer) else answer_codes(old, keys)
    b, tb = (np.zeros(n, dtype=np.int64), fixed) if isinstance(new, Answer) else answer_codes(new, keys)
    width = int(b.max()) + 1 if len(b) else 1  # codes are < 2**26: the pair fits an int64
    pairs, inverse, counts = np.unique(a * width + b, return_inverse=True, return_counts=True)
    answers = [(side_answer(old, ta[p // width]), side_answer(new, tb[p % width]), int(k))
               for p, k in zip(pairs.tolist(), counts.tolist(), strict=True)]
    inverse = inverse.reshape(-1)
    moved |= np.array([moves(x, y) for x, y, _ in answers], dtype=bool)[inverse]
    refused |= np.array([becomes_refused(x, y) for x, y, _ in answers], dtype=bool)[inverse]
    return count_transfer(answers)
