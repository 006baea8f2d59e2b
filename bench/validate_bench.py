"""arouter validate vs xmllint --schema (our schemas/) on a large generated broker.xml and the sample.

Run by hand:  python bench/validate_bench.py [--routers 2000 --diverts 5000 --clusters 300 --repeat 5] [--venv]
Prints wall times (best of N, whole processes, as a user runs them) and the ratios; also the
in-process time of lint_path (no interpreter start; best of N, wall and CPU) and `arouter --help`
cold start. arouter runs with its bytecode cached (in a temporary PYTHONPYCACHEPREFIX, as an installed
package has it) even where PYTHONDONTWRITEBYTECODE is set: compiling every module from source on each
start is not what users see. ``--venv`` first installs this checkout (not editable) into a new
virtual environment and measures that ``arouter``: what ``pip install artemis-routing-cli`` gives a
user, without this machine's own site-packages start-up hooks.

Two floors are measured with the same interpreter, to show what no Python linter can go below:
``python -c pass`` (starting the interpreter) and a script that only imports lxml, parses the file
and validates it against the same schema as xmllint (xmllint's own work, done through lxml, and
nothing else: no model, no rules, no report).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

WRAP_OUTER = """<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:activemq"
           xmlns:core="urn:activemq:core" elementFormDefault="qualified">
  <xs:import namespace="urn:activemq:core" schemaLocation="core-wrap.xsd"/>
  <xs:element name="configuration"><xs:complexType><xs:sequence>
    <xs:element ref="core:core"/>
  </xs:sequence><xs:anyAttribute processContents="lax"/></xs:complexType></xs:element>
</xs:schema>
"""

WRAP_CORE = """<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:activemq:core"
           xmlns="urn:activemq:core" elementFormDefault="qualified">
  <xs:include schemaLocation="{schema}"/>
  <xs:element name="core"><xs:complexType><xs:sequence>
    <xs:any namespace="##targetNamespace" processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>
"""


def generate(routers: int, diverts: int, clusters: int, distinct: bool = False) -> str:
    """A broker.xml with these counts. ``distinct``: no two routers share a pool password, key-filter
    or local-target-filter (half the passwords plain, half ``ENC(...)`` of their own), so no per-value
    memo of arouter's gains from repetition (a held-out input, rather than the usual bench file)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">',
           "<name>bench</name>", "<connectors>"]
    out += [f'<connector name="c{i}">tcp://host{i}.example.net:61616</connector>' for i in range(50)]
    out.append("</connectors><acceptors>")
    out += [f'<acceptor name="a{i}">tcp://0.0.0.0:{10000 + i}?router=r{i};protocols=CORE,AMQP</acceptor>'
            for i in range(routers)]
    out.append("</acceptors><cluster-connections>")
    for i in range(clusters):
        refs = "".join(f"<connector-ref>c{(i + j) % 50}</connector-ref>" for j in range(3))
        out.append(f'<cluster-connection name="cc{i}"><address>addr{i}.</address><connector-ref>c{i % 50}'
                   f"</connector-ref><message-load-balancing>ON_DEMAND</message-load-balancing><max-hops>1</max-hops>"
                   f"<static-connectors>{refs}</static-connectors></cluster-connection>")
    out.append("</cluster-connections><diverts>")
    for i in range(diverts):
        out.append(f'<divert name="d{i}"><address>in{i}</address><forwarding-address>out{i}</forwarding-address>'
                   f"<filter string=\"color = 'red' AND n &gt; {i}\"/><exclusive>{'true' if i % 2 else 'false'}"
                   "</exclusive></divert>")
    out.append("</diverts><connection-routers>")
    policies = ["CONSISTENT_HASH", "FIRST_ELEMENT", "ROUND_ROBIN", "LEAST_CONNECTIONS"]
    for i in range(routers):
        refs = "".join(f"<connector-ref>c{(i + j) % 50}</connector-ref>" for j in range(3))
        key_filter, local_filter, password = "^.{3}", "^FOO.*", "ENC(1234)"
        if distinct:
            key_filter, local_filter = f"^R{i}-[A-Z]+", f"^NODE{i}(-.*)?$"
            password = f"secret-{i * 7919 % 100003}" if i % 2 else f"ENC({i * 104729 % 10 ** 9:x}a5)"
        out.append(f'<connection-router name="r{i}"><key-type>CLIENT_ID</key-type><key-filter>{key_filter}</key-filter>'
                   f'<local-target-filter>{local_filter}</local-target-filter><policy name="{policies[i % 4]}"/>'
                   f"<pool><username>u</username><password>{password}</password><check-period>1000</check-period>"
                   f"<quorum-size>1</quorum-size><static-connectors>{refs}</static-connectors></pool>"
                   "</connection-router>")
    out.append("</connection-routers></core></configuration>")
    return "\n".join(out) + "\n"


