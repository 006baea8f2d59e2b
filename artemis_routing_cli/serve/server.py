"""``arouter serve``: the listeners, the routers they feed, the pool monitor and management HTTP,
started and stopped together on one asyncio loop.

Usage from code (tests, bench): ``server = Server(cfg, ServeOptions(...), log)``;
``await server.start()`` binds everything (``server.addresses`` then holds the bound
``host:port`` of each listener), ``await server.stop()`` closes it. :func:`run` does both and
waits for Ctrl-C / SIGTERM.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import ssl
from dataclasses import dataclass, field

from ..config.model import BrokerConfig
from ..errors import UsageError
from ..probe.jolokia import check_template
from ..routing.cache import monotonic_ms
from ..routing.keys import NEWEST_BROKER
from ..routing.router import Router
from ..routing.targets import TargetState
from .amqp_settings import connection_ttl_override
from .auth import Authenticator, security_enabled
from .conn import Env
from .connection import Limits
from .decide import RouterService
from .driver import Listener
from .jolokia import RouterControl
from .listeners import DEFAULT_BIND_HOST, ListenerSpec, parse_host_port, plan_listeners
from .log import ServeLog
from .loops import describe as describe_loop
from .management import MAX_HEAD_BYTES, ManagementServer, check_management_bind
from .metrics import Metrics
from .monitor import Checker, PoolMonitor, readiness_checker
from .proxy_gate import protocol_factory
from .store import CacheDatabase
from .sweeper import sweep_forever
from .tls import server_context

DEFAULT_HANDSHAKE_TIMEOUT = 10.0  # seconds: the broker's acceptor handshake-timeout default
DEFAULT_MAX_FRAME_SIZE = 1024 * 1024
DEFAULT_MAX_CONNECTIONS = 20_000
DEFAULT_LINGER = 30.0  # seconds a CORE client may keep the socket after its answer
DEFAULT_BROKER_NAME = "localhost"  # ConfigurationImpl: <name> defaults to localhost


@dataclass
class ServeOptions:
    listen: list[str] = field(default_factory=list)
    routers: list[str] = field(default_factory=list)
    bind_host: str | None = None
    local_target: str | None = None  # HOST:PORT where "local" clients are sent
    state: TargetState = field(default_factory=TargetState)
    tls_cert: str | None = None
    tls_key: str | None = None
    users_file: str | None = None
    roles_file: str | None = None
    data_dir: str | None = None
    management: str | None = None  # HOST:PORT or PORT
    management_user: str | None = None
    management_password: str | None = field(default=None, repr=False)
    management_insecure: bool = False  # allow a non-loopback management bind without authentication
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT
    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    linger: float = DEFAULT_LINGER
    monitor: bool = True
    checker: Checker | None = None  # None with monitor on: readiness_checker (with --jolokia when given)
    jolokia: str | None = None  # URL template of the targets' Jolokia (as ``arouter probe --jolokia``)
    seed: int | None = None
    broker_version: tuple[int, int] = NEWEST_BROKER  # the Artemis version followed (SOURCE_IP of IPv6 peers)


class Server:
    def __init__(self, cfg: BrokerConfig, options: ServeOptions, log: ServeLog | None = None) -> None:
        self.cfg = cfg
        self.options = options
        self.log = log or ServeLog()
        self.metrics = Metrics()
        self.broker_name = cfg.name or DEFAULT_BROKER_NAME
        self.specs = plan_listeners(cfg, options.listen, options.routers, options.bind_host)
        self.auth = Authenticator.from_files(options.users_file, options.roles_file)
        self.security_enabled = security_enabled(cfg)
        self.ttl_override, _ = connection_ttl_override(cfg)
        if not self.security_enabled:
            self.auth = Authenticator()  # the broker validates nobody: the files would change nothing it does
        local = parse_host_port(options.local_target, "--local-target") if options.local_target else None
        self.tls = server_context(options.tls_cert, options.tls_key) if any(s.tls for s in self.specs) else None
        self.db = self._open_db()
        self.services: dict[str, RouterService] = {}
        for router_cfg in cfg.connection_routers:
            router = Router.from_config(cfg, router_cfg, options.state, seed=options.seed, clock=monotonic_ms)
            router.tracing = False
            router.follow_version(options.broker_version)
            service = RouterService(router, cfg, local)
            if router.cache is not None and router_cfg.cache is not None and router_cfg.cache.persisted \
                    and self.db is not None:
                service.store = self.db.store_for(router.name)
                router.cache.load(service.store.entries)
                router.cache.store = service.store
            self.services[router.name] = service
        checker = self._checker() if options.monitor else None
        self.monitor = PoolMonitor([s.router for s in self.services.values()], checker, self.log, self.metrics)
        self.limits = Limits(options.handshake_timeout, options.max_frame_size, options.max_connections,
                             options.linger)
        self.addresses: dict[str, tuple[str, int]] = {}
        self.management_address: tuple[str, int] | None = None
        self._servers: list[asyncio.base_events.Server] = []
        self._sweepers: list[asyncio.Task[None]] = []
        self._listeners: dict[str, Listener] = {}
        self._stopping: asyncio.Event | None = None

    def _checker(self) -> Checker:
        options = self.options
        if options.checker is not None:
            return options.checker
        if options.jolokia is not None:
            problem = check_template(options.jolokia)
            if problem:
                raise UsageError(f"--jolokia {options.jolokia!r}: {problem}")
        return readiness_checker(self.cfg, options.jolokia)

    def _open_db(self) -> CacheDatabase | None:
        persisted = [r.name for r in self.cfg.connection_routers if r.cache is not None and r.cache.persisted]
        if not persisted:
            return None
        if self.options.data_dir is None:
            self.log.warning("startup", f"routers {', '.join(persisted)} have a persisted cache but no --data-dir "
                                        "was given: their caches are kept in memory only")
            return None
        return CacheDatabase(self.options.data_dir)

    # -- start-up ---------------------------------------------------------------------------------
    def _say_startup(self) -> None:
        log = self.log
        if not self.security_enabled:
            given = (("--users-file", self.options.users_file), ("--roles-file", self.options.roles_file))
            ignored = [option for option, value in given if value]
            said = f": {' and '.join(ignored)} ignored" if ignored else ""
            log.info("startup", f"{self.cfg.path}: <security-enabled>false</security-enabled>: the broker validates no "
                                f"user, so every client is taken as it claims and ROLE_NAME keys are NULL{said}")
        _, ttl_problem = connection_ttl_override(self.cfg)
        if ttl_problem:
            log.warning("startup", f"{self.cfg.path}: {ttl_problem}")
        for spec in self.specs:
            for note in spec.notes:
                log.warning("startup", f"acceptor {spec.name}: {note}")
        used = {s.router for s in self.specs}
        for name in sorted(used):
            service = self.services[name]
            router = service.router
            for warning in router.warnings:
                log.warning("startup", f"router {name}: {warning}")
            if router.pool is not None:
                guessed = [t.name for t in router.pool.placeholders if not t.local]
                if guessed and self.monitor.enabled and self.options.checker is None:
                    how = "over the management API (--jolokia)" if self.options.jolokia else "from their CORE topology"
                    log.info("startup", f"router {name}: node ids of {', '.join(guessed)} will be read {how} by the "
                                        "readiness check; until then their connector names stand in")
                elif guessed and not any("node ids unknown" in w for w in router.warnings):
                    log.warning("startup", f"router {name}: node ids unknown for {', '.join(guessed)}: their connector "
                                           "names stand in (CORE redirects and CONSISTENT_HASH use node ids; "
                                           "give --node-id TARGET=UUID or --targets)")
            if router.key_type == "ROLE_NAME" and not self.auth.roles:
                log.warning("startup", f"router {name}: key type ROLE_NAME without --roles-file: every key is NULL")
            if router.key_type in ("USER_NAME", "ROLE_NAME") and not self.auth.enabled:
                log.info("startup", f"router {name}: no --users-file: user names are taken as the clients claim them")
            if router.key_type == "SNI_HOST" and not any(s.tls for s in self.specs if s.router == name):
                log.warning("startup", f"router {name}: key type SNI_HOST on a listener without TLS: every key is NULL")
        if self.services and next(iter(self.services.values())).local_target is None:
            log.info("startup", "no --local-target: clients a router keeps on the local broker are refused "
                                "(REFUSED_USE_ANOTHER)")
        if not self.monitor.enabled:
            log.info("startup", "pool monitoring off: target readiness comes from --down/--targets")
        elif self.options.checker is None:
            how = ("the readiness check of 'arouter probe' (connection and auto handshake)"
                   + (f" + Jolokia {self.options.jolokia} (Active, NodeID, ConnectionCount)" if self.options.jolokia
                      else ", without the management API (--jolokia URL-TEMPLATE to read Active, NodeID and "
                           "ConnectionCount)"))
            log.info("startup", f"pool monitoring: every check-period, {how}")

    async def start(self) -> None:
        if self._stopping is None:  # else a stop was asked for while starting: wait_stopped returns at once
            self._stopping = asyncio.Event()
        self._say_startup()
        self.monitor.start()
        if self.monitor.enabled and self.options.checker is None:
            for service in self.services.values():
                if service.local_target is not None and not service.router.local.node_id_known:
                    self.monitor.learn_local_node_id(service.router, *service.local_target)
        for service in self.services.values():
            cache = service.router.cache
            if cache is not None and cache.timeout_ms > 0:  # expires while serving, as Caffeine does
                flush = service.store.flush if service.store is not None else None
                self._sweepers.append(asyncio.create_task(sweep_forever(cache, flush)))
        for spec in self.specs:
            await self._bind(spec)
        if self.options.management:
            await self._start_management(self.options.management)
        # Everything built so far (config, routers, codecs' tables) lives as long as the server:
        # move it out of the collector's sight so full collections stay short under load.
        gc.collect()
        gc.freeze()

    async def _bind(self, spec: ListenerSpec) -> None:
        ctx: ssl.SSLContext | None = self.tls if spec.tls else None
        service = self.services[spec.router]
        env = Env(service, self.monitor, self.log, self.metrics, self.auth, self.broker_name, self.limits.linger,
                  self.limits.max_frame_size, spec.amqp, self.ttl_override)
        loop = asyncio.get_running_loop()
        listener = Listener(spec, env, self.limits, loop, ctx)
        self._listeners[spec.name] = listener
        self.metrics.gauge("arouter_connections_open", listener.open_now, listener=spec.name)
        # A PROXY header comes before TLS: then the listener's gate starts TLS after it (proxy_gate)
        server_ctx = None if spec.proxy_protocol else ctx
        try:
            server = await loop.create_server(protocol_factory(listener), spec.host, spec.port, ssl=server_ctx,
                                              backlog=1024,
                                              ssl_handshake_timeout=listener.handshake_timeout if server_ctx else None)
        except OSError as exc:
            raise UsageError(f"cannot listen on {spec.host}:{spec.port} for {spec.name} "
                             f"({exc.strerror or exc})") from None
        self._servers.append(server)
        host, port = server.sockets[0].getsockname()[:2]
        self.addresses[spec.name] = (host, port)
        origin = f"acceptor {spec.name} ({spec.source})" if not spec.name.startswith("listen-") else spec.source
        bind_note = ""
        if not spec.name.startswith("listen-") and self.options.bind_host is None and host == DEFAULT_BIND_HOST:
            bind_note = " - bound to 127.0.0.1 for safety; --bind-host HOST (or 'acceptor') to change"
        protocols = ",".join(spec.protocols) if spec.protocols else "all protocols"
        proxied = " behind a PROXY header" if spec.proxy_protocol else ""
        self.log.info("listening", f"{origin}: router {spec.router} listening on {host}:{port}"
                                   f"{' with TLS' if ctx else ''}{proxied} ({protocols}){bind_note}",
                      listener=spec.name, router=spec.router, host=host, port=port, tls=ctx is not None)

    async def _start_management(self, where: str) -> None:
        host, port = parse_host_port(where, "--management")
        warning = check_management_bind(host, self.options.management_user, self.options.management_insecure)
        if warning is not None:
            self.log.warning("management", warning)
        control = RouterControl(self.services, self.broker_name)
        mgmt = ManagementServer(control, self.metrics, self.health, self.options.management_user,
                                self.options.management_password)
        server = await asyncio.start_server(mgmt.handle, host, port, limit=MAX_HEAD_BYTES)
        self._servers.append(server)
        self.management_address = server.sockets[0].getsockname()[:2]
        auth = "basic auth" if self.options.management_user else "no authentication"
        self.log.info("management", f"management on http://{self.management_address[0]}:{self.management_address[1]}"
                                    f" ({auth}): /console/jolokia, /metrics, /healthz")

    def health(self) -> dict[str, object]:
        pools = {}
        for name, service in self.services.items():
            pool = service.router.pool
            if pool is not None:
                pools[name] = {"ready": sum(1 for t in pool.targets if t.ready), "targets": len(pool.targets),
                               "quorum_size": pool.quorum_size}
        return {"status": "ok", "listeners": {n: f"{h}:{p}" for n, (h, p) in self.addresses.items()},
                "pools": pools}

    # -- shut-down --------------------------------------------------------------------------------
    def request_stop(self) -> None:
        if self._stopping is None:
            self._stopping = asyncio.Event()
        self._stopping.set()

    async def wait_stopped(self) -> None:
        assert self._stopping is not None
        await self._stopping.wait()

    async def stop(self) -> None:
        for server in self._servers:
            server.close()
        for server in self._servers:
            try:
                await asyncio.wait_for(server.wait_closed(), 2.0)
            except asyncio.TimeoutError:
                pass
        await self.monitor.stop()
        for task in self._sweepers:
            task.cancel()
        for task in self._sweepers:
            try:
                await task
            except asyncio.CancelledError:
                pass
        self._sweepers.clear()
        for service in self.services.values():
            cache = service.router.cache
            if cache is not None:
                cache.sweep()  # LocalCache.stop: cleanUp, whose removals leave the store too
        if self.db is not None:
            self.db.close()
        self._servers.clear()


async def run(cfg: BrokerConfig, options: ServeOptions, log: ServeLog, loop_reason: str = "") -> None:
    """Serve until Ctrl-C or SIGTERM, then close every socket and the cache database.
    ``loop_reason`` says why this event loop was chosen (see :mod:`.loops`)."""
    server = Server(cfg, options, log)
    loop = asyncio.get_running_loop()
    running = describe_loop(loop)
    log.info("startup", f"event loop: {running}{f' ({loop_reason})' if loop_reason else ''}", loop=running)
    for sig in (signal.SIGINT, signal.SIGTERM):  # before the first listener is up: a stop is never lost
        try:
            loop.add_signal_handler(sig, server.request_stop)
        except (NotImplementedError, RuntimeError):
            pass
    await server.start()
    try:
        await server.wait_stopped()
    finally:
        log.info("stopping", "stopping: closing listeners")
        await server.stop()
