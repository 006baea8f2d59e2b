"""Security (AR401-AR404): cluster credentials left at their defaults, passwords in plain text.

Brokers of a cluster authenticate each other with `cluster-user` / `cluster-password`; the
defaults are public, so anyone who can reach an acceptor can join the cluster and read every
message. Passwords may be masked as `ENC(...)` (or all of them with `mask-password`); a plain
password in broker.xml is readable by everyone who can read the file, its backups and its
version history. No message of these rules ever contains a password.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from ..config.masked import NOT_HEXADECIMAL, decoding_failure, is_enc_masked
from ..config.model import ConnectionRouter, Pool
from ..config.nodes import READ_FIELDS
from ..config.positions import Pos
from ..diagnostics import REFUSES, Diagnostic, RuleMeta, Severity
from ._util import plaintext_password, real_cluster_connections
from .base import Context

DEFAULT_CLUSTER_USER = "ACTIVEMQ.CLUSTER.ADMIN.USER"  # ActiveMQDefaultConfiguration
DEFAULT_CLUSTER_PASSWORD = "CHANGE ME!!"  # ActiveMQDefaultConfiguration

_CLUSTER = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
</connectors>
<cluster-connections>
  <cluster-connection name="my-cluster">
    <connector-ref>b1</connector-ref>
  </cluster-connection>
</cluster-connections>"""

_ROUTER = """<connectors>
  <connector name="b1">tcp://broker1:61616</connector>
</connectors>
<connection-routers>
  <connection-router name="r1">
    <policy name="FIRST_ELEMENT"/>
    <pool>
      <username>router</username>
      <password>{password}</password>
      <static-connectors><connector-ref>b1</connector-ref></static-connectors>
    </pool>
  </connection-router>
</connection-routers>"""

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR401",
        name="cluster-credentials-default",
        severity=Severity.WARNING,
        category="security",
        summary="Cluster connections while `cluster-password` is unset or still the public default `CHANGE ME!!`.",
        doc="""\
When cluster connections exist and `cluster-password` is not set or is still `CHANGE ME!!`,
every broker that knows the default (that is, everyone) can join the cluster and receive its
messages; the broker only logs a warning. The message also says when `cluster-user` is still
`ACTIVEMQ.CLUSTER.ADMIN.USER`. A user name of your own does not help while the password is
the default. Set both to values of your own, masked with `ENC(...)`.""",
        fail="<cluster-password>CHANGE ME!!</cluster-password>\n" + _CLUSTER,
        ok="<cluster-user>cluster-admin</cluster-user>\n"
           "<cluster-password>ENC(3bdfd94fe8cdf710e7fefa72f809ea90)</cluster-password>\n" + _CLUSTER,
    ),
    RuleMeta(
        id="AR402",
        name="pool-password-plaintext",
        severity=Severity.INFO,
        category="security",
        summary="A router pool's `<password>` is written in plain text.",
        doc="""\
The pool logs in to each target broker to read its state with this password. Mask it:
`<password>ENC(...)</password>` with the output of `artemis mask`, or set `mask-password`.""",
        fail=_ROUTER.format(password="secret"),
        ok=_ROUTER.format(password="ENC(3bdfd94fe8cdf710e7fefa72f809ea90)"),
    ),
    RuleMeta(
        id="AR403",
        name="cluster-password-plaintext",
        severity=Severity.INFO,
        category="security",
        summary="`<cluster-password>` is written in plain text.",
        doc="""\
Mask it: `<cluster-password>ENC(...)</cluster-password>` with the output of `artemis mask`, or
set `mask-password`. With `<mask-password>false</mask-password>` even an `ENC(...)` value is
used as written.""",
        fail="<cluster-user>cluster-admin</cluster-user>\n<cluster-password>s3cret</cluster-password>\n" + _CLUSTER,
        ok="<cluster-user>cluster-admin</cluster-user>\n"
           "<cluster-password>ENC(3bdfd94fe8cdf710e7fefa72f809ea90)</cluster-password>\n" + _CLUSTER,
    ),
    RuleMeta(
        id="AR404",
        name="password-not-decodable",
        severity=Severity.ERROR,
        category="security",
        broker=REFUSES,
        summary="A masked password (`ENC(...)`, or any with `mask-password`) the broker's codec cannot decode.",
        doc="""The broker decodes masked passwords while it reads broker.xml (`PasswordMaskingUtil.resolveMask`);
when decoding throws, it does not start. The default codec, `DefaultSensitiveStringCodec`, reads
the text inside `ENC(...)` as a hexadecimal number (`new BigInteger(text, 16)`) and decrypts it
with Blowfish and the key `clusterpassword` (or `;key=` in `<password-codec>`, the system property
`artemis.default.sensitive.string.codec.key`, the environment variable
`ARTEMIS_DEFAULT_SENSITIVE_STRING_CODEC_KEY`): text that is not hexadecimal, or that does not
decrypt to correctly padded bytes with that key (a value cut short when copied, a value masked
with another key), stops the broker. With `<mask-password>true</mask-password>` every password is
decoded as it is written, `ENC(` included. With `algorithm=one-way` nothing can be decoded.
arouter checks the router pools' `<password>` and `<cluster-password>`, and never shows them.
A codec class of your own is not judged.""",
        fail=_ROUTER.format(password="ENC(s3cret)"),
        ok=_ROUTER.format(password="ENC(3bdfd94fe8cdf710e7fefa72f809ea90)"),
    ),
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    mask = config.mask_password
    if ctx.shared(real_cluster_connections):
        yield from _cluster_defaults(ctx)
    if config.cluster_password is not None and config.cluster_password != DEFAULT_CLUSTER_PASSWORD:
        if config.cluster_password and plaintext_password(config.cluster_password, mask):
            yield ctx.report("AR403", config.cluster_password_pos or config.pos, _plain("<cluster-password>", mask),
                             section="cluster")
    if config.cluster_password is not None:
        yield from _undecodable(ctx, config.cluster_password, config.cluster_password_pos, "<cluster-password>",
                                "cluster")
    secrets = frozenset(config.property_secrets)
    key = config.codec_key
    for router in config.connection_routers:
        for each in router.pools:  # parsePoolConfiguration decodes the password of every <pool> written
            password = each.password
            # (read as written unless masked, see worked_out_undecodable_message: no memo look-up then)
            if (password is not None and password not in secrets
                    and (mask is True or (mask is None and is_enc_masked(password)))):
                # what _undecodable does, without a generator per pool (a large file has thousands)
                message = undecodable_message(password, mask, key, "pool <password>")
                if message is not None:
                    yield ctx.report("AR404", _password_pos(ctx, each, router) or config.pos, message,
                                     section=f"connection-router {router.name}", hint=_MASK_AGAIN)
        pool = router.pool
        if pool is None or not pool.password:
            continue
        if pool.password in secrets:
            continue  # written ENC(...) in broker properties and decoded by the broker (AR722 when it cannot be)
        if plaintext_password(pool.password, mask):
            yield ctx.report("AR402", _password_pos(ctx, pool, router), _plain("pool <password>", mask),
                             section=f"connection-router {router.name}")


