"""Route keys in Spark SQL, on the JVM: the deterministic router shapes, answer for answer the engine's.

The steps of ``Router.route`` (artemis-facts §2.2) become column expressions; the three pieces of Java
semantics run in our own Java UDFs (:mod:`.jvm_udf`): FNV-1a over UTF-16 units, the key-filter's
``find()`` and the local-target-filter's ``matches()`` — java.util.regex itself, the broker's engine.
Everything else comes from the engine, computed once on the driver: the pool's ready targets and
quorum (``Pool.ready``), the ring (``policies.Ring.build``), the local target, labels and node ids.

1. a client id starting with ``$.artemis.internal.router.client.`` -> the local target;
2. key = the value of the key type (missing -> ``NULL``), then ``find`` with the key-filter
   (no match -> ``NULL``);
3. CONSISTENT_HASH_MODULO with MODULO > 0: a key other than ``NULL`` becomes
   ``(fnv(key) & 0x7fffffff) % MODULO`` (int arithmetic that cannot overflow: the wrap-around of
   FNV stays in Java, so ANSI mode is never tripped);
4. local-target-filter ``matches`` -> the local target;
5. no policy or no pool -> REFUSED_USE_ANOTHER; no ready targets (quorum) or CONSISTENT_HASH_MODULO ->
   REFUSED_UNAVAILABLE; FIRST_ELEMENT or a single target -> the first; CONSISTENT_HASH -> the ring's
   floor entry of fnv(key), else its smallest, as a balanced tree of comparisons against the ring's
   sorted hashes (literals).

:func:`uncovered` says which routers this covers; the rest keep the pandas path (ROUND_ROBIN,
LEAST_CONNECTIONS, caches that can disagree with the policy, ROLE_NAME keys, a key-filter Java
does not compile).

SOURCE_IP: the key is the address as the broker prints it, from our Java UDF ``arouter_source_ip``
(the engine's ``source_address`` + ``source_ip_key``: IPv4, IPv6, scopes, the router's transport and
broker version). A row whose source address is not an address is not a key (``BAD_KEY``), for a
SOURCE_IP router given a ``key`` column, and for every router given a ``source_ip`` column (as
``connection_from_record`` refuses the whole record); so is a row the reader marked bad (``_bad``).
Likewise a ``sni_host`` column holds the host name each client connects to: under the Java encoding
(``--sni-encoding java``, the default) a name ``new SNIHostName`` refuses makes the row not a key for
every router, whatever its key type (``simulate --keys-file`` refuses the record at its line), checked by
our Java UDF ``arouter_sni_sendable`` (the JDK's own ``SNIHostName``).

Routers sharing a key type, filter or transformation (what-if variants always do) share those
columns, so each UDF runs once per row and distinct input.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..javastr import java_is_blank
from ..jregex.javaregex import JavaRegexError, compile_java
from ..routing.batch import vectorisable
from ..routing.keys import EPOLL_SCOPE_ONLY_WHEN_NEEDED, INTERNAL_CLIENT_ID_PREFIX, NULL_KEY, RECORD_COLUMNS
from ..routing.policies import ConsistentHashModuloPolicy, FirstElementPolicy, Ring
from ..routing.router import OK, REFUSED_UNAVAILABLE, REFUSED_USE_ANOTHER, Router
from ..routing.targets import INT_MAX, Target
from .inputs import BAD
from .jvm_udf import FIND, FNV, MATCHES, SNI_SENDABLE, SOURCE_IP

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

PLAIN_KEY_TYPES = ("CLIENT_ID", "USER_NAME", "SNI_HOST", "SOURCE_IP")
# What toLowerCase(Locale.US) changes among the chars U+0000-U+00FF: A-Z and the Latin-1 capitals but x
_LATIN1_UPPER = string.ascii_uppercase + "".join(chr(c) for c in range(0xC0, 0xDF) if c != 0xD7)
KEY_TYPE_COLUMN = {v: k for k, v in RECORD_COLUMNS.items()}
USE_ANOTHER_SLOT = -1
UNAVAILABLE_SLOT = -2
BAD_SLOT = -3  # not a key for this router: status BAD_KEY, not routed
BAD_KEY = "BAD_KEY"  # the status of a row that is not a key for a router (counted as a bad row)
TEMP = "__arouter_"


def uncovered(router: Router, columns: Sequence[str]) -> str | None:
    """None when the SQL path gives the engine's answers for ``router`` on keys with ``columns``."""
    if not vectorisable(router):
        return "its answers depend on the order of keys"
    if router.key_type not in PLAIN_KEY_TYPES:
        return f"{router.key_type} keys are resolved in Python"
    if router.key_type == "SNI_HOST" and router.sni_encoding != "raw":
        return "SNI host names are encoded as a Java client sends them (IDN) in Python"
    if router.key_filter is not None and not java_is_blank(router.key_filter):
        # The engine answers every pattern Java compiles on every text (as java.util.regex does in
        # the UDF); one Java rejects is the router the broker refuses.
        try:
            compile_java(router.key_filter)
        except JavaRegexError:
            return "its key-filter is refused by the engine"
    return None


