"""Broker properties on the command line: --properties, --cr/--ordinal, -D brokerconfig., findings
with the properties file's line, exit codes (real CLI in a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import REPO, arouter

SAMPLES = REPO / "samples" / "properties"


def test_simulate_the_same_with_xml_properties_json_and_cr() -> None:
    keys = ["-k", "CLIENT_ID=abc.def", "-k", "USER_NAME=bob", "-f", "json", "--seed", "3"]
    runs = [
        arouter("simulate", "-c", str(SAMPLES / "broker.xml"), *keys),
        arouter("simulate", "--properties", str(SAMPLES / "routers.properties"), "-D", "STATEFUL_SET_ORDINAL=1",
                *keys),
        arouter("simulate", "--properties", str(SAMPLES / "routers.json"), "-D", "STATEFUL_SET_ORDINAL=1", *keys),
        arouter("simulate", "--cr", str(SAMPLES / "cr.yaml"), "--ordinal", "1", *keys),
    ]
    for run in runs:
        assert run.code == 0, run.err
    assert len({run.out for run in runs}) == 1
    assert "the view of broker 1" in runs[3].err


def test_validate_a_cr_points_into_it(tmp_path: Path) -> None:
    cr = tmp_path / "cr.yaml"
    cr.write_text("kind: ActiveMQArtemis\nmetadata:\n  name: x\nspec:\n  brokerProperties:\n"
                  "    - connectionRouters.r.keyType=CLIENT_ID\n"
                  "    - connectionRouters.r.cacheConfiguration.timeout=5s\n")
    run = arouter("validate", str(cr), "-f", "json")
    assert run.code == 1, run.err
    found = [(d["rule"], d["line"]) for f in json.loads(run.out)["files"] for d in f["diagnostics"]]
    assert ("AR712", 7) in found
    messages = [d["message"] for f in json.loads(run.out)["files"] for d in f["diagnostics"] if d["rule"] == "AR712"]
    assert messages[0].endswith("[spec.brokerProperties[1]]")


def test_ordinal_needs_a_cr() -> None:
    run = arouter("simulate", "--ordinal", "1", "-k", "CLIENT_ID=a")
    assert run.code == 2 and "--ordinal needs --cr" in run.err
    run = arouter("validate", "--ordinal", "1")
    assert run.code == 2


def test_missing_properties_file_is_one_line_exit_2(tmp_path: Path) -> None:
    run = arouter("simulate", "--properties", str(tmp_path / "nope.properties"), "-k", "CLIENT_ID=a")
    assert run.code == 2
    *assumed, error = run.err.strip().splitlines()
    assert "not found" in error and "nope.properties" in error and "Traceback" not in run.err
    assert all(line.startswith("arouter: ") for line in assumed)


def test_brokerconfig_define_is_the_last_source(tmp_path: Path) -> None:
    props = tmp_path / "b.properties"
    props.write_text("connectionRouters.r.keyType=CLIENT_ID\nconnectionRouters.r.keyFilter=^a\n")
    run = arouter("simulate", "--properties", str(props), "-D", "brokerconfig.connectionRouters.r.keyFilter=^.{2}",
                  "-k", "CLIENT_ID=abc", "-f", "json")
    assert run.code == 0, run.err
    assert [r["key"] for r in json.loads(run.out)["results"]] == ["ab"]


def test_validate_properties_only_reports_the_properties_line(tmp_path: Path) -> None:
    props = tmp_path / "b.properties"
    props.write_text("# routers\nconnectionRouters.r.keyType=client_id\n")
    run = arouter("validate", "--properties", str(props), cwd=tmp_path)
    assert run.code == 1
    assert f"{props}:2:1: error AR713" in run.out or "b.properties:2:1: error AR713" in run.out


def test_explain_says_where_each_value_came_from() -> None:
    run = arouter("simulate", "--cr", str(SAMPLES / "cr.yaml"), "--ordinal", "1", "-k", "USER_NAME=bob",
                  "-r", "spread", "--explain")
    assert run.code == 0, run.err
    assert "cacheConfiguration.timeout from" in run.out and "cr.yaml:28" in run.out  # the broker-1 line wins
    run = arouter("simulate", "-c", str(SAMPLES / "broker.xml"), "-k", "USER_NAME=bob", "-r", "spread", "--explain")
    assert "defined at" in run.out and "broker.xml:22" in run.out


def test_every_command_takes_the_properties_options() -> None:
    for command in ("validate", "simulate", "probe", "serve", "analyze", "replay"):
        run = arouter(command, "--help")
        assert run.code == 0, run.err
        for option in ("--properties", "--cr", "--ordinal"):
            assert option in run.out, (command, option)


def test_broker_status_format(tmp_path: Path) -> None:
    import zlib

    data = b"connectionRouters.r.keyType=client_id\n"
    (tmp_path / "s.properties").write_bytes(data)
    (tmp_path / "empty.properties").write_bytes(b"# nothing\n")
    run = arouter("validate", "--properties", f"{tmp_path}/", "-f", "broker-status")
    assert run.code == 1, run.err
    (status,) = json.loads(run.out).values()
    props = status["configuration"]["properties"]
    assert props["empty.properties"] == {"alder32": "1", "fileAlder32": str(zlib.adler32(b"# nothing\n"))}
    assert props["s.properties"]["fileAlder32"] == str(zlib.adler32(data))
    assert props["s.properties"]["alder32"] == str(zlib.adler32(data.rstrip(b"\n")))
    assert [e["value"] for e in props["s.properties"]["errors"]] == ["connectionRouters.r.keyType=client_id"]


def test_validate_imports_yaml_only_for_a_cr() -> None:
    import subprocess
    import sys

    code = ("import sys\nfrom artemis_routing_cli.cli.entry import main\nsys.argv = ['arouter', 'validate', '-q', {}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nprint('yaml' in sys.modules)\n")
    for path, expected in ((SAMPLES / "broker.xml", "False"), (SAMPLES / "cr.yaml", "True")):
        out = subprocess.run([sys.executable, "-c", code.format(repr(str(path)))], capture_output=True, text=True,
                             timeout=60, cwd=REPO)
        assert out.stdout.strip().splitlines()[-1] == expected, out.stderr


def test_a_crs_bp_secrets_not_given_are_said(tmp_path: Path) -> None:
    cr = tmp_path / "cr.yaml"
    cr.write_text("kind: ActiveMQArtemis\nmetadata:\n  name: x\nspec:\n  deploymentPlan:\n    extraMounts:\n"
                  "      secrets:\n        - routers-bp\n  brokerProperties:\n"
                  "    - connectionRouters.r.keyType=CLIENT_ID\n")
    run = arouter("validate", str(cr), "-f", "json")
    found = [(d["rule"], d["line"]) for f in json.loads(run.out)["files"] for d in f["diagnostics"]]
    assert ("AR723", 8) in found
    run = arouter("simulate", "--cr", str(cr), "-k", "CLIENT_ID=a")
    assert run.code == 0 and "secret routers-bp" in run.err and "--properties routers-bp/" in run.err
    secret = tmp_path / "routers-bp"
    secret.mkdir()
    (secret / "a.properties").write_text("connectionRouters.r.keyFilter=^.\n")
    run = arouter("simulate", "--cr", str(cr), "--properties", f"{secret}/", "-k", "CLIENT_ID=ab", "-f", "json")
    assert run.code == 0 and "routers-bp" not in run.err
    assert '"key": "a"' in run.out


def test_a_crs_acceptors_are_the_acceptors_the_operator_writes(tmp_path: Path) -> None:
    """spec.acceptors become broker.xml acceptors (the operator's generateAcceptorsString): a router=
    property on one of them sets a param of an existing acceptor, not a new one without a factory."""
    cr = tmp_path / "cr.yaml"
    cr.write_text("kind: ActiveMQArtemis\nmetadata:\n  name: ex\nspec:\n  acceptors:\n"
                  "    - name: amqp\n      protocols: amqp\n      port: 5672\n"
                  "    - name: all\n      bindToAllInterfaces: true\n"
                  "  brokerProperties:\n"
                  "    - connectionRouters.r.keyType=CLIENT_ID\n"
                  "    - connectionRouters.r.localTargetFilter=NULL\n"
                  "    - acceptorConfigurations.amqp.params.router=r\n")
    run = arouter("validate", str(cr), "-f", "json")
    rules = [d["rule"] for f in json.loads(run.out)["files"] for d in f["diagnostics"]]
    assert run.code == 0 and "AR721" not in rules and "AR205" not in rules, run.out

    from artemis_routing_cli.config.properties.cr import cr_acceptors

    got = {a.name: (a.url, a.line) for a in cr_acceptors(str(cr))}
    defaults = ("tcpSendBufferSize=1048576;tcpReceiveBufferSize=1048576;useEpoll=true;amqpCredits=1000;"
                "amqpMinCredits=300")
    assert got == {
        "amqp": (f"tcp://ACCEPTOR_IP:5672?protocols=AMQP;{defaults}", 6),
        "all": (f"tcp://0.0.0.0:61626?protocols=AMQP,CORE,HORNETQ,MQTT,OPENWIRE,STOMP;{defaults}", 9),
        "scaleDown": (f"tcp://ACCEPTOR_IP:61616?protocols=CORE;{defaults}", 6),
    }


def test_each_finding_names_the_line_that_set_the_value(tmp_path: Path) -> None:
    """Not the router's first line: the keyFilter, password and discoveryGroupName lines."""
    props = tmp_path / "q.properties"
    props.write_text("connectionRouters.r.keyType=CLIENT_ID\n"
                     "connectionRouters.r.policyConfiguration=CONSISTENT_HASH\n"
                     "connectionRouters.r.poolConfiguration.checkPeriod=1000\n"
                     "connectionRouters.r.poolConfiguration.quorumSize=1\n"
                     "connectionRouters.r.poolConfiguration.password=secret\n"
                     "connectionRouters.r.keyFilter=^(a\n"
                     "connectionRouters.r.poolConfiguration.discoveryGroupName=nope\n")
    run = arouter("validate", "--properties", str(props), "-f", "json", cwd=tmp_path)
    found = {d["rule"]: d["line"] for f in json.loads(run.out)["files"] for d in f["diagnostics"]}
    assert (found["AR402"], found["AR309"], found["AR202"]) == (5, 6, 7), found
    # over broker.xml: the properties line that overrides the element, not the element
    xml = tmp_path / "broker.xml"
    xml.write_text('<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">\n<connection-routers>\n'
                   '<connection-router name="r"><key-type>CLIENT_ID</key-type>\n<key-filter>^a</key-filter>\n'
                   '<local-target-filter>.*</local-target-filter></connection-router>\n'
                   '</connection-routers></core></configuration>\n')
    over = tmp_path / "over.properties"
    over.write_text("# a comment\nconnectionRouters.r.keyFilter=^(a\n")
    run = arouter("validate", "--properties", str(over), str(xml), "-f", "json", cwd=tmp_path)
    places = {(d["rule"], d["file"].rsplit("/", 1)[-1], d["line"]) for f in json.loads(run.out)["files"]
              for d in f["diagnostics"]}
    assert ("AR309", "over.properties", 2) in places, places


def test_a_dropped_backslash_is_said_with_its_line_and_what_the_broker_reads(tmp_path: Path) -> None:
    props = tmp_path / "b.properties"
    props.write_text("connectionRouters.r.keyType=CLIENT_ID\n"
                     "connectionRouters.r.keyFilter=^\\d+\n"
                     "connectionRouters.r.localTargetFilter=a\\\\.b\\=c\n"  # meant escapes: nothing to say
                     "connectionRouters.r.poolConfiguration.password=s\\ecret\n"
                     "connectionRouters.r.poolConfiguration.localTargetEnabled=true\n")
    run = arouter("validate", "--properties", str(props), "-f", "json", cwd=tmp_path)
    found = [(d["rule"], d["line"], d["message"]) for f in json.loads(run.out)["files"] for d in f["diagnostics"]
             if d["rule"] == "AR724"]
    assert [(rule, line) for rule, line, _ in found] == [("AR724", 2), ("AR724", 4)], found
    assert "keyFilter=^\\d+ is read by the broker as '^d+'" in found[0][2]
    assert "ecret" not in found[1][2]  # a password's value is never shown
    # simulate routes what the broker reads: ^d+ finds nothing in "123abc", so the key is NULL
    sim = arouter("simulate", "--properties", str(props), "-k", "CLIENT_ID=123abc", "-f", "json", "--ignore-invalid",
                  cwd=tmp_path)
    assert json.loads(sim.out)["results"][0]["key"] == "NULL", sim.out
