"""AR401-AR403: cluster credentials and plain-text passwords; no message shows a password."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.rules import families

from .helpers import lint_fragment, only

CLUSTER = """<connectors><connector name="b1">tcp://b1:61616</connector></connectors>
<cluster-connections><cluster-connection name="cc"><connector-ref>b1</connector-ref>
  <static-connectors><connector-ref>b1</connector-ref></static-connectors></cluster-connection></cluster-connections>"""
ROUTER = """<connectors><connector name="b1">tcp://b1:61616</connector></connectors>
<connection-routers><connection-router name="r1"><policy name="FIRST_ELEMENT"/>
  <pool><username>u</username><password>{password}</password>
  <static-connectors><connector-ref>b1</connector-ref></static-connectors></pool>
</connection-router></connection-routers>"""


def test_ar401_when_the_password_is_missing(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, CLUSTER), "AR401")
    assert d.line == 3 and "default <cluster-user>" in d.message


def test_ar401_custom_user_default_password(tmp_path) -> None:
    frag = "<cluster-user>me</cluster-user><cluster-password>CHANGE ME!!</cluster-password>\n" + CLUSTER
    [d] = only(lint_fragment(tmp_path, frag), "AR401")
    assert d.line == 2 and "cluster-user" not in d.message


def test_ar401_not_without_cluster_connections(tmp_path) -> None:
    assert only(lint_fragment(tmp_path, "<cluster-password>CHANGE ME!!</cluster-password>"), "AR401") == []


def test_ar401_not_when_the_value_is_masked_by_mask_password(tmp_path) -> None:
    frag = "<mask-password>true</mask-password><cluster-password>CHANGE ME!!</cluster-password>\n" + CLUSTER
    diags = lint_fragment(tmp_path, frag)
    assert only(diags, "AR401", "AR403") == []


def test_ar403_enc_with_mask_password_false_is_plain(tmp_path) -> None:
    frag = "<mask-password>false</mask-password><cluster-password>ENC(abc)</cluster-password>\n" + CLUSTER
    [d] = only(lint_fragment(tmp_path, frag), "AR403")
    assert "mask-password is false" in d.message


def test_ar402_pool_password(tmp_path) -> None:
    assert len(only(lint_fragment(tmp_path, ROUTER.format(password="hunter2")), "AR402")) == 1
    assert only(lint_fragment(tmp_path, ROUTER.format(password="ENC(1234)")), "AR402") == []


def test_no_message_contains_a_password(tmp_path) -> None:
    secret = "Zq9-very-secret"
    frags = [ROUTER.format(password=secret),
             f"<cluster-user>u</cluster-user><cluster-password>{secret}</cluster-password>\n" + CLUSTER]
    for meta in (m for mod in families() for m in mod.RULES):
        frags.append(meta.fail.replace("secret", secret))
    for frag in frags:
        for d in lint_fragment(tmp_path, frag):
            assert secret not in d.message and secret not in (d.hint or "")


@settings(deadline=None)
@given(st.one_of(st.text(st.sampled_from(list("ENC()0123456789abcdefXYZ- ")), max_size=40),
                 st.sampled_from(["ENC(3bdfd94fe8cdf710e7fefa72f809ea90)", "ENC(1234)", "ENC()", "plain"])),
       st.sampled_from([None, True, False]),
       st.sampled_from([b"clusterpassword", b"", b"k" * 57, "codec com.example.Mine", "the key cannot be read"]),
       st.sampled_from(["pool <password>", "<cluster-password>"]))
def test_undecodable_message_remembered_equals_worked_out(value: str, mask: bool | None, key: bytes | str,
                                                         what: str) -> None:
    """Routers sharing a password get what the password alone gives, remembered for short values only."""
    from artemis_routing_cli.rules import security

    assert security.undecodable_message(value, mask, key, what) == \
        security.worked_out_undecodable_message(value, mask, key, what)
    assert security._remembered_message.cache_info().maxsize == 256
    long = "ENC(" + "ab" * 400 + ")"
    before = security._remembered_message.cache_info().currsize
    security.undecodable_message(long, None, b"clusterpassword", what)
    assert security._remembered_message.cache_info().currsize == before  # a long value is not kept


@settings(deadline=None)
@given(st.text(st.sampled_from(list("ENC()0123456789abcdefXYZ- ")), max_size=40), st.sampled_from([None, True, False]))
def test_the_passwords_skipped_before_the_memo_get_no_message(value: str, mask: bool | None) -> None:
    """check() asks for no AR404 message about a pool password read as written (mask-password false,
    or not set and the value not ENC(...)): the worked-out message for it is None."""
    from artemis_routing_cli.config.masked import is_enc_masked
    from artemis_routing_cli.rules import security

    asked = mask is True or (mask is None and is_enc_masked(value))
    if not asked:
        assert security.worked_out_undecodable_message(value, mask, b"clusterpassword", "pool <password>") is None
    assert is_enc_masked("ENC(" + value + ")") and is_enc_masked(value) == (value[:4] == "ENC(" and value[-1:] == ")")


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(st.sampled_from(list("0123456789abcdefABCDEF-+ g\u0661\uff21")), max_size=60),
                 st.sampled_from(["3bdfd94fe8cdf710e7fefa72f809ea90", "3bdfd94fe8cdf710e7fefa72f809ea9", "00" * 8,
                                  "-" + "3bdfd94fe8cdf710e7fefa72f809ea90", "f" * 16])),
       st.sampled_from([b"clusterpassword", b"", b"k" * 57, b"k" * 56, b"a", b"another key"]))
def test_decoding_failure_answers_as_decodes_and_hex_reading(text: str, key: bytes) -> None:
    """The one-pass reason AR404 uses says what blowfish_decodes and is_hex_big_integer say together."""
    from artemis_routing_cli.config import masked

    failure = masked.decoding_failure(text, key)
    if masked.blowfish_decodes(text, key):
        assert failure is None
    elif masked.is_hex_big_integer(text):
        assert failure == masked.NOT_PADDED
    else:
        assert failure == masked.NOT_HEXADECIMAL
