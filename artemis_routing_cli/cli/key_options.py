"""``--sni-client`` and ``--broker-version``: how simulate and analyze read SNI_HOST and
SOURCE_IP values, and which Artemis version serve, simulate and analyze follow where versions differ."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..routing.router import Router

# --help imports this module: the routing modules are imported when an option is used
# (tests/cli/test_keys_given.py checks the versions here against routing.keys)
SNI_CLIENT_HELP = (
    "Which client sends an SNI_HOST host name: explicit (default: a client that sets new SNIHostName(host) "
    "itself, as the broker's own CORE/JMS client does with sniHost: IDN.toASCII with STD3 rules, 'CAFÉ' goes "
    "as 'xn--caf-dma', a name Java refuses such as one with '_' is a bad row); default (a JSSE client that "
    "leaves SNI to the JDK, e.g. configured by URL: no name at all, so a NULL key, for a dotless host, an IP "
    "address or a name SNIHostName refuses); raw (the name's UTF-8 bytes). The broker (Netty) reads the "
    "bytes one char per byte and lower-cases them.")
SNI_ENCODING_HELP = "Older spelling of --sni-client: java is explicit, raw is raw."
# --sni-client's names -> routing/sni.py's encodings
SNI_CLIENTS = {"explicit": "java", "default": "default", "raw": "raw"}
BROKER_VERSION_HELP = (
    "The Artemis version to follow where versions differ (2.21 to 2.41, default 2.41): on epoll, IPv6 "
    "SOURCE_IP keys carry '%0' up to 2.35 (Netty 4.1.111) and only for link-local or scoped peers from 2.36; "
    "CONSISTENT_HASH_MODULO takes Java's hash % MODULO (negative for negative hashes) up to 2.22. "
    "--broker-home sets it from your installation.")


def broker_version(text: str | None) -> tuple[int, int]:
    from ..routing.keys import NEWEST_BROKER, parse_broker_version

    return NEWEST_BROKER if text is None else parse_broker_version(text)


def sni_encoding(text: str | None) -> str:
    """``--sni-client`` (or its older spelling ``--sni-encoding java|raw``, given as ``encoding:NAME``) as
    routing/sni.py's encoding."""
    from ..routing.sni import DEFAULT_SNI_ENCODING

    if text is None:
        return DEFAULT_SNI_ENCODING
    if text.startswith("encoding:"):
        value = text.removeprefix("encoding:").strip().lower()
        if value not in ("java", "raw"):
            raise UsageError(f"--sni-encoding {value!r}: choose java or raw (now --sni-client explicit|raw)")
        return value
    value = text.strip().lower()
    if value not in SNI_CLIENTS:
        raise UsageError(f"--sni-client {text!r}: choose {', '.join(SNI_CLIENTS)}")
    return SNI_CLIENTS[value]


def sni_option(client: str | None, encoding: str | None) -> str | None:
    """The one SNI choice of ``--sni-client`` and its older spelling ``--sni-encoding``."""
    if client is not None and encoding is not None:
        raise UsageError("--sni-client and --sni-encoding: give one (--sni-encoding is its older spelling)")
    return client if encoding is None else f"encoding:{encoding}"


def apply(routers: Iterable[Router], encoding: str | None, version: str | None) -> tuple[str, tuple[int, int]]:
    """Check both options and set them on every router; returns what was assumed."""
    enc, ver = sni_encoding(encoding), broker_version(version)
    for r in routers:
        r.sni_encoding = enc
        r.broker_version = ver
    return enc, ver


def assumed(routers: Iterable[Router], encoding: str, version: tuple[int, int]) -> str | None:
    """The line saying what was assumed, when some router's key depends on it (else None)."""
    types = {r.key_type for r in routers}
    parts = []
    if "SOURCE_IP" in types:
        parts.append(f"Artemis {'.'.join(map(str, version))} (--broker-version) for SOURCE_IP")
    if "SNI_HOST" in types:
        client = next(k for k, v in SNI_CLIENTS.items() if v == encoding)
        parts.append(f"SNI host names sent as {_CLIENT_SAID[client]} (--sni-client {client})")
    return "assuming " + " and ".join(parts) if parts else None


_CLIENT_SAID = {"explicit": "a client that sets SNIHostName itself sends them",
                "default": "a JSSE client that leaves SNI to the JDK sends them (none for a dotless host)",
                "raw": "their UTF-8 bytes"}
