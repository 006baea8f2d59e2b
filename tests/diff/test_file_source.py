"""config.loader.FileSource: a config and its XIncludes read from one source (a git revision)."""

from __future__ import annotations

import pytest

from artemis_routing_cli.config import LoadOptions, load
from artemis_routing_cli.config.loader import FileSource
from artemis_routing_cli.errors import ConfigError

MAIN = ('<configuration xmlns="urn:activemq"><core xmlns="urn:activemq:core">'
        '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="{href}"/></core></configuration>')
PART = ('<connection-routers xmlns="urn:activemq:core"><connection-router name="r">'
        '<key-type>{kt}</key-type></connection-router></connection-routers>')


def _source(files: dict[str, str]) -> FileSource:
    def read(path: str) -> bytes:
        if path not in files:
            raise FileNotFoundError(path)
        return files[path].encode("utf-8")

    return FileSource("v1", read)


def test_includes_resolve_inside_the_source_relative_to_the_including_file() -> None:
    src = _source({"etc/broker.xml": MAIN.format(href="parts/routers.xml"),
                   "etc/parts/routers.xml": PART.format(kt="USER_NAME")})
    cfg = load("etc/broker.xml", LoadOptions(environ={}, source=src))
    assert cfg.connection_routers[0].key_type == "USER_NAME"
    assert cfg.included_files == ("v1:etc/parts/routers.xml",)
    assert cfg.connection_routers[0].pos.file == "v1:etc/parts/routers.xml"


@pytest.mark.parametrize(("href", "message"), [
    ("../../outside.xml", 'climbs out of v1'),
    ("/etc/passwd", "an absolute path is not in v1"),
    ("missing.xml", "v1:etc/missing.xml: not found"),
])
def test_includes_outside_or_missing_are_one_error(href: str, message: str) -> None:
    src = _source({"etc/broker.xml": MAIN.format(href=href)})
    with pytest.raises(ConfigError) as err:
        load("etc/broker.xml", LoadOptions(environ={}, source=src))
    assert message in str(err.value) and str(err.value).startswith("v1:etc/broker.xml:1:")
