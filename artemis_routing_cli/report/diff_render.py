"""``arouter diff`` outputs from its JSON document (diffing.document): text, Markdown, SARIF, GitHub.

Every renderer reads only the document, so every format says the same thing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

Doc = dict[str, Any]


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{share * 100:.1f}%"


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _value(v: object) -> str:
    if v is None:
        return "(none)"
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def change_sentence(c: dict[str, Any]) -> str:
    if c["old"] is None:
        text = f"{c['setting']}: set to {_value(c['new'])}"
    elif c["new"] is None:
        text = f"{c['setting']}: removed (was {_value(c['old'])})"
    else:
        text = f"{c['setting']}: {_value(c['old'])} → {_value(c['new'])}"
    return f"{text} — ignored by the broker ({c['ignored']})" if c.get("ignored") else text


def where(c: dict[str, Any]) -> str:
    """``line N`` (of the new file) or ``old line N`` for a setting only the old file has."""
    return f"line {c['line']}" if c.get("in", "new") == "new" else f"old line {c['line']}"


def _deploy_line(r: dict[str, Any]) -> str | None:
    d = r["deploy"]
    if not d["changed"]:
        return None
    return f"the broker would now {'REFUSE' if d['new'] == 'refused' else 'deploy'} this router " \
           f"(was {d['old']})"


def _became(r: dict[str, Any]) -> str:
    b = r.get("became") or {}
    parts = [f"{b[k]:,} {label}" for k, label in (("local", "became local"), ("remote", "became remote"),
                                                   ("refused", "now refused"), ("routed", "no longer refused"),
                                                   ("null", "now NULL keys"), ("not_null", "no longer NULL"))
             if b.get(k)]
    return ", ".join(parts)


def _sources(doc: Doc) -> str:
    return f"{doc['old']['display']} → {doc['new']['display']}"


# -- text ----------------------------------------------------------------------------------------
def render_text(doc: Doc) -> str:
    out = [f"arouter diff {_sources(doc)}"]
    for side in ("old", "new"):
        out.append(f"  {side}: {doc[side]['read']}")
    if doc["keys"] is not None:
        out.append(f"  keys: {doc['keys']['source']}")
    for a in doc["assumed"]:
        out.append(f"  assumed: {a}")
    refused = doc["config_refused"]
    if refused["new"] and not refused["old"]:
        out.append("the broker would no longer start with the new file:")
        out += [f"  {x}" for x in refused["new"]]
    for r in doc["routers"]:
        out += list(_router_text(r))
    for kind, items in (("divert", doc["diverts"]), ("cluster-connection", doc["cluster_connections"])):
        for s in items:
            if s["status"] == "unchanged" and not s["changes"]:
                continue
            out.append(f"{kind} {s['name']}: {s['status']}")
            out += [f"  {change_sentence(c)} ({where(c)})" for c in s["changes"]]
    if doc["flow"] is not None:
        out += list(_flow_text(doc["flow"]))
    out.append(f"summary: {_summary(doc)}")
    return "\n".join(out) + "\n"


def _summary(doc: Doc) -> str:
    s = doc["summary"]
    changed = f"{s['routers_changed']} router(s) changed"
    if doc["keys"] is None:
        return f"{changed}; who moves: not computed (give --keys-file, --sample N or --keys)"
    per = [f"{r['name']} {r['moved']:,}" for r in doc["routers"] if r["moved"]]
    of = f" of {s['keys']:,}" if s.get("keys") is not None else ""
    return (f"{changed}; {s['moved']:,}{of} key(s) move" + (f" ({', '.join(per)})" if len(per) > 1 else "")
            + f"; highest churn {_pct(s['max_churn'])}; {s['became_refused']:,} key(s) newly refused")


def _router_text(r: dict[str, Any]) -> Iterator[str]:
    unchanged = r["status"] == "unchanged" and not r["changes"] and not r["moved"]
    if unchanged:
        yield f"connection-router {r['name']}: unchanged" + (f" ({_n(r['keys'])} keys, none move)"
                                                             if r["keys"] else "")
        return
    yield f"connection-router {r['name']}: {r['status']}"
    deploy = _deploy_line(r)
    if deploy:
        yield f"  ! {deploy}"
        yield from (f"    {x}" for x in r["deploy"]["reasons"])
    for c in r["changes"]:
        yield f"  {change_sentence(c)} ({where(c)})"
    if r["keys"]:
        yield f"  who moves: {_n(r['moved'])} of {_n(r['keys'])} keys ({_pct(r['churn'])})"
        for m in r["matrix"]:
            if m["from"] != m["to"]:
                yield f"    {m['from']} → {m['to']}: {m['count']:,} ({_pct(m['share'])})"
        became = _became(r)
        if became:
            yield f"  {became}"


def _flow_text(flow: dict[str, Any]) -> Iterator[str]:
    yield f"message to {flow['address']}: " + ("goes elsewhere now" if flow["changed"] else "same flow")
    for d in flow["no_longer_delivered"]:
        yield f"  no longer delivered to {d['address']} (via {' → '.join(d['via']) or 'the address itself'})"
    for d in flow["now_delivered"]:
        yield f"  now delivered to {d['address']} (via {' → '.join(d['via']) or 'the address itself'})"
    for d in flow["cluster_changed"]:
        yield (f"  copy on {d['address']}: cluster connections {', '.join(d['old']) or 'none'} → "
               f"{', '.join(d['new']) or 'none'}")
    for w in flow["warnings"]:
        yield f"  warning: {w}"


# -- markdown --------------------------------------------------------------------------------------
def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_markdown(doc: Doc) -> str:
    s = doc["summary"]
    out = [f"### arouter diff: `{_md(doc['old']['display'])}` → `{_md(doc['new']['display'])}`", ""]
    keys = doc["keys"]
    out.append(_md(_summary(doc)).replace(f"highest churn {_pct(s['max_churn'])}",
                                          f"highest churn **{_pct(s['max_churn'])}**")
               + (f" (keys: {_md(keys['source'])})." if keys else "."))
    if s["routers_refused_now"]:
        out += ["", "> [!CAUTION]", "> The broker would refuse: " + ", ".join(f"`{_md(n)}`"
                                                                            for n in s["routers_refused_now"])]
    if doc["config_refused"]["new"] and not doc["config_refused"]["old"]:
        out += ["", "> [!CAUTION]", "> The broker would not start with the new file:"]
        out += [f"> - {_md(x)}" for x in doc["config_refused"]["new"]]
    out += ["", "| router | status | deploy | keys | moved | churn |", "|---|---|---|---:|---:|---:|"]
    for r in doc["routers"]:
        d = r["deploy"]
        deploy = f"{d['old'] or '—'} → {d['new'] or '—'}" if d["changed"] else (d["new"] or d["old"] or "—")
        out.append(f"| `{_md(r['name'])}` | {r['status']} | {deploy} | {_n(r['keys'])} | {_n(r['moved'])} "
                   f"| {_pct(r['churn'])} |")
    for r in doc["routers"]:
        if not r["changes"] and not r["moved"]:
            continue
        out += ["", f"#### `{_md(r['name'])}`", ""]
        for reason in r["deploy"]["reasons"] if r["deploy"]["changed"] else []:
            out.append(f"- :x: {_md(reason)}")
        out += [f"- {_md(change_sentence(c))} ({where(c)})" for c in r["changes"]]
        flows = [m for m in r["matrix"] if m["from"] != m["to"]]
        if flows:
            out += ["", "| from | to | keys | share |", "|---|---|---:|---:|"]
            out += [f"| {_md(m['from'])} | {_md(m['to'])} | {m['count']:,} | {_pct(m['share'])} |" for m in flows]
        became = _became(r)
        if became:
            out += ["", became + "."]
    for kind, items in (("divert", doc["diverts"]), ("cluster connection", doc["cluster_connections"])):
        changed = [x for x in items if x["changes"]]
        if changed:
            out += ["", f"#### {kind}s", ""]
            for x in changed:
                out.append(f"- `{_md(x['name'])}` ({x['status']}): "
                           + "; ".join(_md(change_sentence(c)) for c in x["changes"]))
    if doc["flow"] is not None:
        out += ["", "#### message flow", ""] + [f"- {_md(line.strip())}" for line in _flow_text(doc["flow"])]
    out += ["", f"<sub>{_md(doc['generated_by'])}; {_md(doc['old']['read'])}; {_md(doc['new']['read'])}</sub>"]
    return "\n".join(out) + "\n"


# -- annotations -----------------------------------------------------------------------------------
def annotations(doc: Doc) -> Iterator[tuple[str, str, int, str, str]]:
    """(level, file, line, title, message) for every change, on the new file's lines.

    A change that only exists in the old file (a removed section or setting) points at line 1 of
    the new file.
    """
    new_file = doc["new"]["path"]

    def place(file: str, line: int, side: str = "new", section: dict[str, Any] | None = None) -> tuple[str, int]:
        if side == "new":
            return (file.split(":", 1)[1] if doc["new"]["rev"] and ":" in file else file, line)
        if section is not None and section["status"] != "removed":  # a setting gone from a section still there
            return place(section["file"], section["line"])
        return new_file, 1

    for r in doc["routers"]:
        f, line = place(r["file"], r["line"], "old" if r["status"] == "removed" else "new")
        if r["deploy"]["changed"] and r["deploy"]["new"] == "refused":
            yield ("error", f, line, f"router {r['name']} refused",
                   "the broker would refuse this router: " + "; ".join(r["deploy"]["reasons"]))
        if r["status"] in ("added", "removed"):
            yield ("warning", f, line, f"router {r['name']} {r['status']}",
                   f"connection router {r['name']} {r['status']}" + _moved_note(r))
        for c in r["changes"]:
            cf, cl = place(c["file"], c["line"], c.get("in", "new"), r)
            level = "notice" if c.get("ignored") else "warning"
            yield (level, cf, cl, f"router {r['name']}: {c['setting']}", change_sentence(c) + _moved_note(r))
    for kind, items in (("divert", doc["diverts"]), ("cluster-connection", doc["cluster_connections"])):
        for s in items:
            for c in s["changes"]:
                cf, cl = place(c["file"], c["line"], c.get("in", "new"), s)
                yield ("warning", cf, cl, f"{kind} {s['name']}: {c['setting']}", change_sentence(c))


def _moved_note(r: dict[str, Any]) -> str:
    return f" ({r['moved']:,} of {r['keys']:,} keys move, {_pct(r['churn'])})" if r["keys"] else ""


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(doc: Doc) -> str:
    lines = [f"::{level} file={_escape_property(f)},line={line},title={_escape_property(title)}::{_escape_data(msg)}"
             for level, f, line, title, msg in annotations(doc)]
    return "\n".join(lines) + ("\n" if lines else "")


_SARIF_LEVEL = {"error": "error", "warning": "warning", "notice": "note"}


def render_sarif(doc: Doc) -> str:
    results = [{
        "ruleId": "diff/refused" if level == "error" else "diff/ignored" if level == "notice" else "diff/change",
        "level": _SARIF_LEVEL[level],
        "message": {"text": f"{title}: {msg}"},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": f}, "region": {"startLine": line}}}],
    } for level, f, line, title, msg in annotations(doc)]
    rules = [
        {"id": "diff/change", "shortDescription": {"text": "A routing setting changed as the broker reads it"}},
        {"id": "diff/ignored", "shortDescription": {"text": "A change the broker ignores"}},
        {"id": "diff/refused", "shortDescription": {"text": "A router the broker would now refuse"}},
    ]
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "arouter diff", "version": doc["generated_by"].split()[-1],
                                      "rules": rules}},
                  "results": results}],
    }
    return json.dumps(sarif, indent=2, ensure_ascii=False) + "\n"
