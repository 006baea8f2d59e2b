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
    _main(quick_exit=False)


def console_main() -> None:
    """``arouter`` as installed (and ``python -m artemis_routing_cli``): :func:`main`, but a
    ``validate`` run ends the process at once once its output is flushed (:func:`quick_exit`)."""
    _main(quick_exit=True)


def _main(*, quick_exit: bool) -> None:
    try:
        _dispatch(sys.argv[1:], quick_exit)
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


def _dispatch(argv: list[str], quick_exit: bool = False) -> None:
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
            if quick_exit:
                exit_now(code)
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


def exit_now(code: int) -> None:
    """End the process with ``code`` once stdout and stderr are flushed, without the interpreter's
    clean-up: at the end of a validate run that is freeing every module's memos and tables (a large
    file's URLs, layouts, filters), a tenth of a second's work for nothing. validate writes its
    report files whole and closes them before it returns, starts no thread and registers no exit
    handler. When a flush fails (a closed pipe), the interpreter's own exit takes over as before."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 (whatever it is, the usual exit reports it as it always did)
        sys.exit(code)
    os._exit(code)
