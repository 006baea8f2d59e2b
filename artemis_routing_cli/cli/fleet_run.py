"""``arouter fleet`` once its options are known: check every input, load each pod as simulate loads it,
prove where the domain is finite, count the keys, compare a change, write the outputs; the exit code
(0; 1 a value or key with no home or several; 2 bad input)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .common import note
from .fleet_keys import count_keys, key_homes, spark_docs, spark_pairs
from .fleet_options import FleetOptions
from .fleet_pods import known_ids, pod_specs, target_mapping

if TYPE_CHECKING:

    from ..fleet.pods import Pod
    from .keys_file import KeysFile

FORMATS = ("text", "json", "markdown", "sarif", "github")
MAX_REPLICAS = 63


def parse_replicas(text: str) -> tuple[int, int]:
    """``R`` -> (R, R); ``A..B`` -> (A, B); 1 <= A <= B <= MAX_REPLICAS."""
    m = re.fullmatch(r"\s*(\d{1,3})\s*(?:\.\.\s*(\d{1,3})\s*)?", text)
    low, high = (int(m.group(1)), int(m.group(2) or m.group(1))) if m else (0, 0)
    if not 1 <= low <= high <= MAX_REPLICAS:
        raise UsageError(f"--replicas {text!r}: expected a pod count R or a range A..B, from 1 to {MAX_REPLICAS}")
    return low, high


def _check(o: FleetOptions) -> tuple[int, int] | None:
    if o.fmt not in FORMATS:
        raise UsageError(f"--format {o.fmt!r}: choose {', '.join(FORMATS)}")
    if o.report is not None and not o.report.lower().endswith((".html", ".htm")):
        raise UsageError(f"--report {o.report!r}: the report is HTML, name it FILE.html")
    sources = [n for n, v in (("--cr", o.cr), ("--pod", o.pods), ("--config", o.config)) if v]
    if o.pods and len(sources) > 1:
        raise UsageError(f"{' and '.join(sources)}: --pod gives each pod its whole config; give one fleet")
    if o.cr is not None and o.config is not None:
        raise UsageError("--cr and --config: the operator generates broker.xml; give one fleet")
    if not o.pods and o.cr is None and o.replicas is None:
        raise UsageError("no fleet: give --cr CR.yaml, --replicas R with a broker.xml or properties, "
                         "or --pod NAME=FILE")
    if o.pods and o.replicas is not None:
        raise UsageError("--replicas and --pod: the pods are the ones given")
    if o.pods and o.properties:
        raise UsageError("--properties and --pod: give each pod's properties in its --pod NAME=BROKER.xml,PROPS")
    span = parse_replicas(o.replicas) if o.replicas is not None else None
    changes = [n for n, v in (("--to-replicas", o.to_replicas), ("--to-broker-version", o.to_broker_version),
                              ("--new-cr", o.new_cr)) if v is not None]
    if len(changes) > 1:
        raise UsageError(f"{' and '.join(changes)}: compare one change at a time")
    if o.to_replicas is not None and not 1 <= o.to_replicas <= MAX_REPLICAS:
        raise UsageError(f"--to-replicas {o.to_replicas}: expected 1 to {MAX_REPLICAS} pods")
    if o.to_replicas is not None and o.pods:
        raise UsageError("--to-replicas and --pod: a list of pods does not scale; give the new list with --pod")
    if o.new_cr is not None and o.cr is None:
        raise UsageError("--new-cr needs --cr (the CR before the change)")
    if span is not None and span[0] != span[1] and (changes or o.keys is not None):
        raise UsageError(f"--replicas {o.replicas}: a range is proven pod count by pod count; --keys and changes "
                         "look at one fleet (give --replicas R)")
    spark_only = [n for n, v in (("--master", o.master), ("--conf", o.conf), ("--keys-format", o.keys_format != "auto"),
                                 ("--engine", o.engine != "auto")) if v]
    if spark_only and not o.spark:
        raise UsageError(f"{', '.join(spark_only)}: only with --spark")
    if o.spark and o.keys is None:
        raise UsageError("--spark counts --keys: give --keys PATH")
    if o.engine not in ("auto", "jvm", "pandas"):
        raise UsageError(f"--engine {o.engine!r}: choose auto, jvm or pandas")
    from .common import parse_properties

    if "STATEFUL_SET_ORDINAL" in parse_properties(o.define):
        raise UsageError("-D STATEFUL_SET_ORDINAL: fleet gives each pod its own ordinal")
    return span


def run_fleet(o: FleetOptions) -> int:
    from .. import __version__
    from ..fleet.pods import load_pods, router_names, with_version
    from ..routing.keys import broker_version_text
    from .key_options import broker_version

    span = _check(o)
    mapping = target_mapping(o.target_pod)
    version = broker_version(o.broker_version)
    to_version = broker_version(o.to_broker_version) if o.to_broker_version is not None else None
    loaded = None
    spark_input = None
    if o.keys is not None and o.spark:
        from ..pipeline.preflight import inspect
        from ..pipeline.session import check_master, parse_conf

        parse_conf(o.conf)
        spark_input = inspect(o.keys, o.keys_format)  # the keys and the master, before Spark starts
        check_master(o.master)
    elif o.keys is not None:
        from .keys_file import load_keys

        loaded = load_keys(o.keys)
    specs = pod_specs(o, o.cr, span[1] if span else None)
    after_specs = None
    if o.new_cr is not None:
        after_specs = pod_specs(o, o.new_cr, o.to_replicas if o.to_replicas is not None else
                             (span[1] if span else None))
    elif o.to_replicas is not None:
        after_specs = pod_specs(o, o.cr, o.to_replicas)
    assumed: list[str] = []
    pods = load_pods(specs, version)
    names = router_names(pods)
    if o.router is not None:
        if o.router not in names:
            known = ", ".join(names) or "none"
            raise UsageError(f"no connection router named {o.router!r} on any pod (routers: {known})")
        names = [o.router]
    if not names:
        raise UsageError("no pod of the fleet has a connection router")
    pods = known_ids(pods, mapping, version, assumed, names)
    after = None
    if after_specs is not None:
        after = known_ids(load_pods(after_specs, version), mapping, version, assumed, names)
    elif to_version is not None:
        after = with_version(pods, to_version)
    for pod in [*pods, *(after or [])]:
        if pod.refusal is not None:
            assumed.append(f"{pod.name}: the broker would not start ({pod.refusal}): it takes no client")
    from ..config.properties.sources import empty_broker_xml

    if specs and specs[0].path != empty_broker_xml() and not o.pods:
        assumed.append(f"every pod runs {specs[0].path}" + (" under the CR's properties" if o.cr else ""))
    if o.cr is not None and span is None:
        assumed.append(f"{len(pods)} pod(s): the CR's deploymentPlan.size (--replicas R to say otherwise)")
    if not o.pods and o.cr is None:
        assumed.append("each pod has STATEFUL_SET_ORDINAL = its ordinal in its environment, as the operator's "
                       "StatefulSet sets it" + ("; broker-N. lines of --properties apply to pod N only, after "
                                                "the shared lines, as the operator splits a CR's"
                                                if o.properties else ""))
    routers = [_router_doc(name, pods, after, span, loaded, o, mapping, assumed, spark_input) for name in names]
    if spark_input is not None:
        for doc, keys in zip(routers, spark_docs(names, pods, spark_input, o, mapping, assumed), strict=True):
            doc["keys"] = keys
    from ..fleet.document import build

    doc = build(__version__, broker_version_text(version), pods, routers, assumed, o.allow_multiple,
                o.allow_homeless)
    for pod in pods:
        if pod.refusal is not None:
            doc["failed"].append(f"{pod.name}: the broker would not start")
            doc["ok"] = False
    _write(o, doc)
    for f in doc["failed"]:
        note(f"arouter: fleet fails: {f}")
    return 0 if doc["ok"] else 1


def _router_doc(name: str, pods: list[Pod], after: list[Pod] | None, span: tuple[int, int] | None,
                loaded: KeysFile | None, o: FleetOptions, mapping: dict[str, str],
                assumed: list[str], spark_input: Any = None) -> dict[str, Any]:
    from ..fleet.document import keys_json, proof_json
    from ..fleet.proof import prove

    counts = range(span[0], span[1] + 1) if span and span[0] != span[1] else [len(pods)]
    for pod in pods:
        r = pod.routers.get(name)
        if r is None and pod.config is not None:
            assumed.append(f"{pod.name} has no router {name}: it takes every client")
        for w in (r.warnings if r is not None else []):
            assumed.append(f"{pod.name}: {name}: {w}")
    proofs = [proof_json(prove(pods[:n], name)) for n in counts]
    keys = None
    if loaded is not None:
        keys = keys_json(count_keys(name, pods, loaded, o, mapping, assumed), f"{o.keys} ({len(loaded):,} keys)")
    change = None
    if after is not None:
        change = _change(name, pods, after, loaded, o, mapping, assumed, spark_input)
    return {"name": name, "proofs": proofs, "keys": keys, "change": change}


def _what(o: FleetOptions, pods: Sequence[Pod], after: Sequence[Pod]) -> str:
    if o.to_broker_version is not None:
        return f"upgrade to Artemis {o.to_broker_version}"
    if o.new_cr is not None:
        return f"{o.cr} -> {o.new_cr}"
    return f"scale {len(pods)} -> {len(after)} pod(s)"


def _change(name: str, pods: list[Pod], after: list[Pod], loaded: KeysFile | None, o: FleetOptions,
            mapping: dict[str, str], assumed: list[str], spark_input: Any = None) -> dict[str, Any]:
    from ..fleet.count import home_label, home_pairs, home_transfer
    from ..fleet.document import change_json, proof_json
    from ..fleet.proof import prove, prove_change

    what = _what(o, pods, after)
    after_proof = prove(after, name)
    after_json = proof_json(after_proof) if after_proof.proven else None
    run_a = [p.name for p in pods if p.config is not None]
    run_b = [p.name for p in after if p.config is not None]
    if spark_input is not None:
        out = change_json(what, "keys", home_transfer(spark_pairs(name, pods, after, spark_input, o, mapping, assumed),
                                                      [p.name for p in pods], [p.name for p in after]))
        out["why"] = None
        out["after"] = after_json
        return out
    if loaded is None:
        proof = prove_change(pods, after, name)
        if not proof.proven:
            assumed.append(f"{name}: the change is not proven ({proof.why})")
            return {"what": what, "unit": None, "total": 0, "moved": 0, "lost_home": 0, "gained_home": 0,
                    "matrix": [], "null": None, "why": proof.why, "after": after_json}
        out = change_json(what, f"hash classes (of {proof.classes})", home_transfer(proof.pairs, run_a, run_b),
                          (home_label(proof.null[0], run_a), home_label(proof.null[1], run_b)))
        out["why"] = proof.why
        out["after"] = after_json
        return out
    pairs: Counter[tuple[int, int]] = Counter()
    all_a = [p.name for p in pods]
    all_b = [p.name for p in after]
    for (_, a, _, _), (_, b, _, _) in zip(key_homes(name, pods, loaded, o, mapping, assumed),
                                    key_homes(name, after, loaded, o, mapping, assumed), strict=True):
        pairs.update(home_pairs(a, b))
    out = change_json(what, "keys", home_transfer(pairs, all_a, all_b))
    out["why"] = None
    out["after"] = after_json
    return out


def render(doc: dict[str, Any], fmt: str) -> str:
    import json

    from ..report import fleet_render

    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return {"text": fleet_render.render_text, "markdown": fleet_render.render_markdown,
            "sarif": fleet_render.render_sarif, "github": fleet_render.render_github}[fmt](doc)


def _write(o: FleetOptions, doc: dict[str, Any]) -> None:
    from ..outfile import write_out, write_text

    text = render(doc, o.fmt)
    if o.report is not None:
        import datetime

        from ..report.fleet_html import html_report

        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        write_text(o.report, html_report(doc, generated_at=when), what="report")
        note(f"arouter: report written to {o.report}")
    write_out(o.output, text)
