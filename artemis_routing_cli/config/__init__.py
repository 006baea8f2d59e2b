"""Loading broker.xml into the typed model: ``load(path) -> BrokerConfig``."""

from __future__ import annotations

from .loader import LoadOptions, RawDocument, load_document
from .model import BrokerConfig
from .parse import build_config

__all__ = ["BrokerConfig", "LoadOptions", "RawDocument", "load", "load_document", "load_text",
           "with_broker_properties"]


def load(path: str, options: LoadOptions | None = None, *, stdin_bytes: bytes | None = None) -> BrokerConfig:
    """Load one broker.xml (``-`` reads stdin) as the broker would, then its broker properties;
    raises ConfigError on bad input."""
    return with_broker_properties(build_config(load_document(path, options, stdin_bytes=stdin_bytes)), options, path)


def with_broker_properties(config: BrokerConfig, options: LoadOptions | None, path: str) -> BrokerConfig:
    """``config`` with the broker properties its options name (or that lie beside it) applied."""
    options = options or LoadOptions()
    from .properties.options import has_sources

    if not has_sources(path, options.broker_properties, options.properties):
        return config  # what applying no source gives, without loading the properties machinery
    from .properties.merge import apply_broker_properties

    return apply_broker_properties(config, options.broker_properties, options.properties, options.environ,
                                   xml_path=path)


def load_text(text: str, options: LoadOptions | None = None, *, name: str = "<string>") -> BrokerConfig:
    """Load broker.xml content given as a string (tests, stdin); XInclude is relative to the cwd."""
    doc = load_document("-", options, stdin_bytes=text.encode("utf-8"))
    if name != "<string>":
        doc.path = name
    return build_config(doc)
