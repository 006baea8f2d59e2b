"""``--against NEW`` (diff's transfer over the real connections) and the HTML report in Chromium."""

from __future__ import annotations

from tests.browser import dom, screenshot
from tests.cli.helpers import arouter

from .helpers import CONFIG, DATA, replay_json
from .test_planted import SELF_NODE, lines, numbered, route_to, target, write

DEBUG = DATA / "2.40.0" / "debug"


def new_config(tmp_path):
    """by-ip's pool in the other order; by-user keeps bob local too."""
    text = CONFIG.read_text()
    text = text.replace("<connector-ref>dead</connector-ref><connector-ref>self</connector-ref>",
                        "<connector-ref>self</connector-ref><connector-ref>dead</connector-ref>")
    text = text.replace("<local-target-filter>alice</local-target-filter>",
                        "<local-target-filter>alice|bob</local-target-filter>")
    path = tmp_path / "new.xml"
    path.write_text(text)
    return str(path)


def test_against_names_the_real_connections_a_new_config_sends_elsewhere(tmp_path):
    doc = replay_json(str(DEBUG), "--against", new_config(tmp_path), code=0)
    against = doc["against"]
    # bob connected twice (MQTT and AMQP) and was refused; the new filter keeps him local. by-ip's new
    # order picks self, where the broker sent both clients anyway (dead was down): nobody moves there
    assert (against["connections"], against["moved"]) == (11, 2)
    assert against["flows"] == [{"from": "REFUSED_USE_ANOTHER", "to": "local", "count": 2}]
    assert {(s["router"], s["key"], s["after"]) for s in against["samples"]} == {("by-user", "bob", "local")}


def test_against_the_same_config_moves_nobody():
    doc = replay_json(str(DEBUG), "--against", str(CONFIG), code=0)
    assert doc["against"]["moved"] == 0 and doc["against"]["connections"] == 11


def test_html_report_renders_in_chromium_with_the_drift_timeline(tmp_path):
    text = lines()
    bob = [n for n in numbered(text, "AMQ221086") if "keyValue for USER_NAME: bob" in text[n - 3]][0]
    text[bob - 1] = route_to(text[bob - 1], target("self", SELF_NODE))
    log = write(tmp_path, text)
    page = tmp_path / "replay.html"
    run = arouter("replay", "-c", str(CONFIG), "-f", "html", "-o", str(page), "--against", new_config(tmp_path), log)
    assert run.code == 1, run.err
    html = dom(page)
    assert "1 drift" in html and 'id="drift-timeline"' in html and "<rect" in html
    assert "by-user" in html and "Against the new config" in html
    pixels = screenshot(page, tmp_path / "replay.png")
    drift_red = (176, 0, 32)
    assert any(px == drift_red for row in pixels for px in row), "the timeline's bar is not painted"
