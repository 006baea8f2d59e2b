"""How ``arouter replay`` reads logs: stdin, gzip, a directory of rotated logs in time order, log4j2's
JSON layout, a --pattern for a custom PatternLayout; the outputs; --help's start-up."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

from artemis_routing_cli.replay.layout import compile_pattern, read_line
from tests.cli.helpers import arouter
from tests.cli.test_startup import PROBE

from .helpers import CONFIG, DATA, reasons, replay_json

DEBUG = DATA / "2.31.2" / "debug"


def baseline() -> dict:
    return replay_json(str(DEBUG))


def essentials(doc: dict) -> tuple:
    return doc["decisions"], doc["counts"], {r: reasons(doc, r) for r in doc["routers"]}


def test_stdin_and_gzip_read_as_the_files(tmp_path):
    want = essentials(baseline())
    text = (DEBUG / "audit.log").read_text() + (DEBUG / "artemis.log").read_text()
    assert essentials(replay_json("-", stdin=text)) == want
    for name in ("audit.log", "artemis.log"):
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress((DEBUG / name).read_bytes()))
    assert essentials(replay_json(str(tmp_path))) == want


def test_a_directory_of_rotated_logs_is_read_oldest_first(tmp_path):
    lines = (DEBUG / "artemis.log").read_text().splitlines(keepends=True)
    cut = next(i for i, t in enumerate(lines) if "keyValue for CLIENT_ID: c3" in t)
    # log4j2's rotation: yesterday's part under a dated name, sorted after today's by name
    (tmp_path / "artemis.log.2026-12-07").write_text("".join(lines[:cut]))
    (tmp_path / "artemis.log").write_text("".join(lines[cut:]))
    (tmp_path / "audit.log").write_text((DEBUG / "audit.log").read_text())
    doc = replay_json(str(tmp_path))
    assert essentials(doc) == essentials(baseline())
    c1 = [s for v in doc["samples"].values() for s in v if s["key"] == "c1"]
    assert [s["file"].rsplit("/", 1)[1] for s in c1] == ["artemis.log.2026-12-07", "artemis.log"]


def test_log4j2_json_layout_lines_are_read_like_the_pattern(tmp_path):
    out = []
    for line in (DEBUG / "artemis.log").read_text().splitlines():
        rec = read_line(line)
        if rec is None:
            continue
        out.append(json.dumps({"instant": {"epochSecond": 1765152000, "nanoOfSecond": 0}, "thread": "t",
                               "level": rec.level, "loggerName": rec.logger, "message": rec.message,
                               "endOfBatch": False, "loggerFqcn": "org.apache.logging.slf4j.Log4jLogger"}))
    (tmp_path / "artemis.json").write_text("\n".join(out) + "\n")
    doc = replay_json(str(tmp_path / "artemis.json"), "--layout", "json")
    assert (doc["decisions"], doc["counts"]["drift"], doc["counts"]["unkeyed"]) == (11, 0, 0)
    assert doc["bad_lines"]["count"] == 0


def test_a_custom_pattern_with_the_thread_reads_the_same_decisions(tmp_path):
    pattern = "%d{ISO8601} [%t] %-5p %c - %m%n"
    out = []
    for line in (DEBUG / "artemis.log").read_text().splitlines():
        rec = read_line(line)
        if rec is not None:
            out.append(f"{rec.time.replace(' ', 'T')} [Thread-1 (activemq-netty-threads)] {rec.level:5} "
                       f"{rec.logger} - {rec.message}")
    (tmp_path / "custom.log").write_text("\n".join(out) + "\n")
    doc = replay_json(str(tmp_path / "custom.log"), "--pattern", pattern)
    assert essentials(doc) == essentials(baseline())  # the DEBUG lines key every router, audit or not
    p = compile_pattern(pattern)
    rec = read_line("2026-12-08T00:10:55,502 [main] INFO  org.x - AMQ221085: a [b] c", pattern=p)
    assert rec is not None and (rec.thread, rec.level, rec.logger, rec.message) == (
        "main", "INFO", "org.x", "AMQ221085: a [b] c")
    run = arouter("replay", "-c", str(CONFIG), "--pattern", "%d %p", str(tmp_path / "custom.log"))
    assert run.code == 2 and "without %m" in run.err and "Traceback" not in run.err


def test_markdown_and_table_say_the_same_counts():
    for fmt in ("table", "markdown"):
        run = arouter("replay", "-c", str(CONFIG), "-f", fmt, str(DATA / "2.40.0" / "info"))
        assert run.code == 0, run.err
        assert "11 routed connection(s)" in run.out and "9 the logs cannot key" in run.out
        assert "logger.arouter_router.name=org.apache.activemq.artemis.core.server.routing.ConnectionRouter" in run.out


def test_help_imports_no_replay_core():
    code = PROBE.replace("ARGS", repr(["replay", "--help"])).replace(
        "or m.startswith('artemis_routing_cli.serve')",
        "or m.startswith('artemis_routing_cli.serve') or m.startswith('artemis_routing_cli.replay')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert eval(out.stdout.strip().splitlines()[-1]) == []


def test_router_option_keeps_only_that_routers_connections():
    doc = replay_json(str(DEBUG), "--router", "by-ip")
    assert list(doc["routers"]) == ["by-ip"] and doc["decisions"] == 2
    run = arouter("replay", "-c", str(CONFIG), "--router", "nope", str(DEBUG))
    assert run.code == 2 and "no connection router named 'nope'" in run.err


def test_broker_properties_over_the_config_are_what_replay_checks(tmp_path):
    props = tmp_path / "broker.properties"
    props.write_text("connectionRouters.by-user.localTargetFilter=alice|bob\n")
    doc = replay_json(str(DATA / "2.40.0" / "debug"), "--properties", str(props), code=1)
    # bob (twice) was refused by the running broker; the config with these properties keeps him local
    assert [(s["key"], s["actual"], s["expected"]) for s in doc["samples"]["drift:"]] == [
        ("bob", "REFUSED", "local"), ("bob", "REFUSED", "local")]
