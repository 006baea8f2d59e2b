"""arouter against the user's own broker (issue 30): a version matrix over the served Artemis distributions,
and `validate --broker-home` against the broker's own start-to-verdict time on the same file.

Run by hand:  python bench/broker_home_bench.py [--versions 2.40.0,2.21.0] [--cases 5000] [--timing-repeat 3]

Matrix (each version whose tarball `mvn dependency:get` left in ~/.m2, unpacked by tests/artemis_dist.py):
whether arouter reads its version, whether the driver compiles against its lib/, `selftest` (seeded; the
disagreements), and the version differences arouter models: whether its broker.xml schema takes key-type
ROLE_NAME (2.41+, ARTEMIS-5439), the CONSISTENT_HASH_MODULO transform of a key with a negative hash (2.23+),
and `validate --broker-home` on the sample.

Timing: wall time of `arouter validate --broker-home HOME FILE` (a whole process: JVM loader included, its
classes cached as a user's second run has them) against `artemis run` of an instance whose etc/broker.xml is
FILE, from start until the broker logs that it is active (AMQ221007) or refuses (it exits); median of N,
as a ratio in the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.artemis_dist import artemis_home, m2_tarball  # noqa: E402

SERVED = ("2.18.0", "2.19.0", "2.21.0", "2.26.0", "2.27.1", "2.28.0", "2.31.2", "2.35.0", "2.37.0", "2.39.0", "2.40.0")
ROLE_XML = """<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core"><connection-routers>
<connection-router name="r"><key-type>ROLE_NAME</key-type></connection-router></connection-routers>
</core></configuration>
"""


def arouter(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "artemis_routing_cli", *args], capture_output=True, text=True,
                          env=env, timeout=900)


def matrix(versions: list[str], cases: int) -> None:
    from artemis_routing_cli.config.brokerhome import read_broker_home
    from artemis_routing_cli.errors import ArouterError

    print("| version | reads version | driver | selftest | ROLE_NAME in broker.xml | sample, validate --broker-home |")
    print("|---|---|---|---|---|---|")
    for v in versions:
        if not m2_tarball(v).is_file():
            print(f"| {v} | not fetched | | | | |")
            continue
        home = artemis_home(v)
        try:
            h = read_broker_home(str(home))
            read = h.version
        except ArouterError as exc:
            print(f"| {v} | {exc} | | | | |")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            role = Path(tmp) / "broker.xml"
            role.write_text(ROLE_XML, encoding="utf-8")
            run = arouter("validate", "--broker-home", str(home), "-f", "json", str(role))
            role_said = "refused" if '"AR107"' in run.stdout or '"AR004"' in run.stdout else (
                "accepted" if run.returncode in (0, 1) else run.stderr.strip()[:80])
        sample = arouter("validate", "--broker-home", str(home), str(REPO / "samples" / "broker.xml"))
        sample_said = "deploys, agrees" if sample.returncode == 0 else (sample.stderr.strip() or sample.stdout)[:120]
        t0 = time.perf_counter()
        st = arouter("selftest", "--broker-home", str(home), "--cases", str(cases), "--seed", "1")
        took = time.perf_counter() - t0
        if st.returncode in (0, 1):
            disagreements = st.stdout.count("DISAGREE case")
            self_said = f"{cases} cases, {disagreements} disagreements ({took:.0f} s)"
            driver = "compiles"
        else:
            self_said = st.stderr.strip()[:120]
            driver = "no" if "not supported" in st.stderr or "compile" in st.stderr else "?"
        print(f"| {v} | {read} | {driver} | {self_said} | {role_said} | {sample_said} |", flush=True)


def _instance(home: Path, where: Path) -> Path:
    inst = where / "inst"
    subprocess.run([str(home / "bin" / "artemis"), "create", "--silent", "--user", "a", "--password", "a",
                    "--require-login", "--no-web", str(inst)], check=True, capture_output=True, timeout=300)
    return inst


def artemis_run(inst: Path, xml: str, timeout: float = 300) -> float:
    (inst / "etc" / "broker.xml").write_text(xml, encoding="utf-8")
    shutil.rmtree(inst / "data", ignore_errors=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen([str(inst / "bin" / "artemis"), "run"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if "AMQ221007" in line or "AMQ221001" in line:
                return time.perf_counter() - t0
        return time.perf_counter() - t0  # it exited: refused
    finally:
        proc.kill()
        proc.wait(timeout=60)


def timing(repeat: int) -> None:
    home = artemis_home("2.40.0")
    sample = (REPO / "samples" / "broker.xml").read_text(encoding="utf-8")
    core = '<core xmlns="urn:activemq:core">'
    typo = sample.replace(core, core + "\n<jornal-type>NIO</jornal-type>", 1)
    with tempfile.TemporaryDirectory() as tmp:
        inst = _instance(home, Path(tmp))
        for label, xml in (("the sample (starts)", sample), ("a typo outside the routing sections (refused)", typo)):
            path = Path(tmp) / "broker.xml"
            path.write_text(xml, encoding="utf-8")
            arouter("validate", "--broker-home", str(home), str(path))  # the driver compiled and cached
            ours, theirs = [], []
            for _ in range(repeat):
                t0 = time.perf_counter()
                arouter("validate", "--broker-home", str(home), str(path))
                ours.append(time.perf_counter() - t0)
                theirs.append(artemis_run(inst, xml))
            a, b = statistics.median(ours), statistics.median(theirs)
            print(f"{label}: validate --broker-home {a:.2f} s (runs {', '.join(f'{x:.2f}' for x in ours)}), "
                  f"artemis run to verdict {b:.2f} s (runs {', '.join(f'{x:.2f}' for x in theirs)}): ratio {a / b:.2f}",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--versions", default=",".join(SERVED))
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--timing-repeat", type=int, default=3)
    parser.add_argument("--no-matrix", action="store_true")
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    if not args.no_matrix:
        matrix(args.versions.split(","), args.cases)
    if not args.no_timing:
        timing(args.timing_repeat)


if __name__ == "__main__":
    main()
