"""Each schema rule fires on a small broken fragment (exact words and position) and not on its fix.

Fragments are wrapped in ``<core xmlns="urn:activemq:core">`` on line 1, so the first line of a
fragment is line 2 of the document.
"""

from __future__ import annotations

import pytest

from artemis_routing_cli.diagnostics import Severity
from tests.conftest import broker_xml
from tests.schema.schema_support import brief, check_fragment

ROUTER = """<connection-routers>
  <connection-router name="r1">
{body}
  </connection-router>
</connection-routers>"""

DIVERT = """<diverts>
  <divert name="d1">
{body}
  </divert>
</diverts>"""

CLUSTER = """<cluster-connections>
  <cluster-connection name="c1">
    <connector-ref>netty</connector-ref>
{body}
  </cluster-connection>
</cluster-connections>"""


def router(body: str) -> str:
    return ROUTER.format(body=body)


# ------------------------------------------------------------------ AR101 unexpected-element


def test_pool_target_source_before_a_setting_is_out_of_order() -> None:
    diags = check_fragment(router("""    <pool>
      <static-connectors><connector-ref>a</connector-ref></static-connectors>
      <quorum-size>2</quorum-size>
    </pool>"""))
    assert brief(diags) == [
        ("AR101", 5, 7, "in <pool>, <static-connectors> must come after <quorum-size>"),
    ]
    assert diags[0].severity is Severity.ERROR
    assert diags[0].category == "schema"
    assert diags[0].section == "connection-routers"
    assert diags[0].hint == (
        "the order inside <pool> is: username, password, check-period, quorum-size, quorum-timeout, "
        "local-target-enabled, cluster-connection | static-connectors | discovery-group-ref"
    )


def test_pool_settings_out_of_order() -> None:
    diags = check_fragment(router("""    <pool>
      <quorum-size>2</quorum-size>
      <username>guest</username>
      <cluster-connection>cc</cluster-connection>
    </pool>"""))
    assert brief(diags) == [("AR101", 5, 7, "in <pool>, <quorum-size> must come after <username>")]


def test_pool_in_broker_order_passes() -> None:
    assert check_fragment(router("""    <pool>
      <username>guest</username>
      <password>ENC(abc)</password>
      <check-period>1000</check-period>
      <quorum-size>2</quorum-size>
      <quorum-timeout>3000</quorum-timeout>
      <local-target-enabled>true</local-target-enabled>
      <cluster-connection>cc</cluster-connection>
    </pool>""")) == []


def test_pool_group_may_repeat_as_in_the_broker_schema() -> None:
    # the broker's pool is an unbounded sequence of "settings + one source"
    assert check_fragment(router("""    <pool>
      <static-connectors><connector-ref>a</connector-ref></static-connectors>
      <quorum-size>2</quorum-size>
      <cluster-connection>cc</cluster-connection>
    </pool>""")) == []


def test_unknown_child_suggests_the_near_name() -> None:
    diags = check_fragment(router("    <key_type>CLIENT_ID</key_type>"))
    assert brief(diags) == [
        ("AR101", 4, 5, "<connection-router> does not take <key_type>; did you mean <key-type>?"),
    ]
    assert diags[0].hint == ("<connection-router> takes: key-type, key-filter, local-target-filter, cache, "
                             "policy, pool, key-transformer")


def test_router_children_in_any_order_and_repeated_pass() -> None:
    assert check_fragment(router("""    <pool><cluster-connection>cc</cluster-connection></pool>
    <policy name="FIRST_ELEMENT"/>
    <key-type>USER_NAME</key-type>
    <cache/>
    <policy name="ROUND_ROBIN"/>
    <key-type>CLIENT_ID</key-type>
    <key-transformer name="kt"><property key="a" value="b"/></key-transformer>""")) == []


def test_cluster_connection_takes_only_one_member_source() -> None:
    diags = check_fragment(CLUSTER.format(body="""    <static-connectors><connector-ref>a</connector-ref>
    </static-connectors>
    <discovery-group-ref discovery-group-name="dg"/>""") + """
<discovery-groups><discovery-group name="dg"/></discovery-groups>""")
    assert brief(diags) == [
        ("AR101", 7, 5, ("<cluster-connection> takes only one of "
                         "<static-connectors> or <discovery-group-ref>")),
    ]


def test_text_inside_an_element_only_element() -> None:
    diags = check_fragment(router("    <pool>oops<cluster-connection>cc</cluster-connection></pool>"))
    assert brief(diags) == [("AR101", 4, 5, "<pool> holds only elements, not text 'oops'")]


