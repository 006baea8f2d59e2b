"""``arouter fleet``'s outputs from its document (fleet/document.py): text, Markdown for a pull
request, SARIF for code scanning, GitHub workflow commands."""

from __future__ import annotations

import json
from typing import Any


def _proof_lines(r: dict[str, Any]) -> list[str]:
    out = []
    for p in r["proofs"]:
        if not p["proven"]:
            out.append(f"  {p['replicas']} pod(s): not proven: {p['why']}")
            continue
        state = "every value has exactly one home" if p["ok"] else "FAILS"
        out.append(f"  {p['replicas']} pod(s): proven over {p['values']} value(s): {state}")
        if p["homeless"]:
            out.append(f"    no home: {', '.join(p['homeless'])}")
        shares = p.get("shares") or {}
        if shares and (len({round(v, 6) for v in shares.values()}) > 1 or round(sum(shares.values()), 6) < 1):
            out.append("    share of keys (even hashes): " + ", ".join(f"{pod} {v:.1%}" for pod, v in shares.items()))
        if p.get("idle"):
            out.append(f"    idle (no value but NULL): {', '.join(p['idle'])}")
        for s in p["several"]:
            if s["value"] == "NULL":
                out.append(f"    NULL (a client without a key) is taken by any of {', '.join(s['pods'])}")
            else:
                out.append(f"    several homes: {s['value']} on {', '.join(s['pods'])}")
    return out


def _keys_lines(k: dict[str, Any]) -> list[str]:
    skew = f"{k['skew']:.2f}" if k["skew"] is not None else "-"
    out = [f"  keys {k['source']}: one home {k['one_home']:,}, no home {k['no_home']:,}, several homes "
           f"{k['several_homes']:,} (through a redirect: {k['hopped']:,})",
           "  load: " + ", ".join(f"{pod} {n:,}" for pod, n in k["load"].items()) + f" (skew {skew})"]
    for kind, items in k["samples"].items():
        for s in items:
            where = f" on {', '.join(s['pods'])}" if s["pods"] else ""
            out.append(f"    {kind.replace('_', ' ')}: {s['key']!r}{where}")
    return out


def _change_lines(c: dict[str, Any]) -> list[str]:
    if c.get("unit") is None:
        return [f"  change ({c['what']}): not proven: {c.get('why')}"]
    out = [f"  change ({c['what']}), {c['unit']}: {c['moved']:,} of {c['total']:,} move, {c['lost_home']:,} lose "
           f"their home, {c['gained_home']:,} gain one"]
    out.extend(f"    {m['from']} -> {m['to']}: {m['count']:,}" for m in c["matrix"] if m["from"] != m["to"])
    if c.get("null") and c["null"]["from"] != c["null"]["to"]:
        out.append(f"    NULL: {c['null']['from']} -> {c['null']['to']}")
    if c.get("after"):
        out.append("  after the change:")
        out.extend("  " + line for line in _proof_lines({"proofs": [c["after"]]}))
    return out


def verdict_line(doc: dict[str, Any]) -> str:
    if not doc["ok"]:
        return f"FAILED: {len(doc['failed'])} problem(s)"
    if doc.get("unknown"):
        return (f"OK where known; not known for {', '.join(doc['unknown'])} (not proven: --keys FILE counts "
                "real keys)")
    return "OK: every key has exactly one home"


def render_text(doc: dict[str, Any]) -> str:
    pods = ", ".join(p["name"] + ("" if p["runs"] else " (does not start)") for p in doc["pods"])
    lines = [f"fleet: {len(doc['pods'])} pod(s): {pods}; Artemis {doc['broker_version']}"]
    for r in doc["routers"]:
        lines.append(f"router {r['name']}:")
        lines.extend(_proof_lines(r))
        if r["keys"] is not None:
            lines.extend(_keys_lines(r["keys"]))
        if r["change"] is not None:
            lines.extend(_change_lines(r["change"]))
    lines.extend(f"assumed: {a}" for a in doc["assumed"])
    lines.append(verdict_line(doc))
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(doc: dict[str, Any]) -> str:
    lines = ["## arouter fleet", "",
             f"{('✅ ' if doc['ok'] else '❌ ') + verdict_line(doc)}"
             f" — {len(doc['pods'])} pod(s), Artemis {doc['broker_version']}", ""]
    for r in doc["routers"]:
        lines += [f"### Router `{r['name']}`", "", "| pods | proven | values | no home | several homes |",
                  "|---:|---|---:|---|---|"]
        for p in r["proofs"]:
            several = "; ".join(f"{s['value']}: {'+'.join(s['pods'])}" for s in p["several"])
            lines.append(f"| {p['replicas']} | {'yes' if p['proven'] else 'no: ' + _md(p['why'])} | {p['values']} | "
                         f"{_md(', '.join(p['homeless']))} | {_md(several)} |")
        if r["keys"] is not None:
            k = r["keys"]
            lines += ["", f"Keys {_md(k['source'])}: **{k['one_home']:,}** one home, **{k['no_home']:,}** no home, "
                      f"**{k['several_homes']:,}** several homes.", "", "| pod | keys |", "|---|---:|"]
            lines += [f"| {_md(pod)} | {n:,} |" for pod, n in k["load"].items()]
        c = r["change"]
        if c is not None and c.get("unit") is not None:
            lines += ["", f"Change ({_md(c['what'])}), {c['unit']}: {c['moved']:,} of {c['total']:,} move, "
                      f"{c['lost_home']:,} lose their home.", "", "| from | to | count |", "|---|---|---:|"]
            lines += [f"| {_md(m['from'])} | {_md(m['to'])} | {m['count']:,} |" for m in c["matrix"]]
        lines.append("")
    if doc["assumed"]:
        lines += ["<details><summary>Assumed</summary>", ""] + [f"- {_md(a)}" for a in doc["assumed"]] + \
            ["", "</details>", ""]
    return "\n".join(lines)


RULE_ID = "fleet-homes"


def render_sarif(doc: dict[str, Any]) -> str:
    results = [{"ruleId": RULE_ID, "level": "error", "message": {"text": f}} for f in doc["failed"]]
    sarif = {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "arouter", "version": doc["version"], "rules": [{
            "id": RULE_ID, "shortDescription": {"text": "Every key has exactly one pod that accepts it"}}]}},
        "results": results}]}
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"


def _gh(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render_github(doc: dict[str, Any]) -> str:
    lines = [f"::error title=arouter fleet::{_gh(f)}" for f in doc["failed"]]
    lines += [f"::notice title=arouter fleet::{_gh(a)}" for a in doc["assumed"]]
    return "\n".join(lines) + ("\n" if lines else "")
