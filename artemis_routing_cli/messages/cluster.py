"""Which cluster connections carry an address, matched the way the broker matches it.

The broker never compares addresses directly: each cluster-connection bridge builds a filter
from ``<address>`` and applies it to the "binding added" notifications of the other broker.
That filter is built as follows, and ``cluster_matches`` evaluates exactly that:

* the configured list gets the broker's own exclusions appended: ``!$.artemis.internal.sf.``
  (store-and-forward queues) and ``!activemq.management``; notifications for addresses under
  ``activemq.notifications`` are dropped too;
* the list is split on ``,`` (Java ``split``: entries are *not* trimmed, trailing empty
  entries vanish, an empty entry in the middle matches everything);
* an entry ``X`` becomes ``address LIKE 'X%'`` and ``!X`` becomes ``address NOT LIKE 'X%'``;
  inclusions are OR-ed, exclusions AND-ed, and exclusions win; no inclusion at all = every
  address. Because it is LIKE, ``_`` and ``%`` in an entry are wildcards.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..javastr import java_split  # noqa: F401  (re-exported for callers)
from .selector.compile import like_regex

STORE_AND_FORWARD_PREFIX = "$.artemis.internal.sf."  # internal naming prefix + "sf."
MANAGEMENT_ADDRESS = "activemq.management"
NOTIFICATION_ADDRESS = "activemq.notifications"


@lru_cache(maxsize=1024)
def _compiled(cc_address: str) -> tuple[tuple[re.Pattern[str], ...], tuple[re.Pattern[str], ...]] | None:
    full = cc_address or ""
    if full:
        full += ","
    full += f"!{STORE_AND_FORWARD_PREFIX},!{MANAGEMENT_ADDRESS}"
    entries = java_split(full)
    if any("'" in entry for entry in entries):
        return None  # the generated selector is invalid: the bridge cannot build its filter
    includes = tuple(like_regex(e + "%", None) for e in entries if not e.startswith("!"))
    excludes = tuple(like_regex(e[1:] + "%", None) for e in entries if e.startswith("!"))
    return includes, excludes


def cluster_matches(cc_address: str | None, address: str) -> bool:
    """Whether a cluster connection with ``<address>cc_address</address>`` carries ``address``."""
    if address.startswith(NOTIFICATION_ADDRESS):
        return False
    compiled = _compiled(cc_address or "")
    if compiled is None:
        return False
    includes, excludes = compiled
    if any(p.fullmatch(address) for p in excludes):
        return False
    return not includes or any(p.fullmatch(address) for p in includes)


def cluster_address_problems(cc_address: str | None) -> list[str]:
    """Traps in a cluster connection's ``<address>`` list, as plain sentences."""
    problems: list[str] = []
    text = cc_address or ""
    if not text:
        return problems
    entries = text.split(",")
    for entry in entries:
        body = entry[1:] if entry.startswith("!") else entry
        if entry == "":
            # the broker appends its own entries, so even a trailing empty entry survives the split
            problems.append("an empty entry in the address list matches every address")
        elif entry == "!":
            problems.append("the entry '!' excludes every address")
        if entry != entry.strip():
            problems.append(f"entry {entry!r} has spaces around it; the broker does not trim, so it "
                            "only matches addresses starting with those spaces")
        if "'" in entry:
            problems.append(f"entry {entry!r} contains a quote: the broker cannot build its binding filter")
        if any(ch in body for ch in "%_"):
            problems.append(f"entry {entry!r} contains % or _, which the broker treats as LIKE wildcards")
    return problems
