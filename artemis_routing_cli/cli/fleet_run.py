"""``arouter fleet`` once its options are known: check every input, load each pod as simulate loads it,
prove where the domain is finite, count the keys, compare a change, write the outputs; the exit code
(0; 1 a value or key with no home or several; 2 bad input)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .common import broker_options, note

if TYPE_CHECKING:
    import numpy as np

    from ..fleet.pods import Pod, PodSpec
    from ..routing.router import Router
    from .keys_file import KeysFile

FORMATS = ("text", "json", "markdown", "sarif", "github")
MAX_REPLICAS = 63


@dataclass
class FleetOptions:
    cr: str | None = None
    config: str | None = None
    properties: list[str] = field(default_factory=list)
    define: list[str] = field(default_factory=list)
    replicas: str | None = None
    pods: list[str] = field(default_factory=list)
    router: str | None = None
    broker_version: str | None = None
    keys: str | None = None
    spark: bool = False
    keys_format: str = "auto"
    master: str | None = None
    conf: list[str] = field(default_factory=list)
    engine: str = "auto"
    spark_log_level: str = "ERROR"
    to_replicas: int | None = None
    to_broker_version: str | None = None
    new_cr: str | None = None
    target_pod: list[str] = field(default_factory=list)
    allow_multiple: bool = False
    allow_homeless: bool = False
    fmt: str = "text"
    output: str | None = None
    report: str | None = None


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
    if o.spark and changes:
        raise UsageError(f"--spark and {changes[0]}: a change is counted locally (--keys without --spark)")
    if o.engine not in ("auto", "jvm", "pandas"):
        raise UsageError(f"--engine {o.engine!r}: choose auto, jvm or pandas")
    from .common import parse_properties

    if "STATEFUL_SET_ORDINAL" in parse_properties(o.define):
        raise UsageError("-D STATEFUL_SET_ORDINAL: fleet gives each pod its own ordinal")
    return span


def _targets(items: Sequence[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, pod = item.partition("=")
        if not sep or not name or not pod:
            raise UsageError(f"--target-pod {item!r}: expected TARGET=POD")
        if name in out:
            raise UsageError(f"--target-pod {name} given twice")
        out[name] = pod
    return out


def cr_specs(o: FleetOptions, cr: str, count: int) -> list[PodSpec]:
    """Pods 0..count-1 of a CR, each read as ``simulate --cr CR --ordinal N`` reads it."""
    from ..config.properties.cr import read_cr
    from ..fleet.pods import PodSpec

    name, _ = read_cr(cr)
    out = []
    for n in range(count):
        path, options = broker_options(o.config, o.define, o.properties, cr, n, quiet=True)
        out.append(PodSpec(f"{name or 'cr'}-ss-{n}", n, path, options))
    return out


def replica_specs(o: FleetOptions, count: int) -> list[PodSpec]:
    """Pods 0..count-1 running one broker.xml and properties, each with its STATEFUL_SET_ORDINAL in its
    environment, after each properties directory ``D/`` its ``D/broker-N/``, and the ``broker-N.`` lines
    of the properties files for pod N only (the operator's layout)."""
    from ..config import LoadOptions
    from ..config.properties import PropertiesOptions
    from ..fleet.pods import PodSpec, pod_environ

    path, base = broker_options(o.config, o.define, o.properties, quiet=True)
    props = base.broker_properties
    out = []
    for n in range(count):
        paths = tuple(",".join(e + (f",{e}broker-{n}/" if e.endswith("/") else "") for e in p.split(","))
                      for p in props.paths)
        options = LoadOptions(base.properties, environ=pod_environ(n),
                              broker_properties=PropertiesOptions(paths=paths, beside=props.beside, split_ordinal=n))
        out.append(PodSpec(f"pod-{n}", n, path, options))
    return out


def listed_specs(o: FleetOptions) -> list[PodSpec]:
    """``--pod NAME=BROKER.xml[,PROPS]``: each pod's own config; its ordinal from a trailing ``-N`` in its
    name (else its place in the list) is its STATEFUL_SET_ORDINAL."""
    from ..config import LoadOptions
    from ..fleet.pods import PodSpec, pod_environ

    out: list[PodSpec] = []
    for i, item in enumerate(o.pods):
        name, sep, files = item.partition("=")
        if not sep or not name.strip() or not files:
            raise UsageError(f"--pod {item!r}: expected NAME=BROKER.xml[,PROPERTIES]")
        if any(s.name == name for s in out):
            raise UsageError(f"--pod {name} given twice")
        xml, _, props = files.partition(",")
        m = re.search(r"-(\d+)$", name)
        ordinal = int(m.group(1)) if m else i
        path, base = broker_options(xml or None, o.define, [props] if props else None, quiet=True)
        options = LoadOptions(base.properties, environ=pod_environ(ordinal), broker_properties=base.broker_properties)
        out.append(PodSpec(name, ordinal, path, options))
    return out


def _specs(o: FleetOptions, cr: str | None, count: int | None) -> list[PodSpec]:
    if o.pods:
        return listed_specs(o)
    if cr is not None:
        from ..config.properties.cr import deployment_size

        return cr_specs(o, cr, count if count is not None else deployment_size(cr))
    return replica_specs(o, count or 1)


def run_fleet(o: FleetOptions) -> int:
    from .. import __version__
    from ..fleet.pods import load_pods, router_names, with_version
    from ..routing.keys import broker_version_text
    from .key_options import broker_version

    span = _check(o)
    mapping = _targets(o.target_pod)
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
    specs = _specs(o, o.cr, span[1] if span else None)
    after_specs = None
    if o.new_cr is not None:
        after_specs = _specs(o, o.new_cr, o.to_replicas if o.to_replicas is not None else
                             (span[1] if span else None))
    elif o.to_replicas is not None:
        after_specs = _specs(o, o.cr, o.to_replicas)
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
    pods = _known_ids(pods, mapping, version, assumed, names)
    after = None
    if after_specs is not None:
        after = _known_ids(load_pods(after_specs, version), mapping, version, assumed, names)
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
    if spark_input is not None:
        routers = _spark_docs(names, pods, span, spark_input, o, mapping, assumed)
    else:
        routers = [_router_doc(name, pods, after, span, loaded, o, mapping, assumed) for name in names]
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
                assumed: list[str]) -> dict[str, Any]:
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
        keys = keys_json(_count(name, pods, loaded, o, mapping, assumed), f"{o.keys} ({len(loaded):,} keys)")
    change = None
    if after is not None:
        change = _change(name, pods, after, loaded, o, mapping, assumed)
    return {"name": name, "proofs": proofs, "keys": keys, "change": change}


