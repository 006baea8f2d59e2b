"""broker.xml's model with its broker properties applied: the sources in the broker's order, then
each line (kept apart from the package so that a run without properties never imports this)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ...diagnostics import DEPLOYS
from ..model import BrokerConfig
from ..positions import Pos
from ..substitution import Lookup
from .apply import BP_NOT_GIVEN, LATIN1, READ_AS_FFFD, UNREADABLE, Applier, Finding, StatusError
from .bridge import from_beans, to_beans
from .cr import BpSecret
from .options import BROKER_PROPERTIES, PropertiesOptions
from .sources import Source, checksum, read_list, system_source


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """One entry of the broker's ``configuration/properties`` status."""

    name: str
    path: str
    alder32: int
    file_alder32: int
    errors: tuple[StatusError, ...] = ()
    load_error: str | None = None


def sources_for(config_path: str | None, options: PropertiesOptions, defines: Mapping[str, str]) -> list[Source]:
    """Every source in the broker's order (system property ``broker.properties`` wins over
    ``--properties``, which wins over broker.properties beside broker.xml)."""
    return _sources(config_path, options, defines)[0]


def _sources(config_path: str | None, options: PropertiesOptions,
             defines: Mapping[str, str]) -> tuple[list[Source], list[BpSecret]]:
    """The sources, and the CR's ``-bp`` secrets that no ``--properties`` entry supplies."""
    out: list[Source] = []
    missing: list[BpSecret] = []
    paths = list(options.paths)
    if options.cr is not None:
        from .cr import bp_secrets, cr_sources

        out.extend(cr_sources(options.cr, options.ordinal or 0)[1])
        paths, missing = _with_bp_secrets(paths, bp_secrets(options.cr), options.ordinal or 0)
    spec = defines.get(BROKER_PROPERTIES)
    if spec is None and paths:
        spec = ",".join(paths)
    if spec is not None:
        listed = read_list(spec)
        out.extend(split_ordinal_lines(listed, options.split_ordinal) if options.split_ordinal is not None
                   and options.cr is None else listed)
    elif options.cr is None and options.beside and config_path and config_path not in ("-", "<stdin>"):
        beside = Path(config_path).parent / BROKER_PROPERTIES
        if beside.is_file():
            out.extend(read_list(os.path.relpath(beside)))
    system = system_source(defines)
    if system is not None:
        out.append(system)
    return out, missing


def split_ordinal_lines(sources: list[Source], ordinal: int) -> list[Source]:
    """``sources`` as the operator splits a CR's lines for pod ``ordinal``: a ``broker-N.`` line (cr.py's
    rule) leaves its file; pod ``ordinal``'s own, without the prefix, are applied after every shared line
    (one more source), the other pods' are not applied."""
    from .cr import ORDINAL_PREFIX, _ordinal_key

    own = []
    for source in sources:
        keep = []
        for line in source.lines:
            key = _ordinal_key(line.key)
            if key is None:
                keep.append(line)
            elif key == f"{ORDINAL_PREFIX}{ordinal}":
                own.append(dataclasses.replace(line, key=line.key[line.key.find(".") + 1:]))
        source.lines = keep
    if not own:
        return sources
    name = f"{ORDINAL_PREFIX}{ordinal}.broker.properties"
    return [*sources, Source(name, f"{name} (the broker-{ordinal}. lines of --properties)", own)]


def missing_bp_secrets(options: PropertiesOptions) -> list[str]:
    """The ``-bp`` secrets of ``options.cr`` that no ``--properties`` entry supplies (AR723)."""
    if options.cr is None:
        return []
    from .cr import bp_secrets

    return [s.name for s in _with_bp_secrets(list(options.paths), bp_secrets(options.cr), options.ordinal or 0)[1]]


def _with_bp_secrets(paths: list[str], secrets: list[BpSecret], ordinal: int) -> tuple[list[str], list[BpSecret]]:
    """``--properties`` entries with the operator's ordinal folder added after each directory named
    like a ``-bp`` secret (the broker reads ``<secret>/`` then ``<secret>/broker-N/``), and the
    secrets no entry names."""
    names = {s.name for s in secrets}
    given: set[str] = set()
    out: list[str] = []
    for path in paths:
        entries: list[str] = []
        for entry in path.split(","):
            entries.append(entry)
            parts = Path(entry.partition("?")[0]).parts
            found = names.intersection(parts)
            given.update(found)
            if found and "?" not in entry and entry.endswith("/") and Path(entry).name in found:
                entries.append(f"{entry}broker-{ordinal}/")
        out.append(",".join(entries))
    return out, [s for s in secrets if s.name not in given]