def test_element_inside_a_value() -> None:
    diags = check_fragment(router("    <key-type><CLIENT_ID/></key-type>"))
    assert brief(diags) == [("AR101", 4, 5, ("<key-type> holds a value, not elements; "
                                             "<CLIENT_ID> is not allowed inside it"))]


def test_element_in_the_wrong_namespace() -> None:
    diags = check_fragment(router('    <pool xmlns=""><cluster-connection>cc</cluster-connection></pool>'))
    assert brief(diags) == [("AR101", 4, 5, "<pool> must be in the urn:activemq:core namespace")]


def test_broadcast_group_is_ordered() -> None:
    diags = check_fragment("""<broadcast-groups>
  <broadcast-group name="bg">
    <group-port>9876</group-port>
    <group-address>231.7.7.7</group-address>
  </broadcast-group>
</broadcast-groups>""")
    assert brief(diags) == [("AR101", 4, 5, ("in <broadcast-group>, <group-port> must "
                                             "come after <group-address>"))]


# ------------------------------------------------------------------ AR102 missing-element


def test_divert_without_forwarding_address() -> None:
    diags = check_fragment(DIVERT.format(body="    <address>orders</address>"))
    assert brief(diags) == [("AR102", 3, 3, "<divert> needs <forwarding-address>")]


def test_empty_divert_needs_both_addresses() -> None:
    diags = check_fragment(DIVERT.format(body=""))
    assert brief(diags) == [("AR102", 3, 3, "<divert> needs <address> and <forwarding-address>")]


def test_pool_without_target_source() -> None:
    diags = check_fragment(router("    <pool><quorum-size>1</quorum-size></pool>"))
    assert brief(diags) == [
        ("AR102", 4, 5, ("<pool> needs one of <cluster-connection>, "
                         "<static-connectors> or <discovery-group-ref>")),
    ]


def test_empty_static_connectors() -> None:
    diags = check_fragment(router("    <pool>\n      <static-connectors/>\n    </pool>"))
    assert brief(diags) == [("AR102", 5, 7, "<static-connectors> needs at least one <connector-ref>")]


def test_cluster_connection_without_connector_ref() -> None:
    diags = check_fragment('<cluster-connections>\n  <cluster-connection name="c1"/>\n</cluster-connections>')
    assert brief(diags) == [("AR102", 3, 3, "<cluster-connection> needs <connector-ref>")]


def test_empty_sections_the_broker_rejects() -> None:
    diags = check_fragment("<cluster-connections/>\n<acceptors/>")
    assert brief(diags) == [
        ("AR102", 2, 1, ("<cluster-connections> needs at least one "
                         "<cluster-connection> or <cluster-connection-uri>")),
        ("AR102", 3, 1, "<acceptors> needs at least one <acceptor>"),
    ]


def test_transformer_needs_class_name_first() -> None:
    diags = check_fragment(DIVERT.format(body="""    <address>a</address>
    <forwarding-address>b</forwarding-address>
    <transformer><property key="k" value="v"/></transformer>"""))
    assert brief(diags) == [("AR102", 6, 5, "<transformer> needs <class-name> before <property>")]


def test_empty_sections_the_broker_accepts() -> None:
    assert check_fragment("<connection-routers/>\n<diverts/>\n<broadcast-groups/>\n<discovery-groups/>") == []


# ------------------------------------------------------------------ AR103 invalid-value


def test_key_type_outside_the_enumeration() -> None:
    diags = check_fragment(router("    <key-type>CLIENTID</key-type>"))
    assert brief(diags) == [
        ("AR103", 4, 5, ("<key-type> must be one of CLIENT_ID, SNI_HOST, "
                         "SOURCE_IP, USER_NAME, ROLE_NAME, not 'CLIENTID'")),
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("    <cache><timeout>soon</timeout></cache>", ("<timeout> must be a whole number "
                                                        "(64-bit), not 'soon'")),
        ("    <cache><persisted>yes</persisted></cache>", "<persisted> must be true or false, not 'yes'"),
        ("    <pool><check-period>5s</check-period><cluster-connection>c</cluster-connection></pool>",
         "<check-period> must be a whole number (64-bit), not '5s'"),
    ],
)
def test_router_values_of_the_wrong_type(body: str, message: str) -> None:
    diags = check_fragment(router(body))
    assert [(d.rule, d.line, d.message) for d in diags] == [("AR103", 4, message)]


def test_values_the_broker_schema_accepts() -> None:
    assert check_fragment(router("""    <cache><persisted>1</persisted><timeout> 0 </timeout></cache>
    <pool><check-period/><cluster-connection>c</cluster-connection></pool>""")) == []