def _call(name: str, *args: Column) -> Column:
    from pyspark.sql import functions as F

    return F.call_function(name, *args)


def _floor_index(h: Column, hashes: Sequence[int], lo: int, hi: int) -> Column:
    """The index in ``hashes`` (sorted) of the greatest hash <= h, else 0; h is known in [lo, hi]."""
    from pyspark.sql import functions as F

    if lo == hi:
        return F.lit(lo)
    mid = (lo + hi + 1) // 2
    return F.when(h >= F.lit(hashes[mid]), _floor_index(h, hashes, mid, hi)).otherwise(
        _floor_index(h, hashes, lo, mid - 1))


def policy_slots(router: Router) -> tuple[list[Target], int | None, tuple[int, ...]]:
    """Step 5 for a key that is neither internal nor matched by the local-target-filter: the targets a
    slot indexes (slot 0 is the local target), and the slot every such key gets (``USE_ANOTHER_SLOT``,
    ``UNAVAILABLE_SLOT`` or 1), or None with the ring's sorted hashes: slot 1 + the index of the
    greatest hash not above the key's FNV-1a, else 1."""
    picks: list[Target] = [router.local]
    policy, pool = router.policy, router.pool
    if policy is None or pool is None:
        return picks, USE_ANOTHER_SLOT, ()
    targets = pool.ready()
    if not targets or isinstance(policy, ConsistentHashModuloPolicy):
        return picks, UNAVAILABLE_SLOT, ()
    if isinstance(policy, FirstElementPolicy) or len(targets) == 1:
        return [*picks, targets[0]], 1, ()
    ring = Ring.build(targets)
    return [*picks, *ring.targets], None, ring.hashes


def answer_of(slot: int, picks: Sequence[Target]) -> tuple[str, str | None, bool]:
    """Status, target label and local of a slot, as :func:`_answer` decodes a slot column."""
    if slot == BAD_SLOT:
        return BAD_KEY, None, False
    if slot == USE_ANOTHER_SLOT:
        return REFUSED_USE_ANOTHER, None, False
    if slot == UNAVAILABLE_SLOT:
        return REFUSED_UNAVAILABLE, None, False
    return OK, _label(picks[slot]), picks[slot].local


def _is_internal(client_id: Column) -> Column:
    from pyspark.sql import functions as F

    return F.coalesce(client_id.startswith(INTERNAL_CLIENT_ID_PREFIX), F.lit(False))


def _label(t: Target) -> str:
    return "local" if t.local else t.name


def _answer(s: Column, picks: Sequence[Target]) -> tuple[Column, Column, Column, Column]:
    """Status, target label, local and node id of a slot column (see :meth:`SqlRouting.slot`)."""
    from pyspark.sql import functions as F

    status = (F.when(s == F.lit(BAD_SLOT), F.lit(BAD_KEY))
              .when(s == F.lit(USE_ANOTHER_SLOT), F.lit(REFUSED_USE_ANOTHER))
              .when(s == F.lit(UNAVAILABLE_SLOT), F.lit(REFUSED_UNAVAILABLE)).otherwise(F.lit(OK)))
    index = s + F.lit(1)
    chosen = s >= F.lit(0)
    target = F.when(chosen, F.element_at(F.array(*[F.lit(_label(t)) for t in picks]), index))
    node = F.when(chosen, F.element_at(F.array(*[F.lit(t.node_id) for t in picks]), index))
    local = F.when(chosen, F.element_at(F.array(*[F.lit(t.local) for t in picks]), index)).otherwise(F.lit(False))
    return status, target, local, node


