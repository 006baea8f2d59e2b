"""``arouter selftest``: random routers and random connections through arouter's engine and through the
installation's own ConnectionRouter (``java/Route.java``, one JVM for the batch); every disagreement is
a reproducible case (the seed and its number).

What is compared: key resolution for every key type (CLIENT_ID, USER_NAME, SOURCE_IP as Java prints a
socket address, SNI_HOST as Netty hands it over, ROLE_NAME in the HashSet order of the roles), the
internal client-id prefix, key-filter, local-target-filter, the policies CONSISTENT_HASH, FIRST_ELEMENT and
CONSISTENT_HASH_MODULO (with transformKey), no policy, no pool, the cache (no expiry), 1-4 ready targets
with random node ids; before 2.41 (whose broker.xml does not take it) ROLE_NAME is set by broker properties.
Not compared: ROUND_ROBIN (the broker starts at a random position) and
LEAST_CONNECTIONS (live connection counts), pool readiness over time and the network.
"""

from __future__ import annotations

import random
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .jvm import RUN_TIMEOUT, run_driver

if TYPE_CHECKING:
    from ..config.brokerhome import BrokerHome

ROUTERS_PER_FILE = 40
KEY_TYPES = ("CLIENT_ID", "USER_NAME", "SOURCE_IP", "SNI_HOST", "ROLE_NAME")
POLICIES = ("CONSISTENT_HASH", "FIRST_ELEMENT", "CONSISTENT_HASH_MODULO", None)
KEY_FILTERS = (None, "^[a-z]+", "\\d+", "[^-]+", ".{2}", "x|y", "(?i)foo", "\\p{L}+", "[0-9a-f]{2,}", "^$")
LOCAL_FILTERS = (None, "^0$", "NULL", "[a-m].*", ".*1", "foo.*", "1|3")
INTERNAL = "$.artemis.internal.router.client."
_ALPHABET = "abcxyzFOO0123-_.é\u00df"
NUL = "\0"


@dataclass(frozen=True, slots=True)
class Conn:
    client_id: str | None
    username: str | None
    remote: str | None
    sni: str | None
    roles: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class Case:
    number: int
    key_type: str
    key_filter: str | None
    local_filter: str | None
    policy: str | None
    modulo: int
    pool: int  # targets, 0: no pool
    cache: bool
    node_ids: tuple[str, ...]
    conns: tuple[Conn, ...]
    via_properties: bool = False  # the key type is set by broker properties (ROLE_NAME before 2.41)

    def area(self) -> str:
        return f"{self.key_type} / {self.policy or 'no policy'}{' / no pool' if not self.pool else ''}"

    def xml(self, name: str) -> str:
        def esc(text: str) -> str:
            return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")

        written = "CLIENT_ID" if self.via_properties else self.key_type
        parts = [f'<connection-router name="{name}"><key-type>{written}</key-type>']
        if self.key_filter is not None:
            parts.append(f"<key-filter>{esc(self.key_filter)}</key-filter>")
        if self.local_filter is not None:
            parts.append(f"<local-target-filter>{esc(self.local_filter)}</local-target-filter>")
        if self.cache:
            parts.append("<cache><persisted>false</persisted><timeout>0</timeout></cache>")
        if self.policy is not None:
            props = f'<property key="MODULO" value="{self.modulo}"/>' if self.policy == "CONSISTENT_HASH_MODULO" else ""
            parts.append(f'<policy name="{self.policy}">{props}</policy>')
        if self.pool:
            refs = "".join(f"<connector-ref>b{i}</connector-ref>" for i in range(self.pool))
            parts.append(f"<pool><static-connectors>{refs}</static-connectors></pool>")
        parts.append("</connection-router>")
        return "".join(parts)


def _text(rng: random.Random, low: int = 0, high: int = 8) -> str:
    return "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(low, high)))


def _conn(rng: random.Random) -> Conn:
    client = None if rng.random() < 0.1 else (INTERNAL + _text(rng) if rng.random() < 0.05 else _text(rng))
    user = None if rng.random() < 0.1 else _text(rng)
    if rng.random() < 0.1:
        remote = None
    elif rng.random() < 0.7:
        remote = f"/{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}:" \
                 f"{rng.randint(1, 65535)}"
    else:
        groups = ":".join(format(rng.randint(0, 0xffff), "x") for _ in range(8))
        remote = f"/[{groups}%{rng.randint(0, 2)}]:{rng.randint(1, 65535)}"
    sni = None if rng.random() < 0.1 else ".".join(
        "".join(rng.choice("abcxyz019-") for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 3)))
    roles = None if rng.random() < 0.2 else tuple(_text(rng, 1, 6) for _ in range(rng.randint(1, 4)))
    return Conn(client, user, remote, sni, roles)


# broker.xml takes key-type ROLE_NAME from Artemis 2.41.0 (ARTEMIS-5439); before, only broker properties
ROLE_NAME_IN_XML = (2, 41)


