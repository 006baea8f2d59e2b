"""TLS for acceptors with ``sslEnabled=true``: a server context from PEM files that records the
SNI host name each client sent (key type SNI_HOST), as the broker's acceptor does."""

from __future__ import annotations

import ssl

from ..errors import UsageError
from ..safeio import MAX_SMALL_FILE_BYTES, read_regular

_SNI_ATTRIBUTE = "arouter_sni_host"


def _remember_sni(ssl_object: ssl.SSLObject | ssl.SSLSocket, server_name: str | None,
                  _ctx: ssl.SSLContext) -> None:
    setattr(ssl_object, _SNI_ATTRIBUTE, server_name)  # noqa: B010 - SSLObject has no slot for it


def server_context(cert_file: str | None, key_file: str | None) -> ssl.SSLContext:
    if not cert_file:
        raise UsageError("TLS listeners need --tls-cert (PEM certificate chain) and --tls-key (PEM private key)")
    for option, path in (("--tls-cert", cert_file), ("--tls-key", key_file)):
        if path:  # regular and bounded, checked before OpenSSL opens it (a FIFO would block it)
            read_regular(path, limit=MAX_SMALL_FILE_BYTES, what=f"{option}: file")
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        ctx.load_cert_chain(cert_file, key_file)
    except FileNotFoundError as exc:
        raise UsageError(f"--tls-cert/--tls-key: file not found ({exc.filename})") from None
    except (ssl.SSLError, OSError) as exc:
        raise UsageError(f"--tls-cert/--tls-key: cannot load the certificate and key ({exc})") from None
    ctx.sni_callback = _remember_sni
    return ctx


def sni_host(ssl_object: object | None) -> str | None:
    """The SNI host name the client sent on this TLS connection (None: no SNI or no TLS)."""
    if ssl_object is None:
        return None
    value = getattr(ssl_object, _SNI_ATTRIBUTE, None)
    return value if isinstance(value, str) else None
