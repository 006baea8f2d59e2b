"""Applying property lines to the broker's beans, one line at a time, as ``populateWithProperties``.

For each line: ``${}`` is substituted in key and value (XMLUtil.replaceSystemPropsInString, so an
undefined name without default becomes ""), a value written ``ENC(...)`` (all of it, after the
substitution, whatever its key) is decoded with the configuration's password codec as
``PasswordMaskingUtil.resolveMask(null, value, codec)`` does (:mod:`..masked`), then the key
is walked step by step (:mod:`.paths`): a collection's step finds its entry by name or creates it
(a ``(NAME)`` step only finds), a null nested bean is created with its no-argument constructor, a
map takes any key. The last step is set with the broker's conversions (:mod:`.convert`), or, when
the value is the removal marker (``-``), removes the entry, map key or whole collection.

A line the broker refuses becomes an error in its status (never a stop); the lines after it still
apply. Every such error, and every case where the broker is silent but wrong, is a finding here.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from ..masked import blowfish_decode, codec_key, is_enc_masked, undecodable_reason
from ..positions import Pos
from ..substitution import Lookup, substitute
from . import convert
from .beans import (
    BOOL,
    DOUBLE,
    INT,
    JAVA_CLASSES,
    JAVA_NAMES,
    LIST,
    LONG,
    MAP,
    NAMED,
    OTHER,
    SCHEMAS,
    STR,
    Bean,
    Coll,
    Entries,
    Nested,
)
from .beans import Enum as EnumType
from .paths import DEFAULT_REMOVE, DEFAULT_SURROUND, KEY_SURROUND, REMOVE_VALUE, PathError, Step, split_key

# Rule ids of the findings (documented in rules/brokerprops.py).
UNREADABLE = "AR710"
UNKNOWN_NAME = "AR711"
SILENT_DEFAULT = "AR712"
REJECTED = "AR713"
UNKNOWN_MAP_KEY = "AR714"
UNDEFINED = "AR715"
UNDONE = "AR716"
POOL_NO_SOURCE = "AR717"
OVERRIDES_XML = "AR718"
JSON_NESTED_MAP = "AR719"
LATIN1 = "AR720"
READ_AS_FFFD = "AR707"  # a .json file that is not valid UTF-8: the broker reads U+FFFD (and applies it)
NO_FACTORY = "AR721"
UNDECODABLE = "AR722"
BP_NOT_GIVEN = "AR723"
BACKSLASH_DROPPED = "AR724"
PASSWORD_CODEC = "passwordCodec"  # ConfigurationImpl.setPasswordCodec: the codec of the sources after this one


@dataclass(frozen=True, slots=True)
class PropLine:
    """One property as a source gives it (after Properties.load or the JSON flattening)."""

    key: str
    value: str
    pos: Pos
    json: bool = False  # from a .json source (nested objects became dotted keys)
    label: str | None = None  # where in a CR: "spec.brokerProperties[3]"
    written: str | None = None  # the value as written, when Properties.load dropped a backslash of it


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    pos: Pos
    message: str
    hint: str | None = None
    broker: str | None = None  # the broker's verdict when not the rule's own


@dataclass(frozen=True, slots=True)
class StatusError:
    """An entry of the broker's status ``errors`` list for one source."""

    value: str  # "key=value" (secrets shown as ****)
    reason: str


class _Refused(Exception):
    """The broker refuses this line (InvocationTargetException or another exception in setProperty).

    ``str()`` is the status' reason: the exception's ``toString()`` as ``trackError`` records it (the
    cause of an InvocationTargetException when it has one); ``explain``, when given, says it in
    arouter's words for the finding."""

    def __init__(self, reason: str, explain: str | None = None) -> None:
        super().__init__(reason)
        self.explain = explain


_ITE = "java.lang.reflect.InvocationTargetException: "
_NSME = "java.lang.NoSuchMethodException: "


_SECRET_WORDS = ("pass", "secret", "token", "credential")


def _comparable(value: object) -> object:
    """A value to compare with broker.xml's: a policy by its name, sequences as tuples."""
    if isinstance(value, Bean):
        return ("bean", value.values.get("name"))
    if isinstance(value, list):
        return tuple(value)
    return value


