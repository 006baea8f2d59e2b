"""A properties directory's ``?filter=``: java.util.regex, after URISupport's query parsing and
URLDecoder, as the broker's parseProperties does it - proven on the JDK (FilterOracle.java, our own
program using the JDK's URLDecoder and Pattern).

The filters are chosen where Python's re and Java differ: ``\\p{Lu}``, class intersection (``&&``, written
``%26%26`` since ``&`` separates parameters), possessive quantifiers, ``\\Q..\\E``, ``\\h``, and ``+`` (a
blank after URL decoding).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.config.properties.sources import read_list, split_query, url_decode
from artemis_routing_cli.errors import ConfigError
from tests.javacache import compiled

HERE = Path(__file__).resolve().parent
NAMES = ["Abc.properties", "abc.properties", "x.properties", "y.json", "a .properties", "aa.properties",
         "a+.properties", "\u00c9t\u00e9.properties", "a\tb.properties", "notes.txt", "a\rb.properties",
         "a.b.properties", "z\u2028.json"]
FILTERS = [
    None,  # the default, .*\.(json|properties): '.' stops at \r and \u2028 in Java, not in Python
    "\\p{Lu}.*", "[a-z%26%26[^x]]+\\.properties", "a++\\.properties", "a%2B%2B\\.properties",
    "\\Qa.b\\E\\.properties", "a\\hb\\.properties", "a+\\.properties", "(?i)%C3%A9T%C3%A9\\.properties",
    "\\p{IsLatin}+\\.json", ".*[^\\p{L}].*", "[\\w%26%26[^b]]+\\.properties",
    "x.*;filter=y.*", "y.*&filter=a.*",
]


def _entry(directory: Path, pattern: str | None) -> str:
    return f"{directory}/" if pattern is None else f"{directory}/?filter={pattern}"


def _arouter(entry: str) -> list[str]:
    return [Path(s.path).name for s in read_list(entry)]


@pytest.fixture(scope="module")
def java_filter(tmp_path_factory: pytest.TempPathFactory):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no JDK on PATH")
    out = compiled(HERE / "java" / "FilterOracle.java", options=())

    def run(entry: str, names: list[str]) -> list[str] | str:
        done = subprocess.run(["java", "-Dfile.encoding=UTF-8", "-Dsun.jnu.encoding=UTF-8", "-cp", str(out),
                               "FilterOracle", entry, *names], capture_output=True, text=True, check=True,
                              timeout=120, env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"})
        first, *rest = done.stdout.splitlines()
        if first != "ok":
            return first
        return ["".join(chr(int(h[i:i + 4], 16)) for i in range(0, len(h), 4)) for h in rest]

    return run


def test_filters_pick_what_the_jdk_picks(tmp_path: Path, java_filter) -> None:
    d = tmp_path / "conf"
    d.mkdir()
    for name in NAMES:
        (d / name).write_text("connectionRouters.r.keyType=CLIENT_ID\n", encoding="iso-8859-1")
    differs = 0
    for pattern in FILTERS:
        entry = _entry(d, pattern)
        expected = java_filter(entry, NAMES)
        assert isinstance(expected, list), (pattern, expected)
        assert _arouter(entry) == expected, pattern
        differs += expected != sorted(n for n in NAMES if n.endswith((".properties", ".json")))
    assert differs >= len(FILTERS) - 2


def test_a_filter_java_rejects_stops_the_broker(tmp_path: Path, java_filter) -> None:
    d = tmp_path / "conf"
    d.mkdir()
    for pattern in ["[a-", "a{2,1}", "[\\w&&[^b]]+", "%zz", "a%", "%-1", "x%E"]:
        entry = _entry(d, pattern)
        assert java_filter(entry, ["a"]).startswith("fail "), pattern
        with pytest.raises(ConfigError, match="the broker does not start"):
            read_list(entry)
    # compiled even for a file entry and a missing directory, before the path is looked at
    with pytest.raises(ConfigError, match="PatternSyntaxException"):
        read_list(f"{tmp_path}/missing/?filter=[")
    with pytest.raises(ConfigError, match="null"):
        read_list(f"{d}/?filter")


def test_query_parsing_is_urisupports() -> None:
    assert split_query("conf/?filter=a+b%2B") == ("conf/", "a b+", True)
    assert split_query("conf/?x=1?filter=y") == ("conf/", "y", True)  # the query starts after the last '?'
    assert split_query("conf/?filter=a;filter=b") == ("conf/", "b", True)
    assert split_query("conf/?other=1") == ("conf/", None, False)
    assert url_decode("%E2%82%AC%2b") == "\u20ac+"
    assert url_decode("%+1") == "\x01"  # Integer.parseInt takes a sign


def test_an_empty_entry_stops_the_broker_a_trailing_one_is_dropped(tmp_path: Path) -> None:
    assert read_list(f"{tmp_path}/missing/,") == []  # String.split drops trailing empty strings
    for spec in (f",{tmp_path}/missing/", f"{tmp_path}/missing/,,x/", "", "?filter=a"):
        with pytest.raises(ConfigError, match="does not start"):
            read_list(spec)
