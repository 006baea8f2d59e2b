"""Output formats for validate: text, json, sarif, junit, github, broker-status."""

from __future__ import annotations

FORMATS = ("text", "json", "sarif", "junit", "github", "broker-status")
