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
from ..routing.transfer import Answer, AnswerKey, Side, Transfer, count_transfer, side_answer

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


def answer_codes(router: Router, keys: Keys) -> tuple[np.ndarray, list[AnswerKey]]:
    """Every key's answer as a small int, and the answers those ints stand for."""
    import numpy as np

    router.tracing = False
    table: dict[AnswerKey, int] = {}
    parts = []
    for res in _chunks(router, keys):
        nulls = (res.key == NULL_KEY).tolist()
        rows = zip(res.status.tolist(), res.target.tolist(), res.local.tolist(), nulls, strict=True)
        parts.append(np.fromiter((table.setdefault(r, len(table)) for r in rows), dtype=np.int64,
                                 count=len(res)))
    codes = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    return codes, list(table)


def local_transfer(old: Side, new: Side, keys: Keys) -> Transfer:
    """The transfer matrix of one router pair over every key."""
    import numpy as np

    n = len(keys)
    sides = []
    for side in (old, new):
        if isinstance(side, Answer):
            sides.append((np.zeros(n, dtype=np.int64), [("", None, False, False)]))
        else:
            sides.append(answer_codes(side, keys))
    (a, ta), (b, tb) = sides
    width = max(len(tb), 1)
    combined, counts = np.unique(a * width + b, return_counts=True)
    return count_transfer((side_answer(old, ta[int(c) // width]), side_answer(new, tb[int(c) % width]), int(k))
                          for c, k in zip(combined.tolist(), counts.tolist(), strict=True))
