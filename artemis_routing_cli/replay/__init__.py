"""``arouter replay``'s pure core: broker log lines in, routed connections and their verdicts out.

layout.py reads one line as its log4j2 layout wrote it (the broker's default pattern, the audit
pattern, the JSON layouts, ``arouter serve``'s lines, a ``--pattern``); events.py turns a record's
message into a routing event (the route lines, the routing package's DEBUG lines, the audit lines);
join.py puts one connection's events together; classify.py asks the engine (routing/) what the
config says and names the difference; advice.py says which log4j2 lines a complete replay needs.
No file, socket or clock here: cli/replay_sources.py reads the logs.
"""
