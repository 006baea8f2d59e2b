"""The broker status' ``reason`` texts are the broker's own: the exception's ``toString()`` as
``ConfigurationImpl.trackError`` records it, built on the JDK (java/ReasonOracle.java, with stand-ins
of the broker's classes so that ``Class.toString()`` and ``Enum.valueOf`` speak as they would)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.javacache import compiled

from .helpers import applied

HERE = Path(__file__).resolve().parent
ART = "org.apache.activemq.artemis."
ROUTER = ART + "core.config.routing.ConnectionRouterConfiguration"
STANDINS = {  # class -> enum constants (None: a plain class)
    ROUTER: None,
    ART + "core.config.routing.CacheConfiguration": None,
    ART + "core.config.ClusterConnectionConfiguration": None,
    ART + "core.server.routing.KeyType": ("CLIENT_ID", "SNI_HOST", "SOURCE_IP", "USER_NAME", "ROLE_NAME"),
    ART + "core.server.cluster.impl.MessageLoadBalancingType": ("OFF", "STRICT", "ON_DEMAND",
                                                                "OFF_WITH_REDISTRIBUTION"),
    ART + "core.server.ComponentConfigurationRoutingType": ("MULTICAST", "ANYCAST", "STRIP", "PASS"),
}
# (properties line, the request that makes the broker's exception)
CASES = [
    ("connectionRouters.r.keytype=CLIENT_ID", ("leaf", "keytype", ROUTER)),
    ("connectionRouters.r.bogus.x=1", ("through", "bogus", ROUTER)),
    ("connectionRouters.r.cacheConfiguration.timeoutt=5",
     ("leaf", "timeoutt", ART + "core.config.routing.CacheConfiguration")),
    ("connectionRouters(nope).keyType=CLIENT_ID", ("mapped", "connectionRouters", "nope")),
    ("connectionRouters.s.policyConfiguration.properties.MODULO=2", ("map",)),
    ("connectionRouters.r.keyType=client_id", ("enum", ART + "core.server.routing.KeyType", "client_id")),
    ("clusterConfigurations.c.messageLoadBalancingType=on_demand",
     ("enum", ART + "core.server.cluster.impl.MessageLoadBalancingType", "on_demand")),
    ("divertConfigurations.d.routingType=strip",
     ("enum", ART + "core.server.ComponentConfigurationRoutingType", "strip")),
    ("clusterConfigurations.c.connectionTTL=5x", ("long", "5x")),
    ("connectionRouters.p.policyConfiguration=CONSISTENT_HASH_MODULO\n"
     "connectionRouters.p.policyConfiguration.properties=a", ("kv", "a")),
    ("connectionRouters.r.keyFilter=-", ("clear", "keyFilter", "null")),
    ("clusterConfigurations.c.bogus=-", ("through", "bogus", ART + "core.config.ClusterConnectionConfiguration")),
]


def _standin(name: str, constants: tuple[str, ...] | None) -> str:
    package, _, simple = name.rpartition(".")
    body = f"public enum {simple} {{ {', '.join(constants)} }}" if constants else f"public class {simple} {{}}"
    return f"package {package};\n{body}\n"


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no JDK on PATH")
    src = tmp_path_factory.mktemp("reason-src")
    files = [str(HERE / "java" / "ReasonOracle.java")]
    for name, constants in STANDINS.items():
        path = src / (name.replace(".", "/") + ".java")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_standin(name, constants))
        files.append(str(path))
    out = compiled(*map(Path, files), options=())

    def ask(requests: list[tuple[str, ...]]) -> list[str]:
        text = "".join("\t".join(r) + "\n" for r in requests)
        done = subprocess.run(["java", "-cp", str(out), "ReasonOracle"], input=text, capture_output=True, text=True,
                              check=True, timeout=120)
        return done.stdout.splitlines()

    return ask


def test_status_reasons_are_the_brokers(tmp_path: Path, oracle) -> None:
    expected = oracle([request for _, request in CASES])
    assert "none" not in expected
    for (lines, _), reason in zip(CASES, expected, strict=True):
        cfg = applied(tmp_path, lines + "\n")
        (status,) = cfg.property_sources
        assert [e.reason for e in status.errors] == [reason], lines


def test_load_error_is_the_exceptions_to_string(tmp_path: Path, oracle) -> None:
    (expected,) = oracle([("load", "x=\\u12")])
    cfg = applied(tmp_path, "x=\\u12\n")
    assert cfg.property_sources[0].load_error == expected
