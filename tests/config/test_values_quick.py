"""The model's judge takes everyday values at once (``parse._Context.judge``): it must answer as
``values.judge`` does on every text, the problems in the table's order."""

from __future__ import annotations

import random

import pytest

from artemis_routing_cli.config import values
from artemis_routing_cli.config.parse import _Context, _Reader
from tests.config.test_child_fields import _element

TABLES = [values.POOL, values.CACHE, values.DIVERT, values.CLUSTER, values.BROADCAST, values.DISCOVERY,
          (values.CLUSTER_CONNECTOR,), (values.CLUSTER_LOAD_BALANCING,), (values.BROADCAST_CONNECTOR,)]


TEXTS = ["", "0", "1", "7", "-1", "+1", "01", "000", "999999999", "1000000000", "2147483647", "2147483648",
         "9223372036854775808", "1.5", "1e3", "NaN", "INF", " 5", "５", "²", "abc", "ANYCAST", "anycast", "STRIP",
         "ON_DEMAND", "STRICT", "64k", "1MiB", "true"]


def _judge_plainly(rows: tuple[values.Row, ...], texts: dict[str, str]) -> tuple[dict[str, object], list[str]]:
    out: dict[str, object] = {}
    problems = []
    for row in rows:
        if row.element not in texts:
            continue
        value, problem = values.judge(row, texts[row.element])
        out[row.element] = value
        if problem is not None and values.schema_accepts(row, texts[row.element]):
            problems.append(f"{row.element}: {problem}")
    return out, problems


@pytest.mark.parametrize("seed", range(12))
def test_judge_answers_as_values_judge_does(tmp_path, seed: int) -> None:
    rng = random.Random(seed)
    for rows in TABLES:
        names = [row.element for row in rows]
        chosen = {name: rng.choice(TEXTS) for name in names if rng.random() < 0.7}
        inner = "".join(f"<{name}>{text}</{name}>" for name, text in chosen.items())
        el, locator = _element(tmp_path, f"<connection-router name='r'>{inner}</connection-router>")
        ctx = _Context(locator, False)
        got = ctx.judge(_Reader(el, locator), rows, "s")
        expected, problems = _judge_plainly(rows, {k: v.strip() for k, v in chosen.items()})
        assert got == expected and list(got) == list(expected)
        assert [f"{p.element}: {p.message}" for p in ctx.problems] == problems
