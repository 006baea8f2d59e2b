"""A test skipped for want of a real peer is listed loudly at the end of the run (what CI runs and
this run did not), with how to get the peer; other skips are not."""

from __future__ import annotations

import os

import pytest

from tests.conftest import REPO

pytest_plugins = ["pytester"]


def test_the_run_ends_with_the_tests_a_missing_peer_kept_from_running(pytester: pytest.Pytester,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)  # a developer's run (in CI a missing peer fails its test instead)
    # the inner run imports this checkout's tests package from its own folder
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p))
    pytester.makeconftest("from tests.conftest import pytest_terminal_summary  # noqa: F401\n")
    pytester.makepyfile(test_peers="""
import pytest
from tests.real_clients import need

def test_js_client():
    need(False, "the npm package rhea (cd tests/js && npm ci)")

def test_another_js_client():
    need(False, "the npm package rhea (cd tests/js && npm ci)")

def test_plain_skip():
    pytest.skip("not on this platform")

def test_present():
    need(True, "mosquitto")
""")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=1, skipped=3)
    out = result.stdout.str()
    assert "real peers missing: these tests did NOT run" in out
    assert "   2 test(s): the npm package rhea (cd tests/js && npm ci) is not installed" in out
    assert "not on this platform" not in out.split("these tests did NOT run")[1].split("short test summary")[0]
