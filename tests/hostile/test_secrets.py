"""Values of ${} whose name says secret and included files that are not broker XML stay out of findings;
passwords always do. Other values are configuration: quoted where they explain a finding."""

from __future__ import annotations

from pathlib import Path

from .helpers import XI, assert_clean, capped, sample_with

SECRET = "hunter2-planted-secret"


def _broker(tmp_path: Path, value: str) -> Path:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<broadcast-period>2000<", f"<broadcast-period>{value}<"))
    return path


def test_environment_value_is_not_quoted_unless_asked(tmp_path: Path) -> None:
    path = _broker(tmp_path, "${DB_SECRET}")
    run = capped("validate", "--no-settings", str(path), env={"DB_SECRET": SECRET})
    assert_clean(run, 1)
    assert SECRET not in run.out + run.err and "${DB_SECRET}" in run.out and "AR103" in run.out
    shown = capped("validate", "--no-settings", "--show-values", str(path), env={"DB_SECRET": SECRET})
    assert SECRET in shown.out


def test_property_value_is_not_quoted(tmp_path: Path) -> None:
    """A -D value whose name says secret is not quoted; one whose name does not is configuration, quoted."""
    for name, hidden in (("api_token", True), ("storeKey", True), ("period", False)):
        path = _broker(tmp_path, f"${{{name}}}")
        run = capped("validate", "--no-settings", "-D", f"{name}={SECRET}", "-f", "json", str(path))
        assert_clean(run, 1)
        assert (SECRET not in run.out + run.err) == hidden, name


def test_included_file_content_is_not_quoted(tmp_path: Path) -> None:
    (tmp_path / "passwd").write_text(f"root:x:0:0:{SECRET}:/root:/bin/bash\ndaemon:x:1:1::/:/bin/false\n")
    path = _broker(tmp_path, f'<xi:include {XI} href="passwd" parse="text"/>')
    for fmt in ("text", "json", "sarif", "github", "junit"):
        run = capped("validate", "--no-settings", "-f", fmt, str(path), cwd=tmp_path)
        assert_clean(run, 1)
        assert SECRET not in run.out + run.err and "root:x" not in run.out + run.err


def test_passwords_are_never_quoted_even_with_show_values(tmp_path: Path) -> None:
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<cluster-password>ENC(3bdfd94fe8cdf710e7fefa72f809ea90)</cluster-password>",
                                f"<cluster-password>{SECRET}</cluster-password>")
                    .replace("<broadcast-period>2000<", f"<broadcast-period>{SECRET}<"))
    run = capped("validate", "--no-settings", "--show-values", str(path))
    assert_clean(run, 1)
    assert SECRET not in run.out and "hidden" in run.out


MARKUP_VALUES = (f"pw</cluster-password><{SECRET}>", f"pw<{SECRET}/>", f"pw&{SECRET};", f"<{SECRET}")
FORMATS = ("text", "json", "sarif", "github", "junit")


def test_a_password_variable_holding_xml_markup_is_not_quoted_by_the_parse_error(tmp_path: Path) -> None:
    """${CLUSTER_PASSWORD} holding '<' or '&' breaks the document; libxml2's message would quote the
    names it made (the value): the error names the variable instead, in every format and in simulate."""
    path = tmp_path / "broker.xml"
    path.write_text(sample_with("<cluster-password>ENC(3bdfd94fe8cdf710e7fefa72f809ea90)</cluster-password>",
                                "<cluster-password>${CLUSTER_PASSWORD}</cluster-password>"))
    for value in MARKUP_VALUES:
        env = {"CLUSTER_PASSWORD": value}
        for fmt in FORMATS:
            run = capped("validate", "--no-settings", "-f", fmt, str(path), env=env)
            assert_clean(run)
            assert SECRET not in run.out + run.err, (value, fmt)
            assert run.code != 2 or "${CLUSTER_PASSWORD}" in run.out + run.err
        sim = capped("simulate", "-c", str(path), "-k", "CLIENT_ID=FOO1", "-e", "-f", "json", env=env)
        assert_clean(sim)
        assert SECRET not in sim.out + sim.err
        assert sim.code != 2 or "${CLUSTER_PASSWORD} holds XML markup" in sim.err


def test_a_secrets_file_included_as_xml_is_not_quoted(tmp_path: Path) -> None:
    """A secrets or properties file XIncluded as XML by mistake (no parse="text"): the parse error does
    not quote it; broker XML included with a mistake still gets libxml2's own message."""
    for content in (f"<{SECRET}>\n", f"api.token=x\n<{SECRET} a='1'\n", f"<a>{SECRET}</b>\n"):
        (tmp_path / "secrets.properties").write_text(content)
        path = _broker(tmp_path, f'<xi:include {XI} href="secrets.properties"/>')
        for fmt in FORMATS:
            run = capped("validate", "--no-settings", "-f", fmt, str(path), cwd=tmp_path)
            assert_clean(run, 2)
            assert SECRET not in run.out + run.err, (content, fmt)
            assert "not broker XML" in run.out + run.err
    (tmp_path / "routers.xml").write_text('<connection-routers xmlns="urn:activemq:core"><x></y>'
                                          '</connection-routers>')
    path = _broker(tmp_path, f'<xi:include {XI} href="routers.xml"/>')
    run = capped("validate", "--no-settings", str(path), cwd=tmp_path)
    assert_clean(run, 2)
    assert "mismatch: x line 1 and y" in run.out + run.err


def test_names_from_included_broker_xml_are_quoted(tmp_path: Path) -> None:
    """A router split into an included broker XML file is configuration: its findings quote its names
    (not '<value from FILE>'), in every format."""
    (tmp_path / "routers.xml").write_text(
        '<connection-routers xmlns="urn:activemq:core"><connection-router name="split-router">'
        "<key-type>CLIENT_ID</key-type><policy name=\"FIRST_ELEMENT\"/><pool><static-connectors>"
        "<connector-ref>missing-conn</connector-ref></static-connectors></pool></connection-router>"
        "</connection-routers>")
    path = tmp_path / "broker.xml"
    text = sample_with("<connection-routers>", f'<xi:include {XI} href="routers.xml"/><connection-routers>')
    path.write_text(text)
    for fmt in FORMATS:
        run = capped("validate", "--no-settings", "-f", fmt, str(path), cwd=tmp_path)
        assert_clean(run)
        assert "missing-conn" in run.out and "value from" not in run.out, fmt
