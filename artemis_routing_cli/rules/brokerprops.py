"""Broker properties (AR710-AR724): what `broker.properties`, its JSON form and an operator CR do.

Artemis applies broker properties after broker.xml: `etc/broker.properties` (or the files and
directories `-Dbroker.properties` / `artemis run --properties` name), then `-Dbrokerconfig.*`.
The ArtemisCloud/arkmq operator writes a CR's `spec.brokerProperties` into such files. arouter
reads them all (`--properties`, `--cr`/`--ordinal`, `-D brokerconfig.K=V`, and `broker.properties`
beside broker.xml) and applies them line by line as the broker does. The broker never stops for a
bad line: it notes an error in its status JSON, or says nothing at all. These rules say it, at the
properties file's line (or the CR item's line). Examples start with `# broker.properties`: that is
the file `broker.properties` beside an empty broker.xml.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..diagnostics import REFUSES, Diagnostic, RuleMeta, Severity
from .base import Context

PROPERTIES_MARK = "# broker.properties"
CR_MARK = "# cr.yaml"  # an example that is an operator CR, checked as broker 0 of it

_ROUTER = """# broker.properties
connectionRouters.shard.keyType=CLIENT_ID
connectionRouters.shard.policyConfiguration=CONSISTENT_HASH_MODULO
connectionRouters.shard.policyConfiguration.properties.MODULO=2
"""

RULES: list[RuleMeta] = [
    RuleMeta(
        id="AR710",
        name="properties-unreadable",
        severity=Severity.ERROR,
        category="semantics",
        summary="The broker cannot load a properties source (a bad `\\u` escape, bad JSON): nothing in it applies.",
        doc="""\
`java.util.Properties.load` rejects a whole file for one malformed `\\uXXXX` escape; the JSON form
rejects a file that is not an object or holds `null` or an array. The broker goes on without any
line of that file and only its status (`loadError`) says so.""",
        fail=_ROUTER + "connectionRouters.shard.keyFilter=\\u12\n",
        ok=_ROUTER + "connectionRouters.shard.keyFilter=\\u0041.*\n",
    ),
    RuleMeta(
        id="AR711",
        name="property-unknown",
        severity=Severity.ERROR,
        category="semantics",
        summary="A property name the broker's bean does not have: the line is ignored, but the entry is created.",
        doc="""\
`connectionRouters.shard.keytype=CLIENT_ID` (lower-case t) sets nothing: the broker notes an error
in its status JSON, which few read, and still creates the router `shard` with its defaults (key
type SOURCE_IP). Names are case-sensitive bean property names; the hint gives the closest one.""",
        fail=_ROUTER + "connectionRouters.shard.keytype=CLIENT_ID\n",
        ok=_ROUTER,
    ),
    RuleMeta(
        id="AR712",
        name="property-silent-default",
        severity=Severity.ERROR,
        category="semantics",
        summary="An int, double or boolean the broker cannot read: it silently uses 0, 0.0 or false.",
        doc="""\
The broker's converters do not fail for primitive numbers and booleans: `5s`, `0x10`, `4.2`,
`1_000` or an overflow become 0; a boolean other than `true yes y on 1` / `false no n off 0` (any
case, no blanks) becomes false. No error anywhere. `cacheConfiguration.timeout=5s` is a cache
whose entries never expire (0).""",
        fail=_ROUTER + "connectionRouters.shard.cacheConfiguration.timeout=5s\n",
        ok=_ROUTER + "connectionRouters.shard.cacheConfiguration.timeout=5000\n",
    ),
    RuleMeta(
        id="AR713",
        name="property-rejected",
        severity=Severity.ERROR,
        category="semantics",
        summary="The broker refuses a line (inexact enum, bad long, missing `(NAME)`, bad map): only its status "
                "says so.",
        doc="""\
