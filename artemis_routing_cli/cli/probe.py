"""``arouter probe``: check every pool target of the routers now — reachable, speaking, ready — and quorum."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

import typer

from ..errors import UsageError
from . import options as opt
from .common import load_judged, say, stderr_console, stdout_console

if TYPE_CHECKING:
    from ..config.model import BrokerConfig
    from ..probe.model import ProbeOptions

FORMATS = ("text", "json")


def register(app: typer.Typer) -> None:
    app.command("probe")(probe_command)


def probe_command(
    config: Optional[str] = typer.Option(None, "--config", "-c", help="broker.xml (default: ./broker.xml, "
                                         "$ARTEMIS_INSTANCE/etc/broker.xml, else the bundled sample)."),
    router: Optional[str] = typer.Option(None, "--router", "-r", help="Only this connection router's pool."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    timeout: float = typer.Option(3.0, "--timeout", "-t", help="Seconds for each check of each target."),
    save: Optional[str] = typer.Option(None, "--save", metavar="FILE",
                                       help="Write the targets file 'arouter simulate --targets' reads."),
    watch: bool = typer.Option(False, "--watch", "-w", help="Probe again every pool check-period until Ctrl-C."),
    jolokia: Optional[str] = typer.Option(None, "--jolokia", metavar="URL-TEMPLATE",
                                          help="Jolokia of each target, e.g. "
                                               "http://{host}:8161/console/jolokia ({host}, {port}, {name})."),
    protocol: str = typer.Option("auto", "--protocol", "-p",
                                 help="Handshake: auto, amqp, mqtt, core, openwire or none."),
    cafile: Optional[str] = typer.Option(None, "--cafile", metavar="FILE", help="CA certificates (PEM) for TLS."),
    insecure: bool = typer.Option(False, "--insecure", "-k", help="Do not verify TLS certificates."),
    discovery_timeout: Optional[float] = typer.Option(
        None, "--discovery-timeout", metavar="S",
        help="Seconds to listen to a discovery group (default: its refresh-timeout, at most 10)."),
    local: Optional[str] = typer.Option(None, "--local", metavar="URL",
                                        help="Where this broker listens (tcp://host:port), to probe the local "
                                             "target too."),
    define: Optional[list[str]] = opt.DEFINE,
    properties: Optional[list[str]] = opt.PROPERTIES,
    cr: Optional[str] = opt.CR,
    ordinal: Optional[int] = opt.ORDINAL,
    show_values: bool = opt.SHOW_VALUES,
) -> None:
    """Probe the routers' pool targets: connection, handshake, readiness, and each pool's quorum."""
    from ..probe.jolokia import check_template
    from ..probe.model import PROTOCOLS, ProbeOptions

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: choose text or json")
    if protocol not in PROTOCOLS:
        raise UsageError(f"--protocol {protocol!r}: choose one of {', '.join(PROTOCOLS)}")
    if not timeout > 0:
        raise UsageError(f"--timeout {timeout:g}: must be more than 0 seconds")
    if discovery_timeout is not None and discovery_timeout < 0:
        raise UsageError(f"--discovery-timeout {discovery_timeout:g}: must be 0 or more seconds")
    if jolokia is not None and (problem := check_template(jolokia)) is not None:
        raise UsageError(f"--jolokia {jolokia!r}: {problem}")
    if cafile is not None and not os.path.isfile(cafile):
        raise UsageError("--cafile: file not found", file=cafile)

    cfg = load_judged(config, define, "probe", properties, cr, ordinal, show_values=show_values)
    options = ProbeOptions(timeout=timeout, protocol=protocol, jolokia=jolokia, cafile=cafile,
                           insecure=insecure, discovery_timeout=discovery_timeout, local_url=local)
    if watch:
        _watch(cfg, options, router, fmt, save)
    code = _once(cfg, options, router, fmt, save, clear=False)
    raise typer.Exit(code)


def _once(
    cfg: BrokerConfig, options: ProbeOptions, router: str | None, fmt: str, save: str | None, *, clear: bool
) -> int:
    from .. import __version__
    from ..probe.render import render_text, to_json
    from ..probe.runner import probe, report_targets
    from ..routing.targets import write_targets_file

    report = probe(cfg, options, router)
    if save:
        try:
            write_targets_file(save, report_targets(report), generated_by=f"arouter probe {__version__}")
        except OSError as exc:
            raise UsageError(f"cannot write the targets file: {exc.strerror or exc}", file=save) from None
    if fmt == "json":
        print(to_json(report, indent=None if clear else 2), flush=True)
    else:
        console = stdout_console()
        if clear and console.is_terminal:
            console.clear()
        render_text(report, console)
        if save:
            say(stderr_console(), f"arouter: targets saved to {save}")
    return report.exit_code


def _watch(cfg: BrokerConfig, options: ProbeOptions, router: str | None, fmt: str, save: str | None) -> None:
    """Probe every check-period until Ctrl-C/SIGTERM; exit with the last *complete* round's verdict."""
    import time

    from ..probe.resolve import plan_pools
    from .stop_request import StopRequest

    plans = plan_pools(cfg, router)
    period = min(p.router.pool.check_period for p in plans if p.router.pool is not None) / 1000.0
    code = 0
    # Our own handlers: asyncio.run then leaves SIGINT alone, so a signal in mid-round lets the
    # round finish (its verdict counts) instead of cancelling it into a bogus one.
    with StopRequest() as stop:
        while not stop.asked:
            started = time.monotonic()
            code = _once(cfg, options, router, fmt, save, clear=True)  # a signal lets the round finish
            stop.wait(period - (time.monotonic() - started))
    raise typer.Exit(code)
