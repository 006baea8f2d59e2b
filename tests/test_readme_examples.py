"""Every fenced ``bash`` example of README.md runs as written and gives what its text says.

Each block is read from README.md at test time (a new section's examples are picked up without touching
this file) and its commands - a line, with its ``\\`` continuations and open quotes joined - run with
``bash``, in order, in a fresh folder per block holding the sample as ``broker.xml`` (and the input files
the block names, see :func:`prepare`), with ``arouter`` and ``python`` being this checkout's. A command
must exit 0.

When a command is run differently, an HTML comment right above its block says how and why, for the
command's number in the block (or ``*`` for all of them)::

    <!-- example N: ACTION ARGS | why -->

ACTION is one of:

* ``exit CODE``: it exits with CODE (what the text around it says it does);
* ``shows TEXT``: its output holds TEXT;
* ``interrupt TEXT``: it runs until Ctrl-C: SIGINT once a line with TEXT is out (then ``exit`` applies);
* ``serve``: a server: the ports of ./broker.xml's acceptors and the ``127.0.0.1:PORT`` the command names
  move to free ports; SIGTERM once each of them is listening; exit 0;
* ``spark``: skipped where pyspark or java is missing;
* ``replace OLD NEW``: run with OLD replaced by NEW (something that does not exist here);
* ``same FILE REPO_FILE``: FILE written by the command equals the checkout's REPO_FILE;
* ``installed``: ``pip install ARGS`` (with the ``&&`` after it): the arguments are checked against
  pyproject.toml and the rest of the line runs (the test's environment has this checkout installed);
* ``empty``: the folder holds nothing (no ``broker.xml``);
* ``ci``: .ci/run, which CI runs, holds this very command (it is the suite this test belongs to);
* ``collect``: the test suite itself: collected (``--collect-only``) in the checkout, not run;
* ``in-repo``: run in the checkout;
* ``artemis``: ``/opt/artemis`` stands for the real Artemis distribution of tests/artemis_dist.py (its
  unpacked folder replaces it; skipped where the tarball is missing, failed in CI).
* ``writes FILE``: FILE, once the command has run, is exactly the fenced block that follows the README's
  ``<!-- as produced: FILE -->`` (an output shown in README is the product's, not a memory of it).
"""

from __future__ import annotations

import os
import queue
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLE

README = REPO / "README.md"
ACTIONS = ("exit", "shows", "interrupt", "serve", "spark", "replace", "same", "installed", "empty", "ci", "collect",
           "in-repo", "artemis", "writes")
_PRODUCED = re.compile(r"<!--\s*as produced:\s*(\S+)\s*-->\s*\n(`{3,})[^\n]*\n(.*?)\n\2\n", re.S)


def produced_blocks(text: str) -> dict[str, str]:
    """FILE -> the fenced block after ``<!-- as produced: FILE -->``."""
    return {m.group(1): m.group(3) for m in _PRODUCED.finditer(text)}


_ABOVE = re.compile(r"(?:<!--(?:(?!-->).)*-->\s*)+\Z", re.S)
_MARKER = re.compile(r"<!--\s*example\s+(\*|\d+):\s*(.*?)\s*-->", re.S)
KEYS = ["FOO1", "BAR2", "app-7", "", "0", "alice"]
TIMEOUT = 600  # seconds for one command (Spark's first start is the slowest)