Enums must be written exactly (`CLIENT_ID`, not `client_id` or `CLIENT_ID ` with a trailing blank,
which `java.util.Properties` keeps); a `long` must be a number with an optional byte suffix; a
`coll(NAME)` step only finds an existing entry; a map value must be `K=V,K2=V2`. The line is an
error in the broker's status, the value stays what it was, and the rest of the file applies.""",
        fail=_ROUTER + "connectionRouters.shard.keyType=client_id\n",
        ok=_ROUTER,
    ),
    RuleMeta(
        id="AR714",
        name="property-unknown-map-key",
        severity=Severity.WARNING,
        category="semantics",
        summary="A transport parameter key the broker accepts silently and never reads (`params.routr`).",
        doc="""\
Maps take any key: `acceptorConfigurations.a.params.routr=shard` is stored and ignored, and the
acceptor is not routed. The hint names the parameter that was probably meant. (A policy's
`properties.modulo` is judged like `<property key="modulo">` in broker.xml: AR303, AR317.)""",
        fail=_ROUTER + "acceptorConfigurations.a.params.routr=shard\n",
        ok=_ROUTER + "acceptorConfigurations.a.params.router=shard\n",
    ),
    RuleMeta(
        id="AR715",
        name="property-undefined",
        severity=Severity.WARNING,
        category="semantics",
        summary="A `${NAME}` in a properties line with no system property, environment variable or default: \"\".",
        doc="""\
The broker substitutes `${NAME}` / `${NAME:default}` in keys and values (system properties, then
the environment); an undefined name without default becomes the empty string, silently. With the
operator, `${STATEFUL_SET_ORDINAL}` is set on every broker pod: check a CR with `--cr` and
`--ordinal N`, or pass `-D NAME=VALUE`.""",
        fail=_ROUTER + "connectionRouters.shard.localTargetFilter=NULL|${ARouterDocsUnsetOrdinal}\n",
        ok=_ROUTER + "connectionRouters.shard.localTargetFilter=NULL|${ARouterDocsUnsetOrdinal:0}\n",
    ),
    RuleMeta(
        id="AR716",
        name="property-order",
        severity=Severity.ERROR,
        category="semantics",
        summary="A line replaces a whole object (`policyConfiguration=NAME`) after lines that set its attributes.",
        doc="""\
Lines apply in file order. `policyConfiguration=NAME` makes a new policy with an empty property
map, so a `policyConfiguration.properties.MODULO=2` line before it is lost, and the broker then
refuses to activate a CONSISTENT_HASH_MODULO policy without MODULO. Write the policy line first.""",
        fail="""# broker.properties
connectionRouters.shard.keyType=CLIENT_ID
connectionRouters.shard.policyConfiguration.properties.MODULO=2
connectionRouters.shard.policyConfiguration=CONSISTENT_HASH_MODULO
""",
        ok=_ROUTER,
    ),
    RuleMeta(
        id="AR717",
        name="property-pool-without-source",
        severity=Severity.ERROR,
        category="semantics",
        summary="A `poolConfiguration.*` line creates a pool without clusterConnection, discoveryGroupName or "
                "staticConnectors.",
        doc="""\
Any `poolConfiguration.*` line creates the router's pool. Without a target source the broker fails
to activate the router (and in broker.xml the schema would not allow it). Add the source, or drop
the pool lines for a router that only needs its local target.""",
        fail=_ROUTER + "connectionRouters.shard.poolConfiguration.checkPeriod=1000\n",
        ok=_ROUTER + "connectionRouters.shard.poolConfiguration.checkPeriod=1000\n"
                     "connectionRouters.shard.poolConfiguration.staticConnectors=node0,node1\n"
                     "connectorConfigurations.node0.params.host=node0\n"
                     "connectorConfigurations.node1.params.host=node1\n",
    ),
    RuleMeta(
        id="AR718",
        name="property-overrides-xml",
        severity=Severity.WARNING,
        category="semantics",
        summary="A properties line changes a value broker.xml sets: the file says one thing, the broker runs another.",
        doc="""\
Broker properties apply after broker.xml and win. That is often the point (an operator CR over a
shared image), but someone reading broker.xml sees the wrong value. The finding names both places.""",
        fail="""<connection-routers>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>NULL</local-target-filter>
  </connection-router>
</connection-routers>
<!-- broker.properties: connectionRouters.shard.keyType=USER_NAME -->""",
        ok="""<connection-routers>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type>
    <local-target-filter>NULL</local-target-filter>
  </connection-router>
</connection-routers>
<!-- broker.properties: connectionRouters.shard.keyType=CLIENT_ID -->""",
    ),
    RuleMeta(
        id="AR719",
        name="property-json-nested-map",
        severity=Severity.ERROR,
        category="semantics",
        summary="JSON form: a nested `\"properties\": {...}` under a policy the broker creates fails (`Map.<init>`).",
        doc="""\
In the JSON form `{"policyConfiguration": {"name": "CONSISTENT_HASH_MODULO", "properties":
{"MODULO": "3"}}}` creates the policy with its no-argument constructor, whose property map is
null; the broker then tries to create a `java.util.Map` and fails (`NoSuchMethodException:
java.util.Map.<init>()`): MODULO is never set. Write `"properties": "MODULO=3"` (the broker's map
converter), or `"policyConfiguration": "CONSISTENT_HASH_MODULO"` on its own line first.""",
        fail="""# broker.json
{"connectionRouters": {"shard": {"keyType": "CLIENT_ID",
  "policyConfiguration": {"name": "CONSISTENT_HASH_MODULO", "properties": {"MODULO": "2"}}}}}""",
        ok="""# broker.json
{"connectionRouters": {"shard": {"keyType": "CLIENT_ID",
  "policyConfiguration": {"name": "CONSISTENT_HASH_MODULO", "properties": "MODULO=2"}}}}""",
    ),
]