def _java_string(value: object, kind: object) -> str:
    """``String.valueOf`` of a property's current value, as the broker's message quotes it (an object
    without its own toString() prints its identity hash, which no one can know in advance)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Bean):
        return f"{JAVA_CLASSES.get(value.kind, 'java.lang.Object')}@<identity hash>"
    if isinstance(value, float):
        return _double_string(value)
    return str(value)


def _double_string(x: float) -> str:
    """``Double.toString``: plain between 10^-3 and 10^7, else ``d.dddE[-]n`` (shortest digits)."""
    if x != x or x in (float("inf"), float("-inf")):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return repr(x)
    mantissa, _, exponent = f"{x:e}".partition("e")
    digits = repr(abs(x)).replace(".", "").lstrip("0").split("e")[0].rstrip("0") or "0"
    digits = digits if len(digits) > 1 else digits + "0"
    sign = "-" if x < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:]}E{int(exponent)}"


def _secret(key: str) -> bool:
    """Keys whose values are never shown (the broker redacts names holding PASSWORD; we also catch
    misspellings such as ``passwrd`` and other secret-looking names)."""
    low = key.lower()
    return any(word in low for word in _SECRET_WORDS)


class Applier:
    """The properties pass over one broker's beans; ``findings`` and ``errors`` collect as it goes."""

    def __init__(self, root: Bean, lookup: Lookup, xml_file: str | None = None,
                 codec: bytes | str = b"clusterpassword") -> None:
        self.root = root
        self.lookup = lookup
        self.xml_file = xml_file
        self.codec = codec  # the password codec's Blowfish key, or why it cannot decode (masked.codec_key)
        self.secrets: list[str] = []  # decoded ENC(...) values: never printed
        self.findings: list[Finding] = []
        self.kept: list[PropLine] = []  # lines for sections arouter does not model
        self._from_env: set[int] = set()  # lines whose value came (partly) from ${} substitution
        self._hidden = False  # the current line's value must not be shown
        self._created = False  # the current line created an entry or nested object (kept even if it fails)
        # (owner id, property path) -> (owner, path, broker.xml position, broker.xml value, holder, name, key, shown)
        self._overrides: dict[tuple[int, str], tuple[Any, ...]] = {}

    # -- one source ------------------------------------------------------------------------
    def apply_source(self, lines: list[PropLine], show_secrets: bool = False) -> list[StatusError]:
        surround, remove = DEFAULT_SURROUND, DEFAULT_REMOVE
        todo: list[tuple[str, str, PropLine]] = []
        masked: set[int] = set()
        codec: str | None = None
        for line in lines:
            if line.written is not None:
                self._backslash(line, show_secrets)
            key, value = self._substitute(line)
            if value != line.value:
                self._from_env.add(id(line))
            if is_enc_masked(value):
                masked.add(id(line))
                plain = self._unmask(value, line, key)
                if plain is None:
                    continue
                value = plain
            if key == PASSWORD_CODEC:
                codec = value
            if key == KEY_SURROUND:
                surround = value
                continue
            if key == REMOVE_VALUE:
                remove = value
                continue
            todo.append((key, value, line))
        errors: list[StatusError] = []
        for key, value, line in todo:
            self._hidden = id(line) in masked or ((not show_secrets) and (_secret(key) or id(line) in self._from_env))
            try:
                self._apply(key, value, line, surround, remove)
            except _Refused as refused:
                shown = "****" if self._hidden else value
                reason = str(refused)
                explain = refused.explain
                if self._hidden and value:
                    reason = reason.replace(value, "****")
                    explain = explain.replace(repr(value), "'****'") if explain else explain
                errors.append(StatusError(f"{key}={shown}", reason))
                said = self.findings[-1] if self.findings else None
                if said is None or said.pos != line.pos or said.rule not in (UNKNOWN_NAME, JSON_NESTED_MAP):
                    because = f" ({explain})" if explain else ""
                    self.findings.append(Finding(REJECTED, line.pos, f"the broker refuses {key}{because}: {reason}; "
                                                 "the line is only an error in its status, the rest still applies"))
        if codec is not None:  # set on the configuration by this source: the sources after it decode with it
            self.codec = codec_key(codec, self.lookup.properties, self.lookup.environ)
        return errors

    def _backslash(self, line: PropLine, show_secrets: bool) -> None:
        """AR724: a backslash before an ordinary character, dropped by Properties.load."""
        if _secret(line.key) and not show_secrets:
            said = "the value as written has a backslash before an ordinary character, which the broker drops"
        else:
            said = (f"{line.key}={line.written} is read by the broker as '{line.value}': java.util.Properties "
                    "drops a backslash before an ordinary character")
        self.findings.append(Finding(BACKSLASH_DROPPED, line.pos, said,
                                     hint="double each backslash that is meant (^\\\\d+ for the regex ^\\d+)"))

    def _unmask(self, value: str, line: PropLine, key: str) -> str | None:
        """The decoded value, or None when the codec throws (a finding: the broker does not start).
        A codec class of the user's own cannot be run here: the value is kept as written."""
        inner = value[4:-1]
        if isinstance(self.codec, bytes):
            plain = blowfish_decode(inner, self.codec)
            if plain is not None:
                self.secrets.append(plain)
                return plain
            why = undecodable_reason(inner, self.codec)
        elif self.codec.startswith("codec "):
            return value
        else:
            why = self.codec
        self.findings.append(Finding(UNDECODABLE, line.pos, f"{key}: the password codec cannot decode this ENC(...) "
                                     f"value ({why}): parseProperties throws and the broker does not start",
                                     hint="mask the value again with 'artemis mask', with the codec key the broker "
                                          "uses"))
        return None

    def _substitute(self, line: PropLine) -> tuple[str, str]:
        out = []
        for text in (line.key, line.value):
            if "${" not in text:
                out.append(text)
                continue
            new, reps = substitute(text, self.lookup, file=line.pos.file)
            for rep in reps:
                if rep.source in ("empty", "invalid"):
                    self.findings.append(Finding(UNDEFINED, line.pos, f"{rep.token} in {line.key} has no system "
                                                 "property, environment variable or default: the broker uses \"\"",
                                                 hint=f"give a default (${{{rep.name}:...}}) or pass "
                                                 f"-D {rep.name}=..."))
            out.append(new)
        return out[0], out[1]

    # -- one line --------------------------------------------------------------------------
    def _apply(self, key: str, value: str, line: PropLine, surround: str, remove: str) -> None:
        try:
            steps = split_key(key, surround)
        except PathError as exc:
            raise _Refused(str(exc)) from None
        trail: list[Bean] = []
        self._created = False
        try:
            self._walk(steps, value, line, key, remove, trail)
        finally:
            if self._created:  # what the walk created stays, as in the broker, even when the line fails
                for bean in trail:
                    bean.touched = True

    def _walk(self, steps: list[Step], value: str, line: PropLine, key: str, remove: str,
              trail: list[Bean]) -> None:
        target: object = self.root
        path: list[str] = []
        for step in steps[:-1]:
            target = self._step(target, step.name, step.mapped, step.index, line, key, trail, path)
            if target is None:
                return  # a section arouter keeps but does not model
        last = steps[-1]
        if last.mapped is not None or last.index is not None:
            target = self._step(target, last.name, last.mapped, last.index, line, key, trail, path)
            raise _Refused(f"cannot set an indexed or mapped entry {last.text!r} directly")
        for bean in trail:
            bean.touched = True
        if value == remove:
            self._remove(target, last.name, line, key)
            return
        self._set(target, last.name, value, line, key, path, trail)

    def _step(self, target: object, name: str, mapped: str | None, index: int | None, line: PropLine, key: str,
              trail: list[Bean], path: list[str]) -> object:
        if isinstance(target, Entries):
            found = target.find(name)
            if found is None:
                found = self._new_entry(target, name, line)
                self._created = True
            trail.append(found)
            path.append(name)
            return found
        if isinstance(target, dict):
            raise _Refused(f"no entry {name!r} below a map (a map holds text values)")
        if not isinstance(target, Bean):
            raise _Refused(f"cannot go below a value at {name!r}")
        schema = SCHEMAS[target.kind]
        kind = schema.get(name)
        if kind is None:
            if target.kind == "Configuration":
                self._top_level(name, line, key)
                self.kept.append(line)
                return None
            self._unknown(target, name, line, key, leaf=False)
        if kind == OTHER:
            target.other[key] = line.value
            target.touched = True
            return None
        path.append(name)
        current = target.values.get(name)
        if isinstance(kind, Coll):
            if current is None:
                current = Entries(kind.kind)
                target.values[name] = current
            assert isinstance(current, Entries)
            if mapped is not None:
                found = current.find(mapped)
                if found is None:
                    raise _Refused(f"{_ITE}Entry does not exist in: {name} for mapped key: {mapped}",
                                   f"{name}({mapped}) only finds an existing entry")
                trail.append(found)
                path.append(mapped)
                return found
            if index is not None:
                if not 0 <= index < len(current.items):
                    raise _Refused(f"Index: {index}, Size: {len(current.items)}")
                trail.append(current.items[index])
                return current.items[index]
            return current
        if mapped is not None or index is not None:
            raise _Refused(f"{name} is not a collection: {name}({mapped}) / {name}[{index}] cannot be read")
        if kind == MAP:
            if current is None:
                # initProperty: Map has no constructor (java.lang.NoSuchMethodException: java.util.Map.<init>())
                if line.json:
                    self.findings.append(Finding(JSON_NESTED_MAP, line.pos, f"{key}: a nested \"{name}\" object "
                                                 "under an object the broker creates fails (java.util.Map.<init>()): "
                                                 "nothing is set", hint=f"write \"{name}\": \"K=V,K2=V2\" instead"))
                target.failed_below.append(line.pos)
                raise _Refused(f"{_NSME}java.util.Map.<init>()",
                               f"the object was made by this key, without a {name} map")
            return current
        if isinstance(kind, Nested) or kind == NAMED:
            if current is None:
                current = Bean(kind.kind if isinstance(kind, Nested) else "Named", created=line.pos)
                if kind == NAMED:
                    current.values["properties"] = None  # the no-argument constructor leaves it null
                target.values[name] = current
                self._created = True
                target.origins[name] = line.pos
            assert isinstance(current, Bean)
            trail.append(current)
            return current
        raise _Refused(f"cannot go below {name} (a {kind} value)")

    def _new_entry(self, entries: Entries, name: str, line: PropLine) -> Bean:
        bean = Bean(entries.kind, {"name": name}, {"name": line.pos}, created=line.pos)
        if entries.kind in ("Acceptor", "Connector"):
            bean.values["params"] = {}
            bean.values["extraParams"] = {}
        entries.items.append(bean)
        return bean

    def _unknown(self, bean: Bean, name: str, line: PropLine, key: str, leaf: bool = True) -> None:
        """A name the bean does not have. At the last step ``setProperty`` finds no descriptor and throws
        an InvocationTargetException without cause; a step to go through (or a removal, which reads the
        property first) fails in ``PropertyUtilsBean.getSimpleProperty``, whose NoSuchMethodException is
        the cause the status shows."""
        names = [n for n in SCHEMAS[bean.kind] if n != "name"]
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
        if not close:
            lowered = {n.lower(): n for n in names}
            close = [lowered[name.lower()]] if name.lower() in lowered else []
        hint = f"did you mean {key[:len(key) - len(name)] if key.endswith(name) else ''}{close[0]}?" if close else None
        created = " (the entry is still created)" if bean.created == line.pos else ""
        self.findings.append(Finding(UNKNOWN_NAME, line.pos, f"{key}: {JAVA_NAMES[bean.kind]} has no property "
                                     f"{name!r}; the broker only notes it in its status{created}", hint=hint))
        java = JAVA_CLASSES[bean.kind]
        if leaf:
            raise _Refused(f"{_ITE}No accessor method descriptor for: {name} on: class {java}")
        raise _Refused(f"{_NSME}Unknown property '{name}' on class 'class {java}'")

    def _top_level(self, name: str, line: PropLine, key: str) -> None:
        """A top-level name arouter does not model: kept, not judged, unless it is so close to one of
        the collections arouter models that it is surely that one misspelt (ConfigurationImpl has no
        such property, so the broker only notes an error in its status)."""
        close = difflib.get_close_matches(name, list(SCHEMAS["Configuration"]), n=1, cutoff=0.85)
        if close:
            self.findings.append(Finding(UNKNOWN_NAME, line.pos, f"{key}: ConfigurationImpl has no property "
                                         f"{name!r}; the broker only notes it in its status",
                                         hint=f"did you mean {close[0]}?"))

    def _remove(self, target: object, name: str, line: PropLine, key: str) -> None:
        if isinstance(target, dict):
            target.pop(name, None)
        elif isinstance(target, Entries):
            found = target.find(name)
            if found is not None:
                target.items.remove(found)
        elif isinstance(target, Bean):
            kind = SCHEMAS[target.kind].get(name)
            current = target.values.get(name)
            if isinstance(current, Entries):
                current.items.clear()
            elif isinstance(current, dict):
                current.clear()
            elif kind == LIST and (isinstance(current, (list, tuple)) or target.kind == "ClusterConnection"):
                # a List property: the collection is cleared (a cluster connection's starts as an empty list;
                # a pool's and a broadcast group's start null, which cannot be cleared)
                target.values[name] = ()
            elif kind is None:
                if target.kind == "Configuration":
                    self.kept.append(line)
                    return
                self._unknown(target, name, line, key, leaf=False)
            else:
                raise _Refused(f"{_ITE}Can only clear entries from collection or map properties. property: {name}, "
                               f"on: {_java_string(current, kind)}")

    def _set(self, target: object, name: str, value: str, line: PropLine, key: str, path: list[str],
             trail: list[Bean]) -> None:
        if isinstance(target, dict):
            owner = trail[-1] if trail else None
            if owner is not None and path:
                where = f"{path[-1]}.{name}"
                self._note_override(owner, where, target, name, target.get(name), value, line, key)
                owner.origins[where] = line.pos
            target[name] = value
            self._check_map_key(target, name, line, key, path)
            return
        if isinstance(target, Entries):
            raise _Refused(f"No accessor method descriptor for: {name} on: a collection")
        assert isinstance(target, Bean)
        schema = SCHEMAS[target.kind]
        kind = schema.get(name)
        if kind is None:
            if target.kind == "Configuration":
                self.kept.append(line)
                return
            self._unknown(target, name, line, key, leaf=True)
        if kind == OTHER:
            target.other[key] = line.value if self._hidden else value  # a decoded secret is not kept
            return
        new = self._convert(kind, value, line, key)
        old_pos = target.origins.get(name)
        if kind == NAMED or isinstance(kind, Nested):
            self._undone(target, name, line, key)
        if old_pos is not None:
            self._note_override(target, name, target.values, name, target.values.get(name), new, line, key)
        target.values[name] = new
        target.origins[name] = line.pos
        if isinstance(new, dict):
            for k in new:
                target.origins[f"{name}.{k}"] = line.pos
        if isinstance(new, Bean):
            new.created = line.pos

    def _note_override(self, owner: Bean, where: str, holder: Any, name: str, old: object, new: object,
                       line: PropLine, key: str) -> None:
        """Remember broker.xml's value the first time a line sets it; finish() reports the lines whose
        final value differs from it (a later line may set it back)."""
        old_pos = owner.origins.get(where)
        slot = (id(owner), where)
        if slot in self._overrides:
            self._overrides[slot] = (*self._overrides[slot][:4], holder, name, key, self._show_any(new))
        elif old_pos is not None and old_pos.file == self.xml_file:
            self._overrides[slot] = (owner, where, old_pos, _comparable(old), holder, name, key, self._show_any(new))

    def _show_any(self, value: object) -> str:
        if self._hidden:
            return "****"
        if isinstance(value, Bean):
            return str(value.values.get("name"))
        return str(value) if not isinstance(value, tuple) else ",".join(value)

    def _report_overrides(self) -> None:
        for owner, where, old_pos, old, holder, name, key, shown in self._overrides.values():
            if _comparable(holder.get(name)) == old:
                continue  # set back to broker.xml's value by a later line
            pos = owner.origins.get(where, old_pos)
            self.findings.append(Finding(OVERRIDES_XML, pos, f"{key}={shown} overrides the value from "
                                         f"{old_pos.file}:{old_pos.line} (properties apply after broker.xml)"))

    def _undone(self, target: Bean, name: str, line: PropLine, key: str) -> None:
        """``policyConfiguration=NAME`` replaces the object: lines that set something in it are lost."""
        current = target.values.get(name)
        if not isinstance(current, Bean):
            return
        earlier = [pos for attr, pos in current.origins.items() if attr != "name" and pos.file != self.xml_file]
        earlier += current.failed_below
        if earlier:
            first = min(earlier, key=lambda p: (p.file, p.line))
            self.findings.append(Finding(UNDONE, line.pos, f"{key} replaces the whole object, so what "
                                         f"{first.file}:{first.line} set in it is lost",
                                         hint=f"write {key} before the lines that set its attributes"))

    def _convert(self, kind: object, value: str, line: PropLine, key: str) -> object:
        try:
            if kind == STR:
                return value
            if kind == INT:
                result = convert.to_int(value)
            elif kind == BOOL:
                result = convert.to_bool(value)
            elif kind == DOUBLE:
                result = convert.to_double(value)
            elif kind == LONG:
                result = convert.to_long(value)
            elif kind == LIST:
                result = convert.to_list(value)
            elif kind == MAP:
                result = convert.to_map(value)
            elif isinstance(kind, EnumType):
                result = convert.to_enum(value, kind.constants, kind.java)
            elif kind == NAMED:
                named = Bean("Named", {"name": value, "properties": {}}, {"name": line.pos}, created=line.pos)
                return named
            else:
                raise _Refused(f"{key} cannot be set from text (argument type mismatch)")
        except convert.ConversionError as exc:
            raise _Refused(str(exc), exc.explain) from None
        if result.silent is not None:
            said = result.silent.replace(repr(value), "'****'") if self._hidden else result.silent
            self.findings.append(Finding(SILENT_DEFAULT, line.pos, f"{key}: {said}"))
        return result.value

    def _check_map_key(self, target: dict[str, object], name: str, line: PropLine, key: str,
                       path: list[str]) -> None:
        if len(path) < 2:
            return
        owner = path[-2]
        if owner == "policyConfiguration" and path[-1] == "properties":
            return  # the policy rules (AR303, AR317) judge its keys in the merged configuration
        if path[-1] == "params" and path[0] in ("acceptorConfigurations", "connectorConfigurations"):
            from ..transport_keys import ACCEPTOR_KEYS, CONNECTOR_KEYS

            known = ACCEPTOR_KEYS if path[0] == "acceptorConfigurations" else CONNECTOR_KEYS
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
                self.findings.append(Finding(UNKNOWN_MAP_KEY, line.pos, f"{key}: {name!r} is no transport parameter; "
                                             "the broker keeps any key in this map and never reads this one",
                                             hint=f"did you mean {close[0]}?" if close else None))

    def _show(self, value: str) -> str:
        return "****" if self._hidden else value

    # -- after every source --------------------------------------------------------------------
    def finish(self) -> None:
        self._report_overrides()
        acceptors = self.root.values.get("acceptorConfigurations")
        for acceptor in acceptors.items if isinstance(acceptors, Entries) else []:
            if not acceptor.values.get("factoryClassName") and acceptor.created is not None:
                self.findings.append(Finding(NO_FACTORY, acceptor.created, f"acceptorConfigurations.{acceptor.name} "
                                             "is created by this line without a factoryClassName: the broker logs an "
                                             "error and never creates this acceptor, so no client reaches it",
                                             hint=f"add acceptorConfigurations.{acceptor.name}.factoryClassName="
                                                  "org.apache.activemq.artemis.core.remoting.impl.netty."
                                                  "NettyAcceptorFactory, or define the acceptor in broker.xml"))
        routers = self.root.values.get("connectionRouters")
        if not isinstance(routers, Entries):
            return
        for router in routers.items:
            self._finish_router(router)

    def _finish_router(self, router: Bean) -> None:
        pool = router.values.get("poolConfiguration")
        if isinstance(pool, Bean) and pool.created is not None and pool.source is None:
            sources = ("clusterConnection", "discoveryGroupName", "staticConnectors")
            has_source = any(pool.values.get(k) for k in sources)
            if not has_source:
                self.findings.append(Finding(POOL_NO_SOURCE, pool.created, f"connectionRouters.{router.name}."
                                             "poolConfiguration is created by this line but has no clusterConnection, "
                                             "discoveryGroupName or staticConnectors: the broker fails to activate",
                                             hint="add one target source, or remove the poolConfiguration lines"))
