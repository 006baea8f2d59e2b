"""AR307-AR310, AR315, AR316: how the broker reads a router's elements and filters."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.diagnostics import Severity
from tests.conftest import broker_xml

from .helpers import lint_fragment, only

CONNECTORS = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
  <connector name="b2">tcp://broker2:61616</connector>
</connectors>"""


def router(*children: str) -> str:
    body = "\n    ".join(children)
    return f"""{CONNECTORS}
<connection-routers>
  <connection-router name="r1">
    {body}
  </connection-router>
</connection-routers>"""


STATIC = "<static-connectors><connector-ref>b1</connector-ref></static-connectors>"


def test_ar307_first_wins_for_pool_settings(tmp_path) -> None:
    frag = router('<policy name="FIRST_ELEMENT"/>',
                  f"<pool><quorum-size>1</quorum-size>{STATIC}<quorum-size>2</quorum-size>{STATIC}</pool>")
    diags = only(lint_fragment(tmp_path, frag), "AR307")
    messages = sorted(d.message for d in diags)
    assert len(diags) == 2
    assert any("<quorum-size> is repeated in the pool: the broker reads only the first" in m for m in messages)
    assert any("<static-connectors> is repeated in the pool" in m and "uses the last" in m for m in messages)


def test_ar307_last_pool_wins(tmp_path) -> None:
    frag = router('<policy name="FIRST_ELEMENT"/>', f"<pool>{STATIC}</pool>", f"<pool>{STATIC}</pool>")
    [d] = only(lint_fragment(tmp_path, frag), "AR307")
    assert d.line == 9 and "uses the last one (line 10)" in d.message


def test_ar307_mixed_sources_use_the_broker_precedence(tmp_path) -> None:
    frag = """<discovery-groups><discovery-group name="dg"><group-address>231.7.7.7</group-address>
  <group-port>9876</group-port></discovery-group></discovery-groups>
""" + router('<policy name="FIRST_ELEMENT"/>',
             f'<pool>{STATIC}<discovery-group-ref discovery-group-name="dg"/></pool>')
    [d] = only(lint_fragment(tmp_path, frag), "AR307")
    assert "uses <discovery-group-ref> and ignores <static-connectors>" in d.message


def test_ar307_cache_setting_repeated(tmp_path) -> None:
    frag = router("<cache><timeout>10</timeout><timeout>20</timeout></cache>",
                  "<local-target-filter>x</local-target-filter>")
    [d] = only(lint_fragment(tmp_path, frag), "AR307")
    assert "in the cache" in d.message


def test_ar308_key_transformer(tmp_path) -> None:
    frag = router('<key-transformer name="kt"/>', "<local-target-filter>x</local-target-filter>")
    assert len(only(lint_fragment(tmp_path, frag), "AR308")) == 1


def test_ar309_key_filter_syntax_error_is_an_error(tmp_path) -> None:
    frag = router("<key-filter>[a-</key-filter>", "<local-target-filter>x</local-target-filter>")
    [d] = only(lint_fragment(tmp_path, frag), "AR309")
    assert d.severity is Severity.ERROR and d.line == 8 and "<key-filter>" in d.message
    assert "refuses to start" in d.message


def test_ar309_not_for_patterns_java_compiles(tmp_path) -> None:
    """(?c), \\b{g} and \\X are evaluated as Java 17 does: no AR309, a note (AR310) on what they mean."""
    frag = router("<key-filter>\\X\\b{g}</key-filter>", "<local-target-filter>(?c)[a]bc</local-target-filter>")
    diags = lint_fragment(tmp_path, frag)
    assert only(diags, "AR309") == []
    assert any("(?c)" in d.message for d in only(diags, "AR310"))
    assert any("Java 17" in d.message for d in only(diags, "AR310"))


def test_ar310_note_names_the_construct_and_mode(tmp_path) -> None:
    frag = router("<key-filter>\\w{3}$</key-filter>", "<local-target-filter>abc</local-target-filter>")
    [d] = only(lint_fragment(tmp_path, frag), "AR310")
    assert "find()" in d.message and "\\w" in d.message and "'$'" not in d.message  # '$' notes are left out