RULES.append(RuleMeta(
    id="AR720",
    name="properties-utf8-text",
    severity=Severity.WARNING,
    category="semantics",
    summary="A `.properties` file holds UTF-8 text: the broker reads it as ISO-8859-1 and gets other characters.",
    doc="""\
`Properties.load(InputStream)` decodes ISO-8859-1: `é` written in UTF-8 (two bytes) is read as `Ã©`,
so a router name, key filter or host with non-ASCII characters is not what the file shows. Write
`\\u00e9`, or use the JSON form (read as UTF-8).""",
    fail=_ROUTER + "connectionRouters.shard.keyFilter=^caf\u00e9\n",
    ok=_ROUTER + "connectionRouters.shard.keyFilter=^caf\\u00e9\n",
))

RULES.append(RuleMeta(
    id="AR721",
    name="property-acceptor-without-factory",
    severity=Severity.ERROR,
    category="semantics",
    summary="An acceptor made by properties without `factoryClassName`: the broker never creates it.",
    doc="""\
`acceptorConfigurations.NAME.params.router=R` for an acceptor broker.xml does not define makes a new
acceptor with no factory class; `RemotingServiceImpl.createAcceptor` then fails, logs an error and
goes on without it. Define the acceptor in broker.xml (or in the CR's `acceptors`), or give it
`factoryClassName=org.apache.activemq.artemis.core.remoting.impl.netty.NettyAcceptorFactory`.
arouter leaves such an acceptor out, as the broker does.""",
    fail=_ROUTER + "acceptorConfigurations.tcp.params.router=shard\n",
    ok=_ROUTER + "acceptorConfigurations.tcp.factoryClassName="
                 "org.apache.activemq.artemis.core.remoting.impl.netty.NettyAcceptorFactory\n"
                 "acceptorConfigurations.tcp.params.router=shard\n",
))