def _known_ids(pods: list[Pod], mapping: dict[str, str], version: tuple[int, int], assumed: list[str],
               names: Sequence[str] | None = None) -> list[Pod]:
    """The pods with the fleet's node ids (fleet.pods.with_node_ids) when some pool targets a pod."""
    from ..fleet.pods import target_pods, with_node_ids

    targets, said = target_pods(pods, mapping, names)
    assumed.extend(said)
    if not targets:
        return pods
    assumed.append("node ids: each pod's name stands for its node id (the broker's CONSISTENT_HASH ring orders "
                   "the pods by their real node ids, which no config holds)")
    return with_node_ids(pods, targets, version)


def _spark_docs(names: list[str], pods: list[Pod], span: tuple[int, int] | None, inp: Any, o: FleetOptions,
                mapping: dict[str, str], assumed: list[str]) -> list[dict[str, Any]]:
    """Each router's document with its keys counted on Spark (pipeline/fleetcount.py)."""
    from ..fleet.count import ALL, KeyCount
    from ..fleet.document import keys_json
    from ..fleet.pods import target_pods
    from ..pipeline.fleetcount import spark_homes
    from ..pipeline.session import parse_conf, start_session
    from ..routing.policies import ConsistentHashModuloPolicy

    note(f"arouter: keys: {inp.assumed}")
    spark = start_session(o.master, parse_conf(o.conf), o.spark_log_level)
    out = []
    try:
        for name in names:
            doc = _router_doc(name, pods, None, span, None, o, mapping, assumed)
            targets, _ = target_pods(pods, mapping)
            routers = [p.routers.get(name) for p in pods]
            sides = [r if r is not None else (ALL if p.config is not None else None) for p, r in zip(pods, routers,
                                                                                                    strict=True)]
            redirects = [r is not None and r.pool is not None and r.policy is not None
                         and not isinstance(r.policy, ConsistentHashModuloPolicy) for r in routers]
            homes, hopped, null, counts, bad = spark_homes(
                spark, o.keys or "", sides, targets, redirects, keys_format=o.keys_format, engine=o.engine,
                progress=lambda m: note(f"arouter: {m}"), inp=inp)
            count = KeyCount([p.name for p in pods])
            count.add_groups(homes, hopped, null, counts)
            if bad:
                assumed.append(f"{bad:,} row(s) are not keys (not UTF-8, not a JSON object, or not an address for a "
                               "SOURCE_IP router): left out")
            assumed.append("keys counted on Spark: no samples of keys; a router's own client ids count as keys")
            doc["keys"] = keys_json(count, f"{o.keys} (Spark)")
            out.append(doc)
    finally:
        spark.stop()
    return out


def _what(o: FleetOptions, pods: Sequence[Pod], after: Sequence[Pod]) -> str:
    if o.to_broker_version is not None:
        return f"upgrade to Artemis {o.to_broker_version}"
    if o.new_cr is not None:
        return f"{o.cr} -> {o.new_cr}"
    return f"scale {len(pods)} -> {len(after)} pod(s)"