def test_cluster_connection_values() -> None:
    diags = check_fragment(CLUSTER.format(body="""    <max-hops>2147483648</max-hops>
    <message-load-balancing>on_demand</message-load-balancing>"""))
    assert brief(diags) == [
        ("AR103", 5, 5, "<max-hops> must be a whole number from -2147483648 to 2147483647, not '2147483648'"),
        ("AR103", 6, 5, "<message-load-balancing> must be one of OFF, STRICT, ON_DEMAND, "
                        "OFF_WITH_REDISTRIBUTION, not 'on_demand'"),
    ]


def test_divert_routing_type_is_case_sensitive() -> None:
    diags = check_fragment(DIVERT.format(body="""    <address>a</address>
    <forwarding-address>b</forwarding-address>
    <routing-type>strip</routing-type>"""))
    assert brief(diags) == [("AR103", 6, 5, ("<routing-type> must be one of ANYCAST, "
                                             "MULTICAST, STRIP, PASS, not 'strip'"))]


def test_divert_name_must_be_an_xml_name() -> None:
    diags = check_fragment('<diverts>\n  <divert name="my divert"><address>a</address>'
                           '<forwarding-address>b</forwarding-address></divert>\n</diverts>')
    assert brief(diags) == [
        ("AR103", 3, 3, "the name attribute of <divert> must be a name without spaces or colons that does "
                        "not start with a digit, not 'my divert'"),
    ]


def test_router_name_may_be_any_text() -> None:
    fragment = '<connection-routers><connection-router name="my router 1"/></connection-routers>'
    assert check_fragment(fragment) == []


# ------------------------------------------------------------------ AR104 bad-attribute


def test_router_without_name() -> None:
    diags = check_fragment("<connection-routers>\n  <connection-router/>\n</connection-routers>")
    assert brief(diags) == [("AR104", 3, 3, "<connection-router> needs a name attribute")]


def test_misspelt_attribute() -> None:
    diags = check_fragment('<connection-routers>\n  <connection-router nmae="r"/>\n</connection-routers>')
    assert brief(diags) == [
        ("AR104", 3, 3, "<connection-router> does not take a nmae attribute; did you mean name?"),
        ("AR104", 3, 3, "<connection-router> needs a name attribute"),
    ]


def test_pool_static_connectors_take_no_allow_direct() -> None:
    diags = check_fragment(router("""    <pool>
      <static-connectors allow-direct-connections-only="true">
        <connector-ref>a</connector-ref>
      </static-connectors>
    </pool>"""))
    assert brief(diags) == [
        ("AR104", 5, 7, "<static-connectors> does not take an allow-direct-connections-only attribute"),
    ]


def test_filter_and_property_attributes() -> None:
    diags = check_fragment(DIVERT.format(body="""    <address>a</address>
    <forwarding-address>b</forwarding-address>
    <filter/>""") + "\n" + router('    <policy name="X"><property key="MODULO"/></policy>'))
    assert brief(diags) == [
        ("AR104", 6, 5, "<filter> needs a string attribute"),
        ("AR104", 11, 22, "<property> needs a value attribute"),
    ]


def test_cluster_static_connectors_take_allow_direct() -> None:
    assert check_fragment(CLUSTER.format(body="""    <static-connectors allow-direct-connections-only="true">
      <connector-ref>a</connector-ref>
    </static-connectors>""")) == []


# ------------------------------------------------------------------ AR105 duplicate


def test_divert_child_given_twice() -> None:
    diags = check_fragment(DIVERT.format(body="""    <address>a</address>
    <forwarding-address>b</forwarding-address>
    <address>c</address>"""))
    assert brief(diags) == [("AR105", 6, 5, "<divert> may hold only one <address> (the first is at line 4)")]


def test_section_given_twice() -> None:
    diags = check_fragment("<diverts/>\n<diverts/>")
    assert brief(diags) == [("AR105", 3, 1, "<core> may hold only one <diverts> (the first is at line 2)")]


def test_unique_names_are_shared_across_sections() -> None:
    diags = check_fragment(DIVERT.format(body="""    <address>a</address>
    <forwarding-address>b</forwarding-address>""")
                           + "\n" + CLUSTER.replace('name="c1"', 'name="d1"').format(body=""))
    assert brief(diags) == [("AR105", 9, 3, ("<cluster-connection> name 'd1' is already "
                                             "used by <divert> at line 3"))]


def test_router_names_are_not_in_the_unique_pool() -> None:
    # connection-router names are plain strings in the broker's schema
    assert check_fragment(DIVERT.format(body="""    <address>a</address>
    <forwarding-address>b</forwarding-address>""").replace('name="d1"', 'name="r1"')
                          + "\n" + router("")) == []