RULES.append(RuleMeta(
    id="AR722",
    name="property-not-decodable",
    severity=Severity.ERROR,
    category="semantics",
    broker=REFUSES,
    summary="A broker properties value written `ENC(...)` that the password codec cannot decode: the broker "
            "does not start.",
    doc="""\
The broker decodes every properties value that is `ENC(...)` as a whole (after `${}`), whatever its
key, with the configuration's password codec (`PasswordMaskingUtil.resolveMask`, before any line
is applied): by default `DefaultSensitiveStringCodec`, Blowfish with the key `clusterpassword` (or
`;key=` in `<password-codec>`, the system property `artemis.default.sensitive.string.codec.key`,
the environment variable `ARTEMIS_DEFAULT_SENSITIVE_STRING_CODEC_KEY`). Text that is not
hexadecimal, or that does not decrypt to correctly padded bytes with that key, throws out of
`parseProperties`: the broker does not start (on a reload, the reload fails). `mask-password` does
not apply to properties. A decoded value is never shown, not even with `--show-values`.""",
    fail=_ROUTER + "connectionRouters.shard.poolConfiguration.password=ENC(s3cret)\n"
                   "connectionRouters.shard.poolConfiguration.localTargetEnabled=true\n",
    ok=_ROUTER + "connectionRouters.shard.poolConfiguration.password=ENC(3bdfd94fe8cdf710e7fefa72f809ea90)\n"
                 "connectionRouters.shard.poolConfiguration.localTargetEnabled=true\n",
))

RULES.append(RuleMeta(
    id="AR723",
    name="property-secret-not-given",
    severity=Severity.WARNING,
    category="semantics",
    summary="A CR mounts a `-bp` secret as broker properties, and arouter was not given its content.",
    doc="""\
The operator applies every secret in `spec.deploymentPlan.extraMounts.secrets` whose name ends in
`-bp` as broker properties, after the CR's own `brokerProperties`, in list order: each of its keys
is a file (`*.properties`, `*.json`; keys named `broker-N.*` only on broker N). arouter cannot read
a secret from a CR file, so what it says leaves those lines out. Save the secret's keys as files
in a directory named like the secret (`kubectl get secret routers-bp -o json | ...`) and pass
`--properties routers-bp/`: arouter then reads it, and its `broker-N/` folder, where the broker
would.""",
    fail=CR_MARK + """
kind: ActiveMQArtemis
metadata:
  name: ex
spec:
  deploymentPlan:
    extraMounts:
      secrets:
        - routers-bp
  brokerProperties:
    - connectionRouters.shard.keyType=CLIENT_ID
""",
    ok=CR_MARK + """
kind: ActiveMQArtemis
metadata:
  name: ex
spec:
  brokerProperties:
    - connectionRouters.shard.keyType=CLIENT_ID
""",
))


RULES.append(RuleMeta(
    id="AR724",
    name="property-backslash-dropped",
    severity=Severity.WARNING,
    category="semantics",
    summary="A backslash before an ordinary character in a broker properties value: the broker drops it.",
    doc="""\
`java.util.Properties` reads `\\t`, `\\n`, `\\r`, `\\f` and `\\uXXXX` as escapes and keeps the
character after any other backslash, dropping the backslash: `keyFilter=^\\d+` reaches the broker
as `^d+`, a filter that matches keys starting with the letter `d`. Neither the broker nor its status
says so. Write each backslash the value needs twice (`keyFilter=^\\\\d+`); the JSON form has its
own escaping (`"^\\\\d+"`). The finding shows what the broker reads, at the line.""",
    fail=_ROUTER + "connectionRouters.shard.keyFilter=^\\d+\n",
    ok=_ROUTER + "connectionRouters.shard.keyFilter=^\\\\d+\n",
))


def check(ctx: Context) -> Iterator[Diagnostic]:
    if not ctx.config.property_findings:
        return  # (and the properties machinery stays unloaded)
    from ..config.properties.apply import Finding

    for finding in ctx.config.property_findings:
        if isinstance(finding, Finding):
            yield ctx.report(finding.rule, finding.pos, finding.message, hint=finding.hint, broker=finding.broker)
