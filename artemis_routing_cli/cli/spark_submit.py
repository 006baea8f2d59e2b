"""Entry point for ``spark-submit``: ``spark-submit [spark options] spark_submit.py [analyze options]``.

It is ``arouter analyze`` run as a script: under spark-submit the submitted master and configuration
are used (the session already exists).
"""

from __future__ import annotations

import sys


def main() -> None:
    from artemis_routing_cli.cli.entry import main as arouter_main  # absolute: run as a script

    sys.argv = ["arouter", "analyze", *sys.argv[1:]]
    arouter_main()


if __name__ == "__main__":
    main()
