"""``arouter fleet`` as pure functions: the pods of a fleet (pods.py), the proof over a router's
finite values (proof.py), the count over keys (count.py), and the JSON every output renders
(document.py). The shells (cli/fleet*.py, report/fleet_*.py) read inputs and show the answers."""
