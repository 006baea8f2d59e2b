"""``simulate --keys-file`` output: the column writers equal one json.dumps / csv.DictWriter row per record."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

pytest.importorskip("numpy")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from artemis_routing_cli.cli import keys_file as kf  # noqa: E402
from artemis_routing_cli.cli import simulate_batch as sb  # noqa: E402
from artemis_routing_cli.config import load_text  # noqa: E402
from artemis_routing_cli.errors import UsageError  # noqa: E402
from artemis_routing_cli.redact import Secrets  # noqa: E402
from artemis_routing_cli.redact_output import guard, release  # noqa: E402
from artemis_routing_cli.routing.batch import route_batch  # noqa: E402
from artemis_routing_cli.routing.keys import connection_from_record  # noqa: E402
from artemis_routing_cli.routing.targets import TargetState  # noqa: E402
from tests.conftest import broker_xml  # noqa: E402

NASTY = ['plain', '', 'say "hi"', 'back\\slash', '\\"', '", "', 'tab\there', 'nl\nx', 'cr\rx', '\x00', '\x1f',
         '\x7f', '\x08\x0c', '\u2028\u2029', '\ud800', 'x\udfff', '\ud83d\ude00', '\U0001F600', 'h\u00e9llo',
         '\u4e2d\u0130', ' spaced ', 'NULL', '{"a": 1}', '\\u0041']
ODD_VALUES: list[object] = [None, 0, -5, 1.5, True, False, [], {}, ["one"], {"k": "v"}, ["a", "b"], {"a": 1, "b": 2}]

CONNECTORS = "".join(f'<connector name="c{i}">tcp://h{i}:61616</connector>' for i in range(1, 4))
ROUTERS = "<connectors>" + CONNECTORS + """</connectors>
<connection-routers>
  <connection-router name="hash">
    <key-type>CLIENT_ID</key-type>
    <policy name="CONSISTENT_HASH"/>
    <pool><static-connectors><connector-ref>c1</connector-ref><connector-ref>c2</connector-ref>
      <connector-ref>c3</connector-ref></static-connectors></pool>
  </connection-router>
  <connection-router name="shard">
    <key-type>CLIENT_ID</key-type>
    <key-filter>^.{2}</key-filter>
    <local-target-filter>^0$</local-target-filter>
    <policy name="CONSISTENT_HASH_MODULO"><property key="MODULO" value="2"/></policy>
  </connection-router>
  <connection-router name="rr">
    <key-type>USER_NAME</key-type>
    <policy name="ROUND_ROBIN"/>
    <pool><static-connectors><connector-ref>c1</connector-ref><connector-ref>c2</connector-ref></static-connectors>
    </pool>
  </connection-router>
  <connection-router name="roles">
    <key-type>ROLE_NAME</key-type>
    <cache><timeout>0</timeout></cache>
    <policy name="CONSISTENT_HASH"/>
    <pool><static-connectors><connector-ref>c2</connector-ref><connector-ref>c3</connector-ref></static-connectors>
    </pool>
  </connection-router>
</connection-routers>"""
IP_ROUTER = """
<connectors><connector name="c3">tcp://h3:61616</connector></connectors>
<connection-routers><connection-router name="ip">
  <key-type>SOURCE_IP</key-type>
  <policy name="FIRST_ELEMENT"/>
  <pool><static-connectors><connector-ref>c3</connector-ref></static-connectors></pool>
