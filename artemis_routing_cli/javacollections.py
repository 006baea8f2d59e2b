"""The iteration order of Java's hash collections, put by put, as the JDK (17) keeps them.

The broker hands a client's roles to the router through four of them (see :func:`broker_role_order`):
the roles file's ``java.util.Properties`` (a ``ConcurrentHashMap``), the login module's ``HashSet``
of the user's roles, its ``HashSet<Principal>``, and the ``HashSet`` that
``Subject.getPrincipals(RolePrincipal.class)`` fills from the Subject's (linked-list) principal set.
Each iterates by bucket index; within a bucket the order depends on the order of the puts and, for
the ``ConcurrentHashMap``, on its resizes (which reverse part of a bucket). Both are modelled here,
including the resizes a long bucket forces in a small table. A bucket that would turn into a tree
(9 or more keys in one bucket of a table of 64 or more: never with realistic role names, only with
crafted colliding ones such as 11 mixes of "Aa" and "BB") keeps its list order here and is reported
through ``exact`` being False: for the two ``HashSet<Principal>`` the JDK then orders the bucket by
``System.identityHashCode`` (principals are not Comparable, ``HashMap.tieBreakOrder``), so the
broker's own order is not fixed either.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from .javastr import java_split, java_string_hash

# java.util.HashMap / ConcurrentHashMap: a bucket of this many nodes becomes a tree (TREEIFY_THRESHOLD),
# unless the table is smaller than MIN_TREEIFY_CAPACITY, which then grows instead.
TREEIFY_THRESHOLD = 8
MIN_TREEIFY_CAPACITY = 64
# new HashMap<>() / new HashSet<>(): 16 buckets, resized when the size exceeds 0.75 of them.
HASHMAP_DEFAULT_CAPACITY = 16
# new Properties() (JDK 9+) is backed by new ConcurrentHashMap<>(8): 16 buckets, resized at 12 keys.
PROPERTIES_CAPACITY = 16


def _unsigned(h: int) -> int:
    return h & 0xFFFFFFFF


@dataclass
class JavaHashMap:
    """``java.util.HashMap`` (and so ``HashSet``) built with the default constructor."""

    buckets: list[list[tuple[int, Hashable]]] | None = None
    size: int = 0
    threshold: int = 0
    exact: bool = True

    def put(self, java_hash: int, key: Hashable) -> None:
        """``put`` of a key whose ``hashCode()`` is ``java_hash`` (a key already there stays put)."""
        h = _unsigned(java_hash)
        spread = h ^ (h >> 16)
        if self.buckets is None:
            self._resize()
        assert self.buckets is not None
        chain = self.buckets[spread & (len(self.buckets) - 1)]
        if any(k == key for _, k in chain):
            return
        chain.append((spread, key))
        if len(chain) > TREEIFY_THRESHOLD:  # treeifyBin: a small table grows instead
            if len(self.buckets) < MIN_TREEIFY_CAPACITY:
                self._resize()
            else:
                self.exact = False
        self.size += 1
        if self.size > self.threshold:
            self._resize()

    def _resize(self) -> None:
        old = self.buckets
        if old is None:
            self.buckets = [[] for _ in range(HASHMAP_DEFAULT_CAPACITY)]
            self.threshold = HASHMAP_DEFAULT_CAPACITY * 3 // 4
            return
        n = len(old)
        new: list[list[tuple[int, Hashable]]] = [[] for _ in range(2 * n)]
        for j, chain in enumerate(old):  # split: each half keeps its relative order
            for node in chain:
                new[j + n if node[0] & n else j].append(node)
        self.buckets = new
        self.threshold *= 2

    def keys(self) -> list[Hashable]:
        return [k for chain in self.buckets or [] for _, k in chain]


@dataclass
class JavaConcurrentHashMap:
    """``java.util.concurrent.ConcurrentHashMap`` as ``new Properties()`` creates it, filled by one thread."""

    capacity: int = PROPERTIES_CAPACITY
    buckets: list[list[tuple[int, Hashable]]] | None = None
    size: int = 0
    size_ctl: int = 0
    exact: bool = True

    def put(self, java_hash: int, key: Hashable) -> None:
        h = _unsigned(java_hash)
        spread = (h ^ (h >> 16)) & 0x7FFFFFFF
        if self.buckets is None:
            self.buckets = [[] for _ in range(self.capacity)]
            self.size_ctl = self.capacity - (self.capacity >> 2)
        chain = self.buckets[spread & (len(self.buckets) - 1)]
        if any(k == key for _, k in chain):
            return  # the value is replaced, the node stays
        chain.append((spread, key))
        if len(chain) > TREEIFY_THRESHOLD:  # treeifyBin -> tryPresize(n << 1)
            n = len(self.buckets)
            if n < MIN_TREEIFY_CAPACITY:
                self._presize(n << 1)
            else:
                self.exact = False
        self.size += 1
        while self.size >= self.size_ctl:  # addCount
            self._transfer()

    def _presize(self, size: int) -> None:
        wanted = 1 << (size + (size >> 1) + 1 - 1).bit_length()  # tableSizeFor
        while wanted > self.size_ctl:
            self._transfer()

    def _transfer(self) -> None:
        assert self.buckets is not None
        n = len(self.buckets)
        new: list[list[tuple[int, Hashable]]] = [[] for _ in range(2 * n)]
        for i, chain in enumerate(self.buckets):
            if not chain:
                continue
            # the longest tail whose nodes all go to one half is moved as it is; every node before
            # it is copied to the front of its half, so those come out in reverse order
            run_bit = chain[-1][0] & n
            last_run = len(chain) - 1
            while last_run > 0 and chain[last_run - 1][0] & n == run_bit:
                last_run -= 1
            low: list[tuple[int, Hashable]] = []
            high: list[tuple[int, Hashable]] = []
            (high if run_bit else low).extend(chain[last_run:])
            for node in chain[:last_run]:
                (high if node[0] & n else low).insert(0, node)
            new[i], new[i + n] = low, high
        self.buckets = new
        self.size_ctl = (n << 1) - (n >> 1)

    def keys(self) -> list[Hashable]:
        return [k for chain in self.buckets or [] for _, k in chain]


def hashset_order(names: Iterable[str]) -> list[str]:
    """The iteration order of ``new HashSet<String>()`` after adding ``names`` in order."""
    table = JavaHashMap()
    for name in names:
        table.put(java_string_hash(name), name)
    return [str(k) for k in table.keys()]


def properties_order(keys: Iterable[str]) -> list[str]:
    """The order ``Properties.entrySet()`` walks the keys ``load`` put in file order (JDK 9+)."""
    table = JavaConcurrentHashMap()
    for key in keys:
        table.put(java_string_hash(key), key)
    return [str(k) for k in table.keys()]


@dataclass(frozen=True)
class RoleOrder:
    roles: tuple[str, ...]  # in the order KeyResolver walks them
    exact: bool  # False: a tree bucket formed somewhere (its order is not modelled)


def broker_role_order(role_lines: Sequence[tuple[str, str]], user: str) -> RoleOrder:
    """The user's roles in the order the broker's router walks them (KeyResolver, ROLE_NAME).

    ``role_lines``: the roles file's ``(role, users)`` pairs in file order, a key once (as
    ``Properties.load`` keeps it). End to end, as the broker does it:

    1. ``ReloadableProperties.invertedPropertiesValuesMap`` walks the ``Properties`` (a
       ConcurrentHashMap), splits each value with ``split(",")`` (no trimming) and adds the role
       to the user's ``new HashSet<>()``;
    2. ``PropertiesLoginModule.commit`` adds ``UserPrincipal(user)`` then a ``RolePrincipal`` per
       role (in that set's order) to a ``HashSet<Principal>`` (hash: the name's ``hashCode``), and
       ``subject.getPrincipals().addAll`` copies it into the Subject's linked list in that order;
    3. ``KeyResolver`` iterates ``subject.getPrincipals(RolePrincipal.class)``: a fresh
       ``HashSet`` filled from the Subject's list in list order.
    """
    props = JavaConcurrentHashMap()
    values: dict[str, str] = {}
    for role, users in role_lines:
        props.put(java_string_hash(role), role)
        values[role] = users
    mine = JavaHashMap()
    for role in props.keys():
        assert isinstance(role, str)
        if user in java_split(values[role], ","):
            mine.put(java_string_hash(role), role)
    principals = JavaHashMap()
    principals.put(java_string_hash(user), ("user", user))
    for role in mine.keys():
        principals.put(java_string_hash(str(role)), ("role", role))
    class_set = JavaHashMap()
    for kind, name in principals.keys():  # type: ignore[misc]
        if kind == "role":
            class_set.put(java_string_hash(name), name)
    roles = tuple(str(k) for k in class_set.keys())
    return RoleOrder(roles, props.exact and mine.exact and principals.exact and class_set.exact)


# The user simulate assumes when it is given roles without a roles file.
SIMULATED_USER = "user"


def given_role_order(roles: Sequence[str], user: str | None = None) -> RoleOrder:
    """The broker's order for roles a user listed: as if the roles file held one line per role, in
    the order given, each naming this user (and nothing else)."""
    name = SIMULATED_USER if user is None else user
    unique = list(dict.fromkeys(roles))
    return broker_role_order([(r, name) for r in unique], name)
