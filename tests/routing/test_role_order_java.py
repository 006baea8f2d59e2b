"""The order the broker walks a client's roles (ROLE_NAME), held against the JDK itself.

RoleOrderOracle.java fills the JDK's own HashSet, Properties (a ConcurrentHashMap) and
javax.security.auth.Subject the way the broker's login path does (ReloadableProperties,
PropertiesLoginModule.commit, KeyResolver's getPrincipals(RolePrincipal.class)); arouter's model
must give the same order for random role sets, colliding hashes ("Aa"/"BB") and resizes.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from artemis_routing_cli.javacollections import broker_role_order, given_role_order, hashset_order, properties_order
from artemis_routing_cli.serve.auth import parse_properties, user_roles

from .java import role_order_oracle as oracle

pytestmark = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="no JDK")

_ESC = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\f": "\\f", " ": "\\ ", "=": "\\=", ":": "\\:",
        "#": "\\#", "!": "\\!"}


def _prop_escape(text: str) -> str:
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESC:
            out.append(_ESC[ch])
        elif code < 0x20 or code > 0x7E:
            raw = ch.encode("utf-16-be", "surrogatepass")
            out.extend(f"\\u{raw[i:i + 2].hex()}" for i in range(0, len(raw), 2))
        else:
            out.append(ch)
    return "".join(out)


def roles_file(lines: list[tuple[str, str]]) -> bytes:
    return "".join(f"{_prop_escape(k)}={_prop_escape(v)}\n" for k, v in lines).encode("iso-8859-1")


def _name(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.35:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
                       for _ in range(rng.randint(1, 10)))
    if kind < 0.6:  # "Aa" and "BB" have one hash: every mix of them collides
        return "".join(rng.choice(("Aa", "BB")) for _ in range(rng.randint(1, 5))) + rng.choice(("", "x", "y"))
    if kind < 0.7:
        return rng.choice(("", " ", "a,b", " admin", "admin ", "r\u00f4le", "\u00a0", "\U0001f600", "\ud800x",
                           "=", "#c", "a b"))
    return "role" + str(rng.randint(0, 500))


@pytest.fixture(scope="module")
def classdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return oracle.compile_oracle()


def test_hashset_and_properties_order_match_the_jdk(classdir: Path) -> None:
    rng = random.Random(14)
    sets = [list(dict.fromkeys(_name(rng) for _ in range(rng.choice((2, 3, 5, 9, 13, 20, 40, 100)))))
            for _ in range(400)]
    # one bucket of 9 and 10 keys: the small table grows (treeifyBin) instead of making a tree
    collide = ["".join(("Aa", "BB")[(i >> b) & 1] for b in range(4)) for i in range(16)]
    sets += [collide[:n] for n in (8, 9, 10)] + [collide[:n] + ["x", "y", "z"] for n in (9, 10)]
    lines = [" ".join(["hs", *map(oracle.token, s)]) for s in sets]
    lines += ["props " + roles_file([(k, "u") for k in s]).hex() for s in sets]
    java = oracle.run(classdir, lines)
    n = len(sets)
    for s, got in zip(sets, java[:n], strict=True):
        assert hashset_order(s) == got, s
    for s, got in zip(sets, java[n:], strict=True):
        assert properties_order(s) == got, s
    # the model is not just the input order
    assert sum(hashset_order(s) != s for s in sets) > 300


def test_login_path_order_matches_the_jdk(classdir: Path) -> None:
    rng = random.Random(1414)
    cases: list[tuple[str, list[tuple[str, str]]]] = []
    for _ in range(600):
        users = ["alice", "bob", "Aa", "BB", "", "c,d"][: rng.randint(1, 6)]
        me = rng.choice(users) if "," not in users[-1] else users[0]
        roles = list(dict.fromkeys(_name(rng) for _ in range(rng.choice((1, 2, 3, 4, 6, 10, 14, 30, 70)))))
        lines = []
        for role in roles:
            members = rng.sample(users, rng.randint(1, len(users)))
            if rng.random() < 0.7 and me not in members:
                members.append(me)
            lines.append((role, ",".join(members) + rng.choice(("", ",", ",,"))))
        cases.append((me, lines))
    java = oracle.run(classdir, [f"login {oracle.token(me)} {roles_file(lines).hex()}" for me, lines in cases])
    checked = differ = 0
    for (me, lines), got in zip(cases, java, strict=True):
        parsed = parse_properties(roles_file(lines).decode("iso-8859-1"))
        model = broker_role_order(parsed, me)
        if model.exact:
            assert list(model.roles) == got, (me, lines)
            assert list(user_roles(parsed, me)) == got  # what serve --roles-file uses
            checked += 1
            differ += list(model.roles) != [r for r, _ in parsed if r in got]
    assert checked > 550 and differ > 200


def test_given_roles_are_ordered_as_the_broker_would(classdir: Path) -> None:
    """simulate's --role list: the roles file holds one line per role, in that order, for one user."""
    rng = random.Random(7)
    sets = [list(dict.fromkeys(_name(rng) for _ in range(rng.randint(1, 25)))) for _ in range(300)]
    java = oracle.run(classdir, [f"login {oracle.token('user')} {roles_file([(r, 'user') for r in s]).hex()}"
                                 for s in sets])
    for s, got in zip(sets, java, strict=True):
        assert list(given_role_order(s).roles) == got


def test_a_tree_bucket_has_no_fixed_order_and_arouter_says_so(classdir: Path) -> None:
    """11+ roles whose names all hash alike ("Aa"/"BB" mixes) make a tree bucket in the principal sets,
    which the JDK orders by identity hash codes: 50 logins give several orders. Fewer stay fixed."""
    collide = ["".join(("Aa", "BB")[(i >> b) & 1] for b in range(4)) for i in range(16)]
    many, few = collide[:12], collide[:8]
    runs = oracle.run(classdir, [f"logins {oracle.token('u')} {roles_file([(r, 'u') for r in s]).hex()}"
                                 for s in (many, few)])
    assert int(runs[0][0]) > 1 and int(runs[1][0]) == 1
    assert given_role_order(many).exact is False and given_role_order(few).exact is True
    from artemis_routing_cli.routing.keys import Connection, resolve_key

    assert "identity hash codes" in resolve_key("ROLE_NAME", None, Connection(roles=tuple(many))).note