def with_cr_acceptors(config: BrokerConfig, cr: str) -> BrokerConfig:
    """``config`` with the acceptors the operator writes into broker.xml from the CR's ``spec.acceptors``
    (cr.cr_acceptors; one broker.xml already defines is left as it is)."""
    from ..model import Acceptor, transport_params
    from ..urls import parse_transport_url
    from .cr import cr_acceptors

    have = {a.name for a in config.acceptors}
    added = []
    for item in cr_acceptors(cr):
        if item.name in have:
            continue
        have.add(item.name)
        url = parse_transport_url(item.url, "acceptor")
        added.append(Acceptor(item.name, url, Pos(cr, item.line, 1),
                              transport_params(url, config.mask_password, config.password_codec)))
    return dataclasses.replace(config, acceptors=(*config.acceptors, *added)) if added else config


def apply_broker_properties(config: BrokerConfig, options: PropertiesOptions | None,
                            defines: Mapping[str, str], environ: Mapping[str, str] | None = None,
                            *, xml_path: str | None = None) -> BrokerConfig:
    """broker.xml's model with the properties applied (the same object when there are none)."""
    options = options or PropertiesOptions()
    sources, missing = _sources(xml_path if xml_path is not None else config.path, options, defines)
    if not sources:
        return config
    env = dict(os.environ if environ is None else environ)
    if options.cr is not None:
        env["STATEFUL_SET_ORDINAL"] = str(options.ordinal or 0)
    lookup = Lookup(properties=defines, environ=env)
    if options.cr is not None:
        config = with_cr_acceptors(config, options.cr)
    root = to_beans(config)
    applier = Applier(root, lookup, xml_file=config.path if config.core is not None else None,
                      codec=config.codec_key)
    statuses: list[SourceStatus] = []
    for source in sources:
        if source.load_error is not None:
            pos = source.load_error_pos or Pos(source.path, 1, 1)
            applier.findings.append(Finding(UNREADABLE, pos, f"the broker cannot load this file ({source.load_error}): "
                                            "nothing in it is applied; only its status says so"))
            statuses.append(SourceStatus(source.name, source.path, 0, source.file_checksum,
                                         load_error=source.load_error))
            continue
        if source.replaced is not None:
            line, column, count = source.replaced
            many = f" ({count} U+FFFD in the file)" if count > 1 else ""
            applier.findings.append(Finding(
                READ_AS_FFFD, Pos(source.path, line, column),
                "bytes that are not valid UTF-8: the broker reads U+FFFD here (its reader decodes UTF-8 on JDK 18+, "
                f"one U+FFFD per malformed sequence) and applies that text{many}; arouter reads it as the broker does",
                hint="save the file as UTF-8 (an emoji is one 4-byte sequence, not two encoded surrogates)",
                broker=DEPLOYS))
        if source.utf8_line is not None:
            applier.findings.append(Finding(LATIN1, Pos(source.path, source.utf8_line, 1),
                                            "this file holds UTF-8 text, but the broker reads .properties files as "
                                            "ISO-8859-1: every non-ASCII character becomes two or three others",
                                            hint="write non-ASCII characters as \\uXXXX escapes (or use the JSON "
                                                 "form, read as UTF-8)"))
        errors = applier.apply_source(source.lines, options.show_secrets)
        statuses.append(SourceStatus(source.name, source.path, checksum(source.lines), source.file_checksum,
                                     tuple(errors)))
    applier.finish()
    for secret in missing:
        applier.findings.append(Finding(BP_NOT_GIVEN, Pos(str(options.cr), secret.line, 1),
                                        f"the operator applies the secret {secret.name!r} as broker properties after "
                                        "the CR's; arouter cannot read it, so this check leaves it out",
                                        hint=f"save its keys as files in a directory named {secret.name} and pass "
                                             f"--properties {secret.name}/ (its broker-N/ folder is read too)"))
    labels = {line.pos: line.label for source in sources for line in source.lines if line.label}
    if labels:  # a CR: say which list item, too
        applier.findings = [dataclasses.replace(f, message=f"{f.message} [{labels[f.pos]}]") if f.pos in labels
                            else f for f in applier.findings]
    fallback = sources[0].lines[0].pos if sources[0].lines else Pos(sources[0].path, 1, 1)
    fields = from_beans(config, root, fallback)
    return dataclasses.replace(config, **fields, property_sources=tuple(statuses),
                               property_findings=tuple(applier.findings), property_kept=tuple(applier.kept),
                               property_secrets=tuple(applier.secrets))
