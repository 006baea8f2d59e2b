"""``python -m artemis_routing_cli`` is ``arouter``."""

from .cli.entry import console_main

console_main()
