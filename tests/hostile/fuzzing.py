"""A seeded mutator of real broker.xml files and a bounded runner for it (the suite's fuzz test and bench/).

:func:`mutate` turns one corpus document into a hostile one: byte flips, duplicated slices, deep
nesting, encoding declarations, odd ``${...}`` forms, huge numbers, control characters, attribute
floods, XIncludes of devices and of the document itself. :class:`Worker` validates documents one by
one in a subprocess held to ``RLIMIT_AS`` (memory) and a per-document deadline (time): a document
that crashes, runs out of memory or over its deadline is a finding; the worker is restarted.
"""

from __future__ import annotations

import json
import os
import random
import re
import select
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS_CANDIDATES = (REPO / ".." / "shared" / "corpus", REPO / ".." / ".." / "shared" / "corpus")
MEMORY_CAP = 1 << 30
XI = 'xmlns:xi="http://www.w3.org/2001/XInclude"'


def corpus_files() -> list[Path]:
    """The broker.xml files of ../shared/corpus (read at run time, never copied)."""
    env = os.environ.get("AROUTER_CORPUS")
    for folder in ([Path(env)] if env else []) + list(CORPUS_CANDIDATES):
        if folder.is_dir():
            return sorted(p for p in folder.rglob("*.xml") if p.is_file())
    return []


def _flip(rng: random.Random, data: bytes) -> bytes:
    if not data:
        return data
    buf = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        buf[rng.randrange(len(buf))] = rng.randrange(256)
    return bytes(buf)


def _duplicate(rng: random.Random, data: bytes) -> bytes:
    a = rng.randrange(len(data) + 1)
    b = min(len(data), a + rng.randint(1, 4000))
    return data[:b] + data[a:b] * rng.randint(2, 200) + data[b:]


def _insert(rng: random.Random, data: bytes, piece: bytes) -> bytes:
    """``piece`` right after a random ``>`` (inside element content), or at the end."""
    spots = [m.end() for m in re.finditer(rb">", data)]
    at = rng.choice(spots) if spots else len(data)
    return data[:at] + piece + data[at:]


def _nesting(rng: random.Random, data: bytes) -> bytes:
    depth = rng.choice([100, 1000, 5000, 20000])
    return _insert(rng, data, b"<a>" * depth + b"x" + b"</a>" * depth)


def _encoding(rng: random.Random, data: bytes) -> bytes:
    name = rng.choice([b"UTF 8", b"punycode", b"hex", b"rot13", b"utf-16", b"utf-7", b"idna", b"x" * 200, b"",
                       b"latin-1", b"UTF-32", b"cp037", b"undefined", b"base64"])
    decl = b'<?xml version="1.0" encoding="' + name + b'"?>'
    if data.lstrip().startswith(b"<?xml"):
        return re.sub(rb"^\s*<\?xml[^>]*\?>", decl.replace(b"\\", b"\\\\"), data, count=1)
    return decl + data


def _tokens(rng: random.Random, data: bytes) -> bytes:
    forms = [b"${}", b"${ }", b"${:x}", b"${a", b"${${a}}", b"${a:${b}}", b"$${a}", b"${HOME}", b"${PATH}",
             b"${a:" + b"9" * 5000 + b"}", b"${\x01}", b"}${", b"${a}" * rng.randint(1, 20000)]
    return _insert(rng, data, rng.choice(forms))


def _numbers(rng: random.Random, data: bytes) -> bytes:
    digits = b"9" * rng.choice([20, 400, 4301, 20000])
    out = re.sub(rb">(-?\d+)<", lambda m: b">" + (digits if rng.random() < 0.3 else m.group(1)) + b"<", data)
    return out if out != data else _insert(rng, data, digits)


def _controls(rng: random.Random, data: bytes) -> bytes:
    return _insert(rng, data, bytes([rng.choice([0, 1, 8, 11, 12, 27, 31])]) * rng.randint(1, 3))


