"""The floor for ``arouter validate``: what any Python + lxml validator of the same files pays.

Run:  python bench/validate_floor.py FILE...  (exit 0 when every judged section passes, else 1)

For each file, and nothing else: read the bytes, substitute ``${name:default}`` (JVM-style
properties given as ``-Dname=value`` arguments, then the environment, then the default, else the
empty string), parse with lxml (no network, no entity expansion), XInclude, and validate each
routing section under ``<core>`` (the sections arouter's ``schemas/arouter-core.xsd`` covers:
acceptors, connectors, broadcast and discovery groups, diverts, cluster connections, connection
routers with their pools) against that schema, in place. No model, no rules, no report.
It imports nothing from arouter, so it measures the stack alone.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from lxml import etree

SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "arouter-core.xsd"
CORE = "{urn:activemq:core}"
SECTIONS = frozenset(CORE + name for name in (
    "acceptors", "connectors", "broadcast-groups", "discovery-groups", "diverts", "cluster-connections",
    "connection-routers"))
TOKEN = re.compile(r"\$\{([^}]*)\}")


def substitute(text: str, props: dict[str, str]) -> str:
    """Each ``${name:default}`` replaced once, left to right (the broker's result for plain values)."""
    def value(match: re.Match[str]) -> str:
        name, _, default = match.group(1).partition(":")
        name = name.strip()
        if name in props:
            return props[name]
        if name in os.environ:
            return os.environ[name]
        return default.strip()
    return TOKEN.sub(value, text) if "${" in text else text


def main(argv: list[str]) -> int:
    props = dict(a[2:].partition("=")[::2] for a in argv if a.startswith("-D"))
    files = [a for a in argv if not a.startswith("-D")]
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    schema = etree.XMLSchema(etree.parse(str(SCHEMA), parser))
    ok = True
    for name in files:
        text = substitute(Path(name).read_bytes().decode("utf-8"), props)
        root = etree.fromstring(text.encode("utf-8"), parser, base_url=name)
        root.getroottree().xinclude()
        for core in root.iter(CORE + "core"):
            for section in core:
                if section.tag in SECTIONS and not schema.validate(section):
                    ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
