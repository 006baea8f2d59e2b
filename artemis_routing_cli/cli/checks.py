"""Checks of ``simulate``'s connection options before any routing: one key per type, and which keys the
chosen routers read (a key no router reads would silently route as NULL)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import UsageError
from ..routing.router import Router


def check_repeated_keys(keys: Iterable[str]) -> None:
    """Refuse ``--key`` given twice for the same key type: a connection has one value of each."""
    seen: dict[str, str] = {}
    for item in keys:
        name, sep, value = item.partition("=")
        if not sep:
            continue  # the parser says what is wrong with it
        kt = name.strip().upper()
        if kt in seen:
            raise UsageError(f"--key {kt} given twice ({seen[kt]!r} and {value!r}): a connection has one "
                             f"{kt}; give it once" + (" (roles: one comma-separated list)" if kt == "ROLE_NAME"
                                                      else ""))
        seen[kt] = value


def key_notes(routers: Sequence[Router], given: Iterable[str]) -> list[str]:
    """What the routers make of the connection's key types: a given type no router reads, and each
    router whose key type the connection lacks (its key is NULL, as in the broker)."""
    given = list(dict.fromkeys(given))
    read = {r.key_type for r in routers}
    notes: list[str] = []
    for kt in given:
        if kt in read:
            continue
        if len(routers) == 1:
            notes.append(f"--key {kt}: router {routers[0].name} does not read it (it reads {routers[0].key_type})")
        else:
            notes.append(f"--key {kt}: none of the {len(routers)} routers reads it "
                         f"(they read {', '.join(sorted(read))})")
    for r in routers:
        if r.key_type not in given:
            notes.append(f"{r.name} reads {r.key_type}, which the connection does not have: its key is NULL")
    return notes


def repeated_option(args: Sequence[str], single: dict[str, str]) -> str | None:
    """The message for a single-valued option given more than once in ``args`` (None when none is).

    ``single`` maps each spelling (``--format``, ``-f``) of an option that takes one value to its
    canonical name; the last value would silently win, so a repeat is refused (exit 2).
    """
    seen: dict[str, str] = {}
    expect_value = False
    for arg in args:
        if arg == "--":
            break
        if expect_value:
            expect_value = False
            continue
        if not arg.startswith("-") or arg == "-":
            continue
        name, eq, _ = arg.partition("=") if arg.startswith("--") else (arg[:2], "", arg[2:])
        canonical = single.get(name)
        if canonical is None:
            continue
        if canonical in seen:
            return (f"{canonical} given twice ({seen[canonical]} and {name}): it takes one value; "
                    "give it once")
        seen[canonical] = name
        expect_value = not eq and len(arg) == len(name)  # the value is the next argument
    return None


def check_repeated_options(group: object, argv: Sequence[str]) -> None:
    """Refuse a single-valued option given twice on a typer command line (``group`` is the click group)."""
    commands = getattr(group, "commands", None)  # typer's click (typer may carry its own copy of click)
    command = commands.get(argv[0]) if argv and isinstance(commands, dict) else None
    if command is None:
        return
    single: dict[str, str] = {}
    for param in command.params:
        if getattr(param, "param_type_name", "") == "option" and not param.multiple and not param.is_flag \
                and not param.count:
            canonical = max(param.opts, key=len)
            for spelling in param.opts:
                single[spelling] = canonical
    problem = repeated_option(argv[1:], single)
    if problem is not None:
        raise UsageError(problem)
