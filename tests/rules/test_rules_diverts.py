"""AR501-AR508: diverts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from artemis_routing_cli.diagnostics import Severity

from .helpers import lint_fragment, only


def divert(name: str, address: str, forward: str, extra: str = "") -> str:
    return (f'<divert name="{name}"><address>{address}</address>'
            f"<forwarding-address>{forward}</forwarding-address>{extra}</divert>")


def diverts(*items: str) -> str:
    return "<diverts>\n" + "\n".join(items) + "\n</diverts>"


def test_ar501_trailing_comma_is_info(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, diverts(divert("d", "a", "b,"))), "AR501")
    assert d.severity is Severity.INFO


def test_ar503_self_loop(tmp_path) -> None:
    [d] = only(lint_fragment(tmp_path, diverts(divert("d", "a", "b, a"))), "AR503")
    assert "its own address 'a'" in d.message


def test_ar503_two_non_exclusive_diverts_are_a_loop_not_ping_pong(tmp_path) -> None:
    diags = lint_fragment(tmp_path, diverts(divert("x", "a", "b"), divert("y", "b", "a")))
    [d] = only(diags, "AR503")
    assert only(diags, "AR506") == [] and "a -> b -> a" in d.message and d.line == 3


def test_ar506_one_exclusive_is_enough(tmp_path) -> None:
    frag = diverts(divert("x", "a", "b"), divert("y", "b", "a", "<exclusive>true</exclusive>"))
    diags = lint_fragment(tmp_path, frag)
    [d] = only(diags, "AR506")
    assert only(diags, "AR503") == [] and "x, y" in d.message


def test_ar503_each_cycle_once(tmp_path) -> None:
    frag = diverts(divert("x", "a", "b"), divert("y", "b", "c"), divert("z", "c", "a"), divert("w", "c", "b"))
    messages = sorted(d.message for d in only(lint_fragment(tmp_path, frag), "AR503", "AR506"))
    assert len(messages) == 2
    assert any("a -> b -> c -> a" in m for m in messages)


def test_ar504_points_into_the_filter(tmp_path) -> None:
    frag = diverts(divert("d", "a", "b", "<filter string=\"color = 'red' AND\"/>"))
    [d] = only(lint_fragment(tmp_path, frag), "AR504")
    line = frag.splitlines()[1]
    start = line.index('string="') + len('string="')
    assert d.severity is Severity.ERROR and d.line == 3
    assert d.column - 1 - start == int(d.message.split("at column ")[1].split()[0]) - 1


def test_ar505_quiet_when_the_exclusive_divert_has_a_filter(tmp_path) -> None:
    frag = diverts(divert("x", "a", "b", "<exclusive>true</exclusive><filter string=\"k = 1\"/>"),
                   divert("y", "a", "c"))
    assert only(lint_fragment(tmp_path, frag), "AR505") == []


def test_ar505_quiet_without_non_exclusive_diverts(tmp_path) -> None:
    frag = diverts(divert("x", "a", "b", "<exclusive>true</exclusive>"))
    assert only(lint_fragment(tmp_path, frag), "AR505") == []


def test_ar503_dense_divert_graph_is_checked_without_listing_every_loop(tmp_path) -> None:
    """40 addresses in one ring with 110 cross-diverts hold far more simple loops than can be
    listed: the walk stops after its step budget, and the separate ring of 'x' addresses, which
    the walk never reached, still gets its loop."""
    items = [divert(f"ring{i}", f"q{i}", f"q{(i + 1) % 40}") for i in range(40)]
    items += [divert(f"cross{i}", f"q{i % 40}", f"q{(i * 7 + 3) % 40}") for i in range(110)]
    items += [divert("x1", "x-a", "x-b"), divert("x2", "x-b", "x-a")]
    loops = only(lint_fragment(tmp_path, diverts(*items)), "AR503")
    assert any("x-a -> x-b -> x-a" in d.message for d in loops)
    assert any("(diverts ring" in d.message or "(diverts cross" in d.message for d in loops)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(st.sampled_from("abcd"),
                          st.lists(st.sampled_from(["a", "b", "c", "d", "e", " a", "b\t", ""]),
                                   min_size=1, max_size=2)),
                max_size=5))
def test_loop_findings_exactly_when_forwarding_closes_a_cycle(edges: list[tuple[str, list[str]]]) -> None:
    """Loop findings come exactly when the diverts' addresses hold a cycle; without a divert that
    forwards to an address some divert leaves from, the walk is skipped and nothing is found."""
    import tempfile
    from pathlib import Path

    from artemis_routing_cli.javastr import java_split, java_trim
    from artemis_routing_cli.messages.checks import cyclic_groups
    from artemis_routing_cli.rules.diverts import _divert, _diverts

    fragment = _diverts(*(_divert(f"d{n}", source, ",".join(targets)) for n, (source, targets) in enumerate(edges)))
    graph: dict[str, list[tuple[str, object]]] = {}
    for source, targets in edges:
        for target in java_split(",".join(targets)):  # as the broker splits and trims them
            if java_trim(target):
                graph.setdefault(source, []).append((java_trim(target), None))
    with tempfile.TemporaryDirectory() as tmp:
        found = [d for d in lint_fragment(Path(tmp), fragment) if d.rule in ("AR503", "AR506")]
    assert bool(found) == bool(cyclic_groups(graph))  # type: ignore[arg-type]


@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", " a", "\u00a0a", ""]),
                          st.sampled_from(["a", "b", "c", " a", "b\t", "\u00a0a", "", "a,", "c,a"])),
                max_size=4))
def test_loops_skipped_at_sight_only_where_the_graph_has_none(pairs: list[tuple[str, str]]) -> None:
    """``_no_chain`` (two sets, no graph) says "no loop" only where the forwarding graph walk finds none."""
    import tempfile
    from pathlib import Path

    from artemis_routing_cli.config import LoadOptions, load_document
    from artemis_routing_cli.config.parse import build_config
    from artemis_routing_cli.messages.flow import active_diverts
    from artemis_routing_cli.rules import all_rules
    from artemis_routing_cli.rules import diverts as module
    from artemis_routing_cli.rules.base import Context

    from .helpers import wrap

    fragment = module._diverts(*(module._divert(f"d{n}", source, target) for n, (source, target) in enumerate(pairs)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "broker.xml"
        path.write_text(wrap(fragment), encoding="utf-8")
        config = build_config(load_document(str(path), LoadOptions({}, None, None)))
        active = active_diverts(config)
        if module._no_chain(active):
            original = module._no_chain
            try:
                module._no_chain = lambda active: False  # type: ignore[assignment]
                assert list(module._loops(Context(config, all_rules()), active)) == []
            finally:
                module._no_chain = original