def test_ar315_and_ar316_blank_filters(tmp_path) -> None:
    frag = router("<key-filter>  </key-filter>", "<local-target-filter/>")
    diags = lint_fragment(tmp_path, frag)
    assert [d.line for d in only(diags, "AR316")] == [8]
    assert [d.line for d in only(diags, "AR315")] == [9]
    assert only(diags, "AR309", "AR310") == []


def test_a_no_break_space_filter_is_not_blank(tmp_path) -> None:
    """The broker trims with String.trim, which keeps U+00A0: the filter is the one-character pattern."""
    diags = lint_fragment(tmp_path, router("<local-target-filter>\u00a0</local-target-filter>"))
    assert only(diags, "AR315") == []


def test_a_key_filter_of_unicode_spaces_is_blank_as_string_isblank(tmp_path) -> None:
    """String.trim keeps U+2003 and U+00A0; KeyResolver's isBlank drops the first (AR316), not the second."""
    em = lint_fragment(tmp_path, router("<key-filter>\u2003</key-filter>"))
    assert len(only(em, "AR316")) == 1
    nbsp = lint_fragment(tmp_path, router("<key-filter>\u00a0\x85</key-filter>"))
    assert only(nbsp, "AR316") == []


@settings(deadline=None)  # the first example pays for imports
@given(st.sampled_from(["key-filter", "local-target-filter"]),
       st.text(st.sampled_from(list("ab.*^$\\[](){}?+|\u2003 \t\n0-9wWdbBQE:=!<pP")), max_size=12))
def test_filter_findings_remembered_equal_worked_out(name: str, value: str) -> None:
    """Routers writing the same filter get the findings the filter alone gives, remembered (bounded)."""
    from artemis_routing_cli.rules.routers import filter_findings, worked_out_filter_findings

    assert filter_findings(name, value) == worked_out_filter_findings(name, value)
    assert filter_findings(name, value) is filter_findings(name, value)
    assert filter_findings.cache_info().maxsize == 1024


@pytest.mark.parametrize("children", ["", "<pool/>", "<cache/>", "<pool/><pool/>", "<pool/><cache/><!-- c --><cache/>",
                                      "<x:pool xmlns:x='urn:x'/>", "<pool><pool/></pool>"])
def test_children_read_from_the_models_fields_are_the_elements(tmp_path: Path, children: str) -> None:
    """A router's <pool>s and <cache>s taken from its fields (none or one) are those a walk finds."""
    from artemis_routing_cli.config import LoadOptions, load_document
    from artemis_routing_cli.config.nodes import ChildFields, child_elements
    from artemis_routing_cli.config.parse import build_config
    from artemis_routing_cli.rules._util import router_elements
    from artemis_routing_cli.rules.routers import _children

    path = tmp_path / "broker.xml"
    path.write_text(broker_xml(f'<connection-routers><connection-router name="r"><key-type>CLIENT_ID</key-type>'
                               f"{children}</connection-router></connection-routers>"))
    config = build_config(load_document(str(path), LoadOptions({}, None, None)))
    (router, element), = router_elements(config)
    assert isinstance(router.fields, ChildFields) and element is not None
    for name in ("pool", "cache"):
        assert list(_children(element, router.fields, name)) == list(child_elements(element, name))


def test_a_filter_starting_with_visible_ascii_is_not_blank_for_java() -> None:
    """routers.worked_out_filter_findings asks java_is_blank only about a key-filter whose first
    character is not one of '!'..'~': none of those is Character.isWhitespace."""
    from artemis_routing_cli.javastr import java_is_blank, java_is_whitespace
    from artemis_routing_cli.rules.routers import worked_out_filter_findings

    for code in range(0x21, 0x7F):
        assert not java_is_whitespace(chr(code))
        assert not java_is_blank(chr(code) + " \u2003")
    for value in (" ", "\u2003", "\u00a0", "\u0085", "\t\n", "\u2003^a", " x"):
        found = worked_out_filter_findings("key-filter", value)
        assert any(rule == "AR316" for rule, *_ in found) == java_is_blank(value), value