@dataclass
class Example:
    block: int  # 1-based among README's bash blocks
    section: str  # the heading above the block, and the block's number under it: "simulate/2"
    number: int  # 1-based within its block
    line: int  # README line where the command starts
    command: str
    block_text: str
    actions: list[list[str]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"README.md:{self.line}"

    def has(self, action: str) -> bool:
        return any(a[0] == action for a in self.actions)

    def args(self, action: str) -> list[list[str]]:
        return [a[1:] for a in self.actions if a[0] == action]


def split_commands(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Logical commands: continuation lines and open quotes joined; blank and comment lines skipped."""
    commands: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    for number, text in lines:
        if not current:
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            start = number
        current.append(text)
        joined = "\n".join(current)
        if joined.endswith("\\"):
            continue
        try:
            shlex.split(joined, comments=True)
        except ValueError:  # a quote still open: the command goes on
            continue
        commands.append((start, joined))
        current = []
    assert not current, f"README.md:{start}: a command does not end"
    return commands


def parse_marker(body: str, where: str) -> list[str]:
    action_text, bar, reason = body.partition("|")
    assert bar and reason.strip(), f"{where}: an example marker says why after '|': {body!r}"
    action = shlex.split(action_text)
    assert action and action[0] in ACTIONS, f"{where}: unknown example action {action_text!r}"
    return action


def examples(text: str) -> list[Example]:
    lines = text.splitlines()
    found: list[Example] = []
    block = 0
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```bash":
            i += 1
            continue
        block += 1
        heading = next((h.lstrip("#").strip() for h in reversed(lines[:i]) if h.startswith("## ") or
                        h.startswith("### ")), "top")  # a bash comment is one '#'; README's title too
        under = sum(1 for ex in found if ex.section.rpartition("/")[0] == heading
                    and ex.number == 1) + 1
        # the markers: the HTML comments right above the fence
        above = _ABOVE.search("\n".join(lines[:i]))
        fence_line = i + 1
        body: list[tuple[int, str]] = []
        i += 1
        while lines[i].strip() != "```":
            body.append((i + 1, lines[i]))
            i += 1
        block_text = "\n".join(t for _, t in body)
        commands = split_commands(body)
        markers = _MARKER.findall(above.group(0)) if above else []
        for spec, _marker in markers:
            assert spec == "*" or 1 <= int(spec) <= len(commands), \
                f"README.md:{fence_line}: example {spec} of a block of {len(commands)} command(s)"
        for n, (line, command) in enumerate(commands, 1):
            ex = Example(block, f"{heading}/{under}", n, line, command, block_text)
            ex.actions = [parse_marker(m, f"README.md:{line}") for spec, m in markers if spec in ("*", str(n))]
            found.append(ex)
        i += 1
    return found


EXAMPLES = examples(README.read_text(encoding="utf-8"))


# -- the folder and the tools an example runs with ------------------------------------------------------
def prepare(folder: Path, ex: Example) -> None:
    """The sample as broker.xml, and the input files ``ex``'s block names that it does not write itself."""
    text = ex.block_text
    if ex.has("empty"):
        return
    shutil.copyfile(SAMPLE, folder / "broker.xml")
    if "samples/" in text:  # the checkout's samples, as the example names them
        shutil.copytree(REPO / "samples", folder / "samples")
    if "etc/" in text:
        (folder / "etc").mkdir()
        shutil.copyfile(SAMPLE, folder / "etc" / "broker.xml")
    if "client-ids.txt" in text:
        (folder / "client-ids.txt").write_text("\n".join(KEYS) + "\n", encoding="utf-8")
    if "ids.csv" in text:
        (folder / "ids.csv").write_text("client_id\n" + "\n".join(KEYS) + "\n", encoding="utf-8")
    if "ids/" in text:
        (folder / "ids").mkdir()
        (folder / "ids" / "part-0.txt").write_text("\n".join(KEYS) + "\n", encoding="utf-8")
    if "ids.parquet" in text:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"client_id": KEYS}), folder / "ids.parquet")
    if "cert.pem" in text:
        from tests.probe.peers import make_self_signed

        make_self_signed(folder)


def tools(folder: Path) -> dict[str, str]:
    """The environment: ``arouter`` and ``python`` of this checkout first on PATH."""
    bin_dir = folder.parent / "bin"
    bin_dir.mkdir(exist_ok=True)
    shims = {"arouter": f'exec "{sys.executable}" -m artemis_routing_cli "$@"',
             "python": f'exec "{sys.executable}" "$@"'}
    try:
        import pyspark

        shims["spark-submit"] = f'exec "{Path(pyspark.__file__).parent / "bin" / "spark-submit"}" "$@"'
    except ImportError:
        pass
    for name, body in shims.items():
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO),
           "COLUMNS": "200", "NO_COLOR": "1", "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("ARTEMIS_INSTANCE", None)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_ready() -> bool:
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None


# -- the actions that change how a command runs ---------------------------------------------------------
def installed(command: str) -> str:
    """Check ``pip install [-q] -e SPEC`` against pyproject.toml; the rest of the line after ``&&``."""
    install, _, rest = command.partition("&&")
    words = shlex.split(install)
    assert words[:2] == ["pip", "install"], command
    [spec] = [w for w in words[2:] if not w.startswith("-")]
    path, _, extras = spec.partition("[")
    assert (REPO / path / "pyproject.toml").is_file(), spec
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    declared = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert set(filter(None, extras.rstrip("]").split(","))) <= set(declared), spec
    return rest.strip()


def move_ports(folder: Path, command: str) -> tuple[str, list[int]]:
    """Free ports for ./broker.xml's acceptors and the command's 127.0.0.1:PORT; the ports to wait for."""
    ports: list[int] = []
    config = folder / "broker.xml"
    if config.is_file():
        def acceptor(m: re.Match[str]) -> str:
            ports.append(free_port())
            return f"{m.group(1)}:{ports[-1]}"

        text = re.sub(r"(<acceptor [^>]*>\w+://[^:<]+):(\d+)", acceptor, config.read_text(encoding="utf-8"))
        config.write_text(text, encoding="utf-8")
    named: list[int] = []

    def local(m: re.Match[str]) -> str:
        named.append(free_port())
        return f"127.0.0.1:{named[-1]}"

    command = re.sub(r"127\.0\.0\.1:(\d+)", local, command)
    if "--listen" in command:
        return command, named  # the listeners are the command's; the acceptors are not bound
    return command, ports + named


def lines_of(stream, into: queue.Queue[str | None]) -> None:  # noqa: ANN001
    for line in stream:
        into.put(line)
    into.put(None)