def generate(seed: int, count: int, version: tuple[int, int] = ROLE_NAME_IN_XML) -> list[Case]:
    rng = random.Random(seed)
    cases = []
    for n in range(count):
        policy = rng.choice(POLICIES)
        pool = 0 if rng.random() < 0.15 else rng.randint(1, 4)
        key_type = rng.choice(KEY_TYPES)
        cases.append(Case(n, key_type, rng.choice(KEY_FILTERS), rng.choice(LOCAL_FILTERS), policy,
                          rng.randint(1, 5), pool, rng.random() < 0.3,
                          tuple(str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(pool)),
                          tuple(_conn(rng) for _ in range(rng.randint(1, 6))),
                          key_type == "ROLE_NAME" and version < ROLE_NAME_IN_XML))
    return cases


def _field(value: str | None) -> str:
    if value is None:
        return NUL
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _broker_xml(cases: list[Case]) -> str:
    connectors = "".join(f'<connector name="b{i}">tcp://b{i}:61616</connector>' for i in range(4))
    routers = "".join(c.xml(f"r{c.number}") for c in cases)
    return ('<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">'
            f"<connectors>{connectors}</connectors><connection-routers>{routers}</connection-routers>"
            "</core></configuration>\n")


def arouter_answers(path: Path, cases: list[Case],
                    version: tuple[int, int] | None = None) -> list[list[tuple[str, str]]]:
    from ..routing.keys import Connection
    from ..routing.router import build_routers
    from ..routing.targets import state_from_options
    from ..verdict import load_checked

    config = load_checked(str(path)).config
    out = []
    for case in cases:
        state = state_from_options([f"b{i}={nid}" for i, nid in enumerate(case.node_ids)])
        router = build_routers(config, state, names=[f"r{case.number}"])[0]
        if version is not None:
            router.broker_version = version
        answers = []
        for c in case.conns:
            result = router.route(Connection(client_id=c.client_id, username=c.username, sni_host=c.sni,
                                             remote_address=c.remote, remote_as_is=True, roles=c.roles or ()))
            t = result.target
            answers.append((result.status, "" if t is None else "local" if result.local else t.node_id))
        out.append(answers)
    return out


@dataclass(frozen=True, slots=True)
class Outcome:
    cases: list[Case]
    ours: list[list[tuple[str, str]]]
    theirs: list[list[tuple[str, str]]]

    def disagreements(self) -> list[tuple[Case, int, tuple[str, str], tuple[str, str]]]:
        return [(case, i, a, b) for case, mine, broker in zip(self.cases, self.ours, self.theirs, strict=True)
                for i, (a, b) in enumerate(zip(mine, broker, strict=True)) if a != b]


def policy_names_shared(home: BrokerHome) -> bool:
    """Whether two routers of one broker.xml may name the same policy: older schemas type a router's
    policy name as xsd:ID (2.21.0 refuses the second CONSISTENT_HASH), so each case then gets a file."""
    from lxml import etree

    from ..config.fullschema import schema_of

    policy = '<policy name="FIRST_ELEMENT"/>'
    doc = etree.fromstring(f'<core xmlns="urn:activemq:core"><connection-routers>'
                           f'<connection-router name="a">{policy}</connection-router>'
                           f'<connection-router name="b">{policy}</connection-router></connection-routers></core>')
    return bool(schema_of(home.server_jar).validate(doc))


def _followed(home: BrokerHome) -> tuple[int, int]:
    from ..routing.keys import NEWEST_BROKER, OLDEST_BROKER

    return min(max(home.minor, OLDEST_BROKER), NEWEST_BROKER)


def run_selftest(home: BrokerHome, seed: int, count: int) -> Outcome:
    cases = generate(seed, count, home.minor)
    per_file = ROUTERS_PER_FILE if policy_names_shared(home) else 1
    ours: list[list[tuple[str, str]]] = []
    with tempfile.TemporaryDirectory(prefix="arouter-selftest-") as tmp:
        lines = []
        for start in range(0, len(cases), per_file):
            chunk = cases[start:start + per_file]
            folder = Path(tmp) / f"f{start // per_file}"
            folder.mkdir()
            path = folder / "broker.xml"
            path.write_text(_broker_xml(chunk), encoding="utf-8")
            props = folder / "broker.properties"  # read by both, as the broker reads the one beside broker.xml
            props.write_text("".join(f"connectionRouters.r{c.number}.keyType=ROLE_NAME\n"
                                     for c in chunk if c.via_properties), encoding="utf-8")
            ours.extend(arouter_answers(path, chunk, _followed(home)))
            for case in chunk:
                lines.append("\t".join(["C", _field(str(path)), f"r{case.number}", ",".join(case.node_ids),
                                        _field(str(props))]))
                for c in case.conns:
                    roles = None if not c.roles else "\x1f".join(c.roles)
                    lines.append("\t".join(["K", *map(_field, (c.client_id, c.username, c.remote, c.sni, roles))]))
        listing = Path(tmp) / "cases.tsv"
        listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
        # one JVM for the batch: its time grows with the cases (a file each on older schemas)
        text = run_driver(home, ["route", str(listing)], timeout=max(RUN_TIMEOUT, 0.25 * len(cases)))
    answers = iter(text.splitlines())
    theirs = []
    for case in cases:
        got = []
        for _ in case.conns:
            line = next(answers, "X")
            while line.startswith("X\t"):
                line = next(answers, "X")
            status, _, target = line.partition("\t")
            got.append((status, target))
        theirs.append(got)
    return Outcome(cases, ours, theirs)
