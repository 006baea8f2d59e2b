"""What a replay found, counted as it goes (bounded: counts, a few samples, a timeline by minute)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..routing.transfer import ABSENT, Answer, Transfer
from .advice import log4j2_lines, logging_file, thread_lines
from .classify import DRIFT, INTERLEAVED, REFUSED, UNKEYED, VERDICTS, Verdict
from .join import Decision

#: samples kept per verdict and reason, bad lines sampled, movers sampled
MAX_SAMPLES = 10
MAX_BAD_SAMPLES = 20
#: timeline buckets (minutes); later minutes are counted in ``timeline_overflow``
MAX_BUCKETS = 50_000
SAMPLE_TEXT = 200
#: distinct (router, broker's target, config's answer) rows counted; the rest under OTHER
MAX_TARGET_ROWS = 10_000
OTHER = "(other)"


@dataclass
class Summary:
    lines: int = 0
    records: int = 0
    decisions: int = 0
    bad: int = 0
    bad_samples: list[dict[str, object]] = field(default_factory=list)
    verdicts: Counter[str] = field(default_factory=Counter)
    by_router: dict[str, Counter[str]] = field(default_factory=dict)
    reasons: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # router, verdict, reason
    targets: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # router, actual, expected
    samples: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    timeline: Counter[str] = field(default_factory=Counter)
    timeline_overflow: int = 0
    unkeyed_types: dict[str, str] = field(default_factory=dict)  # router -> key type
    node_ids: dict[str, str] = field(default_factory=dict)
    broker_version: tuple[int, int] | None = None
    interleaved: bool = False
    against: Transfer | None = None
    movers: list[dict[str, object]] = field(default_factory=list)

    def bad_line(self, source: str, number: int, why: str, text: str) -> None:
        self.bad += 1
        if len(self.bad_samples) < MAX_BAD_SAMPLES:
            self.bad_samples.append({"file": source, "line": number, "why": why, "text": text[:SAMPLE_TEXT]})

    def add(self, d: Decision, v: Verdict) -> None:
        self.decisions += 1
        self.verdicts[v.kind] += 1
        router = v.router or "?"
        self.by_router.setdefault(router, Counter())[v.kind] += 1
        self.reasons[(router, v.kind, v.reason)] += 1
        cell = (router, v.actual, v.expected or "?")
        if cell not in self.targets and len(self.targets) >= MAX_TARGET_ROWS:
            cell = (router, OTHER, v.expected or "?")  # a log may name any number of targets
        self.targets[cell] += 1
        if v.kind == UNKEYED and v.key_type is not None:
            if v.reason == INTERLEAVED:
                self.interleaved = True
            else:
                self.unkeyed_types[router] = v.key_type
        if v.kind == DRIFT:
            minute = d.where.time[:16]
            if minute in self.timeline or len(self.timeline) < MAX_BUCKETS:
                self.timeline[minute] += 1
            else:
                self.timeline_overflow += 1
        bucket = self.samples.setdefault(f"{v.kind}:{v.reason}", [])
        if len(bucket) < MAX_SAMPLES:
            bucket.append(sample(d, v))

    def add_against(self, d: Decision, v: Verdict, after: Answer) -> None:
        if self.against is None:
            self.against = Transfer()
        before = actual_answer(d, v)
        moved_before = self.against.moved
        self.against.add(before, after)
        self.against.add_null(before, after)
        if self.against.moved != moved_before and len(self.movers) < MAX_SAMPLES * 2:
            self.movers.append({**sample(d, v), "after": after.label})

    @property
    def drift(self) -> int:
        return self.verdicts[DRIFT]

    def advice(self) -> list[str]:
        lines = log4j2_lines(set(self.unkeyed_types.values()), self.broker_version) if self.unkeyed_types else []
        if self.interleaved and (self.broker_version is None or self.broker_version >= (2, 27)):
            lines += thread_lines()
        return lines

    def to_json(self) -> dict[str, object]:
        routers = {}
        for name, counts in sorted(self.by_router.items()):
            routers[name] = {
                "counts": {k: counts[k] for k in VERDICTS},
                "reasons": [{"verdict": k, "reason": r, "count": c}
                            for (rn, k, r), c in sorted(self.reasons.items()) if rn == name],
                "targets": [{"actual": a, "expected": e, "count": c}
                            for (rn, a, e), c in sorted(self.targets.items()) if rn == name],
            }
        out: dict[str, object] = {
            "format": "arouter-replay/1",
            "lines": self.lines,
            "records": self.records,
            "decisions": self.decisions,
            "counts": {k: self.verdicts[k] for k in VERDICTS},
            "routers": routers,
            "samples": self.samples,
            "drift_timeline": [{"minute": m, "drift": c} for m, c in sorted(self.timeline.items())],
            "drift_timeline_overflow": self.timeline_overflow,
            "bad_lines": {"count": self.bad, "samples": self.bad_samples},
            "node_ids_from_logs": dict(sorted(self.node_ids.items())),
            "cannot_say": [{"router": r, "key_type": kt} for r, kt in sorted(self.unkeyed_types.items())],
            "broker_version": ".".join(map(str, self.broker_version)) if self.broker_version else None,
            "log4j2_lines": self.advice(),
            "logging_file": logging_file(self.broker_version),
        }
        if self.against is not None:
            t = self.against
            out["against"] = {"connections": t.keys, "moved": t.moved,
                              "flows": [{"from": a, "to": b, "count": c} for a, b, c in t.flows()],
                              "became_refused": t.became_refused, "became_routed": t.became_routed,
                              "samples": self.movers}
        return out


def sample(d: Decision, v: Verdict) -> dict[str, object]:
    conn = d.routed.conn
    return {"file": d.where.source, "line": d.where.line, "time": d.where.time, "router": v.router,
            "key_type": v.key_type, "key": v.key, "remote": conn.remote if conn else None,
            "connection": conn.id if conn else None, "actual": v.actual, "expected": v.expected,
            "verdict": v.kind, "reason": v.reason, "detail": v.detail}


def actual_answer(d: Decision, v: Verdict) -> Answer:
    """What the broker did, as diff's transfer counts an answer."""
    if v.actual == REFUSED and v.expected is not None and v.expected.startswith("REFUSED"):
        return Answer(v.expected)  # the broker's line says no more than "refused": the config's refusal
    if v.actual.startswith("REFUSED"):
        return Answer(v.actual)
    t = d.routed.target
    local = v.actual == "local"
    return Answer("OK", v.actual, t.node_id if t is not None else None, local)


__all__ = ["ABSENT", "Summary"]
