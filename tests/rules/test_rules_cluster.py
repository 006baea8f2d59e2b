"""AR601, AR602: cluster connections."""

from __future__ import annotations

import random

import pytest

from artemis_routing_cli.rules import cluster
from artemis_routing_cli.rules.cluster import overlap

from .helpers import lint_fragment, only


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("", "", ""),
    ("europe", "europe.news", "europe.news"),
    ("europe", "asia", None),
    ("europe,!europe.news", "europe.news", None),
    ("!europe", "europe.news", None),
    ("!europe", "asia", "asia"),
    ("europe,asia", "asia.jobs", "asia.jobs"),
    ("europe", "eu", "europe"),
])
def test_overlap(a, b, expected) -> None:
    assert overlap(a, b) == expected
    assert overlap(b, a) == expected


def test_ar601_reports_the_second_connection(tmp_path) -> None:
    frag = """<connectors><connector name="c">tcp://c:61616</connector></connectors>
<cluster-connections>
  <cluster-connection name="all"><connector-ref>c</connector-ref></cluster-connection>
  <cluster-connection name="jobs"><address>jobs</address><connector-ref>c</connector-ref></cluster-connection>
</cluster-connections>"""
    [d] = only(lint_fragment(tmp_path, frag), "AR601")
    assert d.line == 5 and "'all' (all addresses)" in d.message and "'jobs'" in d.message


def test_ar602_ignores_a_router_pools_cluster_connection_element(tmp_path) -> None:
    frag = """<connectors><connector name="c">tcp://c:61616</connector></connectors>
<cluster-connections><cluster-connection name="cc"><connector-ref>c</connector-ref>
  <static-connectors><connector-ref>c</connector-ref></static-connectors></cluster-connection></cluster-connections>
<connection-routers><connection-router name="r"><policy name="CONSISTENT_HASH"/>
  <pool><cluster-connection>cc</cluster-connection></pool></connection-router></connection-routers>"""
    diags = lint_fragment(tmp_path, frag)
    assert only(diags, "AR602", "AR601", "AR203") == []


def _clusters(addresses: list[str]) -> str:
    ccs = "".join(f'<cluster-connection name="cc{i}"><address>{a}</address><connector-ref>c</connector-ref>'
                  "<static-connectors><connector-ref>c</connector-ref></static-connectors></cluster-connection>\n"
                  for i, a in enumerate(addresses))
    return ('<connectors><connector name="c">tcp://c:61616</connector></connectors>\n'
            f"<cluster-connections>\n{ccs}</cluster-connections>")


def _counted_overlaps(monkeypatch: pytest.MonkeyPatch, tmp_path, addresses: list[str]) -> tuple[int, list[str]]:
    """How many address lists AR601 compared, and its messages."""
    calls = [0]
    real = cluster._overlap

    def counting(*args: object) -> str | None:
        calls[0] += 1
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(cluster, "_overlap", counting)
    found = [d.message for d in only(lint_fragment(tmp_path, _clusters(addresses)), "AR601")]
    return calls[0], found


@pytest.mark.parametrize("n", [50, 200])
def test_ar601_compares_per_group_not_per_pair(monkeypatch, tmp_path, n: int) -> None:
    # disjoint addresses: nothing nests, so nothing needs comparing (every pair: n*(n-1)/2 comparisons)
    calls, found = _counted_overlaps(monkeypatch, tmp_path, [f"addr{i}." for i in range(n)])
    assert found == [] and calls <= n


def test_ar601_compares_only_nested_groups(monkeypatch, tmp_path) -> None:
    # 100 pairs, each overlapping only its own partner: one finding per pair, a few comparisons each
    addresses = [a for i in range(100) for a in (f"q{i}.", f"q{i}.x")]
    calls, found = _counted_overlaps(monkeypatch, tmp_path, addresses)
    assert len(found) == 100 and calls <= 2 * len(addresses)
    assert all(f"'cc{2 * i}'" in m and f"'cc{2 * i + 1}'" in m for i, m in enumerate(found))


def test_ar601_names_the_first_earlier_overlapping_group(tmp_path) -> None:
    # the rule's finding for each group equals comparing it with every earlier group, in order
    rng = random.Random(21)
    parts = ["", "a", "ab", "abc", "b", "ba", "!a", "!ab", "!abc", "!b", "c"]
    for _ in range(30):
        addresses = [",".join(rng.sample(parts, rng.randint(1, 3))).strip(",") for _ in range(10)]
        heads = list(dict.fromkeys(addresses))
        expected = []
        for j, second in enumerate(heads):
            for first in heads[:j]:
                witness = overlap(first, second)
                if witness is not None:
                    expected.append((addresses.index(first), addresses.index(second), witness))
                    break
        diags = only(lint_fragment(tmp_path, _clusters(addresses)), "AR601")
        pairs = [d.message for d in diags if " and '" in d.message and "all carry" not in d.message]
        want = [f"'cc{i}' ({_shown(addresses[i])}) and 'cc{j}' ({_shown(addresses[j])}) both carry "
                f"{repr(w) if w else 'every address'}" for i, j, w in expected]
        assert sorted(m.split("cluster connections ", 1)[1].split(":")[0] for m in pairs) == sorted(want), addresses


def _shown(address: str) -> str:
    return f"address '{address}'" if address else "all addresses"
