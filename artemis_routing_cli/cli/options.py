"""Options several commands share, declared once: the same spelling, metavar and help everywhere."""

from __future__ import annotations

import typer

from .validate_options import (
    BROKER_HOME_HELP,
    CR_HELP,
    NO_BROKER_HOME_HELP,
    ORDINAL_HELP,
    PROPERTIES_HELP,
    SHOW_VALUES_HELP,
)

NODE_ID = typer.Option(None, "--node-id", metavar="TARGET=ID", help="Node id (broker UUID) of a target (repeat).")
DOWN = typer.Option(None, "--down", metavar="TARGET", help="Target not ready (repeat).")
CONNECTIONS = typer.Option(None, "--connections", metavar="TARGET=N", help="Connection count of a target (repeat).")
TARGETS = typer.Option(None, "--targets", metavar="FILE", help="Targets file saved by 'arouter probe --save'.")
DEFINE = typer.Option(None, "--define", "-D", metavar="NAME=VALUE", help="A ${NAME} value for broker.xml (repeat).")
IGNORE_INVALID = typer.Option(False, "--ignore-invalid",
                              help="Go on when the broker would not start with this broker.xml "
                                   "(validate's refusing findings become warnings).")
PROPERTIES = typer.Option(None, "--properties", metavar="PATH[,PATH...]", help=PROPERTIES_HELP)
CR = typer.Option(None, "--cr", metavar="CR.yaml", help=CR_HELP)
ORDINAL = typer.Option(None, "--ordinal", metavar="N", help=ORDINAL_HELP)
SHOW_VALUES = typer.Option(False, "--show-values", help=SHOW_VALUES_HELP)
KEEP_CR = typer.Option(False, "--keep-cr",
                       help="Keys file: keep a UTF-8 byte order mark at its start and the CR of each CR LF as "
                            "part of the keys (by default they are not: a file saved on Windows gives the same "
                            "keys as one saved on Linux; said on stderr when found).")
KEY_COLUMN = typer.Option(None, "--key-column", metavar="KEYTYPE=COLUMN",
                          help="The column that holds this key type, e.g. CLIENT_ID=mqtt_client (repeat); other "
                               "columns are not read.")
BROKER_HOME = typer.Option(None, "--broker-home", metavar="DIR", help=BROKER_HOME_HELP)
NO_BROKER_HOME = typer.Option(False, "--no-broker-home", help=NO_BROKER_HOME_HELP)

MESSAGE_PROPERTY_HELP = "Message property, typed by its literal: 42, 42L, 1.5, true, 'text' (repeat)."
# Before: --property. It is -D/--define's meaning in validate; here it still works, with a note.
OLD_MESSAGE_PROPERTY = typer.Option(None, "--property", metavar="NAME=VALUE", hidden=True)


def message_properties(given: list[str] | None, old: list[str] | None) -> list[str]:
    """-p/--message-property values, and those given with the old spelling (said once on stderr)."""
    if old:
        from .common import note

        note("arouter: note: --property is now -p/--message-property (a message property); -D/--define gives "
             "a ${NAME} value")
    return [*(given or []), *(old or [])]