def run_until(command: str, folder: Path, env: dict[str, str], ready: Callable[[list[str]], bool],
              sig: int) -> tuple[int, str]:
    """Start ``command``, read its output until ``ready(lines)``, send ``sig``; exit code and output."""
    proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=folder, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    seen: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=lines_of, args=(proc.stdout, seen), daemon=True)
    reader.start()
    out: list[str] = []
    try:
        while not ready(out):
            line = seen.get(timeout=120)
            assert line is not None, "ended before it was ready:\n" + "".join(out)
            out.append(line)
        proc.send_signal(sig)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    reader.join(timeout=60)
    while not seen.empty():
        line = seen.get()
        if line is not None:
            out.append(line)
    return code, "".join(out)


# -- the test -------------------------------------------------------------------------------------------
def test_examples_are_found() -> None:
    """Every bash block yields commands; markers name real commands (checked while reading)."""
    blocks = {ex.block for ex in EXAMPLES}
    assert len(blocks) == README.read_text(encoding="utf-8").count("```bash")
    assert len(EXAMPLES) >= 30


BLOCKS = [[ex for ex in EXAMPLES if ex.block == b] for b in dict.fromkeys(ex.block for ex in EXAMPLES)]


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block[0].section)
def test_readme_block(block: list[Example], tmp_path: Path) -> None:
    """The commands of one block run in order in one folder (a later one may read what an earlier wrote)."""
    if any(ex.has("spark") for ex in block) and not spark_ready():
        pytest.skip("needs pyspark, pyarrow and java")
    folder = tmp_path / "work"
    folder.mkdir()
    prepare(folder, block[0])
    env = tools(folder)
    for ex in block:
        run_example(ex, folder, env)


def run_example(ex: Example, folder: Path, env: dict[str, str]) -> None:
    command = ex.command
    if ex.has("ci"):
        assert command in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines(), command
        return
    if ex.has("installed"):
        command = installed(command)
        if not command:
            return
    for old, new in ex.args("replace"):
        assert old in command, f"{ex.id}: nothing to replace: {old!r}"
        command = command.replace(old, new)
    if ex.has("artemis"):
        from tests.artemis_dist import artemis_home

        assert "/opt/artemis" in command, f"{ex.id}: no /opt/artemis to stand in for"
        command = command.replace("/opt/artemis", str(artemis_home()))
    cwd = REPO if ex.has("in-repo") or ex.has("collect") else folder
    expected = int(ex.args("exit")[0][0]) if ex.has("exit") else 0
    if ex.has("collect"):
        assert "python -m pytest" in command, command
        command = command.replace("python -m pytest", "python -m pytest --collect-only", 1)
    if ex.has("serve"):
        command, ports = move_ports(folder, command)
        assert ports, f"{ex.id}: nothing to wait for"

        def listening(out: list[str]) -> bool:
            up = [line for line in out if "listening on" in line or "management on" in line]
            return all(any(f":{p}" in line for line in up) for p in ports)

        code, output = run_until(command, cwd, env, listening, signal.SIGTERM)
        assert code == expected, f"{ex.id}: {command}\n{output[-4000:]}"
        return
    if ex.has("interrupt"):
        [[text]] = ex.args("interrupt")
        code, output = run_until(command, cwd, env, lambda out: any(text in line for line in out), signal.SIGINT)
        assert code == expected, f"{ex.id}: {command}\n{output[-4000:]}"
        return
    run = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=TIMEOUT)
    output = run.stdout + run.stderr
    assert run.returncode == expected, f"{ex.id}: {command}\n{output[-4000:]}"
    for [text] in ex.args("shows"):
        assert text in output, f"{ex.id}: {command}\n{output[-4000:]}"
    for name, repo_file in ex.args("same"):
        assert (folder / name).read_bytes() == (REPO / repo_file).read_bytes(), f"{ex.id}: {name} != {repo_file}"
    for [name] in ex.args("writes"):
        shown = produced_blocks(README.read_text(encoding="utf-8"))
        assert name in shown, f"{ex.id}: no <!-- as produced: {name} --> block in README.md"
        written = (folder / name).read_text(encoding="utf-8").rstrip("\n")
        assert written == shown[name], f"{ex.id}: README's {name} is not what the command writes:\n{written}"


def test_every_output_shown_as_produced_is_checked() -> None:
    """Each ``<!-- as produced: FILE -->`` block belongs to a command that writes FILE (``writes FILE``)."""
    written = {name for ex in EXAMPLES for [name] in ex.args("writes")}
    shown = produced_blocks(README.read_text(encoding="utf-8"))
    assert shown and set(shown) == written, (sorted(shown), sorted(written))


def test_markers_are_read() -> None:
    text = """
<!-- example 2: exit 1 | the reason -->
<!-- example *: replace a b | another
     reason on two lines -->
```bash
arouter one \\
    --continued
echo 'open
quote' > f  # a comment
```
"""
    first, second = examples(text)
    assert (first.number, first.command) == (1, "arouter one \\\n    --continued")
    assert first.actions == [["replace", "a", "b"]]
    assert (second.line, second.actions) == (8, [["exit", "1"], ["replace", "a", "b"]])
    assert second.command == "echo 'open\nquote' > f  # a comment"
    with pytest.raises(AssertionError, match="says why"):
        examples("<!-- example 1: exit 1 -->\n```bash\ntrue\n```\n")