FLOOR_SCRIPT = """import sys
from lxml import etree
schema = etree.XMLSchema(etree.parse(sys.argv[1]))
doc = etree.parse(sys.argv[2], etree.XMLParser(resolve_entities=False, no_network=True))
sys.exit(0 if schema.validate(doc) else 1)
"""


def make_venv(where: Path) -> Path:
    """A new virtual environment with this checkout installed (not editable); its python."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    python = where / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(REPO)], check=True)
    return python


def best(cmd: list[str], repeat: int, env: dict[str, str] | None = None) -> tuple[float, int]:
    times = []
    code = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env).returncode
        times.append(time.perf_counter() - t0)
    return min(times), code


def in_process(path: Path, repeat: int) -> tuple[float, float]:
    """lint_path on ``path``: best wall and best CPU time of ``repeat`` runs (after one warm-up)."""
    sys.path.insert(0, str(REPO))
    from artemis_routing_cli.config.urls import parse_transport_url
    from artemis_routing_cli.linting import lint_path
    from artemis_routing_cli.messages.selector import clear_filter_caches

    lint_path(str(path))
    walls, cpus = [], []
    for _ in range(repeat):
        clear_filter_caches()  # every filter and URL parsed again, as in a fresh process
        parse_transport_url.cache_clear()
        t0, c0 = time.perf_counter(), time.process_time()
        lint_path(str(path))
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(walls), min(cpus)


def _arouter(python: str = sys.executable) -> str:
    """The installed ``arouter`` script next to ``python``, else the one on PATH.

    On PATH there may be a version manager's shim (pyenv's is a bash script that costs ~75 ms per
    start); that is not arouter's time, and xmllint has none.
    """
    beside = Path(python).with_name("arouter")
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("arouter") or sys.exit("arouter not installed (pip install -e .)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--routers", type=int, default=2000)
    ap.add_argument("--diverts", type=int, default=5000)
    ap.add_argument("--clusters", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--venv", action="store_true", help="measure a non-editable install in a new virtualenv")
    args = ap.parse_args()
    if shutil.which("xmllint") is None:
        sys.exit("xmllint not found (apt-get install libxml2-utils)")
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        python = str(make_venv(t / "venv")) if args.venv else sys.executable
        arouter = _arouter(python)
        (t / "floor.py").write_text(FLOOR_SCRIPT, encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(t / "pycache")
        (t / "outer.xsd").write_text(WRAP_OUTER, encoding="utf-8")
        (t / "core-wrap.xsd").write_text(WRAP_CORE.format(schema=(REPO / "schemas" / "arouter-core.xsd").as_uri()),
                                         encoding="utf-8")
        big = t / "large-broker.xml"
        big.write_text(generate(args.routers, args.diverts, args.clusters), encoding="utf-8")
        print(f"arouter: {arouter}")
        print(f"large file: {big.stat().st_size / 1e6:.1f} MB ({args.routers} routers, {args.diverts} diverts, "
              f"{args.clusters} cluster connections)")
        best([arouter, "validate", "-q", str(big)], 1, env)  # writes the bytecode cache
        start, _ = best([python, "-c", "pass"], args.repeat, env)
        for label, f in (("large", big), ("sample", REPO / "samples" / "broker.xml")):
            x, xc = best(["xmllint", "--noout", "--schema", str(t / "outer.xsd"), str(f)], args.repeat)
            a, ac = best([arouter, "validate", "-q", str(f)], args.repeat, env)
            floor, fc = best([python, str(t / "floor.py"), str(t / "outer.xsd"), str(f)], args.repeat, env)
            wall, cpu = in_process(f, args.repeat)
            print(f"{label:7s} xmllint {x * 1000:8.1f} ms (exit {xc})   arouter {a * 1000:8.1f} ms (exit {ac})   "
                  f"ratio {a / x:5.2f}x   in-process lint {wall * 1000:7.1f} ms wall, {cpu * 1000:7.1f} ms CPU "
                  f"({wall / x:.1f}x xmllint)")
            print(f"{'':7s} floors: python -c pass {start * 1000:.1f} ms ({start / x:.1f}x xmllint); "
                  f"python + lxml parse + schema only {floor * 1000:.1f} ms (exit {fc}, {floor / x:.1f}x xmllint)")
        h, _ = best([arouter, "--help"], args.repeat, env)
        v, _ = best([arouter, "--version"], args.repeat, env)
        print(f"arouter --help cold start {h * 1000:.0f} ms, --version {v * 1000:.0f} ms")


if __name__ == "__main__":
    main()
