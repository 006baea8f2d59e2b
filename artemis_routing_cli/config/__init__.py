"""Loading broker.xml into the typed model: ``load(path) -> BrokerConfig``."""

from __future__ import annotations

from .loader import LoadOptions, RawDocument, load_document
from .model import BrokerConfig
from .parse import build_config

__all__ = ["BrokerConfig", "LoadOptions", "RawDocument", "load", "load_document", "load_text"]


def load(path: str, options: LoadOptions | None = None, *, stdin_bytes: bytes | None = None) -> BrokerConfig:
    """Load one broker.xml (``-`` reads stdin) as the broker would; raises ConfigError on bad input."""
    return build_config(load_document(path, options, stdin_bytes=stdin_bytes))


def load_text(text: str, options: LoadOptions | None = None, *, name: str = "<string>") -> BrokerConfig:
    """Load broker.xml content given as a string (tests, stdin); XInclude is relative to the cwd."""
    doc = load_document("-", options, stdin_bytes=text.encode("utf-8"))
    if name != "<string>":
        doc.path = name
    return build_config(doc)
