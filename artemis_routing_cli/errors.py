"""Errors that end a command with exit code 2 and one plain line (never a traceback)."""

from __future__ import annotations


class ArouterError(Exception):
    """A user-facing error: bad input, unreadable file, unknown name.

    ``str(err)`` is the one line shown to the user, prefixed with ``file:line:column`` when known.
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.hint = hint

    def location(self) -> str:
        if self.file is None:
            return ""
        parts = [self.file]
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        loc = self.location()
        text = f"{loc}: {self.message}" if loc else self.message
        if self.hint:
            text += f" (hint: {self.hint})"
        return text


class ConfigError(ArouterError):
    """broker.xml cannot be read, parsed or understood."""


class UsageError(ArouterError):
    """A command-line value is malformed or names something that does not exist."""


class BrokerRefusesError(ArouterError):
    """The broker would not start with this config, so no router of it is routed (exit code 1)."""

    exit_code = 1


class Interrupted(ArouterError):
    """Ctrl-C (SIGINT) during a long run: one line, exit code 130 as a shell reports a SIGINT death."""

    exit_code = 130


class ProtocolError(Exception):
    """A peer broke a wire protocol; the serving shell closes that connection only."""
