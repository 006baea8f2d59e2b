"""The ``arouter`` console entry point: one plain line and exit 2 for user errors, never a traceback.

``arouter validate`` with the options it documents runs without importing typer (see
:mod:`.validate_options`): in a pre-commit hook that is most of its start-up. Every other
command line goes to the typer application in :mod:`.app`.
"""

from __future__ import annotations

import os
import sys

from ..errors import ArouterError


def main() -> None:
    try:
        _dispatch(sys.argv[1:])
    except ArouterError as err:
        print(f"arouter: {err}", file=sys.stderr)
        sys.exit(err.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as err:  # a bug in arouter, not in the user's input
        if os.environ.get("AROUTER_DEBUG"):
            raise
        print(f"arouter: internal error: {type(err).__name__}: {err} (set AROUTER_DEBUG=1 for a traceback)",
              file=sys.stderr)
        sys.exit(3)


def _dispatch(argv: list[str]) -> None:
    if argv == ["--version"]:
        from .. import __version__

        print(f"arouter {__version__}")
        return
    if argv[:1] == ["validate"]:
        from .validate_options import parse_validate_args

        opts = parse_validate_args(argv[1:])
        if opts is not None:
            from .validate_run import run_validate

            held: list[object] = []
            code = run_validate(opts, keep=held)
            never_free(held)
            sys.exit(code)
    import typer.main

    from .app import app
    from .checks import check_repeated_options

    check_repeated_options(typer.main.get_command(app), argv)  # the last value would silently win
    app()


def never_free(objects: list[object]) -> None:
    """Leave ``objects`` (the last checked file's document and model, the reports) alive to the end
    of the process: freeing a large model object by object costs a tenth of its check, and the
    process is about to end. The list becomes a cycle that ``gc.freeze`` hides from the collector, so
    neither a later collection nor the interpreter's exit frees it. Output, files and the exit status
    are as before: they do not depend on these objects."""
    import gc

    objects.append(objects)
    gc.freeze()
