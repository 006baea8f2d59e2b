"""Many keys through one router at once: a vectorised twin of :meth:`Router.route` (numpy).

The hot arithmetic (FNV-1a over UTF-16 code units, the CONSISTENT_HASH ring lookup and the
CONSISTENT_HASH_MODULO transformation) runs on whole arrays. Everything that is not arithmetic
is delegated to the engine itself, once per *distinct* value: key resolution and key-filter
(:func:`keys.resolve_key`), the local-target-filter (``JavaPattern.matches``), the pool's ready
targets and quorum (:meth:`Pool.ready`) and the ring (:class:`policies.Ring`).

Order-dependent routers (ROUND_ROBIN, LEAST_CONNECTIONS, a cache that could answer differently
from the policy) go through the scalar :meth:`Router.route` loop, so every answer is the engine's.
``tests/routing/test_batch.py`` proves the vectorised path equal to the scalar one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from ..javastr import java_is_blank
from .fnv import FNV_INIT, FNV_PRIME
from .keys import (
    INTERNAL_CLIENT_ID_PREFIX,
    NULL_KEY,
    Connection,
    apply_key_filter,
    connection_from_record,
    key_filter_pattern,
    resolve_key,
)
from .policies import (
    MODULO_UNSIGNED_SINCE,
    ConsistentHashModuloPolicy,
    ConsistentHashPolicy,
    FirstElementPolicy,
    Ring,
)
from .router import OK, REFUSED_UNAVAILABLE, REFUSED_USE_ANOTHER, Router, RouteResult
from .targets import Target

if TYPE_CHECKING:
    import numpy as np

# Input columns of a keys file and the key type each one feeds (as `arouter simulate --keys-file`).
BatchInput = Union[Sequence[Union[str, None]], Sequence[Connection]]


# -- FNV-1a over UTF-16 code units, for arrays of strings -----------------------------------------
def utf16_pack(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All strings' UTF-16 code units in one array, with each string's start and length (in units).

    Lone surrogates are kept as the single units they are (Java strings may hold them).
    """
    import numpy as np

    n = len(strings)
    cp_len = np.fromiter(map(len, strings), dtype=np.int64, count=n)
    joined = "".join(strings)
    if joined.isascii():
        units: np.ndarray = np.frombuffer(joined.encode("ascii"), dtype=np.uint8)
        lengths = cp_len
    else:
        # UTF-16 is what Java holds; surrogatepass keeps lone surrogates as the units they are.
        units = np.frombuffer(joined.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)
        if len(units) == len(joined):
            lengths = cp_len  # no astral character: one unit per code point
        else:
            # each astral code point adds a second unit (a surrogate pair) to its string's length
            cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
            astral = np.flatnonzero(cps > 0xFFFF)  # code point offsets, ascending
            ends = np.cumsum(cp_len)
            lengths = cp_len + (np.searchsorted(astral, ends) - np.searchsorted(astral, ends - cp_len))
    starts = np.cumsum(lengths) - lengths
    return units, starts, lengths


def fnv1a32_batch(strings: Sequence[str]) -> np.ndarray:
    """Signed 32-bit FNV-1a of each string, as :func:`fnv.fnv1a32` (int32 array)."""
    return fnv1a32_units(*utf16_pack(strings))


