"""``ENC(...)`` values in broker properties: decoded as the broker's parsePrefixedProperties decodes them
(``PasswordMaskingUtil.resolveMask(null, value, getPasswordCodec())`` on every value that is ENC(...) as a
whole), AR722 where the codec throws, and the decoded text never printed.

The masked values are made, and the expected plain texts and exceptions given, by the JDK itself
(tests/config/java/MaskOracle.java, our own program doing what DefaultSensitiveStringCodec does).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.config.masked import DEFAULT_KEY, blowfish_decode, undecodable_reason
from artemis_routing_cli.linting import LintSettings, lint_path
from tests.javacache import compiled

from .helpers import applied, rules

HERE = Path(__file__).resolve().parent
ORACLE = HERE.parent / "java" / "MaskOracle.java"
SAMPLE = "3bdfd94fe8cdf710e7fefa72f809ea90"  # "defaultmasked" with the default key (checked below by the JDK)
POOL = ("connectionRouters.r.keyType=CLIENT_ID\n"
        "connectionRouters.r.poolConfiguration.staticConnectors=a\n"
        "connectorConfigurations.a.params.host=h\n")


@pytest.fixture(scope="module")
def jdk(tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no JDK on PATH")
    out = compiled(ORACLE, options=())

    def ask(requests: list[tuple[str, bytes, str]]) -> list[str]:
        lines = "".join(f"{kind} {key.hex()} {text.encode('utf-8').hex()}\n" for kind, key, text in requests)
        done = subprocess.run(["java", "-cp", str(out), "MaskOracle"], input=lines, capture_output=True, text=True,
                              encoding="utf-8", check=True, timeout=120)
        return done.stdout.splitlines()

    return ask


def test_decode_and_its_failures_agree_with_the_jdk(jdk) -> None:
    keys = [DEFAULT_KEY, b"k", b"abc", b"x" * 56, b"x" * 57, b""]
    plains = ["", "s3cret", "p\u00e4ss w\u00f6rd \u20ac", "x" * 30]
    masks = jdk([("E", DEFAULT_KEY, p) for p in plains]) + jdk([("E", b"abc", "short key")])
    cases = [(key, m) for key in keys for m in [*masks, SAMPLE, SAMPLE[:-1], "zz", "", "-1", "+" + SAMPLE]]
    answers = jdk([("X", key, text) for key, text in cases])
    decoded = 0
    for (key, text), answer in zip(cases, answers, strict=True):
        status, _, detail = answer.partition(" ")
        plain = blowfish_decode(text, key)
        if status == "ok":
            decoded += 1
            assert plain == bytes.fromhex(detail).decode("utf-8"), (key, text)
        else:
            assert plain is None, (key, text)
            assert undecodable_reason(text, key) == detail, (key, text)
    assert decoded >= len(plains) + 2  # both answers were seen
    assert blowfish_decode(SAMPLE) == "defaultmasked"


def test_an_enc_value_reaches_the_model_decoded(tmp_path: Path, jdk) -> None:
    (masked,) = jdk([("E", DEFAULT_KEY, "pool-s3cret")])
    cfg = applied(tmp_path, POOL + f"connectionRouters.r.poolConfiguration.password=ENC({masked})\n"
                  "connectionRouters.r.poolConfiguration.username=ENC(" + SAMPLE + ")\n")
    pool = cfg.connection_routers[0].pool
    assert pool is not None and (pool.password, pool.username) == ("pool-s3cret", "defaultmasked")
    assert rules(cfg) == []
    assert set(cfg.property_secrets) == {"pool-s3cret", "defaultmasked"}


def test_only_a_whole_enc_value_is_decoded_after_substitution(tmp_path: Path) -> None:
    cfg = applied(tmp_path, "connectionRouters.a.keyFilter=x ENC(" + SAMPLE + ")\n"
                  "connectionRouters.b.keyFilter=ENC(${M})\n"
                  "connectionRouters.c.keyFilter=ENC(" + SAMPLE + ") \n", env={"M": SAMPLE})
    assert [r.key_filter for r in cfg.connection_routers] == ["x ENC(" + SAMPLE + ")", "defaultmasked",
                                                              "ENC(" + SAMPLE + ") "]


def test_the_codec_key_comes_from_the_configuration(tmp_path: Path, jdk) -> None:
    (masked,) = jdk([("E", b"my-key", "v")])
    line = f"connectionRouters.r.keyFilter=ENC({masked})\n"
    cfg = applied(tmp_path, line, env={"ARTEMIS_DEFAULT_SENSITIVE_STRING_CODEC_KEY": "my-key"})
    assert cfg.connection_routers[0].key_filter == "v" and rules(cfg) == []
    cfg = applied(tmp_path, line, defines={"artemis.default.sensitive.string.codec.key": "my-key"})
    assert cfg.connection_routers[0].key_filter == "v"
    codec = "<password-codec>org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec;key=my-key</password-codec>"
    from .helpers import core

    cfg = applied(tmp_path, line, xml=core(codec))
    assert cfg.connection_routers[0].key_filter == "v"
    cfg = applied(tmp_path, line)  # the default key: the broker does not start
    assert rules(cfg) == [("AR722", 1)]


def test_an_undecodable_value_is_ar722_and_the_broker_refuses(tmp_path: Path) -> None:
    cfg = applied(tmp_path, POOL + "connectionRouters.r.poolConfiguration.password=ENC(s3cret)\n"
                  "connectionRouters.r.poolConfiguration.username=ENC(" + SAMPLE[:-2] + ")\n")
    assert rules(cfg) == [("AR722", 4), ("AR722", 5)]
    messages = [f.message for f in cfg.property_findings]
    assert "Password must be encrypted." in messages[0] and "BadPaddingException" in messages[1]
    assert "s3cret" not in " ".join(messages)
    pool = cfg.connection_routers[0].pool
    assert pool is not None and pool.password is None  # the line is not applied
    (tmp_path / "broker.properties").write_text(POOL + "connectionRouters.r.poolConfiguration.password=ENC(s3cret)\n")
    report = lint_path(str(tmp_path / "broker.xml"), LintSettings())
    (diag,) = [d for d in report.diagnostics if d.rule == "AR722"]
    assert diag.broker == "refuses-to-start"


def test_one_way_codec_cannot_decode(tmp_path: Path) -> None:
    from .helpers import core

    codec = ("<password-codec>org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec;algorithm=one-way"
             "</password-codec>")
    cfg = applied(tmp_path, "connectionRouters.r.keyFilter=ENC(" + SAMPLE + ")\n", xml=core(codec))
    assert rules(cfg) == [("AR722", 1)]


def test_password_codec_set_by_a_source_applies_to_the_next_sources(tmp_path: Path, jdk) -> None:
    (masked,) = jdk([("E", b"other", "w")])
    first = tmp_path / "a.properties"
    first.write_text("passwordCodec=org.apache.activemq.artemis.utils.DefaultSensitiveStringCodec;key=other\n"
                     f"connectionRouters.r.keyType=ENC({masked})\n")
    second = tmp_path / "b.properties"
    second.write_text(f"connectionRouters.r.keyFilter=ENC({masked})\n")
    from artemis_routing_cli.config import LoadOptions, load
    from artemis_routing_cli.config.properties import PropertiesOptions

    from .helpers import EMPTY

    (tmp_path / "broker.xml").write_text(EMPTY)
    cfg = load(str(tmp_path / "broker.xml"), LoadOptions({}, {}, PropertiesOptions(paths=(f"{first},{second}",))))
    # the first file's values are decoded before its passwordCodec line is applied: the default key fails
    assert rules(cfg) == [("AR722", 2)]
    assert cfg.connection_routers[0].key_filter == "w"


def test_decoded_values_are_never_printed(tmp_path: Path, jdk) -> None:
    (masked,) = jdk([("E", DEFAULT_KEY, "^hidden-filter-text")])
    (tmp_path / "broker.xml").write_text('<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">'
                                         "</core></configuration>\n")
    # a value the broker refuses, and one it silently turns into 0: their messages quote the value
    (tmp_path / "broker.properties").write_text(
        f"connectionRouters.r.keyType=ENC({masked})\nconnectionRouters.r.cacheConfiguration.timeout=ENC({masked})\n")
    for show in (False, True):
        report = lint_path(str(tmp_path / "broker.xml"), LintSettings(show_values=show))
        text = " ".join(f"{d.message} {d.hint}" for d in report.diagnostics)
        assert {d.rule for d in report.diagnostics} >= {"AR713", "AR712"}
        assert "hidden-filter-text" not in text
        (status,) = report.property_sources
        assert [e.value for e in status.errors] == ["connectionRouters.r.keyType=****"]