def _attributes(rng: random.Random, data: bytes) -> bytes:
    m = re.search(rb"<([A-Za-z][\w.-]*)(\s|>)", data[rng.randrange(max(1, len(data) // 2)):])
    if m is None:
        return data
    start = data.find(m.group(0))
    flood = b" ".join(b'a%d="x"' % i for i in range(rng.choice([100, 5000, 50000])))
    at = start + 1 + len(m.group(1))
    return data[:at] + b" " + flood + data[at:]


def _include(rng: random.Random, data: bytes) -> bytes:
    href = rng.choice([b"/dev/zero", b"/dev/urandom", b"/etc/passwd", b"/proc/self/environ", b"/", b"nosuch.xml",
                       b"broker.xml", b"http://example.invalid/x", b"file:///dev/zero"])
    parse = rng.choice([b"text", b"xml"])
    return _insert(rng, data, b"<xi:include " + XI.encode() + b' href="' + href + b'" parse="' + parse + b'"/>')


def _entities(rng: random.Random, data: bytes) -> bytes:
    choice = rng.randrange(3)
    if choice == 0:
        doctype = b'<!DOCTYPE configuration SYSTEM "nosuch.dtd">'
    elif choice == 1:
        doctype = b"<!DOCTYPE configuration [<!ELEMENT configuration ANY>]>"
    else:
        doctype = b'<!DOCTYPE configuration [<!ENTITY a "' + b"x" * 1000 + b'">]>'
    head = re.match(rb"^\s*<\?xml[^>]*\?>", data)
    at = head.end() if head else 0
    return data[:at] + doctype + _insert(rng, data[at:], b"&undefined;" if rng.random() < 0.5 else b"&a;")


def _oneline(rng: random.Random, data: bytes) -> bytes:
    return data.replace(b"\n", b" ")


MUTATIONS: list[Callable[[random.Random, bytes], bytes]] = [
    _flip, _duplicate, _nesting, _encoding, _tokens, _numbers, _controls, _attributes, _include, _entities, _oneline]


def mutate(seed: int, data: bytes) -> bytes:
    """One to three mutations of ``data``, chosen by ``seed`` alone."""
    rng = random.Random(seed)
    for _ in range(rng.randint(1, 3)):
        data = rng.choice(MUTATIONS)(rng, data)
    return data


@dataclass
class Outcome:
    name: str
    code: int | None  # 0/1/2 as validate exits; None: crashed, out of memory or out of time
    seconds: float
    size: int
    problem: str = ""


_WORKER = r"""
import json, resource, sys, time, traceback
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]), int(sys.argv[1])))
from artemis_routing_cli.linting import LintSettings, lint_path
from artemis_routing_cli.errors import ArouterError
settings = LintSettings(environ={"HOME": "/home/planted-secret"})
for line in sys.stdin:
    path = line.rstrip("\n")
    start = time.perf_counter()
    try:
        report = lint_path(path, settings)
        code = 2 if report.fatal is not None else (1 if report.diagnostics else 0)
        problem = ""
        text = " ".join(d.message + " " + (d.hint or "") for d in report.diagnostics)
        if "planted-secret" in text or "root:x:0:0" in text:
            code, problem = None, "a secret in a finding"
        for d in report.diagnostics:
            if d.line < 1 or d.column < 1 or "\n" in d.message:
                code, problem = None, f"bad finding {d.rule} {d.line}:{d.column}"
    except ArouterError as err:
        code, problem = 2, ""
    except BaseException as exc:
        code, problem = None, "crash: " + "".join(traceback.format_exception_only(type(exc), exc)).strip()[:300]
    print(json.dumps({"code": code, "seconds": time.perf_counter() - start, "problem": problem}), flush=True)
"""


class Worker:
    """Validates documents one at a time in a subprocess under ``RLIMIT_AS``; restarted after a failure."""

    def __init__(self, deadline: float, memory: int = MEMORY_CAP) -> None:
        self.deadline = deadline
        self.memory = memory
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        return subprocess.Popen([sys.executable, "-c", _WORKER, str(self.memory)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=str(REPO),
                                env=env)

    def check(self, path: Path, name: str) -> Outcome:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        size = path.stat().st_size
        start = time.perf_counter()
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.deadline + 15)  # + worker start-up
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.close()
            problem = "no answer within the deadline" if not ready else "the worker died (memory limit?)"
            return Outcome(name, None, time.perf_counter() - start, size, problem)
        result = json.loads(line)
        if result["code"] is not None and result["seconds"] > self.deadline:
            result["code"], result["problem"] = None, f"took {result['seconds']:.1f} s"
        return Outcome(name, result["code"], result["seconds"], size, result["problem"])

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
