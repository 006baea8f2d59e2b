"""Real edits of samples/broker.xml, as a pull request would make them."""

from __future__ import annotations

from pathlib import Path

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "broker.xml"


def sample_text() -> str:
    return SAMPLE.read_text(encoding="utf-8")


def edit(text: str, old: str, new: str, count: int = 1) -> str:
    """``text`` with ``old`` replaced by ``new`` (``old`` must be there ``count`` times)."""
    assert text.count(old) == count, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


STICKY_POLICY = '''            <policy name="CONSISTENT_HASH"/>
            <pool>
               <username>router</username>'''
STICKY_MEMBERS = '''                  <connector-ref>broker2</connector-ref>
                  <connector-ref>broker3</connector-ref>
               </static-connectors>
            </pool>
         </connection-router>
      </connection-routers>'''
