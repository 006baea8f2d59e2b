"""Counters and gauges for ``/metrics`` in the Prometheus text exposition format (0.0.4)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

_HELP = {
    "arouter_connections_total": ("counter", "Connections accepted, by listener and detected protocol."),
    "arouter_connections_open": ("gauge", "Connections currently open."),
    "arouter_redirects_total": ("counter", "Clients redirected, by router, target and protocol."),
    "arouter_refusals_total": ("counter", "Clients refused, by router, status and protocol."),
    "arouter_auth_failures_total": ("counter", "Clients whose user name or password was rejected."),
    "arouter_handshake_errors_total": ("counter", "Connections closed before a routing decision, by reason."),
    "arouter_proxy_headers_total": ("counter", "PROXY protocol headers read, by listener and version (V1, V2)."),
    "arouter_websocket_upgrades_total": ("counter", "HTTP requests upgraded to WebSocket, by listener and the "
                                                    "subprotocol chosen (none: no subprotocol header)."),
    "arouter_websocket_connections_total": ("counter", "Connections whose protocol was detected inside a "
                                                       "WebSocket, by listener and protocol (also counted in "
                                                       "arouter_connections_total)."),
    "arouter_pool_target_ready": ("gauge", "1 when a pool target is ready, else 0."),
    "arouter_pool_ready_targets": ("gauge", "Ready targets of each router's pool."),
    "arouter_pool_target_connections": ("gauge", "ConnectionCount a pool target reported over its management API."),
}

Labels = tuple[tuple[str, str], ...]


class Cell:
    """One series of a counter that a hot path counts itself: ``cell.n += 1`` (see CounterFamily.cell)."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0


class CounterFamily:
    """The series of one counter that differ only in their label values, for a hot path:
    ``inc(*values)`` finds the series by the values (in the order of ``names``) without building
    and sorting a label dict each time; ``cell(*values)`` hands out a :class:`Cell` the caller keeps
    and counts in itself. A series appears once it has been counted (either way: ``get`` and ``render``
    add the two)."""

    __slots__ = ("_series", "_names", "_keys", "_cells")

    def __init__(self, series: dict[Labels, float], names: tuple[str, ...], cells: dict[Labels, Cell]) -> None:
        self._series = series
        self._names = names
        self._keys: dict[tuple[str, ...], Labels] = {}
        self._cells = cells

    def _labels(self, values: tuple[str, ...]) -> Labels:
        key = self._keys.get(values)
        if key is None:  # first time for these values (zip raises ValueError on a wrong count)
            key = self._keys[values] = tuple(sorted(zip(self._names, values, strict=True)))
        return key

    def inc(self, *values: str) -> None:
        key = self._keys.get(values)
        if key is None:
            key = self._labels(values)
        series = self._series
        series[key] = series.get(key, 0) + 1

    def cell(self, *values: str) -> Cell:
        """The series of these label values as a :class:`Cell` (the same one on every call)."""
        key = self._labels(values)
        cell = self._cells.get(key)
        if cell is None:
            cell = self._cells[key] = Cell()
        return cell


class Metrics:
    def __init__(self) -> None:
        self._values: dict[str, dict[Labels, float]] = defaultdict(dict)
        self._live: dict[str, dict[Labels, Callable[[], float]]] = defaultdict(dict)
        self._cells: dict[str, dict[Labels, Cell]] = defaultdict(dict)  # counted by hot paths (CounterFamily.cell)
        # the counters every connection moves
        self.connections = self.family("arouter_connections_total", "listener", "protocol")
        self.handshake_errors = self.family("arouter_handshake_errors_total", "listener", "reason")
        self.redirects = self.family("arouter_redirects_total", "router", "target", "protocol")
        self.refusals = self.family("arouter_refusals_total", "router", "status", "protocol")
        self.proxy_headers = self.family("arouter_proxy_headers_total", "listener", "version")
        self.websocket_upgrades = self.family("arouter_websocket_upgrades_total", "listener", "subprotocol")
        self.websocket_connections = self.family("arouter_websocket_connections_total", "listener", "protocol")

    def family(self, name: str, *label_names: str) -> CounterFamily:
        """Counter ``name`` labelled by ``label_names``, incremented by values (see CounterFamily)."""
        return CounterFamily(self._values[name], label_names, self._cells[name])

    def gauge(self, name: str, read: Callable[[], float], **labels: str) -> None:
        """A gauge read when asked for (``get``, ``render``), for values a hot path keeps itself."""
        self._live[name][tuple(sorted(labels.items()))] = read

    def inc(self, name: str, amount: float = 1, **labels: str) -> None:
        key = tuple(sorted(labels.items()))
        series = self._values[name]
        series[key] = series.get(key, 0) + amount

    def set(self, name: str, value: float, **labels: str) -> None:
        self._values[name][tuple(sorted(labels.items()))] = value

    def get(self, name: str, **labels: str) -> float:
        key = tuple(sorted(labels.items()))
        live = self._live.get(name, {}).get(key)
        if live is not None:
            return live()
        value = self._values.get(name, {}).get(key, 0)
        cell = self._cells.get(name, {}).get(key)
        return value + cell.n if cell is not None else value

    def _series(self, name: str) -> dict[Labels, float]:
        series = dict(self._values.get(name, {}))
        for key, cell in self._cells.get(name, {}).items():
            if cell.n:
                series[key] = series.get(key, 0) + cell.n
        for key, read in self._live.get(name, {}).items():
            series[key] = read()
        return series

    def render(self) -> str:
        lines: list[str] = []
        for name, (kind, text) in _HELP.items():
            series = self._series(name)
            if not series:
                continue
            lines.append(f"# HELP {name} {text}")
            lines.append(f"# TYPE {name} {kind}")
            for labels, value in sorted(series.items()):
                shown = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
                number = int(value) if float(value).is_integer() else value
                lines.append(f"{name}{{{shown}}} {number}" if shown else f"{name} {number}")
        return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