</connection-router></connection-routers>"""


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _columns(values: list[object]) -> list[list[object]]:
    n = len(values)
    return [values, values, ["OK", "REFUSED_UNAVAILABLE"] * (n // 2) + ["OK"] * (n % 2),
            ["c1", None] * (n // 2) + ["local"] * (n % 2), ["id-1", None] * (n // 2) + [None] * (n % 2),
            [False, False] * (n // 2) + [True] * (n % 2)]


def _expected(head: dict[str, object], cols: list[list[object]]) -> str:
    rows = zip(*cols, strict=True)
    return "".join(json.dumps({**head, "key": k, "key_value": v, "status": s, "target": t, "node_id": nid,
                               "local": lo}, ensure_ascii=False) + "\n" for k, v, s, t, nid, lo in rows)


@pytest.mark.parametrize("values", [NASTY, [v for v in NASTY if '"' not in v and "\\" not in v and v.isprintable()],
                                    ODD_VALUES, NASTY + ODD_VALUES, [], ["only"]])
def test_json_lines_equal_json_dumps_per_record(values: list[object]) -> None:
    cols = _columns(list(values))
    assert sb.json_lines('{"key": ', *cols) == _expected({}, cols)
    head = '{"router": "r \\"1\\"\u2028", "key": '
    assert sb.json_lines(head, *cols) == _expected({"router": 'r "1"\u2028'}, cols)


def test_json_lines_key_value_differs_from_key() -> None:
    keys: list[object] = list(NASTY)
    values: list[object] = [f"{k}!" if i % 3 else None for i, k in enumerate(NASTY)]
    cols = _columns(keys)
    cols[1] = values
    assert sb.json_lines('{"key": ', *cols) == _expected({}, cols)
    cols[1] = [k.upper() for k in NASTY]  # all plain strings, no escapes needed in the values
    assert sb.json_lines('{"key": ', *cols) == _expected({}, cols)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(codec=None, exclude_categories=()), max_size=8), max_size=20),
       st.lists(st.text(st.characters(max_codepoint=0x7F), max_size=4), max_size=20))
def test_json_lines_any_strings(keys: list[str], values: list[str]) -> None:
    cols = _columns(list(keys))
    cols[1] = [values[i] if i < len(values) else k for i, k in enumerate(keys)]
    assert sb.json_lines('{"key": ', *cols) == _expected({}, cols)


def test_encode_column_refuses_containers_with_separators() -> None:
    assert sb.encode_column(["a\nb", None, 1, ["x"], {"k": "\u2028"}]) == [
        json.dumps(v, ensure_ascii=False) for v in ["a\nb", None, 1, ["x"], {"k": "\u2028"}]]
    assert sb.encode_column([["a", "b"]]) is None
    assert sb.encode_column([]) == []


def _routers(names: list[str] | None = None, config: str = ROUTERS):  # noqa: ANN202
    from artemis_routing_cli.routing.selection import select_routers

    cfg = load_text(broker_xml(config))
    routers = select_routers(cfg, TargetState(), None, 3)
    return [r for r in routers if names is None or r.name in names]


def test_csv_writer_equals_dict_writer() -> None:
    keys: list[object] = [k for k in NASTY if _utf8(k)] + ["a,b", 'q"q', "x\r\ny"]
    for router in _routers(["hash", "shard"]):
        result = route_batch(router, keys)
        for with_router in (False, True):
            got = io.StringIO(newline="")
            sb.CsvWriter(got, with_router).write(router.name, keys, result)
            want = io.StringIO(newline="")
            fields = (("router",) if with_router else ()) + sb.FIELDS
            w = csv.DictWriter(want, fieldnames=fields, lineterminator="\n")
            w.writeheader()
            for shown, rec in zip(keys, result.records(), strict=True):
                row = {"router": router.name, "key": shown, **rec} if with_router else {"key": shown, **rec}
                w.writerow({k: ("" if v is None else str(v).lower() if isinstance(v, bool) else v)
                            for k, v in row.items()})
            assert got.getvalue() == want.getvalue()


def test_csv_column_converts_none_and_booleans_only() -> None:
    assert sb._csv_column(["a", None, True, False, 0, 1]) == ["a", "", "true", "false", 0, 1]
    plain = ["a", "b"]
    assert sb._csv_column(plain) is plain


@pytest.mark.parametrize("text", ["", "\n", "\n\n", "a", "a\n", "a\nb", "a\n\nb\n", "x\r\ny\r\n", "é\n中\n😀",
                                  "\ufeffa\r\nb\rc\r\r\n\r", "a\ufeff\n\ufeffb\n"])
def test_text_keys_split_on_newline_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """One key per LF; a byte order mark at the start is never a key's, the CR of a CR LF only with
    --keep-cr (a lone CR, or one before another CR, stays), whatever the chunking."""
    path = tmp_path / "keys.txt"
    path.write_bytes(text.encode("utf-8"))
    for keep_cr in (False, True):
        lines = text.removeprefix("\ufeff").split("\n")
        if lines[-1] == "":
            lines.pop()
        if not keep_cr:
            lines = [line.removesuffix("\r") for line in lines]  # the CR ending a line (its LF's, or the file's)
        for chunk_bytes in (1, 2, 3, 1 << 18):
            monkeypatch.setattr(kf, "TEXT_CHUNK_BYTES", chunk_bytes)
            loaded = sb.load_keys(str(path), kf.Reading(keep_cr=keep_cr))
            assert loaded.keys() == lines
            assert len(loaded) == len(lines)
            assert kf.records_of(loaded) == [(n, {"key": k}) for n, k in enumerate(lines, 1)]
            assert loaded.reading.bom == text.startswith("\ufeff")
            assert loaded.reading.crlf == ("\r\n" in text or text.endswith("\r"))


def test_bad_utf8_reports_its_line_whatever_the_chunking(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "keys.txt"
    path.write_bytes(b"a\nbb\nccc\n\xc3(\nd\n")
    for chunk_bytes in (1, 4, 1 << 18):
        monkeypatch.setattr(kf, "TEXT_CHUNK_BYTES", chunk_bytes)
        with pytest.raises(UsageError) as err:
            sb.load_keys(str(path))
        assert err.value.message == "not valid UTF-8" and err.value.line == 4


def _reference(path: Path, names: list[str], management: bool, config: str = ROUTERS) -> str:
    """What `simulate --keys-file` writes, one scalar route and one json.dumps per record."""
    routers = _routers(names, config)
    records = sb.read_keys(str(path))[0]
    out = []
    for r in routers:
        r.tracing = False
        for _, rec in records:
            if management:
                shown = rec.get("key", "")
                res = r.route_key(shown)
            else:
                shown = rec["key"] if "key" in rec else rec.get(sb._column_of(r.key_type), "")
                res = r.route(connection_from_record(r.key_type, rec))
            t = res.target
            row = {"key": shown, "key_value": res.key_value, "status": res.status, "target": res.target_label,
                   "node_id": t.node_id if t is not None else None, "local": res.local}
            out.append(json.dumps({"router": r.name, **row} if len(routers) > 1 else row, ensure_ascii=False))
    return "".join(line + "\n" for line in out)


@pytest.mark.parametrize("management", [False, True])
@pytest.mark.parametrize("names", [["hash"], ["shard"], ["rr"], ["roles"], ["hash", "shard", "rr", "roles"]])
def test_run_batch_equals_one_scalar_route_per_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      names: list[str], management: bool) -> None:
    keys = [k for k in NASTY if "\n" not in k and _utf8(k)] + ["admin,ops", ""]
    path = tmp_path / "keys.txt"
    path.write_text("\n".join(keys * 40) + "\n", encoding="utf-8")
    jsonl = tmp_path / "keys.jsonl"
    jsonl.write_text("".join(json.dumps({"key": k}) + "\n" for k in keys), encoding="utf-8")
    monkeypatch.setattr(sb, "CHUNK", 7)  # many chunks: the cache and ROUND_ROBIN carry over between them
    monkeypatch.setattr(kf, "TEXT_CHUNK_BYTES", 50)
    cfg = load_text(broker_xml(ROUTERS))
    for keys_file in (path, jsonl):
        out = tmp_path / "out.jsonl"
        sb.run_batch(cfg, TargetState(), names[0] if len(names) == 1 else None, str(keys_file), str(out), "jsonl",
                     3, management)
        assert out.read_text(encoding="utf-8") == _reference(keys_file, names, management)


def test_run_batch_source_ip_errors_carry_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A line that is not an address is a bad row: named with its line, left out, exit 1; the others routed."""
    path = tmp_path / "keys.txt"
    path.write_text("10.0.0.1\n[::1]:5000\nnot-an-ip\n", encoding="utf-8")
    cfg = load_text(broker_xml(IP_ROUTER))
    code = sb.run_batch(cfg, TargetState(), "ip", str(path), str(tmp_path / "o.jsonl"), "jsonl", None, False)
    assert code == 1
    assert f"{path}:3:1: ip: SOURCE_IP='not-an-ip'" in capsys.readouterr().err
    assert [json.loads(x)["key"] for x in (tmp_path / "o.jsonl").read_text().splitlines()] == ["10.0.0.1", "[::1]:5000"]
    path.write_text("10.0.0.1\n[::1]:5000\n", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    sb.run_batch(cfg, TargetState(), "ip", str(path), str(out), "jsonl", None, False)
    assert out.read_text(encoding="utf-8") == _reference(path, ["ip"], False, IP_ROUTER)


def test_json_line_bytes_equal_json_dumps_or_refuse() -> None:
    clean = [k for k in NASTY if _utf8(k) and not any(c in k for c in '"\\') and all(c >= " " for c in k)]
    cols = _columns(list(clean))
    pieces = sb.json_line_bytes('{"key": ', [k.encode("utf-8") for k in clean], *cols[2:])
    assert pieces is not None
    assert b"".join(pieces) == _expected({}, cols).encode("utf-8")
    for bad in ('a"b', "a\\b", "a\rb", "a\x1fb", "a\x00"):
        assert sb.json_line_bytes('{"key": ', [b"ok", bad.encode()], *_columns(["ok", bad])[2:]) is None


def test_writer_keeps_order_across_text_and_byte_writes() -> None:
    router = _routers(["hash"])[0]
    chunks = [["plain", "h\u00e9llo"], ['quote"d', "x"], ["\U0001F600", "NULL", ""], ["back\\slash"]]
    raw = io.BytesIO()
    sink = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    writer = sb.JsonLinesWriter(sink, True)
    expected = []
    for keys in chunks:
        result = route_batch(router, keys)
        writer.write("hash", keys, result, [k.encode("utf-8") for k in keys])
        expected += [json.dumps({"router": "hash", "key": k, **rec}, ensure_ascii=False) + "\n"
                     for k, rec in zip(keys, result.records(), strict=True)]
    sink.flush()
    assert raw.getvalue().decode("utf-8") == "".join(expected)


def test_a_plain_file_leaves_out_a_source_ip_router(tmp_path) -> None:
    """Without -r, a SOURCE_IP router (the default key type: the bundled sample has one) given plain keys
    that are no addresses is left out and said so, as analyze does; the other routers route them. With
    -r that router, the error names the routers that can."""
    from tests.cli.helpers import arouter

    keys = tmp_path / "plain.txt"
    keys.write_text("FOO1\nBAR2\n", encoding="utf-8")
    run = arouter("simulate", "--keys-file", str(keys), "-f", "jsonl")
    assert run.code == 0, run.err
    routed = {json.loads(x)["router"] for x in run.out.splitlines()}
    assert "simple-router" not in routed and "local-partition" in routed
    assert "simple-router: left out, it cannot take these keys" in run.err
    assert "assuming Artemis" not in run.err  # said only for a SOURCE_IP router that routes
    chosen = arouter("simulate", "--keys-file", str(keys), "-r", "simple-router")
    assert chosen.code == 2 and chosen.out == "" and "routers that can: -r local-partition" in chosen.err


def test_records_stay_in_input_order_when_a_chunk_needs_escapes(tmp_path: Path) -> None:
    """A first chunk written as text (its keys need JSON escapes) and the next ones as bytes, to ``-o``
    under the output guard: before, the bytes went around the guard's pending text, and a group of the
    first chunk's lines reached the file tens of thousands of lines late."""
    keys = ['say "hi"', "back\\slash"] + [f"k{i}-\u00e9" for i in range(40_000)]
    path = tmp_path / "keys.txt"
    path.write_text("\n".join(keys) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    secrets = Secrets(keep_quotes=True)
    secrets.add("a-password-no-key-holds", "<password hidden>")
    guard(secrets)
    try:
        sb.run_batch(load_text(broker_xml(ROUTERS)), TargetState(), "hash", str(path), str(out), "jsonl", 3, False)
    finally:
        release()
    assert [json.loads(line)["key"] for line in out.read_text(encoding="utf-8").splitlines()] == keys


def test_csv_extra_columns_are_not_read_and_key_column_maps_one(tmp_path: Path) -> None:
    """A CSV with one extra column is routed (the column not read, said once); a file without a key column
    is refused with its columns and --key-column KEYTYPE=COLUMN, naming no guessed column; simulate's
    --key-column (analyze's option) maps one; a byte order mark is not part of the first column's name."""
    from tests.cli.helpers import arouter

    extra = tmp_path / "extra.csv"
    extra.write_text("client_id,region\nFOO1,eu\n", encoding="utf-8")
    run = arouter("simulate", "--keys-file", str(extra), "-r", "local-partition")
    assert run.code == 0, run.err
    assert json.loads(run.out)["key_value"] == "FOO" and "column(s) region not read" in run.err
    wide = tmp_path / "wide.csv"
    wide.write_bytes(b"\xef\xbb\xbfmqtt_client,region\r\nFOO1,eu\r\n")
    refused = arouter("simulate", "--keys-file", str(wide), "-r", "local-partition")
    assert refused.code == 2 and "no key column (columns: mqtt_client, region)" in refused.err
    assert "--key-column KEYTYPE=COLUMN" in refused.err and "=region" not in refused.err
    mapped = arouter("simulate", "--keys-file", str(wide), "-r", "local-partition", "--key-column",
                     "CLIENT_ID=mqtt_client")
    assert mapped.code == 0, mapped.err
    assert json.loads(mapped.out) == {"key": "FOO1", "key_value": "FOO", "status": "OK", "target": "local",
                                      "node_id": "local", "local": True}
    text = tmp_path / "keys.txt"
    text.write_text("FOO1\n", encoding="utf-8")
    assert arouter("simulate", "--keys-file", str(text), "--key-column", "CLIENT_ID=x").code == 2
    assert arouter("simulate", "-k", "CLIENT_ID=a", "--keep-cr").code == 2  # only with --keys-file


def test_crlf_keys_route_as_lf_keys_unless_keep_cr(tmp_path: Path) -> None:
    """The same keys saved on Windows (BOM, CR LF) give the same records as saved on Linux, said once on
    stderr; --keep-cr keeps the CR in the key."""
    from tests.cli.helpers import arouter

    unix, windows = tmp_path / "unix.txt", tmp_path / "windows.txt"
    unix.write_bytes(b"FOO1\nBAR2\n")
    windows.write_bytes(b"\xef\xbb\xbfFOO1\r\nBAR2\r\n")
    a = arouter("simulate", "--keys-file", str(unix), "-r", "sticky-router")
    b = arouter("simulate", "--keys-file", str(windows), "-r", "sticky-router")
    assert a.code == b.code == 0 and a.out == b.out
    assert b.err.count("byte order mark") == 1 and b.err.count("CR LF line ends") == 1
    kept = arouter("simulate", "--keys-file", str(windows), "-r", "sticky-router", "--keep-cr")
    assert [json.loads(x)["key"] for x in kept.out.splitlines()] == ["FOO1\r", "BAR2\r"]
