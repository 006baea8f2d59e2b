"""``python -m artemis_routing_cli`` is ``arouter``."""

from .cli.entry import main

main()
