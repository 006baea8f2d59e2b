"""The settings diff on real edits of the sample: each reports what the broker reads differently."""

from __future__ import annotations

from artemis_routing_cli.config import LoadOptions, load_text
from artemis_routing_cli.diffing.configdiff import diff_configs

from .edits import STICKY_MEMBERS, STICKY_POLICY, edit, sample_text


def _diff(old: str, new: str, props: dict[str, str] | None = None, show_values: bool = False):
    opts = LoadOptions(props or {}, environ={})
    return diff_configs(load_text(old, opts, name="old.xml"), load_text(new, opts, name="new.xml"),
                        show_values=show_values)


def _router(d, name: str):
    return next(s for s in d.routers if s.name == name)


def _changes(section) -> dict[str, tuple[object, object]]:
    return {c.setting: (c.old, c.new) for c in section.changes}


def test_identical_configs_change_nothing() -> None:
    d = _diff(sample_text(), sample_text())
    assert all(s.status == "unchanged" and not s.changes for s in d.routers + d.diverts + d.cluster_connections)


def test_change_the_policy() -> None:
    new = edit(sample_text(), STICKY_POLICY, STICKY_POLICY.replace("CONSISTENT_HASH", "FIRST_ELEMENT"))
    r = _router(_diff(sample_text(), new), "sticky-router")
    assert r.status == "changed"
    assert _changes(r) == {"policy": ("CONSISTENT_HASH", "FIRST_ELEMENT")}
    line = sample_text()[:sample_text().index(STICKY_POLICY)].count("\n") + 1  # the sticky <policy>
    assert r.changes[0].line == line and r.changes[0].side == "new"


def test_add_and_remove_a_pool_member() -> None:
    text = sample_text()
    removed = edit(text, STICKY_MEMBERS, STICKY_MEMBERS.replace(
        "                  <connector-ref>broker3</connector-ref>\n", ""))
    r = _router(_diff(text, removed), "sticky-router")
    assert _changes(r) == {"pool.member broker3": ("#3 broker3.example.net:61616", None)}
    assert r.changes[0].side == "old"
    added = edit(text, STICKY_MEMBERS, STICKY_MEMBERS.replace(
        "<connector-ref>broker3</connector-ref>\n",
        "<connector-ref>broker3</connector-ref>\n                  <connector-ref>artemis</connector-ref>\n"))
    # the artemis connector's host is ${broker.host:localhost}: configuration (the name says nothing secret), shown
    assert _changes(_router(_diff(text, added), "sticky-router")) == {
        "pool.member artemis": (None, "#4 localhost:61616")}
    assert _changes(_router(_diff(text, added, show_values=True), "sticky-router")) == {
        "pool.member artemis": (None, "#4 localhost:61616")}


def test_change_a_key_filter() -> None:
    new = edit(sample_text(), "<key-filter>^.{3}</key-filter>\n            <local-target-filter>",
               "<key-filter>^.{4}</key-filter>\n            <local-target-filter>")
    r = _router(_diff(sample_text(), new), "local-partition")
    assert _changes(r) == {"key-filter": ("^.{3}", "^.{4}")}


def test_flip_local_target_enabled() -> None:
    new = edit(sample_text(), "<local-target-enabled>true</local-target-enabled>\n               <static-connectors>",
               "<local-target-enabled>false</local-target-enabled>\n               <static-connectors>")
    r = _router(_diff(sample_text(), new), "sticky-router")
    assert _changes(r) == {"pool.local-target-enabled": (True, False)}


def test_reordered_elements_and_comments_are_no_change() -> None:
    text = sample_text()
    new = edit(text, """            <key-type>CLIENT_ID</key-type>
            <cache>
               <persisted>false</persisted>
               <timeout>60000</timeout>
            </cache>
            <policy name="CONSISTENT_HASH"/>""", """            <policy name="CONSISTENT_HASH"/>
            <!-- moved around, as people do -->
            <cache>
               <timeout>60000</timeout>
               <persisted>false</persisted>
            </cache>
            <key-type>CLIENT_ID</key-type>""")
    new = edit(new, """            <exclusive>true</exclusive>
            <filter string="priority > 7"/>""", """            <filter string="priority > 7"/>
            <exclusive>true</exclusive>""")
    # an explicit default reads the same as none written
    new = edit(new, "<password>ENC(-5a2376c61c668aaf)</password>\n               <discovery-group-ref",
               "<password>ENC(-5a2376c61c668aaf)</password>\n               <check-period>5000</check-period>\n"
               "               <discovery-group-ref")
    d = _diff(text, new)
    assert [s for s in d.routers + d.diverts + d.cluster_connections if s.changes or s.status != "unchanged"] == []


