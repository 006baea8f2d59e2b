"""``--broker-home DIR`` / ``--no-broker-home``: the user's own Artemis installation as the judge.

Without ``--broker-home``, ``$ARTEMIS_HOME`` is used when it is set and holds a broker (said on
stderr); ``--no-broker-home`` ignores it. The installation's version (read from its jars) is the
``--broker-version`` simulate, diff and analyze follow; an explicit ``--broker-version`` that
disagrees with it is an error.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import UsageError

if TYPE_CHECKING:
    from ..config.brokerhome import BrokerHome


def resolve_home(given: str | None, ignore: bool, *, quiet: bool = False) -> BrokerHome | None:
    """The installation to use, or None (no option, no usable $ARTEMIS_HOME, or --no-broker-home)."""
    if ignore:
        if given is not None:
            raise UsageError("--broker-home and --no-broker-home contradict each other: give one")
        return None
    from ..config.brokerhome import looks_like_home, read_broker_home

    if given is not None:
        return read_broker_home(given)
    env = os.environ.get("ARTEMIS_HOME", "").strip()
    if not env:
        return None
    from pathlib import Path

    if not looks_like_home(Path(env).expanduser()):
        return None
    home = read_broker_home(env, option="$ARTEMIS_HOME")
    if not quiet:
        from .common import note

        note(f"arouter: judging with {home.describe()} ($ARTEMIS_HOME; --no-broker-home ignores it)")
    return home


def version_for(home: BrokerHome | None, given: str | None) -> str | None:
    """The ``--broker-version`` text to follow: the installation's when there is one (an explicit
    version must agree with it), else ``given``."""
    if home is None:
        return given
    if given is not None:
        from ..routing.keys import parse_broker_version

        wanted = parse_broker_version(given)
        parts = given.strip().split(".")
        patch_differs = len(parts) == 3 and int(parts[2]) != home.release[2]
        if wanted != home.minor or patch_differs:
            raise UsageError(f"--broker-version {given} disagrees with --broker-home ({home.describe()}): "
                             "give one, or the same version")
    from ..routing.keys import NEWEST_BROKER, OLDEST_BROKER

    if home.minor < OLDEST_BROKER:
        raise UsageError(f"routing is not supported for Artemis {home.version} (broker balancers, before 2.21): "
                         f"arouter follows {'.'.join(map(str, OLDEST_BROKER))} to {'.'.join(map(str, NEWEST_BROKER))}")
    if home.minor > NEWEST_BROKER:
        raise UsageError(f"Artemis {home.version} is newer than the versions arouter follows "
                         f"({'.'.join(map(str, OLDEST_BROKER))} to {'.'.join(map(str, NEWEST_BROKER))}); "
                         "upgrade arouter, or give --no-broker-home --broker-version")
    return home.version