def fnv1a32_units(units: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Signed 32-bit FNV-1a of each run ``units[start:start + length]`` of UTF-16 code units (int32 array)."""
    import numpy as np

    n = len(lengths)
    h = np.full(n, FNV_INIT, dtype=np.uint32)
    if n == 0:
        return h.view(np.int32)
    longest = int(lengths.max())
    # longest first, ties in input order; a 16-bit key lets numpy's stable sort use radix sort
    shortness = longest - lengths
    order = np.argsort(shortness.astype(np.uint16) if longest < 1 << 16 else shortness, kind="stable")
    s_len = lengths[order]
    s_start = starts[order]
    ascending = s_len[::-1]
    # active[p]: how many strings are longer than p (they are a prefix of the sorted order)
    active = n - np.searchsorted(ascending, np.arange(longest), side="right")
    work = np.full(n, FNV_INIT, dtype=np.uint32)
    prime = np.uint32(FNV_PRIME)
    for p in range(longest):
        k = int(active[p])
        part = work[:k]
        np.bitwise_xor(part, units[s_start[:k] + p], out=part, casting="unsafe")
        np.multiply(part, prime, out=part)
    h[order] = work
    return h.view(np.int32)


def ring_lookup(ring: Ring, hashes: np.ndarray) -> np.ndarray:
    """Index into ``ring.targets`` for each key hash: floor entry, else the smallest (Ring.lookup)."""
    import numpy as np

    points = np.asarray(ring.hashes, dtype=np.int64)
    idx = np.searchsorted(points, hashes.astype(np.int64), side="right") - 1
    idx[idx < 0] = 0
    return idx


def modulo_values(hashes: np.ndarray, modulo: int, signed: bool = False) -> np.ndarray:
    """CONSISTENT_HASH_MODULO's transformation on hashes: (h & 0x7fffffff) % modulo, in [0, modulo);
    ``signed`` (before 2.23): Java's h % modulo, with the sign of h (numpy's fmod)."""
    import numpy as np

    if signed:
        return np.fmod(hashes.astype(np.int64), modulo)
    return (hashes.astype(np.int64) & 0x7FFFFFFF) % modulo


# -- the batch ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BatchResult:
    """One entry per input key, in input order (object arrays of str / None, ``local`` bool)."""

    key: np.ndarray  # after key resolution and key-filter
    key_value: np.ndarray  # after the policy's transformation
    status: np.ndarray
    target: np.ndarray  # label: "local" for the local target, else the target name; None if refused
    node_id: np.ndarray
    local: np.ndarray
    vectorised: bool

    def __len__(self) -> int:
        return len(self.status)

    def records(self) -> Iterator[dict[str, object]]:
        for i in range(len(self.status)):
            yield {"key_value": self.key_value[i], "status": self.status[i], "target": self.target[i],
                   "node_id": self.node_id[i], "local": bool(self.local[i])}


def vectorisable(router: Router) -> bool:
    """True when every answer depends only on the key (not on earlier keys): the numpy path applies."""
    policy = router.policy
    if policy is not None and type(policy) not in (FirstElementPolicy, ConsistentHashPolicy,
                                                   ConsistentHashModuloPolicy):
        return False
    cache = router.cache
    if cache is not None and policy is not None and router.pool is not None:
        if len(cache) > 0:
            return False  # entries from elsewhere (a persisted cache) may disagree with the policy
        ready_ids = [t.node_id for t in router.pool.ready()]
        if len(set(ready_ids)) != len(ready_ids):
            return False  # a cache hit returns the first ready target with the node id, the ring the last
    return True


def route_batch(router: Router, keys: BatchInput, *, management: bool = False,
                force_scalar: bool = False) -> BatchResult:
    """Route every key; the same answers, in order, as ``router.route`` / ``router.route_key`` one by one.

    ``keys`` are either :class:`Connection` objects, or strings holding the value of the router's
    key type as a keys file's ``key`` column does (None: no value). With ``management`` the strings
    are used as given (the management ``getTarget(key)``).
    """
    return batch_router(router, management=management, force_scalar=force_scalar)(keys)


def batch_router(router: Router, *, management: bool = False,
                 force_scalar: bool = False) -> Callable[[BatchInput], BatchResult]:
    """:func:`route_batch` for one long batch given as consecutive chunks, in order.

    The path is chosen once, before the first chunk: the vectorised path leaves the router's cache
    as the scalar loop would (entries that agree with the policy), so later chunks answer as one
    :func:`route_batch` over the whole batch does.
    """
    if force_scalar or not vectorisable(router):
        return lambda keys: _scalar(router, keys, management)
    return lambda keys: _vectorised(router, keys, management)


def _conn_of(router: Router, item: str | Connection | None) -> Connection:
    if isinstance(item, Connection):
        return item
    return connection_from_record(router.key_type, {"key": item}, router.sni_encoding)


def _scalar(router: Router, keys: BatchInput, management: bool) -> BatchResult:
    import numpy as np

    n = len(keys)
    cols = [np.empty(n, dtype=object) for _ in range(5)]
    local = np.zeros(n, dtype=bool)
    tracing, router.tracing = router.tracing, False
    try:
        for i, item in enumerate(keys):
            if management:
                res: RouteResult = router.route_key(item if isinstance(item, str) else "")
            else:
                res = router.route(_conn_of(router, item))
            t = res.target
            cols[0][i], cols[1][i], cols[2][i] = res.key, res.key_value, res.status
            cols[3][i], cols[4][i] = res.target_label, (t.node_id if t is not None else None)
            local[i] = res.local
    finally:
        router.tracing = tracing
    return BatchResult(*cols, local, vectorised=False)


def _resolve(router: Router, keys: BatchInput, management: bool) -> tuple[list[str], np.ndarray]:
    """The key of every input (after key-filter) and whether it is a router's internal connection."""
    import numpy as np

    n = len(keys)
    internal = np.zeros(n, dtype=bool)
    if management:
        return [k if isinstance(k, str) else "" for k in keys], internal
    # (an SNI_HOST host name goes through connection_from_record: encoded as the client sends it,
    # an empty one is no SNI)
    plain = router.key_type in ("CLIENT_ID", "USER_NAME")
    if plain and all(issubclass(t, str) for t in set(map(type, keys))):
        strings: list[str] = list(keys)  # type: ignore[arg-type]
        out = _filtered(router.key_filter, strings)
        if router.key_type == "CLIENT_ID" and _any_starts_with(strings, INTERNAL_CLIENT_ID_PREFIX):
            for i, k in enumerate(strings):
                if k.startswith(INTERNAL_CLIENT_ID_PREFIX):
                    internal[i] = True
                    out[i] = k
        return out, internal
    cache: dict[object, tuple[str, bool]] = {}
    out = []
    for i, item in enumerate(keys):
        hit = cache.get(item)
        if hit is None:
            conn = _conn_of(router, item)
            cid = conn.client_id
            if cid is not None and cid.startswith(INTERNAL_CLIENT_ID_PREFIX):
                hit = (cid, True)
            else:
                hit = (resolve_key(router.key_type, router.key_filter, conn, native=router.native_transport,
                                   broker=router.broker_version).key, False)
            cache[item] = hit
        out.append(hit[0])
        internal[i] = hit[1]
    return out, internal


