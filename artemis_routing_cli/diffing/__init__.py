"""``arouter diff`` as pure functions: what changed between two loaded configs, as the broker reads them.

settings.py flattens each router (with its pool), divert and cluster connection into the settings
the broker reads; configdiff.py compares two configs section by section; verdict.py says whether the
broker deploys a router (today: validate's error findings); sample.py generates keys; flowdiff.py
compares a message's flow. The churn (who moves) is :mod:`routing.transfer`, shared with analyze's
what-if. No I/O here: the CLI (cli/diff.py) loads, routes and prints.
"""
