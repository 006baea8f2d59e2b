"""``arouter simulate`` in batch, as a user runs it, for the realbroker tests' keys."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import arouter


def simulate_keys(config: Path, router: str, keys: list[str], work: Path, *extra: str,
                  management: bool = True) -> list[dict]:
    """One record per key, in order: simulate's answer with ``--management`` (the key as given) or as a
    connection's key."""
    keys_file = work / f"keys-{router}.txt"
    keys_file.write_text("".join(f"{key}\n" for key in keys), encoding="utf-8")
    args = ["simulate", "-c", str(config), "-r", router, "--keys-file", str(keys_file), "--format", "jsonl", *extra]
    if management:
        args.append("--management")
    done = arouter(*args)
    assert done.code == 0, done.out + done.err
    records = [json.loads(line) for line in done.out.splitlines() if line.strip()]
    assert len(records) == len(keys)
    return records