def _change(name: str, pods: list[Pod], after: list[Pod], loaded: KeysFile | None, o: FleetOptions,
            mapping: dict[str, str], assumed: list[str]) -> dict[str, Any]:
    from ..fleet.count import home_label, home_pairs, home_transfer
    from ..fleet.document import change_json, proof_json
    from ..fleet.proof import prove, prove_change

    what = _what(o, pods, after)
    after_proof = prove(after, name)
    after_json = proof_json(after_proof) if after_proof.proven else None
    run_a = [p.name for p in pods if p.config is not None]
    run_b = [p.name for p in after if p.config is not None]
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


def key_homes(name: str, pods: Sequence[Pod], loaded: KeysFile, o: FleetOptions, mapping: dict[str, str],
           assumed: list[str]) -> Iterator[tuple[Sequence[object], np.ndarray, np.ndarray, np.ndarray]]:
    """Each chunk of keys, as simulate --keys-file routes it on every pod: the keys shown, their homes
    (bit sets over ``pods``) and whether a redirect took them there."""
    from ..fleet.count import ALL, chunk_homes
    from ..fleet.pods import target_pods
    from ..routing.batch import batch_router
    from ..routing.policies import ConsistentHashModuloPolicy
    from .simulate_batch import _check as check_keys
    from .simulate_batch import _input_chunks

    targets, _ = target_pods(pods, mapping)
    routers = [p.routers.get(name) for p in pods]
    # what simulate --keys-file routes depends on the key type (and how SNI names are sent): read once
    # for every pod that reads the keys alike
    readers: dict[tuple[str, str], Router] = {}
    for r in routers:
        if r is not None:
            readers.setdefault((r.key_type, r.sni_encoding), r)
    for r in readers.values():
        check_keys(r, loaded, o.keys or "", False)  # a bad row is an error before any output
    if not readers:
        return
    inputs = {k: _input_chunks(r, loaded, o.keys or "", False) for k, r in readers.items()}
    routes = [batch_router(r) if r is not None else None for r in routers]
    redirects = [r is not None and r.pool is not None and r.policy is not None
                 and not isinstance(r.policy, ConsistentHashModuloPolicy) for r in routers]
    while True:
        chunk = {k: next(gen, None) for k, gen in inputs.items()}
        if any(item is None for item in chunk.values()):
            return
        results: list[Any] = []
        shown: Sequence[object] = []
        for pod, r, route in zip(pods, routers, routes, strict=True):
            if r is None or route is None:
                results.append(ALL if pod.config is not None else None)
                continue
            item = chunk[(r.key_type, r.sni_encoding)]
            assert item is not None
            shown = item[0]
            results.append(route(item[1]))
        homes, hopped, null = chunk_homes(results, targets, redirects)
        yield shown, homes, hopped, null


def _count(name: str, pods: list[Pod], loaded: KeysFile, o: FleetOptions, mapping: dict[str, str],
           assumed: list[str]) -> Any:
    import numpy as np

    from ..fleet.count import KeyCount
    from ..routing.keys import INTERNAL_CLIENT_ID_PREFIX

    count = KeyCount([p.name for p in pods])
    by_client_id = any(r.key_type == "CLIENT_ID" for p in pods for n, r in p.routers.items() if n == name)
    for shown, homes, hopped, null in key_homes(name, pods, loaded, o, mapping, assumed):
        internal = None
        if by_client_id and INTERNAL_CLIENT_ID_PREFIX in "\n".join(map(str, shown)):  # one C search first
            internal = np.fromiter((isinstance(k, str) and k.startswith(INTERNAL_CLIENT_ID_PREFIX) for k in shown),
                                   dtype=bool, count=len(shown))
        count.add(shown, homes, hopped, internal, null)
    if count.null_several:
        assumed.append(f"{name}: {count.null_several:,} key(s) are NULL (no value, or no key-filter match) and "
                       "several pods take them, as NULL|N on every pod intends: not counted as several homes")
    if count.internal:
        assumed.append(f"{name}: {count.internal:,} key(s) are a router's own client ids "
                       "($.artemis.internal.router.client.…): every pod takes them; not counted")
    return count


def render(doc: dict[str, Any], fmt: str) -> str:
    import json

    from ..report import fleet_render

    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    return {"text": fleet_render.render_text, "markdown": fleet_render.render_markdown,
            "sarif": fleet_render.render_sarif, "github": fleet_render.render_github}[fmt](doc)


def _write(o: FleetOptions, doc: dict[str, Any]) -> None:
    from ..outfile import write_text

    text = render(doc, o.fmt)
    if o.report is not None:
        import datetime

        from ..report.fleet_html import html_report

        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        write_text(o.report, html_report(doc, generated_at=when), what="report")
        note(f"arouter: report written to {o.report}")
    if o.output is not None:
        write_text(o.output, text, what="output")
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
