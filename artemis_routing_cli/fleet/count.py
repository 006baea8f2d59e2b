"""Counting where the domain is not finite: every key through every pod's router (routing.batch, the
engine's vectorised twin, exactly as ``simulate --keys-file``), and where each key has a home.

A client walks the pods until one takes it. Started at pod p, a key ends at p when p accepts it
(status OK, local target); when p redirects it (OK, another target) it follows that one hop, as
clients do, and ends at the target's pod if that pod accepts it; a refusal ends nowhere. A key's
homes are the pods it can end at, a bit set (bit i: the fleet's pod i): exactly one home, no home,
or several.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..routing.batch import BatchResult
from ..routing.keys import NULL_KEY
from ..routing.router import OK
from ..routing.transfer import Answer, Transfer, count_transfer

if TYPE_CHECKING:
    import numpy as np

NO_HOME = "NO_HOME"
ALL = -1  # a pod without the router: it accepts every client
SAMPLES = 5


def chunk_homes(results: Sequence[BatchResult | int | None], targets: dict[str, int],
                redirects: Sequence[bool] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each key's homes (int64 bit sets), whether a redirect took it there, and whether its key is NULL
    on every pod that reads it (no value, no key-filter match; asked only of keys with several homes),
    for one chunk.

    ``results[i]``: pod i's answers (a BatchResult), ``ALL`` (no such router: it accepts every client) or
    None (the pod does not run: it takes nobody). ``redirects[i]``: whether pod i's router may answer
    with a target other than the local one (it has a pool and a policy that selects); by default, yes.
    A BatchResult's ``local`` is only ever true for an OK answer."""
    import numpy as np

    n = next((len(r) for r in results if isinstance(r, BatchResult)), 0)
    local = np.zeros((len(results), n), dtype=bool)
    for i, res in enumerate(results):
        if isinstance(res, BatchResult):
            local[i] = res.local
        elif res == ALL:
            local[i] = True
    homes = np.zeros(n, dtype=np.int64)
    hopped = np.zeros(n, dtype=bool)
    for i in range(len(results)):
        homes |= local[i].astype(np.int64) << i
    for i, res in enumerate(results):
        if not isinstance(res, BatchResult) or (redirects is not None and not redirects[i]):
            continue
        sent = (res.status == OK) & ~local[i]
        if not sent.any():
            continue
        for label in set(res.target[sent].tolist()):
            j = targets.get(label)
            if j is None:
                continue
            there = sent & (res.target == label) & local[j]
            homes |= there.astype(np.int64) << j
            hopped |= there
    null = np.zeros(n, dtype=bool)
    several = np.flatnonzero((homes & (homes - 1)) != 0)
    if len(several):
        null[several] = True
        for res in results:
            if isinstance(res, BatchResult):
                null[several] &= res.key[several] == NULL_KEY
    return homes, hopped, null


def pods_of(mask: int, names: Sequence[str]) -> list[str]:
    return [name for i, name in enumerate(names) if mask >> i & 1]


def home_label(mask: int, names: Sequence[str]) -> str:
    pods = pods_of(mask, names)
    return "+".join(pods) if pods else NO_HOME


def home_answer(mask: int, names: Sequence[str]) -> Answer:
    """A key's homes as diff's transfer counts an answer: OK at a pod (or several), else NO_HOME."""
    return Answer(OK, home_label(mask, names)) if mask else Answer(NO_HOME)


@dataclass
class KeyCount:
    """Keys counted by their homes."""

    pods: list[str]
    keys: int = 0
    by_homes: Counter[int] = field(default_factory=Counter)
    hopped: int = 0  # keys that reach a home through a redirect
    internal: int = 0  # a router's own connections (client id $.artemis.internal.router.client.…): not counted
    null_several: int = 0  # NULL keys several pods take (NULL|N on every pod): shown, not failed
    samples: dict[str, list[tuple[str, int]]] = field(default_factory=lambda: {"no_home": [], "several_homes": []})

    def add(self, shown: Sequence[object], homes: np.ndarray, hopped: np.ndarray,
            internal: np.ndarray | None = None, null: np.ndarray | None = None) -> None:
        """Count a chunk; a router's own client ids (``internal``) and NULL keys several pods take are
        counted apart."""
        import numpy as np

        skip = np.zeros(len(homes), dtype=bool)
        if internal is not None:
            self.internal += int(internal.sum())
            skip |= internal
        if null is not None:
            several = null & ((homes & (homes - 1)) != 0) & ~skip
            self.null_several += int(several.sum())
            skip |= several
        if skip.any():
            keep = np.flatnonzero(~skip)
            shown, homes, hopped = [shown[i] for i in keep.tolist()], homes[keep], hopped[keep]
        self.keys += len(homes)
        self.hopped += int(hopped.sum())
        values, counts = np.unique(homes, return_counts=True)
        self.by_homes.update(dict(zip(values.tolist(), counts.tolist(), strict=True)))
        for kind, sel in (("no_home", homes == 0), ("several_homes", (homes & (homes - 1)) != 0)):
            room = SAMPLES - len(self.samples[kind])
            if room > 0:
                for i in np.flatnonzero(sel)[:room].tolist():
                    self.samples[kind].append((str(shown[i]), int(homes[i])))

    def add_groups(self, homes: np.ndarray, hopped: np.ndarray, null: np.ndarray, counts: np.ndarray) -> None:
        """Count groups of keys that share their answers (``counts[i]`` keys each; no samples)."""
        for mask, hop, is_null, count in zip(homes.tolist(), hopped.tolist(), null.tolist(), counts.tolist(),
                                             strict=True):
            if is_null and mask & (mask - 1):
                self.null_several += count
                continue
            self.keys += count
            self.hopped += count if hop else 0
            self.by_homes[mask] += count

    @property
    def no_home(self) -> int:
        return self.by_homes.get(0, 0)

    @property
    def several(self) -> int:
        return sum(c for m, c in self.by_homes.items() if m & (m - 1))

    @property
    def one_home(self) -> int:
        return self.keys - self.no_home - self.several

    def load(self) -> dict[str, int]:
        """Keys with exactly one home, per pod."""
        out = dict.fromkeys(self.pods, 0)
        for mask, count in self.by_homes.items():
            if mask and not mask & (mask - 1):
                out[self.pods[mask.bit_length() - 1]] += count
        return out

    @property
    def skew(self) -> float | None:
        """The busiest pod's keys over the mean (1.0: even), over the pods that run."""
        load = list(self.load().values())
        mean = sum(load) / len(load) if load else 0
        return max(load) / mean if mean else None


def home_pairs(before: np.ndarray, after: np.ndarray) -> Counter[tuple[int, int]]:
    """How many keys have each (homes before, homes after) pair, for one chunk."""
    import numpy as np

    if not len(before):
        return Counter()
    pairs, counts = np.unique(np.stack([before, after], axis=1), axis=0, return_counts=True)
    return Counter({(int(a), int(b)): int(c) for (a, b), c in zip(pairs.tolist(), counts.tolist(), strict=True)})


def home_transfer(pairs: Counter[tuple[int, int]], names_before: Sequence[str], names_after: Sequence[str]) -> Transfer:
    """Who moves between pods, and who loses their home: diff's transfer computation
    (routing.transfer.count_transfer) over the keys' homes before and after."""
    return count_transfer((home_answer(a, names_before), home_answer(b, names_after), c)
                          for (a, b), c in sorted(pairs.items()))