# ------------------------------------------------------------------ AR106 unknown-discovery-group


def test_reference_to_a_missing_discovery_group() -> None:
    diags = check_fragment(router("""    <pool>
      <discovery-group-ref discovery-group-name="dg1"/>
    </pool>"""))
    assert brief(diags) == [
        ("AR106", 5, 7, "<discovery-group-ref> points at 'dg1', but nothing in <core> is named that"),
    ]


def test_reference_to_a_defined_discovery_group() -> None:
    assert check_fragment('<discovery-groups><discovery-group name="dg1"/></discovery-groups>\n' + router(
        '    <pool><discovery-group-ref discovery-group-name="dg1"/></pool>')) == []


# ------------------------------------------------------------------ xml:* attributes


def test_xml_id_is_not_one_of_the_brokers_special_attributes() -> None:
    """The broker's xml:specialAttrs group holds xml:base, xml:lang and xml:space only."""
    diags = check_fragment(DIVERT.format(body="    <address>a</address><forwarding-address>b</forwarding-address>")
                           .replace('<divert name="d1">', '<divert name="d1" xml:id="d1">'))
    assert [d.rule for d in diags] == ["AR104"]
    for attr in ('xml:lang="en"', 'xml:space="preserve"', 'xml:base="x.xml"'):
        ok = DIVERT.format(body="    <address>a</address><forwarding-address>b</forwarding-address>").replace(
            '<divert name="d1">', f'<divert name="d1" {attr}>')
        assert check_fragment(ok) == [], attr


# ------------------------------------------------------------------ crowded elements


@pytest.mark.parametrize("count", [0, 1, 49, 50, 51, 300])
@pytest.mark.parametrize("kind", ["plain", "namespaced", "xml", "declarations"])
@pytest.mark.parametrize("where", ["section", "deep", "last"])
def test_crowded_section_agrees_with_counting_attributes(count: int, kind: str, where: str) -> None:
    """Whether a section holds an element with more attributes than are listed (one XPath in libxml2)
    is what counting each element's ``attrib`` says: namespaced and xml:* attributes count,
    namespace declarations (``xmlns:p``) do not, wherever the element sits."""
    from lxml import etree

    from artemis_routing_cli.config.schema import MAX_FINDINGS_PER_ELEMENT, crowded_section

    decls = "".join(f' xmlns:n{i}="urn:n{i}"' for i in range(count)) if kind == "declarations" else ""
    section = etree.fromstring(f'<diverts xmlns="urn:activemq:core" xmlns:p="urn:p"{decls}>'
                               '<divert name="a"><address>x</address><!-- c --><?pi x?></divert>'
                               '<divert name="b"><address>y</address></divert></diverts>')
    target = {"section": section, "deep": section[0][0], "last": section[1]}[where]
    for i in range(count if kind != "declarations" else 10):
        if kind == "namespaced" and i % 2:
            target.set(f"{{urn:p}}a{i}", "1")
        elif kind == "xml" and i == 0:
            target.set("{http://www.w3.org/XML/1998/namespace}lang", "en")
        else:
            target.set(f"a{i}", "1")
    counted = any(len(el.attrib) > MAX_FINDINGS_PER_ELEMENT for el in section.iter(etree.Element))
    assert counted == (len(target.attrib) > MAX_FINDINGS_PER_ELEMENT)  # the element built here is the only candidate
    if kind == "declarations":
        assert not counted and len(target.nsmap) > count
    assert crowded_section(section) is counted


# ------------------------------------------------------------------ xs:ID names read as strings


_IDS = """<core xmlns="urn:activemq:core" xmlns:o="urn:other">
<diverts><divert name=" d1 "/><divert name=""/><divert/><o:divert name="o1"/>{extra}</diverts>
<cluster-connections><cluster-connection name="c1"/></cluster-connections>
<connection-routers><connection-router name="r1"><key-transformer name="k1"/></connection-router></connection-routers>
<federations><federation name="f1"><upstream name="u1"/><policy-set name="p1"/></federation></federations>
<discovery-groups><discovery-group name="dg1"/></discovery-groups>
<bridges><bridge name="b1"><discovery-group-ref discovery-group-name="{ref}"/></bridge></bridges>
</core>"""


