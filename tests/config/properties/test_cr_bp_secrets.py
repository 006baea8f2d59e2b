"""A CR's ``-bp`` secrets (spec.deploymentPlan.extraMounts.secrets): the operator adds
``/amq/extra/secrets/<name>/,/amq/extra/secrets/<name>/broker-${STATEFUL_SET_ORDINAL}/`` to
``-Dbroker.properties`` after the CR's own properties. arouter reads a directory named like the secret
given with --properties (and its broker-N/ folder), and says which secrets it was not given (AR723)."""

from __future__ import annotations

from pathlib import Path

from artemis_routing_cli.config import LoadOptions, load
from artemis_routing_cli.config.properties import PropertiesOptions
from artemis_routing_cli.config.properties.sources import empty_broker_xml

CR = """kind: ActiveMQArtemis
metadata:
  name: ex
spec:
  deploymentPlan:
    size: 2
    extraMounts:
      configMaps:
        - other-bp
      secrets:
        - tls-secret
        - routers-bp
        - more-bp
  brokerProperties:
    - connectionRouters.r.keyType=CLIENT_ID
    - connectionRouters.r.keyFilter=from-cr
"""


def _load(tmp: Path, paths: tuple[str, ...], ordinal: int = 1):
    cr = tmp / "cr.yaml"
    cr.write_text(CR)
    return load(empty_broker_xml(), LoadOptions({}, {}, PropertiesOptions(paths=paths, cr=str(cr), ordinal=ordinal)))


def test_secrets_not_given_are_named_at_their_cr_line(tmp_path: Path) -> None:
    cfg = _load(tmp_path, ())
    found = [(f.rule, f.pos.line, f.message.split("'")[1]) for f in cfg.property_findings]
    assert found == [("AR723", 12, "routers-bp"), ("AR723", 13, "more-bp")]
    assert "--properties routers-bp/" in (cfg.property_findings[0].hint or "")


def test_a_secret_directory_is_read_after_the_cr_with_its_ordinal_folder(tmp_path: Path) -> None:
    secret = tmp_path / "routers-bp"
    (secret / "broker-1").mkdir(parents=True)
    (secret / "a.properties").write_text("connectionRouters.r.keyFilter=from-secret\n")
    (secret / "broker-1" / "broker-1.b.properties").write_text("connectionRouters.r.localTargetFilter=one\n")
    cfg = _load(tmp_path, (f"{secret}/",))
    (router,) = cfg.connection_routers
    assert (router.key_filter, router.local_target_filter) == ("from-secret", "one")
    assert [s.name for s in cfg.property_sources] == ["broker.properties", "a.properties", "broker-1.b.properties"]
    assert [(f.rule, f.pos.line) for f in cfg.property_findings] == [("AR723", 13)]  # more-bp is still missing
    cfg = _load(tmp_path, (f"{secret}/",), ordinal=0)  # broker 0 has no broker-0/ folder
    assert cfg.connection_routers[0].local_target_filter is None