class SqlRouting:
    """Builds the answer columns of several routers on one key frame, stage by stage."""

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = list(columns)
        # parsed source addresses, key (and bad, internal), value, hash/match, slot
        self.stages: list[dict[str, Column]] = [{} for _ in range(5)]
        self.outputs: dict[str, Column] = {}
        self.decoders: dict[str, list[Column]] = {}  # compact slot column -> its answer columns
        self._memo: dict[tuple, str] = {}

    def _column(self, stage: int, sig: tuple, make: Callable[[], Column]) -> str:
        name = self._memo.get(sig)
        if name is None:
            name = self._memo[sig] = f"{TEMP}{len(self._memo)}"
            self.stages[stage][name] = make()
        return name

    # -- steps 1 and 2: the key ------------------------------------------------------------------
    def _source(self, column: str, native: bool, every_scope: bool) -> str:
        """The SOURCE_IP key of each value of ``column`` (null: not an address), by the Java UDF."""
        from pyspark.sql import functions as F

        return self._column(0, ("source", column, native, every_scope),
                            lambda: _call(SOURCE_IP, F.col(column), F.lit(native), F.lit(every_scope)))

    def _source_column(self, router: Router) -> str | None:
        """The column whose values must be source addresses for ``router`` (see the module docstring)."""
        if "key" in self.columns:
            return "key" if router.key_type == "SOURCE_IP" else None
        return "source_ip" if "source_ip" in self.columns else None

    def _sni_column(self, router: Router) -> str | None:
        """The column whose values must be host names a Java client can send, for ``router``."""
        if "key" in self.columns or "sni_host" not in self.columns or router.sni_encoding == "raw":
            return None  # (an SNI_HOST router given a ``key`` column and Java-encoded names routes in Python)
        return "sni_host"

    def bad(self, router: Router) -> str | None:
        """A boolean column: the row is not a key for ``router`` (None: no row can be bad)."""
        from pyspark.sql import functions as F

        source = self._source_column(router)
        sni = self._sni_column(router)
        marked = BAD in self.columns
        if source is None and sni is None and not marked:
            return None

        def make() -> Column:
            conds = [F.col(BAD).isNotNull()] if marked else []
            if source is not None:
                parsed = F.col(self._source(source, True, False))  # validity does not depend on the transport
                value = F.col(source)
                conds.append(value.isNotNull() & (value != F.lit("")) & parsed.isNull())
            if sni is not None:
                host = F.col(sni)
                conds.append(host.isNotNull() & (host != F.lit("")) & ~_call(SNI_SENDABLE, host))
            out = conds[0]
            for c in conds[1:]:
                out = out | c
            return out

        return self._column(1, ("bad", source, sni, marked), make)

    def _raw(self, router: Router) -> Column:
        from pyspark.sql import functions as F

        if "key" in self.columns:
            raw = F.col("key")
        else:
            column = KEY_TYPE_COLUMN[router.key_type]
            raw = F.col(column) if column in self.columns else F.lit(None).cast("string")
        if router.key_type == "SOURCE_IP":
            # the address as the router's transport prints it (keys.source_address), then the broker's
            # SOURCE_IP rule (keys.source_ip_key); an empty value is no address
            column = self._source_column(router)
            if column is None:
                return raw
            every = router.broker_version < EPOLL_SCOPE_ONLY_WHEN_NEEDED
            parsed = F.col(self._source(column, router.native_transport, every))
            return F.when(raw.isNull() | (raw == F.lit("")), F.lit(None).cast("string")).otherwise(parsed)
        if router.key_type == "SNI_HOST":
            # a raw client's UTF-8 bytes, read by Netty one char per byte and lower-cased (Locale.US: the
            # Latin-1 capitals too), as keys.sni_from_host / sni_host_key; an empty name is no SNI
            latin1 = F.decode(F.encode(raw, "UTF-8"), "ISO-8859-1")
            raw = F.when(raw == "", F.lit(None).cast("string")).otherwise(
                F.translate(latin1, _LATIN1_UPPER, _LATIN1_UPPER.lower()))
        return raw

    def _internal_source(self, router: Router) -> str | None:
        """The column holding the client id, when the router can see an internal client id."""
        if "key" in self.columns:
            return "key" if router.key_type == "CLIENT_ID" else None
        return "client_id" if "client_id" in self.columns else None

    def internal(self, router: Router) -> str | None:
        from pyspark.sql import functions as F

        source = self._internal_source(router)
        if source is None:
            return None
        return self._column(1, ("internal", source), lambda: _is_internal(F.col(source)))

    def key(self, router: Router) -> str:
        from pyspark.sql import functions as F

        pattern = router.key_filter if router.key_filter is not None and not java_is_blank(router.key_filter) else None
        source = self._internal_source(router)

        def make() -> Column:
            raw = self._raw(router)
            found = raw if pattern is None else _call(FIND, raw, F.lit(pattern))
            key = F.coalesce(found, F.lit(NULL_KEY))
            if source is not None:
                key = F.when(_is_internal(F.col(source)), F.col(source)).otherwise(key)
            return key

        transport = (router.native_transport, router.broker_version) if router.key_type == "SOURCE_IP" else None
        return self._column(1, ("key", router.key_type, pattern, source, transport), make)

    # -- step 3: the policy's transformation -----------------------------------------------------
    def value(self, router: Router) -> str:
        from pyspark.sql import functions as F

        key = self.key(router)
        policy = router.policy
        if not isinstance(policy, ConsistentHashModuloPolicy) or policy.modulo <= 0:
            return key
        internal = self.internal(router)
        modulo = policy.modulo
        signed = policy.signed  # before 2.23: Java's remainder of the signed hash (Spark's % is Java's)

        def make() -> Column:
            k = F.col(key)
            keep = k == F.lit(NULL_KEY)
            if internal is not None:
                keep = keep | F.col(internal)
            h = _call(FNV, k) if signed else _call(FNV, k).bitwiseAND(F.lit(INT_MAX))
            bucket = (h % F.lit(modulo)).cast("string")
            return F.when(keep, k).otherwise(bucket)

        return self._column(2, ("modulo", key, modulo, signed), make)

    def _hash(self, value: str) -> str:
        from pyspark.sql import functions as F

        return self._column(3, ("fnv", value), lambda: _call(FNV, F.col(value)))

    def _matches(self, value: str, pattern: str) -> str:
        from pyspark.sql import functions as F

        return self._column(3, ("matches", value, pattern),
                            lambda: F.coalesce(_call(MATCHES, F.col(value), F.lit(pattern)), F.lit(False)))

    # -- steps 4 and 5: the answer -----------------------------------------------------------------
    def slot(self, router: Router) -> tuple[str, list[Target]]:
        """A column with -1 (use another), -2 (unavailable), -3 (not a key) or an index into the returned
        targets."""
        from pyspark.sql import functions as F

        value = self.value(router)
        internal = self.internal(router)
        ltf = router.local_target_filter
        local = self._matches(value, ltf.source) if ltf is not None else None
        picks, fixed, hashes = policy_slots(router)
        default: Column
        if fixed is not None:
            default = F.lit(fixed)
        else:
            h = F.col(self._hash(value))
            default = F.lit(1) + _floor_index(h, hashes, 0, len(hashes) - 1)
        conditions = [F.col(c) for c in (internal, local) if c is not None]
        bad = self.bad(router)
        sig = ("slot", value, internal, local, tuple((t.name, t.node_id, t.local) for t in picks), str(default),
               bad)

        def make() -> Column:
            out = default
            if conditions:
                answer = F.when(conditions[0], F.lit(0))
                for c in conditions[1:]:
                    answer = answer.when(c, F.lit(0))
                out = answer.otherwise(default)
            # a row that is not a key never reaches the router (connection_from_record refuses it first)
            return out if bad is None else F.when(F.col(bad), F.lit(BAD_SLOT)).otherwise(out)

        return self._column(4, sig, make), picks

    def add_router(self, prefix: str, router: Router, scenarios: Sequence[Router], full: bool,
                   compact: bool = False) -> None:
        """The output columns ``{prefix}status`` … (as assign.job_fields names them).

        ``compact`` (for counting): ``{prefix}slot`` / ``{prefix}w{j}_slot`` ints instead of status,
        target and local; :attr:`decoders` turns the counted slots into those columns afterwards.
        """
        from pyspark.sql import functions as F

        slot, picks = self.slot(router)
        key = F.col(self.key(router))
        bad = self.bad(router)
        routed = F.lit(True) if bad is None else ~F.col(bad)
        out = {f"{prefix}null": routed & (key == F.lit(NULL_KEY))}
        answers = [(prefix, slot, picks)] + [(f"{prefix}w{j}_", *self.slot(v)) for j, v in enumerate(scenarios)]
        for p, s, chosen in answers:
            # compact: decoded after the aggregation, from the counted slot column
            status, target, local, node = _answer(F.col(f"{p}slot" if compact else s), chosen)
            main = p == prefix
            if compact:
                out[f"{p}slot"] = F.col(s)
                self.decoders[f"{p}slot"] = [status.alias(f"{p}status"), target.alias(f"{p}target")] + (
                    [local.alias(f"{p}local")] if main else [])
            else:
                out[f"{p}status"], out[f"{p}target"] = status, target
                if main:
                    out[f"{p}local"] = local
            if main and full:
                out[f"{p}key_value"] = F.when(routed, F.col(self.value(router)))
                out[f"{p}node_id"] = node
        self.outputs.update(out)

    def apply(self, frame: DataFrame) -> DataFrame:
        """``frame`` with every added router's output columns (and no helper columns)."""
        for stage in self.stages:
            if stage:
                frame = frame.select("*", *[c.alias(n) for n, c in stage.items()])
        frame = frame.select("*", *[c.alias(n) for n, c in self.outputs.items()])
        return frame.drop(*[n for stage in self.stages for n in stage])
