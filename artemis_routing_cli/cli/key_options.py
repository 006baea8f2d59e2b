"""``--sni-encoding`` and ``--broker-version``: how simulate and analyze read SNI_HOST and
SOURCE_IP values, and which Artemis version serve, simulate and analyze follow where versions differ."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..routing.router import Router

# --help imports this module: the routing modules are imported when an option is used
# (tests/cli/test_keys_given.py checks the versions here against routing.keys)
SNI_ENCODING_HELP = (
    "How the client sends an SNI_HOST host name: java (default: new SNIHostName(host), i.e. "
    "IDN.toASCII with STD3 rules: 'CAFÉ' goes as 'xn--caf-dma'; a name Java refuses, such as one with '_', "
    "a space, an emoji or a trailing dot, is an error) or raw (the name's UTF-8 bytes). The broker (Netty) "
    "reads the bytes one char per byte and lower-cases them.")
BROKER_VERSION_HELP = (
    "The Artemis version to follow where versions differ (2.21 to 2.41, default 2.41): on epoll, IPv6 "
    "SOURCE_IP keys carry '%0' up to 2.35 (Netty 4.1.111) and only for link-local or scoped peers from 2.36; "
    "CONSISTENT_HASH_MODULO takes the remainder of the signed hash before 2.23 (negative for a negative hash).")


def broker_version(text: str | None) -> tuple[int, int]:
    from ..routing.keys import NEWEST_BROKER, parse_broker_version

    return NEWEST_BROKER if text is None else parse_broker_version(text)


def sni_encoding(text: str | None) -> str:
    from ..routing.sni import DEFAULT_SNI_ENCODING, SNI_ENCODINGS

    value = DEFAULT_SNI_ENCODING if text is None else text.strip().lower()
    if value not in SNI_ENCODINGS:
        raise UsageError(f"--sni-encoding {text!r}: choose {' or '.join(SNI_ENCODINGS)}")
    return value


def apply(routers: Iterable[Router], encoding: str | None, version: str | None) -> tuple[str, tuple[int, int]]:
    """Check both options and set them on every router; returns what was assumed."""
    enc, ver = sni_encoding(encoding), broker_version(version)
    for r in routers:
        r.sni_encoding = enc
        r.follow_version(ver)
    return enc, ver


def assumed(routers: Iterable[Router], encoding: str, version: tuple[int, int]) -> str | None:
    """The line saying what was assumed, when some router's key depends on it (else None)."""
    types = {r.key_type for r in routers}
    parts = []
    if "SOURCE_IP" in types:
        parts.append(f"Artemis {'.'.join(map(str, version))} (--broker-version) for SOURCE_IP")
    if "SNI_HOST" in types:
        parts.append(f"SNI host names sent as a {encoding} client sends them (--sni-encoding)")
    return "assuming " + " and ".join(parts) if parts else None
