"""A batch routed in consecutive chunks (routing.batch.batch_router) answers as the scalar engine over all of it."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from artemis_routing_cli.routing.batch import BatchResult, batch_router, vectorisable  # noqa: E402
from artemis_routing_cli.routing.targets import TargetState  # noqa: E402
from tests.routing.test_batch import KEYS, ROUTER_SHAPES, make_router, rows, scalar  # noqa: E402


def _chunked(route, keys: list[str], sizes: list[int]) -> list[tuple]:  # noqa: ANN001
    out: list[tuple] = []
    start = 0
    for size in sizes + [len(keys)]:
        part = keys[start:start + size]
        res: BatchResult = route(part)
        out.extend(rows(res))
        start += len(part)
        if start >= len(keys):
            break
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ROUTER_SHAPES, KEYS, st.lists(st.integers(0, 9), max_size=8), st.booleans())
def test_chunks_equal_scalar_over_the_whole_batch(shape: dict, keys: list[str], sizes: list[int],
                                                  management: bool) -> None:
    state = TargetState(node_ids={"c1": "n1", "c2": "n2"})
    keys = keys + ["FOO1", "NULL", "", "$.artemis.internal.router.client.x"] + keys
    expected = scalar(make_router(**shape, state=state), keys, management)
    r = make_router(**shape, state=state)
    route = batch_router(r, management=management)
    assert _chunked(route, keys, sizes) == expected
    if r.cache is not None:
        reference = make_router(**shape, state=state)
        scalar(reference, keys, management)
        assert r.cache.snapshot() == reference.cache.snapshot()


def test_the_path_is_chosen_before_the_first_chunk() -> None:
    r = make_router(cache=True, state=TargetState(node_ids={"c1": "n1", "c2": "n2", "c3": "n3"}))
    route = batch_router(r)
    first = route(["a", "b"])
    assert first.vectorised
    assert not vectorisable(r)  # the cache now holds entries...
    assert route(["a", "c"]).vectorised  # ...that agree with the policy: later chunks stay vectorised
