"""``python -m artemis_routing_cli`` is ``arouter``."""

from .cli.app import main

main()