def _password_pos(ctx: Context, pool: Pool, router: ConnectionRouter) -> Pos:
    """Where the pool's ``<password>`` is (the pool's place without one): the broker properties line
    that set it, else its field's position, found without the field (its text) being read when the
    model read the pool's children."""
    if pool is router.pool:
        set_at = router.set_at("poolConfiguration.password")
        if set_at is not None:
            return set_at
    fields = pool.fields
    if type(fields) in READ_FIELDS:  # (no ABC instance check: thousands of them)
        child = fields.element("password")
        return ctx.locate(child) if child is not None else pool.pos
    field = fields.get("password")
    return field.pos if field else pool.pos


def _undecodable(ctx: Context, value: str, pos: Pos | None, what: str, section: str) -> Iterator[Diagnostic]:
    """AR404: PasswordMaskingUtil.resolveMask throws on ``value`` (the value itself is never shown)."""
    config = ctx.config
    message = undecodable_message(value, config.mask_password, config.codec_key, what)
    if message is not None:
        yield ctx.report("AR404", pos or config.pos, message, section=section, hint=_MASK_AGAIN)


_MASK_AGAIN = "mask the password again with 'artemis mask'"


def undecodable_message(value: str, mask: bool | None, key: bytes | str, what: str) -> str | None:
    """:func:`worked_out_undecodable_message`, remembered for short values (a bounded number of them)."""
    if len(value) <= _REMEMBERED_LENGTH:
        return _remembered_message(value, mask, key, what)
    return worked_out_undecodable_message(value, mask, key, what)


_REMEMBERED_LENGTH = 512


def worked_out_undecodable_message(value: str, mask: bool | None, key: bytes | str, what: str) -> str | None:
    """What AR404 says about password ``value`` (``what``) under ``mask-password`` ``mask`` and the
    codec's ``key``, or None when the broker decodes it (or reads it as the password itself). The
    same for every router that writes it (a masked pool password is often the same in all)."""
    enc = is_enc_masked(value)
    if mask is False or (mask is None and not enc):
        return None  # read as the password itself
    masked = value[4:-1] if mask is None else value  # with mask-password true, ENC( is not unwrapped
    shown = "its ENC(...) value" if mask is None else "its value (mask-password is true, so all of it)"
    if isinstance(key, str):
        if key.startswith("codec "):
            return None  # a codec class of the user's own: arouter cannot judge it
        why = key
    else:
        failure = decoding_failure(masked, key)  # (this answer is remembered: decoding_failure remembers nothing)
        if failure is None:
            return None
        why = ("it is not a hexadecimal number ('Password must be encrypted.')" if failure == NOT_HEXADECIMAL
               else "it does not decrypt to correctly padded bytes with the codec's key")
    return f"{what}: the password codec cannot decode {shown}: {why}; the broker does not start"


_remembered_message = lru_cache(maxsize=256)(worked_out_undecodable_message)


def _cluster_defaults(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    where = ctx.shared(real_cluster_connections)[0].pos
    password = config.cluster_password
    user_default = config.cluster_user is None or config.cluster_user == DEFAULT_CLUSTER_USER
    user = " and the default <cluster-user>" if user_default else ""
    if password is None:
        yield ctx.report("AR401", where,
                         f"cluster connections without <cluster-password>: the broker uses the public default "
                         f"password{user}, so anyone can join the cluster", section="cluster")
    elif password == DEFAULT_CLUSTER_PASSWORD and plaintext_password(password, config.mask_password):
        yield ctx.report("AR401", config.cluster_password_pos or where,
                         f"<cluster-password> is still the public default{user}: anyone can join the cluster",
                         section="cluster")


def _plain(what: str, mask: bool | None) -> str:
    if mask is False:
        return f"{what} is used as written (mask-password is false); mask it and set mask-password"
    return f"{what} is in plain text; mask it as ENC(...) (artemis mask)"
