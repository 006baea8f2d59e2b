"""``python -m artemis_routing_cli.cli.help_docs > docs/cli.md``: every option's whole help text
(``--help`` shows the first sentence; see :mod:`.help_layout`)."""

from __future__ import annotations

import sys


def main() -> None:
    from .app import app
    from .help_layout import render_docs

    sys.stdout.write(render_docs(app))


if __name__ == "__main__":
    main()
