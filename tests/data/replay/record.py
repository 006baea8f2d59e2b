"""Record the real broker logs `arouter replay`'s tests read (run by hand; the logs are committed).

    python tests/data/replay/record.py 2.40.0 2.31.2 2.21.0

For each version: a broker instance made with the real distribution (tests/artemis_dist.py), this
folder's broker.xml as its configuration, users alice (roles admins, amq) and bob (amq); then two runs,
``info`` (the logging configuration as the distribution ships it) and ``debug`` (DEBUG on the routing
loggers, the audit resource logger at INFO: in log4j2.properties, or before 2.27 in JBoss LogManager's
logging.properties). Each run connects the same real clients (paho-mqtt 3.1.1 and 5, python-qpid-proton
AMQP) to each routing acceptor and saves ``VERSION/RUN/artemis.log`` (and ``audit.log``), stack traces
cut to two frames. 2.21.0 was recorded after replay was written and first run on it unchanged: the
held-out check.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.artemis_dist import artemis_home  # noqa: E402

PORTS = {"cid": 61781, "ip": 61782, "user": 61783}
ROUTING = "org.apache.activemq.artemis.core.server.routing"
DEBUG_LINES = f"""
logger.routing.name={ROUTING}
logger.routing.level=DEBUG
logger.audit_resource.level = INFO
"""
GUARD = 60.0  # seconds: a hung broker or client, not a synchronisation device


def wait_for(path: Path, text: str, proc: subprocess.Popen[bytes]) -> None:
    end = time.monotonic() + GUARD
    while time.monotonic() < end:
        if path.is_file() and text in path.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            raise SystemExit(f"the broker ended: see {path}")
        time.sleep(0.1)
    raise SystemExit(f"{text!r} not in {path} after {GUARD}s")


def mqtt(port: int, client_id: str, version: int, user: str | None = None) -> str:
    import paho.mqtt.client as paho

    proto = paho.MQTTv5 if version == 5 else paho.MQTTv311
    client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=client_id, protocol=proto)
    if user is not None:
        client.username_pw_set(user, user)
    seen: list[str] = []
    client.on_connect = lambda c, u, f, rc, p: seen.append(str(rc))
    client.connect("127.0.0.1", port, keepalive=10)
    end = time.monotonic() + GUARD
    while not seen and time.monotonic() < end:
        client.loop(timeout=0.2)
        if not client.is_connected() and seen:
            break
    client.disconnect()
    return seen[0] if seen else "no CONNACK"


def amqp(port: int, container: str, user: str | None = None) -> str:
    from proton.handlers import MessagingHandler
    from proton.reactor import Container

    class Once(MessagingHandler):  # type: ignore[misc]
        outcome = "none"

        def on_start(self, event) -> None:  # noqa: ANN001
            kwargs = {"user": user, "password": user, "allowed_mechs": "PLAIN"} if user else {}
            event.container.connect(f"amqp://127.0.0.1:{port}", reconnect=False, **kwargs)

        def on_connection_opened(self, event) -> None:  # noqa: ANN001
            self.outcome = "opened"
            event.connection.close()

        def on_connection_error(self, event) -> None:  # noqa: ANN001
            cond = event.connection.remote_condition
            self.outcome = cond.name if cond else "error"
            event.connection.close()

        def on_transport_error(self, event) -> None:  # noqa: ANN001
            cond = event.transport.condition
            self.outcome = cond.name if cond else "transport error"

    handler = Once()
    container_obj = Container(handler)
    container_obj.container_id = container
    container_obj.run()
    return handler.outcome


def clients() -> list[str]:
    out = []
    for cid in ("c1", "c2", "c3", "c1"):  # c1 twice: the second is a cache hit
        out.append(f"mqtt5 cid {cid}: {mqtt(PORTS['cid'], cid, 5)}")
    out.append(f"amqp cid a1: {amqp(PORTS['cid'], 'a1')}")
    out.append(f"mqtt3 ip m3: {mqtt(PORTS['ip'], 'm3', 3)}")
    out.append(f"amqp ip a2: {amqp(PORTS['ip'], 'a2')}")
    for user in ("alice", "bob"):
        out.append(f"mqtt5 user {user}: {mqtt(PORTS['user'], 'u-' + user, 5, user)}")
    out.append(f"amqp user bob: {amqp(PORTS['user'], 'a-bob', 'bob')}")
    out.append(f"mqtt5 user anonymous: {mqtt(PORTS['user'], 'u-anon', 5)}")
    return out


def record(version: str, run: str, work: Path) -> None:
    home = artemis_home(version)
    inst = work / f"{version}-{run}"
    memory = ["--java-memory", "256M"] if tuple(map(int, version.split(".")[:2])) >= (2, 30) else []  # 2.21: none
    subprocess.run([str(home / "bin" / "artemis"), "create", "--silent", "--user", "a", "--password", "a",
                    "--allow-anonymous", "--host", "127.0.0.1", "--default-port", "61780", "--no-web",
                    *memory, str(inst)], check=True, stdout=subprocess.DEVNULL)
    profile = inst / "etc" / "artemis.profile"
    profile.write_text(profile.read_text().replace("-Xms512M", "-Xms64M"))
    shutil.copy(HERE / "broker.xml", inst / "etc" / "broker.xml")
    (inst / "etc" / "artemis-users.properties").write_text("a = a\nalice = alice\nbob = bob\n")
    (inst / "etc" / "artemis-roles.properties").write_text("amq = a,alice,bob\nadmins = alice\n")
    if run == "debug":
        log4j = inst / "etc" / "log4j2.properties"
        if log4j.is_file():
            log4j.write_text(log4j.read_text().replace("logger.audit_resource.level = OFF\n", "") + DEBUG_LINES)
        else:  # before 2.27: JBoss LogManager's etc/logging.properties
            jboss = inst / "etc" / "logging.properties"
            text = jboss.read_text().replace("\nloggers=", f"\nloggers={ROUTING},", 1)
            text = text.replace("logger.org.apache.activemq.audit.resource.level=ERROR",
                                "logger.org.apache.activemq.audit.resource.level=INFO")
            jboss.write_text(text + f"logger.{ROUTING}.level=DEBUG\n")
    log = inst / "log" / "artemis.log"
    proc = subprocess.Popen([str(inst / "bin" / "artemis"), "run"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for(log, "AMQ221007", proc)
        for line in clients():
            print(f"{version} {run}: {line}")
    finally:
        proc.terminate()
        proc.wait(GUARD)
        if "--keep" in sys.argv:
            print(f"kept {inst}")
    out = HERE / version / run
    out.mkdir(parents=True, exist_ok=True)
    for name in ("artemis.log", "audit.log"):
        src = inst / "log" / name
        if src.is_file():
            if src.stat().st_size:
                (out / name).write_text("".join(trimmed(src)))


def trimmed(path: Path) -> list[str]:
    """The log's lines, each stack trace cut to its first two frames (the dead target's connection
    attempts fill a log with them)."""
    out: list[str] = []
    frames = 0
    for line in path.read_text(errors="replace").splitlines(keepends=True):
        frames = frames + 1 if line.startswith("\tat ") else 0
        if frames <= 2:
            out.append(line)
    return out


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="arouter-replay-"))
    for version in (a for a in sys.argv[1:] if not a.startswith("--")):
        for run in ("info", "debug"):
            record(version, run, work)
    if "--keep" not in sys.argv:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
