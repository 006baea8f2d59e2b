"""Loading broker.xml into the typed model: ``load(path) -> BrokerConfig``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loader import LoadOptions
    from .model import BrokerConfig

__all__ = ["BrokerConfig", "LoadOptions", "RawDocument", "load", "load_document", "load_text",
           "with_broker_properties"]

# Imported on first use, not with the package: the routing engine imports ``config.model`` only, and
# Spark's executors run it without the XML loader's dependencies (lxml) — see pipeline/executors.py.
_LAZY = {"LoadOptions": "loader", "RawDocument": "loader", "load_document": "loader", "BrokerConfig": "model"}


def __getattr__(name: str) -> Any:  # noqa: ANN401 (PEP 562: the lazily imported names above)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def load(path: str, options: LoadOptions | None = None, *, stdin_bytes: bytes | None = None) -> BrokerConfig:
    """Load one broker.xml (``-`` reads stdin) as the broker would, then its broker properties;
    raises ConfigError on bad input."""
    from .loader import load_document
    from .parse import build_config

    return with_broker_properties(build_config(load_document(path, options, stdin_bytes=stdin_bytes)), options, path)


def with_broker_properties(config: BrokerConfig, options: LoadOptions | None, path: str) -> BrokerConfig:
    """``config`` with the broker properties its options name (or that lie beside it) applied."""
    from .loader import LoadOptions

    options = options or LoadOptions()
    from .properties.fleet import fleet_view
    from .properties.options import has_sources

    view = fleet_view(path, options.broker_properties, options.properties, options.environ)
    if view is not None:
        import dataclasses

        config = dataclasses.replace(config, fleet=view)
    if not has_sources(path, options.broker_properties, options.properties):
        return config  # what applying no source gives, without loading the properties machinery
    from .properties.merge import apply_broker_properties

    return apply_broker_properties(config, options.broker_properties, options.properties, options.environ,
                                   xml_path=path)


def load_text(text: str, options: LoadOptions | None = None, *, name: str = "<string>") -> BrokerConfig:
    """Load broker.xml content given as a string (tests, stdin); XInclude is relative to the cwd."""
    from .loader import load_document
    from .parse import build_config

    doc = load_document("-", options, stdin_bytes=text.encode("utf-8"))
    if name != "<string>":
        doc.path = name
    return build_config(doc)
