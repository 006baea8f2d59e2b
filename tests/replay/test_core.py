"""replay's core without the shell: threads kept apart, bounded memory, hostile text escaped in HTML."""

from __future__ import annotations

from artemis_routing_cli.config import LoadOptions, load
from artemis_routing_cli.replay import join, summary
from artemis_routing_cli.replay.advice import THREAD_PATTERN
from artemis_routing_cli.replay.classify import Replayer
from artemis_routing_cli.replay.events import Audit
from artemis_routing_cli.replay.layout import Line, compile_pattern, read_line
from artemis_routing_cli.replay.run import replay
from artemis_routing_cli.report.replay_render import html_report
from artemis_routing_cli.routing.targets import TargetState

from .helpers import CONFIG

PATTERN = compile_pattern("%d [%t] %-5level [%logger] %msg%n")
R = "org.apache.activemq.artemis.core.server"
SELF = "ActiveMQTarget [connector=TransportConfiguration(name=self, factory=x)?port=61780, nodeID=node-self]"


def conn(n: int) -> str:
    return f"NettyServerConnection@{n}[ID=id{n}, local= /127.0.0.1:61783, remote=/127.0.0.1:{5000 + n}]"


def run(texts: list[str]) -> summary.Summary:
    cfg = load(str(CONFIG), LoadOptions({}))
    lines = [Line("t.log", i + 1, t) for i, t in enumerate(texts)]
    return replay(lines, Replayer(cfg, TargetState()), pattern=PATTERN)


def test_debug_lines_of_two_threads_interleaved_go_with_their_own_route_lines():
    t0 = "2026-12-08 00:00:00,000"
    texts = [f"{t0} [t1] DEBUG [{R}.routing.KeyResolver] keyValue for USER_NAME: alice",
             f"{t0} [t2] DEBUG [{R}.routing.KeyResolver] keyValue for USER_NAME: bob",
             f"{t0} [t2] INFO  [{R}] AMQ221086: Cannot route {conn(2)}",
             f"{t0} [t1] INFO  [{R}] AMQ221085: Route {conn(1)} to LocalTarget [connector=null, nodeID=n]"]
    doc = run(texts).to_json()
    assert doc["counts"] == {"agrees": 2, "explained": 0, "drift": 0, "unkeyed": 0}
    # the same lines on one thread (a layout without %t): bob's key line comes before alice's route
    # line, so neither route line's key can be trusted; replay says so and how to keep them apart
    one = [t.replace("[t1]", "[t0]").replace("[t2]", "[t0]") for t in texts]
    doc = run(one).to_json()
    assert doc["counts"] == {"agrees": 0, "explained": 0, "drift": 0, "unkeyed": 2}
    assert reasons_of(doc) == {("unkeyed", "interleaved DEBUG lines (no thread in the layout)"): 2}
    assert "appender.log_file.layout.pattern = %d %-5level [%logger] [%t] %msg%n" in doc["log4j2_lines"]
    assert doc["cannot_say"] == []
    # ... and that pattern is one --pattern reads, thread and all
    rec = read_line("2026-12-08 00:00:00,000 DEBUG [org.x] [Thread-7 (activemq-netty-threads)] keyValue for X: y",
                    pattern=compile_pattern(THREAD_PATTERN))
    assert rec is not None and (rec.thread, rec.message) == ("Thread-7 (activemq-netty-threads)", "keyValue for X: y")


def reasons_of(doc: dict) -> dict:
    return {(x["verdict"], x["reason"]): x["count"] for r in doc["routers"].values() for x in r["reasons"]}


def test_the_joiners_maps_stay_bounded(monkeypatch):
    monkeypatch.setattr(join, "MAX_PENDING", 10)
    j = join.Joiner()
    where = join.Where("t.log", 1, "")
    for n in range(1000):
        j.feed(Audit("u", (), f"10.0.0.{n}:1", f"c{n}"), "", where)
        j.feed(join.KeyValue("CLIENT_ID", str(n)), f"thread-{n}", where)
    assert len(j.audit_by_id) == len(j.audit_by_remote) == len(j.pending) == 10
    assert "c999" in j.audit_by_id and "c0" not in j.audit_by_id


def test_target_rows_stay_bounded(monkeypatch):
    monkeypatch.setattr(summary, "MAX_TARGET_ROWS", 3)
    t0 = "2026-12-08 00:00:00,000"
    texts = []
    for n in range(20):  # twenty names no pool holds
        target = SELF.replace("name=self", f"name=t{n}")
        texts += [f"{t0} [a] DEBUG [{R}.routing.KeyResolver] keyValue for USER_NAME: alice",
                  f"{t0} [a] INFO  [{R}] AMQ221085: Route {conn(n)} to {target}"]
    s = run(texts)
    assert len(s.targets) == 4 and s.targets[("by-user", summary.OTHER, "local")] == 17


def test_hostile_keys_are_escaped_in_the_html_report():
    t0 = "2026-12-08 00:00:00,000"
    key = "<script>alert(1)</script>"
    texts = [f"{t0} [a] DEBUG [{R}.routing.KeyResolver] keyValue for CLIENT_ID: {key}",
             f"{t0} [a] INFO  [{R}] AMQ221085: Route {conn(1).replace('61783', '61781')} to {SELF}"]
    page = html_report(run(texts).to_json())
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_terminal_escapes_in_keys_never_reach_the_table_or_markdown():
    from artemis_routing_cli.report.replay_render import markdown_report, text_report

    t0 = "2026-12-08 00:00:00,000"
    key = "evil\x1b[2J\x07\x9b"
    texts = [f"{t0} [a] DEBUG [{R}.routing.KeyResolver] keyValue for CLIENT_ID: {key}",
             f"{t0} [a] INFO  [{R}] AMQ221085: Route {conn(1).replace('61783', '61781')} to "
             f"{SELF.replace('name=self', 'name=nowhere')}"]
    doc = run(texts).to_json()
    for page in (text_report(doc), markdown_report(doc)):
        assert "\x1b" not in page and "\x07" not in page and "\x9b" not in page
        assert "evil\\x1b[2J\\x07\\x9b" in page


def test_mutated_real_lines_never_raise():
    """Real recorded lines cut, spliced and sprinkled with odd characters: read, counted, never a crash."""
    import random

    from .helpers import DATA

    real = [t for v in ("2.40.0", "2.31.2", "2.21.0") for f in (DATA / v / "debug").iterdir()
            for t in f.read_text().splitlines()]
    rnd = random.Random(35)
    odd = ["\x00", "\ufffd", "[", "]", "(", ")", ",", " ", "=", "{", "\"", "\\", "😀", "\u2028", "null", "ID="]
    texts = []
    for _ in range(4000):
        a, b = rnd.choice(real), rnd.choice(real)
        cut = rnd.randrange(len(a) + 1)
        line = a[:cut] + (b[rnd.randrange(len(b) + 1):] if rnd.random() < 0.3 else a[cut:])
        for _ in range(rnd.randrange(4)):
            at = rnd.randrange(len(line) + 1)
            line = line[:at] + rnd.choice(odd) + line[at:]
        texts.append(line)
    cfg = load(str(CONFIG), LoadOptions({}))
    lines = [Line("m.log", i + 1, t) for i, t in enumerate(texts)]
    s = replay(lines, Replayer(cfg, TargetState()))
    doc = s.to_json()
    assert doc["lines"] == 4000 and sum(doc["counts"].values()) == doc["decisions"]
    assert doc["decisions"] > 0 and doc["bad_lines"]["count"] > 0  # both paths taken
    html_report(doc)
