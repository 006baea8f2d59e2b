"""Secrets kept out of the output of the commands that route (simulate, serve, probe, analyze).

Their output shows configuration values everywhere: a key filter in ``--explain``, a target's
address in a table, a filter in a management answer, a log line. Rather than trusting each of those
places, the command, once it has loaded its configuration, installs one guard (:func:`guard`) on
everything it prints: stdout and stderr (rich consoles, ``print``, serve's log writer all end there),
the files it writes through :mod:`artemis_routing_cli.outfile` (batch records, reports) and serve's
management answers (:func:`scrub`). What the guard replaces, and by what:

* a value substituted from a ``${NAME}`` whose name says secret (``*PASSWORD*``, ``*SECRET*``,
  ``*TOKEN*``, ``*KEY*``...: redact.secret_name) and whose value came from the environment or a
  property (``-D``, ``[properties]``), in broker.xml or in a broker properties file - by the token
  as written, ``${NAME}``; other values are configuration (names, routing settings): shown;
* the text of an included file that is not broker XML (``parse="text"``, or XML in no
  ``urn:activemq`` namespace) - by ``<from FILE>``;
* passwords, **always**, even with ``--show-values``: elements and attributes whose name holds
  "password", ``...password=`` URL parameters (also ``ENC(...)`` ones), every model field or
  transport parameter whose name holds "password" (so a value the loader decoded from ``ENC(...)``
  is hidden too), and properties whose key looks secret - by ``<... hidden>``.

``--show-values`` keeps everything but the passwords. A value written literally in broker.xml is
never replaced (an operator needs it). Values shorter than six characters are replaced only where
they are a whole quoted string (``'FOO.*'``, ``"5"``), so short words elsewhere stay readable.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from .redact import Secrets, collect, secret_name

if TYPE_CHECKING:
    from .outfile import FilteredBytes

_ACTIVE: Secrets | None = None
_HIDDEN = "<password hidden>"
_TOKEN = re.compile(r"\$\{([^}:]*)(?::[^}]*)?\}")
_SECRET_WORDS = ("password", "passwd", "secret", "token", "credential")
_SAFE = re.compile(r"[\"'\\\x00-\x1f<>]")  # not in a label: it goes inside JSON strings and quotes
_SKIPPED_FIELDS = frozenset({"core", "locator", "pos", "origins", "encoding"})


def _model_passwords(obj: object, secrets: Secrets, depth: int = 0) -> None:
    """Every str held under a name holding "password" anywhere in the model (fields, mapping keys)."""
    if depth > 8 or obj is None or isinstance(obj, (str, bytes, int, float, bool)):
        return
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name in _SKIPPED_FIELDS:
                continue
            value = getattr(obj, f.name, None)
            if "password" in f.name.lower() and isinstance(value, str):
                secrets.add(value, _HIDDEN)
            else:
                _model_passwords(value, secrets, depth + 1)
    elif isinstance(obj, Mapping):
        for key, value in obj.items():
            if isinstance(key, str) and "password" in key.lower() and isinstance(value, str):
                secrets.add(value, _HIDDEN)
            else:
                _model_passwords(value, secrets, depth + 1)
    elif isinstance(obj, (tuple, list)):
        for value in obj:
            _model_passwords(value, secrets, depth + 1)


def config_secrets(config: Any, *, show_values: bool, property_lines: Iterable[tuple[str, str, str]] = (),
                   defines: Mapping[str, str] | None = None, environ: Mapping[str, str] | None = None) -> Secrets:
    """What must not be printed for a loaded ``BrokerConfig`` (see the module docstring).
    ``property_lines``: (key, value, file) of each broker properties line (``file`` is kept for callers
    that label by it)."""
    secrets = Secrets(keep_quotes=True)
    locator = getattr(config, "locator", None)
    if config.core is not None and locator is not None:
        collect(config.core.getroottree().getroot(), [(use,) for use in config.properties], locator.text_includes,
                locator.file_of, locator.main_file, show_values=show_values, references=True, secrets=secrets)
    elif not show_values:
        for use in config.properties:
            if use.source in ("env", "property") and secret_name(use.name):
                secrets.add(use.value, use.token)
    _model_passwords(config, secrets)
    for decoded in getattr(config, "property_secrets", ()):  # ENC(...) of broker properties: masked by its writer
        secrets.add(decoded, "<masked value hidden>")
    env = os.environ if environ is None else environ
    for key, value, _file in property_lines:
        key = _SAFE.sub("?", key)
        if any(word in key.lower() for word in _SECRET_WORDS):
            secrets.add(value, f"<{key} hidden>")
        elif not show_values:  # written in the file: shown, as a value written in broker.xml is
            for m in _TOKEN.finditer(value):
                name = m.group(1).strip()
                if not secret_name(name):
                    continue  # configuration, shown
                found = (defines or {}).get(name, env.get(name))
                secrets.add(found, f"${{{name}}}")
    return secrets


class ScrubbedStream:
    """A text stream that replaces secrets in what is written to it, a line at a time (a value is never
    split between two writes of one line). Everything else is the wrapped stream's."""

    def __init__(self, stream: TextIO, secrets: Secrets) -> None:
        self._stream = stream
        self._secrets = secrets
        self._pending = ""
        self._lock = threading.Lock()
        self._bytes: FilteredBytes | None = None

    @property
    def buffer(self) -> FilteredBytes:
        """The stream's bytes, scrubbed too (UTF-8 bytes of the text, as its ``buffer`` takes them)."""
        if self._bytes is None:
            from .outfile import FilteredBytes

            raw = getattr(self._stream, "buffer", None)
            if raw is None:
                raise AttributeError("buffer")
            self._bytes = FilteredBytes(lambda: self._stream.buffer, self._text_out,
                                        lambda data: self._secrets.redact_bytes(data))
        return self._bytes

    def _text_out(self) -> None:
        with self._lock:
            if self._pending:
                self._stream.write(self._secrets.redact_text(self._pending))
                self._pending = ""
        self._stream.flush()

    def write(self, text: str) -> int:
        if self._bytes is not None:
            self._bytes.write_pending()
        with self._lock:
            pending = self._pending + text
            cut = max(pending.rfind("\n"), pending.rfind("\r"))
            if cut < 0 and len(pending) < 65536:
                self._pending = pending
                return len(text)
            end = cut + 1 if cut >= 0 else len(pending)
            self._pending = pending[end:]
            self._stream.write(self._secrets.redact_text(pending[:end]))
        return len(text)

    def flush(self) -> None:
        if self._bytes is not None:
            self._bytes.write_pending()
        with self._lock:
            if self._pending:
                self._stream.write(self._secrets.redact_text(self._pending))
                self._pending = ""
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guard(secrets: Secrets) -> None:
    """From now on, nothing this process prints or writes through outfile shows ``secrets``."""
    global _ACTIVE
    from . import outfile

    if not secrets.values:
        return
    _ACTIVE = secrets
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, ScrubbedStream):
            stream._secrets = secrets
        elif stream is not None:
            setattr(sys, name, ScrubbedStream(stream, secrets))
    outfile.set_text_filter(secrets.redact_text, secrets.redact_bytes)


def scrub(text: str) -> str:
    """``text`` without the secrets the guard in force knows (unchanged without one)."""
    return text if _ACTIVE is None else _ACTIVE.redact_text(text)


def release() -> None:
    """Take the guard off (what a test running commands in-process needs between two of them)."""
    global _ACTIVE
    from . import outfile

    _ACTIVE = None
    outfile.set_text_filter(None)
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, ScrubbedStream):
            stream.flush()
            setattr(sys, name, stream._stream)