def _filtered(key_filter: str | None, keys: list[str]) -> list[str]:
    """Each key after the key-filter (a new list), computing the filter once per distinct key."""
    if key_filter is None or java_is_blank(key_filter):
        return list(keys)
    pattern = key_filter_pattern(key_filter)
    memo = {k: apply_key_filter(pattern, k).key for k in set(keys)}
    return list(map(memo.__getitem__, keys))


def _any_starts_with(keys: list[str], prefix: str) -> bool:
    """Whether some key starts with ``prefix`` (one C-level substring search rules out most batches)."""
    if prefix not in "\n".join(keys):
        return False
    return any(map(str.startswith, keys, [prefix] * len(keys)))


def _vectorised(router: Router, keys: BatchInput, management: bool) -> BatchResult:
    import numpy as np

    n = len(keys)
    key_list, internal = _resolve(router, keys, management)
    key = np.array(key_list, dtype=object) if n else np.empty(0, dtype=object)
    policy, pool = router.policy, router.pool
    value = key.copy()
    transformed = False
    hashes: np.ndarray | None = None
    if isinstance(policy, ConsistentHashModuloPolicy) and policy.modulo > 0:
        transformed = True
        sel = np.flatnonzero((key != NULL_KEY) & ~internal)
        if len(sel):
            h = fnv1a32_batch(key[sel].tolist())
            mods = modulo_values(h, policy.modulo, router.broker_version < MODULO_UNSIGNED_SINCE)
            uniq, inv = np.unique(mods, return_inverse=True)
            labels = np.array([str(int(u)) for u in uniq], dtype=object)
            value[sel] = labels[inv.reshape(-1)]
    status = np.full(n, REFUSED_USE_ANOTHER, dtype=object)
    chosen = np.full(n, -1, dtype=np.int64)  # index into `pick`
    pick: list[Target] = [router.local]
    status[internal] = OK
    chosen[internal] = 0
    todo = ~internal
    ltf = router.local_target_filter
    if ltf is not None:
        hit = np.zeros(n, dtype=bool)
        idx = np.flatnonzero(todo)
        if len(idx):
            # the filter asked once per distinct value (few after CONSISTENT_HASH_MODULO), mapped in C
            values = value[idx].tolist()
            memo = {v: ltf.matches(v) for v in set(values)}
            hit[idx] = np.fromiter(map(memo.__getitem__, values), dtype=bool, count=len(values))
        status[hit] = OK
        chosen[hit] = 0
        todo &= ~hit
    if policy is not None and pool is not None:
        targets = pool.ready()
        rest = np.flatnonzero(todo)
        status[rest] = REFUSED_UNAVAILABLE
        if targets and not isinstance(policy, ConsistentHashModuloPolicy):
            if isinstance(policy, FirstElementPolicy) or len(targets) == 1:
                pick.append(targets[0])
                chosen[rest] = 1
            else:
                ring = Ring.build(targets)
                pick.extend(ring.targets)
                if len(rest):
                    # every value still the key (no transformation): hash the keys as listed
                    hashes = fnv1a32_batch(key_list if len(rest) == n and not transformed else value[rest].tolist())
                    chosen[rest] = 1 + ring_lookup(ring, hashes)
            status[rest] = OK
            if router.cache is not None and len(rest):
                _fill_cache(router, value[rest], chosen[rest], pick)
    labels = np.array([None] + ["local" if t.local else t.name for t in pick], dtype=object)
    node_ids = np.array([None] + [t.node_id for t in pick], dtype=object)
    is_local = np.array([False] + [t.local for t in pick], dtype=bool)
    slot = chosen + 1
    key_out = key.copy()
    key_out[internal] = value[internal]
    return BatchResult(key_out, value, status, labels[slot], node_ids[slot], is_local[slot], vectorised=True)


def _fill_cache(router: Router, values: np.ndarray, chosen: np.ndarray, pick: list[Target]) -> None:
    """Leave the router's cache as the scalar loop would: every routed key -> its target's node id."""
    cache = router.cache
    assert cache is not None
    for v, c in dict(zip(values.tolist(), chosen.tolist(), strict=True)).items():
        cache.put(v, pick[c].node_id)
