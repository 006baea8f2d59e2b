"""The everyday-URL shortcut of ``parse_transport_url`` (``tcp://host:port?k=v;k=v`` read straight from
one pattern) answers exactly what the step-by-step reading answers, on every URL it takes."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.config import urls
from artemis_routing_cli.config.model import TransportUrl
from artemis_routing_cli.config.urls import UrlError, parse_transport_url_fully


def _shown(url: TransportUrl) -> tuple[object, ...]:
    """Every field, the maps as their items in order (the broker's HashMap order matters)."""
    return (url.raw, url.scheme, url.host, url.port, tuple(url.params.items()), tuple(url.extra_props.items()),
            url.kind, url.port_is_number, url.query_name, url.has_query_name, url.uri_host, url.authority,
            url.fragment)


def _same_as_the_full_reading(raw: str, kind: str) -> bool:
    """Whether the shortcut took ``raw``; where it did, its answer equals the full reading's."""
    m = urls.everyday_pattern().fullmatch(raw)
    fast = urls._everyday(raw, kind, m.group(1), m.group(2), m.group(3)) if m is not None else None
    if fast is None:
        return False
    full = parse_transport_url_fully(raw, kind)  # never raises on what the shortcut takes
    assert fast == full and _shown(fast) == _shown(full), raw
    urls.parse_transport_url.cache_clear()
    assert _shown(urls.parse_transport_url(raw, kind)) == _shown(full)
    return True


TYPICAL = [
    "tcp://0.0.0.0:61616",
    "tcp://0.0.0.0:61616?protocols=CORE,AMQP,STOMP,HORNETQ,MQTT,OPENWIRE;useEpoll=true;amqpCredits=1000",
    "tcp://0.0.0.0:10000?router=r0;protocols=CORE,AMQP",
    "tcp://broker-1.example.net:61617?sslEnabled=true;keyStorePath=/etc/keystore.jks;keyStorePassword=ENC(1a2b)",
    "tcp://localhost:5672?protocols=AMQP&name=amqp",
    "tcp://10.0.0.7:61616?name=c1",
    "tcp://artemis:61616",
    "tcp://node1",
]


@pytest.mark.parametrize("raw", TYPICAL)
@pytest.mark.parametrize("kind", ["acceptor", "connector"])
def test_typical_urls_take_the_shortcut(raw: str, kind: str) -> None:
    assert _same_as_the_full_reading(raw, kind)


@pytest.mark.parametrize("raw", [
    "tcp://0.0.0.0:61616?port=5", "tcp://h:1?host=x", "tcp://h:1?scheme=x",  # the query overrides a param
    "tcp://[::1]:61616", "tcp://my_broker:61616", "tcp://h:1?a=%41", "tcp://h:1?a=b+c", "tcp://h:1#x",
    "tcp://h:1 ?a=b", "(tcp://a:1,tcp://b:2)?x=y", "vm://0", "TCP://h:1", "tcp://10.0.0.300:1",
    "tcp://h:1234567890", "tcp://u@h:1",
])
def test_unusual_urls_take_the_full_road(raw: str) -> None:
    assert not _same_as_the_full_reading(raw, "acceptor")


_HOST = st.one_of(
    st.text("0123456789.", max_size=16),
    st.text("abAZ09-.", max_size=16),
    st.builds(lambda parts: ".".join(parts), st.lists(st.from_regex(r"0{0,3}[0-9]{1,4}", fullmatch=True),
                                                      min_size=3, max_size=5)),
)
_WORD = st.text("aZ09-_.!~*'(),:@/$=", max_size=8)
_QUERY = st.lists(st.one_of(
    st.sampled_from(["name", "router", "protocols", "sslEnabled", "host", "port", "scheme", "useEpoll", "x"]),
    _WORD), max_size=6)


@settings(max_examples=600, deadline=None)
@given(host=_HOST, port=st.one_of(st.none(), st.text("0123456789", max_size=11)), names=_QUERY,
       values=st.lists(_WORD, max_size=6), seps=st.lists(st.sampled_from([";", "&", ";;", "&;", ""]), max_size=6),
       question=st.booleans(), kind=st.sampled_from(["acceptor", "connector"]))
def test_the_shortcut_equals_the_full_reading(host: str, port: str | None, names: list[str], values: list[str],
                                              seps: list[str], question: bool, kind: str) -> None:
    raw = "tcp://" + host + ("" if port is None else ":" + port)
    if question or names:
        parts = [name + ("" if i >= len(values) else "=" + values[i]) for i, name in enumerate(names)]
        raw += "?" + "".join(part + (seps[i] if i < len(seps) else ";") for i, part in enumerate(parts))
    _same_as_the_full_reading(raw, kind)


@pytest.mark.parametrize("seed", range(10))
def test_random_text_the_shortcut_takes_reads_as_the_full_road_does(seed: int) -> None:
    """Any short text over the characters that matter: where the shortcut answers, the full reading
    answers the same (and never refuses the URL)."""
    rng = random.Random(seed)
    alphabet = "tcp:/?&;=.-_0129aZ%+#[]@() \t"
    for _ in range(3000):
        raw = "tcp://" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
        try:
            _same_as_the_full_reading(raw, rng.choice(["acceptor", "connector"]))
        except UrlError:  # pragma: no cover - the assertion below says what went wrong
            pytest.fail(f"the shortcut took {raw!r}, which the broker cannot read")


def test_the_orders_memo_is_bounded() -> None:
    for n in range(3 * urls._MAX_ORDERS):
        urls._everyday(f"tcp://h:1?k{n}=v", "connector", "h", "1", f"k{n}=v")
    assert len(urls._ORDERS) <= urls._MAX_ORDERS
