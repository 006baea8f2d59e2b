"""The whole-<core> parts of the broker's schema that a section-by-section validation cannot see.

The broker validates all of ``<core>`` at once, so its schema also demands that:

* each section appears at most once in ``<core>``;
* the names it types as ``xs:ID`` are unique across the whole ``<core>`` - a divert and a
  cluster connection called the same thing stop the broker;
* every ``discovery-group-name`` (``xs:IDREF``) matches one of those names.

The places below were read from the broker's schema (Artemis 2.4x); paths are local names
from ``<core>``.
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from ..records import record
from .positions import Pos

CORE_NS = "urn:activemq:core"

# Elements whose ``name`` attribute is an xs:ID in the broker's schema.
ID_NAME_PATHS: frozenset[tuple[str, ...]] = frozenset(
    {
        ("broadcast-groups", "broadcast-group"),
        ("discovery-groups", "discovery-group"),
        ("diverts", "divert"),
        ("bridges", "bridge"),
        ("cluster-connections", "cluster-connection"),
        ("connection-routers", "connection-router", "key-transformer"),
        ("federations", "federation"),
        ("federations", "federation", "upstream"),
        ("federations", "federation", "downstream"),
        ("federations", "federation", "policy-set"),
        ("federations", "federation", "queue-policy"),
        ("federations", "federation", "address-policy"),
        ("federations", "federation", "transformer"),
        ("broker-connections", "amqp-connection", "federation", "local-queue-policy"),
        ("broker-connections", "amqp-connection", "federation", "local-address-policy"),
        ("broker-connections", "amqp-connection", "federation", "remote-queue-policy"),
        ("broker-connections", "amqp-connection", "federation", "remote-address-policy"),
        ("broker-connections", "amqp-connection", "bridge"),
        ("broker-connections", "amqp-connection", "bridge", "bridge-from-address"),
        ("broker-connections", "amqp-connection", "bridge", "bridge-to-address"),
        ("broker-connections", "amqp-connection", "bridge", "bridge-from-queue"),
        ("broker-connections", "amqp-connection", "bridge", "bridge-to-queue"),
    }
)

# A <discovery-group-ref discovery-group-name=".."> is an xs:IDREF under these parents.
IDREF_PARENTS: frozenset[str] = frozenset(
    {"bridge", "upstream", "downstream", "scale-down", "cluster-connection", "pool"}
)

# The sections arouter validates; the broker's <core> allows each of them once.
JUDGED_SECTIONS: tuple[str, ...] = (
    "acceptors",
    "connectors",
    "broadcast-groups",
    "discovery-groups",
    "diverts",
    "cluster-connections",
    "connection-routers",
)


@record(frozen=True, slots=True)
class IdProblem:
    rule: str
    element: etree._Element
    message: str
    hint: str | None = None


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname


# The elements id_problems reads, found by libxml2 rather than by walking every element in Python:
# a ``name`` on an xs:ID path. (xml:id is no ID here: the broker's xml:specialAttrs has only
# xml:base, xml:lang and xml:space, so its schema rejects xml:id wherever it is written.)
_NS = {"c": CORE_NS}
_ID_NAME_XPATH = " | ".join("/".join(f"c:{step}" for step in path) + "[@name]" for path in sorted(ID_NAME_PATHS))
_ID_NAMES = etree.XPath(_ID_NAME_XPATH, namespaces=_NS, regexp=False)
# The same elements' names alone: each path's section (a child of <core>) found by lxml's tag filter; the
# names under a large section by one expression per path (plain strings, no Python object per element),
# compiled when a file first has such a section; under a small one, by lxml's tag filter step by step (no
# compilation at start-up for the usual small file). Not one union of the paths: libxml2 merges the node
# sets of a union checking each node of one against every node of the other (thousands of diverts times
# hundreds of cluster connections). No element is on two of these paths.
_ID_NAME_STEPS = tuple((f"{{{CORE_NS}}}{path[0]}", tuple(f"{{{CORE_NS}}}{step}" for step in path[1:]),
                        "/".join(f"c:{step}" for step in path[1:]) + "/@name")
                       for path in sorted(ID_NAME_PATHS))
_NAMES_UNDER: dict[str, etree.XPath] = {}  # by the path below the section: at most one per ID path
_SMALL_SECTION = 64  # child nodes up to which a section is walked from Python


def _id_name_values(core: etree._Element) -> list[str]:
    """The ``name`` of every element on an xs:ID path (as a multiset: path by path, not in document order)."""
    values: list[str] = []
    for section, steps, below in _ID_NAME_STEPS:
        for el in core.iterchildren(section):
            if len(el) <= _SMALL_SECTION:
                level = [el]
                for tag in steps:
                    level = [child for parent in level for child in parent.iterchildren(tag)]
                values.extend(name for name in (child.get("name") for child in level) if name is not None)
                continue
            names_under = _NAMES_UNDER.get(below)
            if names_under is None:
                names_under = _NAMES_UNDER[below] = etree.XPath(below, namespaces=_NS, regexp=False,
                                                                smart_strings=False)
            values.extend(names_under(el))
    return values


def _in_core_namespace(el: etree._Element, core: etree._Element) -> bool:
    """Whether ``el`` and each element between it and ``core`` are in the core namespace (``core`` itself
    aside): the elements a walk through the core namespace from ``core`` reaches."""
    node: etree._Element | None = el
    while node is not None and node is not core:
        if not isinstance(node.tag, str) or etree.QName(node).namespace != CORE_NS:
            return False
        node = node.getparent()
    return node is core


def _where(el: etree._Element, seen_from: etree._Element, locate: Callable[[etree._Element], Pos]) -> str:
    pos, here = locate(el), locate(seen_from)
    return f"line {pos.line}" if pos.file == here.file else f"{pos.file}:{pos.line}"


def duplicate_sections(core: etree._Element, locate: Callable[[etree._Element], Pos]) -> list[IdProblem]:
    problems: list[IdProblem] = []
    first: dict[str, etree._Element] = {}
    prefix = f"{{{CORE_NS}}}"
    for child in core:
        tag = child.tag
        if not isinstance(tag, str) or not tag.startswith(prefix):
            continue  # a comment, a processing instruction, or another namespace
        name = tag[len(prefix):]
        if name not in JUDGED_SECTIONS:
            continue
        if name in first:
            where = _where(first[name], child, locate)
            message = f"<core> may hold only one <{name}> (the first is at {where})"
            hint = f"merge the two <{name}> sections into one"
            problems.append(IdProblem("AR105", child, message, hint=hint))
        else:
            first[name] = child
    return problems


def id_problems(core: etree._Element, locate: Callable[[etree._Element], Pos]) -> list[IdProblem]:
    """Duplicate ID names and dangling discovery-group references, in document order."""
    problems: list[IdProblem] = []
    names = [name for name in map(str.strip, _id_name_values(core)) if name]
    owners: dict[str, etree._Element] | set[str] = set(names)
    if len(owners) < len(names):  # some name repeats: which elements, and where, is worked out
        owners = _id_owners(core, locate, problems)
    references: list[tuple[etree._Element, str]] = []
    for el in core.iterdescendants(f"{{{CORE_NS}}}discovery-group-ref"):
        parent = el.getparent()
        if parent is None or parent is core or _local(parent) not in IDREF_PARENTS:
            continue
        target = el.get("discovery-group-name")
        if target is not None and target.strip() and _in_core_namespace(el, core):
            references.append((el, target.strip()))
    for el, target in references:
        if target not in owners:
            problems.append(IdProblem(
                "AR106", el,
                f"<discovery-group-ref> points at '{target}', but nothing in <core> is named that",
                hint=f"add <discovery-group name=\"{target}\"> under <discovery-groups>, "
                     "or fix the name",
            ))
    return problems


def _id_owners(core: etree._Element, locate: Callable[[etree._Element], Pos],
               problems: list[IdProblem]) -> dict[str, etree._Element]:
    """The first element of each xs:ID name; each later one with the same name goes into ``problems``."""
    owners: dict[str, etree._Element] = {}
    for el in _ID_NAMES(core):  # document order
        value = el.get("name", "").strip()
        if not value:
            continue  # an empty or missing name is reported by the section validation
        owner = owners.get(value)
        if owner is None:
            owners[value] = el
            continue
        problems.append(IdProblem(
            "AR105", el,
            f"<{_local(el)}> name '{value}' is already used by <{_local(owner)}> at "
            f"{_where(owner, el, locate)}",
            hint="the broker's schema wants the names of diverts, cluster connections, bridges, "
                 "broadcast and discovery groups (and a few more) unique across <core>",
        ))
    return owners