def test_a_substituted_default_changes_only_when_the_value_does() -> None:
    text = sample_text()
    literal = "<key-filter>^.{3}</key-filter>\n            <local-target-filter>"
    old = edit(text, literal, "<key-filter>${kf:^.{3}}</key-filter>\n            <local-target-filter>")
    same_value = edit(text, literal, literal)  # the literal the default resolves to
    assert _router(_diff(old, same_value), "local-partition").changes == ()
    new_default = edit(text, literal, "<key-filter>${kf:^.{5}}</key-filter>\n            <local-target-filter>")
    assert _changes(_router(_diff(old, new_default), "local-partition")) == {
        "key-filter": ("^.{3}", "^.{5}")}  # a routing setting from a ${} whose name says nothing secret: shown
    secret_old = edit(text, literal, "<key-filter>${kf_secret:^.{3}}</key-filter>\n            <local-target-filter>")
    secret_new = edit(text, literal, "<key-filter>${kf_secret:^.{5}}</key-filter>\n            <local-target-filter>")
    assert _changes(_router(_diff(secret_old, secret_new), "local-partition")) == {
        "key-filter": ("(from ${kf_secret})", "(from ${kf_secret})")}  # named as a secret: not shown
    assert _changes(_router(_diff(old, new_default, show_values=True), "local-partition")) == {
        "key-filter": ("^.{3}", "^.{5}")}
    # with the property given, both defaults are overridden by the same value: no change
    assert _router(_diff(old, new_default, {"kf": "^.{2}"}), "local-partition").changes == ()


def test_a_change_the_broker_ignores_is_flagged_and_changes_nothing() -> None:
    text = sample_text()
    transformer = edit(text, STICKY_POLICY, STICKY_POLICY.replace(
        '<policy name="CONSISTENT_HASH"/>', '<key-transformer class-name="x.Y"/>\n            '
                                            '<policy name="CONSISTENT_HASH"/>'))
    r = _router(_diff(text, transformer), "sticky-router")
    assert r.status == "unchanged"
    assert [c.setting for c in r.changes] == ["key-transformer"] and "never reads" in (r.changes[0].ignored or "")
    # a <policy> that is not the last one: the broker reads only the last
    first = edit(text, STICKY_POLICY, STICKY_POLICY.replace(
        '<policy name="CONSISTENT_HASH"/>', '<policy name="ROUND_ROBIN"/>\n            '
                                            '<policy name="CONSISTENT_HASH"/>'))
    second = edit(text, STICKY_POLICY, STICKY_POLICY.replace(
        '<policy name="CONSISTENT_HASH"/>', '<policy name="FIRST_ELEMENT"/>\n            '
                                            '<policy name="CONSISTENT_HASH"/>'))
    r = _router(_diff(first, second), "sticky-router")
    assert r.status == "unchanged"
    assert _changes(r) == {"policy (not the last)": ("ROUND_ROBIN", "FIRST_ELEMENT")}
    assert r.changes[0].ignored == "the broker reads only the last <policy>"


def test_a_property_the_policy_never_reads_is_ignored() -> None:
    text = sample_text()
    new = edit(text, '<property key="MODULO" value="3"/>',
               '<property key="MODULO" value="3"/>\n               <property key="SPREAD" value="9"/>')
    r = _router(_diff(text, new), "shard-router")
    assert r.status == "unchanged" and r.changes[0].ignored == "CONSISTENT_HASH_MODULO reads only MODULO"


def test_added_and_removed_sections_and_hidden_passwords() -> None:
    text = sample_text()
    new = edit(text, '<connection-router name="shard-router">', '<connection-router name="shard-router-2">')
    new = edit(new, "<password>ENC(-5a2376c61c668aaf)</password>\n               <check-period>",
               "<password>s3cret-new</password>\n               <check-period>")
    new = edit(new, "<max-hops>1</max-hops>", "<max-hops>2</max-hops>")
    d = _diff(text, new)
    status = {s.name: s.status for s in d.routers}
    assert status["shard-router"] == "removed" and status["shard-router-2"] == "added"
    sticky = _changes(_router(d, "sticky-router"))
    assert sticky == {"pool.password": ("(hidden)", "(hidden)")}
    assert "s3cret" not in repr(d)
    cc = next(s for s in d.cluster_connections if s.name == "my-cluster")
    assert cc.status == "changed" and _changes(cc) == {"max-hops": (1, 2)}


def test_a_divert_transformer_change() -> None:
    text = sample_text()
    old = edit(text, "<routing-type>MULTICAST</routing-type>",
               '<routing-type>MULTICAST</routing-type>\n            <transformer><class-name>a.B</class-name>'
               '<property key="k" value="1"/></transformer>')
    new = edit(old, '<property key="k" value="1"/>', '<property key="k" value="2"/>')
    d = _diff(old, new)
    divert = next(s for s in d.diverts if s.name == "order-divert")
    assert divert.status == "changed" and [c.setting for c in divert.changes] == ["transformer"]
    assert "'k': '2'" in str(divert.changes[0].new)


def test_every_corpus_file_against_itself_and_its_neighbour() -> None:
    """Real broker.xml files: no change against itself; a neighbour compares without a crash."""
    import pytest

    from artemis_routing_cli.config import load

    from ..conftest import corpus_files

    files = corpus_files()
    if not files:
        pytest.skip("the corpus is absent")
    opts = LoadOptions(environ={})
    previous = None
    for path in files:
        cfg = load(str(path), opts)
        same = diff_configs(cfg, load(str(path), opts))
        assert all(s.status == "unchanged" and not s.changes
                   for s in same.routers + same.diverts + same.cluster_connections), path
        if previous is not None:
            diff_configs(previous, cfg)
        previous = cfg