@pytest.mark.parametrize(("extra", "ref", "rules"), [
    ("", "dg1", []),
    ("", " dg1 ", []),
    ("", "missing", ["AR106"]),
    ('<divert name="c1"/>', "dg1", ["AR105"]),
    ('<divert name="d1"/>', "k1", ["AR105"]),  # " d1 " trimmed
    ('<divert name="u1"/><divert name="p1"/>', "missing", ["AR105", "AR105", "AR106"]),
    ('<divert o:name="c1"/>', "o1", ["AR106"]),  # another namespace's name or element is no xs:ID
])
def test_id_names_read_as_strings_find_what_the_elements_say(extra: str, ref: str, rules: list[str]) -> None:
    """The xs:ID names taken as plain strings (no element objects while none repeats) are the trimmed
    names of the elements the ID paths reach, and the findings those elements give."""
    from lxml import etree

    from artemis_routing_cli.config.positions import Locator
    from artemis_routing_cli.config.schema_ids import _ID_NAMES, _id_name_values, _id_owners, id_problems

    text = _IDS.format(extra=extra, ref=ref)
    core = etree.fromstring(text)
    locate = Locator("broker.xml", text).locate
    elements = [el.get("name", "").strip() for el in _ID_NAMES(core)]
    assert sorted(value.strip() for value in _id_name_values(core)) == sorted(elements)
    found = id_problems(core, locate)
    assert [p.rule for p in found] == rules
    every: list = []
    owners = _id_owners(core, locate, every)  # the element-by-element reading, always
    assert set(owners) == {name for name in elements if name}
    assert [(p.rule, p.element, p.message) for p in every] == [(p.rule, p.element, p.message)
                                                                for p in found if p.rule == "AR105"]


@pytest.mark.parametrize("extra", ["", '<divert name="c1"/>', '<divert name="u1"/><divert name="p1"/>',
                                   '<divert o:name="c1"/>', "".join(f'<divert name=" d{n} "/>' for n in range(80))])
def test_id_names_of_large_sections_as_of_small_ones(extra: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The names under a section are the same read by its expression (a large section) or walked from
    Python (a small one)."""
    from lxml import etree

    from artemis_routing_cli.config import schema_ids

    core = etree.fromstring(_IDS.format(extra=extra, ref="dg1"))
    walked = sorted(schema_ids._id_name_values(core)) if len(core[0]) <= schema_ids._SMALL_SECTION else None
    monkeypatch.setattr(schema_ids, "_SMALL_SECTION", -1)  # every section through its expression
    queried = sorted(schema_ids._id_name_values(core))
    monkeypatch.setattr(schema_ids, "_SMALL_SECTION", 1 << 30)  # every section walked
    assert sorted(schema_ids._id_name_values(core)) == queried
    if walked is not None:
        assert walked == queried
    assert queried == sorted(el.get("name", "") for el in schema_ids._ID_NAMES(core))


@pytest.mark.parametrize("seed", range(40))
def test_a_text_with_no_crowded_start_tag_has_no_crowded_element(seed: int) -> None:
    """``may_be_crowded`` (the text's '=' signs between one '<' and the next) is never False where
    some element has more attributes than are listed; and a file with one is still reported whole."""
    import random

    from lxml import etree

    from artemis_routing_cli.config.schema import MAX_FINDINGS_PER_ELEMENT, crowded_section, may_be_crowded

    rng = random.Random(seed)
    elements = []
    for i in range(rng.randint(1, 6)):
        attrs = []
        for j in range(rng.choice([0, 1, 49, 50, 51, 52, 80])):
            value = rng.choice(["1", "a=b", "x>y", "&#61;", "&lt;", "\u00e9"])
            space = rng.choice(["", " ", "\n  "])
            name = f"p:a{j}" if rng.random() < 0.2 else f"a{j}"
            attrs.append(f' {name}{space}={space}"{value}"')
        decls = "".join(f' xmlns:n{k}="urn:n{k}"' for k in range(rng.choice([0, 0, 30])))
        elements.append(f'<divert name="d{i}"{decls}{"".join(attrs)}><address>a=b</address></divert>')
    text = f'<diverts xmlns="urn:activemq:core" xmlns:p="urn:p">{"".join(elements)}</diverts>'
    section = etree.fromstring(text)
    crowded = any(len(el.attrib) > MAX_FINDINGS_PER_ELEMENT for el in section.iter(etree.Element))
    assert crowded_section(section) is crowded
    if crowded:
        assert may_be_crowded(text)


def test_a_crowded_element_is_still_reported_from_a_file(tmp_path) -> None:
    from artemis_routing_cli.linting import lint_path

    attrs = "".join(f' a{i}="1"' for i in range(60))
    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(DIVERT.format(body="    <address>a</address><forwarding-address>b</forwarding-address>")
                               .replace('<divert name="d1">', f'<divert name="d1"{attrs}>')), encoding="utf-8")
    report = lint_path(str(path))
    assert any(d.rule == "AR104" and "61 attributes" in d.message for d in report.diagnostics)
