"""broker.xml and what it pulls in: hostile documents end with findings or one located line (exit 2)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .helpers import LOCATED, SAMPLE, XI, assert_clean, capped, sample_with


def validate(path: Path, *extra: str, env: dict[str, str] | None = None):
    return capped("validate", "--no-settings", *extra, str(path), cwd=path.parent, env=env)


@pytest.mark.parametrize("declared", ["UTF 8", "punycode", "hex", "x" * 300, "utf-8'", "rot13", ""])
def test_any_encoding_declaration_is_read_or_refused_in_one_line(tmp_path: Path, declared: str) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with('encoding="UTF-8"', f'encoding="{declared}"'), encoding="utf-8")
    run = validate(path)
    assert_clean(run)
    if run.code == 2:
        assert "broker.xml:1:1" in run.out + run.err


@pytest.mark.parametrize("declaration", ['encoding="UTF-8\'', 'encoding="UTF-8<"', "encoding='UTF-8\"",
                                         'name="x" encoding="UTF-8\''])
@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_mutated_declaration_in_a_text_that_is_not_plain_ascii_is_one_located_line(
        tmp_path: Path, declaration: str, command: str) -> None:
    """Non-ASCII text (or a ${}) is parsed as a str, which lxml refuses while it has an encoding=:
    a declaration whose encoding= is not a quoted name was not blanked and came out as exit 3."""
    path = tmp_path / "broker.xml"
    path.write_text(sample_with('encoding="UTF-8"', declaration).replace("<core", "<!-- é ${X:1} -->\n<core", 1),
                    encoding="utf-8")
    args = [str(path)] if command == "validate" else ["-c", str(path), "-k", "CLIENT_ID=a"]
    run = capped(command, *(["--no-settings"] if command == "validate" else []), *args, cwd=tmp_path)
    assert_clean(run, 2)
    assert "broker.xml:1:" in run.err and "XML declaration" in run.err, run.err


@pytest.mark.parametrize("content", [b"a\x00b", b"ok\x01", b"\x0b", "\ufffe".encode()])
def test_text_include_with_characters_xml_forbids_is_one_located_error(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "part.txt").write_bytes(content)
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<journal-type>NIO</journal-type>",
                                f'<journal-type><xi:include {XI} href="part.txt" parse="text"/></journal-type>'))
    run = validate(path)
    assert_clean(run, 2)
    assert "part.txt:1:" in (run.out + run.err) and "not allowed in XML" in run.out + run.err


def test_control_character_from_an_environment_value_is_one_located_error(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<journal-type>NIO</journal-type>",
                                f'<journal-type><xi:include {XI} href="p.xml"/></journal-type>'))
    (tmp_path / "p.xml").write_text('<a xmlns="urn:activemq:core">${CTRL}</a>')
    run = validate(path, env={"CTRL": "x\x01y"})
    assert_clean(run, 2)
    assert "U+0001" in (run.out + run.err) and "x\x01y" not in (run.out + run.err)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_include_of_a_device_is_refused_before_reading(tmp_path: Path, device: str) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<journal-type>NIO</journal-type>",
                                f'<journal-type><xi:include {XI} href="{device}" parse="text"/></journal-type>'))
    run = validate(path)
    assert_clean(run, 2)
    assert "regular files only" in (run.out + run.err) and "broker.xml:" in run.out + run.err


def test_fifo_as_broker_xml_settings_targets_keys_or_include_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert_clean(validate(fifo), 2)
    sample = tmp_path / "broker.xml"
    sample.write_text(SAMPLE)
    for args in (("validate", "--settings", str(fifo), str(sample)),
                 ("simulate", "-c", str(sample), "--targets", str(fifo), "-k", "CLIENT_ID=FOO1"),
                 ("simulate", "-c", str(sample), "--keys-file", str(fifo)),
                 ("simulate", "-c", str(sample), "-a", "q", "--message", str(fifo))):
        run = capped(*args, cwd=tmp_path, timeout=30)
        assert_clean(run, 2)
        assert "FIFO" in run.err and "regular files only" in run.err
    inc = tmp_path / "inc.xml"
    inc.write_text(sample_with("<journal-type>NIO</journal-type>",
                               f'<journal-type><xi:include {XI} href="fifo" parse="text"/></journal-type>'))
    assert "FIFO" in validate(inc).err + validate(inc).out


def test_sparse_file_of_gigabytes_is_refused_by_its_size(tmp_path: Path) -> None:
    big = tmp_path / "big.xml"
    with open(big, "wb") as fh:
        fh.truncate(4 << 30)
    run = validate(big)
    assert_clean(run, 2)
    assert "over arouter's limit" in run.out + run.err
    inc = tmp_path / "inc.xml"
    inc.write_text(sample_with("<journal-type>NIO</journal-type>",
                               f'<journal-type><xi:include {XI} href="big.xml" parse="text"/></journal-type>'))
    run = validate(inc)
    assert_clean(run, 2)
    assert "over arouter's limit" in run.out + run.err


def test_include_fan_out_without_a_loop_is_bounded(tmp_path: Path) -> None:
    """8 includes per file, 7 levels: millions of inclusions without the cap."""
    for level in range(7):
        body = "".join(f'<xi:include {XI} href="l{level + 1}.xml"/>' for _ in range(8)) if level < 6 else ""
        (tmp_path / f"l{level}.xml").write_text(f'<security-settings xmlns="urn:activemq:core" {XI}>{body}'
                                                "</security-settings>")
    (tmp_path / "l7.xml").write_text('<x xmlns="urn:activemq:core"/>')
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<journal-type>NIO</journal-type>", f'<xi:include {XI} href="l0.xml"/>'))
    run = validate(path)
    assert_clean(run, 2)
    assert "included files in one document" in run.out + run.err


def test_numbers_of_thousands_of_digits_are_findings(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<broadcast-period>2000<", "<broadcast-period>" + "9" * 5000 + "<")
                    .replace("<local-target-filter>^0$</local-target-filter>",
                             "<local-target-filter>" + "1" * 5000 + "</local-target-filter>"))
    run = validate(path)
    assert_clean(run, 1)
    assert "AR103" in run.out + run.err


def test_deeply_nested_groups_in_a_key_filter_are_a_finding(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<key-filter>^.{3}</key-filter>",
                                "<key-filter>" + "(" * 5000 + "a" + ")" * 5000 + "</key-filter>"))
    run = validate(path)
    assert_clean(run)
    assert "nests its groups too deeply" in run.out + run.err


def test_exponential_properties_are_refused_naming_the_property(tmp_path: Path) -> None:
    (tmp_path / ".arouter.toml").write_text(
        "[properties]\n" + "".join(f'a{i + 1} = "${{a{i}}}${{a{i}}}"\n' for i in range(40)) + 'a0 = "xx"\n')
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<journal-type>NIO</journal-type>", "<journal-type>${a40}</journal-type>"))
    run = capped("validate", str(path), cwd=tmp_path)
    assert_clean(run, 2)
    assert "(in the value of ${a40})" in (run.out + run.err) and "grow" in run.out + run.err
    line = 1 + SAMPLE[:SAMPLE.index("<journal-type>")].count("\n")
    assert f"broker.xml:{line}:" in run.out + run.err
    defines = [a for i in range(40) for a in ("-D", f"a{i + 1}=${{a{i}}}${{a{i}}}")]
    run = capped("validate", "--no-settings", *defines, str(path), cwd=tmp_path)
    assert_clean(run, 2)
    assert "grow past" in run.out + run.err


def test_a_hundred_thousand_tokens_are_all_replaced(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    tokens = "".join(f"${{t{i}:}}" for i in range(100_000))
    path.write_text(sample_with("<journal-type>NIO</journal-type>",
                                f"<!-- {tokens} --><journal-type>NIO</journal-type>"))
    run = validate(path)
    assert_clean(run, 0, 1)
    assert "loop forever" not in (run.out + run.err)


def test_one_line_documents_with_thousands_of_findings_end_within_the_cap(tmp_path: Path) -> None:
    dup = "".join('<connector name="dup">tcp://h:1</connector>' for _ in range(15_000))
    attrs = " ".join(f'a{i}="x"' for i in range(50_000))
    path = tmp_path / "broker.xml"
    path.write_text(SAMPLE.replace("\n", " ").replace("<connectors>", "<connectors>" + dup)
                    .replace('<connector name="broker1"', f'<connector {attrs} name="broker1"'))
    run = validate(path, "-q", "-f", "json")
    assert_clean(run, 1)
    # columns are those of each element on the one line, in document order
    found = json.loads(run.out)["files"][0]["diagnostics"]
    cols = [d["column"] for d in found if d["rule"] == "AR208"]
    assert cols == sorted(cols) and len(set(cols)) == len(cols) >= 14_999


def test_cluster_connections_sharing_an_address_are_one_finding(tmp_path: Path) -> None:
    cc = "".join(f'<cluster-connection name="cc{i}"><address>same</address><connector-ref>artemis</connector-ref>'
                 "</cluster-connection>" for i in range(1000))
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<cluster-connections>", "<cluster-connections>" + cc))
    run = validate(path, "-q")
    assert_clean(run)
    overlaps = [line for line in run.out.splitlines() if "AR601" in line]
    assert len(overlaps) == 1 and "998 more" in overlaps[0] and "1,000 times" in overlaps[0]


@pytest.mark.parametrize("content", ["a = " + "[" * 50_000 + "]" * 50_000 + "\n", b"disable = [\"\xff\"]\n",
                                     "x = " + "1" * 5000 + "\n"])
def test_settings_files_that_are_not_toml_are_one_located_line(tmp_path: Path, content: str | bytes) -> None:
    settings = tmp_path / "s.toml"
    settings.write_bytes(content if isinstance(content, bytes) else content.encode())
    (tmp_path / "broker.xml").write_text(SAMPLE)
    run = capped("validate", "--settings", str(settings), str(tmp_path / "broker.xml"), cwd=tmp_path)
    assert_clean(run, 2)
    assert LOCATED.match(run.err), run.err


@pytest.mark.parametrize("doctype", ['<!DOCTYPE configuration SYSTEM "nosuch.dtd">',
                                     '<!DOCTYPE configuration PUBLIC "-//x//y" "http://example.invalid/x.dtd">'])
def test_undeclared_entity_with_an_external_dtd_is_one_located_error(tmp_path: Path, doctype: str) -> None:
    path = tmp_path / "broker.xml"
    text = sample_with('encoding="UTF-8"?>', f'encoding="UTF-8"?>{doctype}')
    text = text.replace("<acceptors>", "<acceptors>&undefined;", 1)
    path.write_text(text)
    run = validate(path)
    assert_clean(run, 2)
    line = 1 + text[:text.index("&undefined;")].count("\n")
    assert f"broker.xml:{line}:" in (run.out + run.err) and "&undefined;" in run.out + run.err


def test_tens_of_thousands_of_attributes_with_a_token_end_within_the_cap(tmp_path: Path) -> None:
    """Found by the corpus fuzzer (seed 1000175): the second substitution pass walked each attribute list."""
    attrs = " ".join(f'a{i}="x"' for i in range(50_000))
    path = tmp_path / "broker.xml"
    path.write_text(sample_with('<connector name="broker1"', f'<connector {attrs} b="${{x:1}}" name="broker1"'))
    run = validate(path, "-q")
    assert_clean(run, 1)
    assert "more schema problems" in run.out + run.err or "not checked" in run.out + run.err


def test_filter_literals_of_thousands_of_digits_are_read(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<filter string=\"office='New York'\"",
                                f'<filter string="a = {"9" * 5000} OR b &lt; {"1" * 4299} OR c = {"7" * 20}L"'))
    assert_clean(validate(path), 0, 1)
    run = capped("simulate", "-c", str(path), "-a", "q", "-p", "a=1")
    assert_clean(run, 0)


def test_a_forwarding_address_of_sixty_thousand_entries_ends_within_the_cap(tmp_path: Path) -> None:
    """Repeated entries of a composite forwarding-address are counted in one pass (each entry
    counted against the whole list was quadratic: minutes for this one divert)."""
    targets = ",".join(f"q{i % 50}" for i in range(60_000))
    divert = (f'<divert name="fan"><address>orders</address><forwarding-address>{targets}'
              "</forwarding-address></divert>")
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<diverts>", "<diverts>" + divert))
    run = validate(path, "-q", "-f", "json")
    assert_clean(run, 0)  # warnings
    repeated = [d["message"] for d in json.loads(run.out)["files"][0]["diagnostics"] if d["rule"] == "AR502"]
    assert len(repeated) == 50 and all("1200 times" in m for m in repeated)
