"""Generated broker.xml files of a chosen size for the validate benchmarks (bench/ only).

The mix is the one of ``validate_bench.generate`` (routers with pools, filtered diverts, cluster
connections on disjoint addresses), scaled so that every kind of element grows with the size.
"""

from __future__ import annotations

from validate_bench import generate

# One unit: ~1.05 MB (1,000 routers, 2,500 diverts, 150 cluster connections).
_UNIT = (1000, 2500, 150)


def generate_mb(megabytes: float, distinct: bool = False) -> str:
    """A broker.xml of about ``megabytes`` MB (within a few per cent); ``distinct``: see ``generate``."""
    unit = len(generate(*_UNIT).encode("utf-8")) / 1e6
    scale = megabytes / unit
    routers, diverts, clusters = (max(1, round(n * scale)) for n in _UNIT)
    return generate(routers, diverts, clusters, distinct)
