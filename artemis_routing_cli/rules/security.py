"""Security (AR401-AR403): cluster credentials left at their defaults, passwords in plain text.

Brokers of a cluster authenticate each other with `cluster-user` / `cluster-password`; the
defaults are public, so anyone who can reach an acceptor can join the cluster and read every
message. Passwords may be masked as `ENC(...)` (or all of them with `mask-password`); a plain
password in broker.xml is readable by everyone who can read the file, its backups and its
version history. No message of these rules ever contains a password.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import Diagnostic, RuleMeta, Severity
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
]


def check(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    mask = config.mask_password
    if real_cluster_connections(config):
        yield from _cluster_defaults(ctx)
    if config.cluster_password is not None and config.cluster_password != DEFAULT_CLUSTER_PASSWORD:
        if config.cluster_password and plaintext_password(config.cluster_password, mask):
            yield ctx.report("AR403", config.cluster_password_pos or config.pos, _plain("<cluster-password>", mask),
                             section="cluster")
    for router in config.connection_routers:
        pool = router.pool
        if pool is None or pool.password is None or not pool.password:
            continue
        if plaintext_password(pool.password, mask):
            field = pool.fields.get("password")
            yield ctx.report("AR402", field.pos if field else pool.pos, _plain("pool <password>", mask),
                             section=f"connection-router {router.name}")


def _cluster_defaults(ctx: Context) -> Iterator[Diagnostic]:
    config = ctx.config
    where = real_cluster_connections(config)[0].pos
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
