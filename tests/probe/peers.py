"""Real peers on 127.0.0.1 for probe tests: mosquitto, a TLS server, dead sockets, and doubles.

Doubles are named as such: they speak the real wire format (HTTP/Jolokia JSON, CORE frames, the
broadcast datagram) but only the part a probe touches.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import socket
import ssl
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from artemis_routing_cli.probe.broadcast import Broadcast, encode_broadcast
from artemis_routing_cli.protocols.core import CoreServer
from tests.peers import HANG_GUARD_SECONDS, Mosquitto, free_port, start_mosquitto  # noqa: F401


def closed_port() -> int:
    """A port nobody listens on (bound, then released): connecting is refused."""
    return free_port()


class SilentListener:
    """A listening socket that never accepts: TCP connects (the kernel's backlog), nobody answers."""

    def __init__(self, backlog: int = 64) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(backlog)
        self.port = self.sock.getsockname()[1]

    def close(self) -> None:
        self.sock.close()


# -- TLS server --------------------------------------------------------------------------------


def make_self_signed(tmp: Path, hostname: str = "localhost") -> tuple[Path, Path]:
    """A self-signed certificate for ``hostname`` (and 127.0.0.1); returns (cert, key) PEM paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hostname)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(
            [x509.DNSName(hostname), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


class TlsServer:
    """Accepts TLS connections, records the SNI each client sent, and holds them until they close."""

    def __init__(self, cert: Path, key: Path) -> None:
        self.sni_seen: list[str | None] = []
        self.handshakes = 0
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(cert, key)
        self.ctx.sni_callback = self._sni
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _sni(self, _sslobj: ssl.SSLObject, name: str | None, _ctx: ssl.SSLContext) -> None:
        self.sni_seen.append(name)

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        conn.settimeout(HANG_GUARD_SECONDS)
        try:
            with self.ctx.wrap_socket(conn, server_side=True) as tls:
                self.handshakes += 1
                while tls.recv(4096):
                    pass
        except (OSError, ssl.SSLError):
            pass

    def close(self) -> None:
        self.sock.close()


# -- Jolokia double ----------------------------------------------------------------------------


@dataclass
class JolokiaDouble:
    """An HTTP server answering Jolokia ``read`` requests for the broker MBean, like a broker's console.

    It checks basic auth (401 otherwise) and, like ``<strict-checking/>``, wants an Origin header.
    """

    user: str = "router"
    password: str = "secret"
    broker: str = "b1"
    attributes: dict[str, object] = field(default_factory=lambda: {
        "Active": True, "NodeID": "11111111-2222-3333-4444-555555555555", "ConnectionCount": 7})
    requests: list[dict[str, object]] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.server_address[1]

    def start(self) -> JolokiaDouble:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                double.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                expected = "Basic " + base64.b64encode(f"{double.user}:{double.password}".encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self._send(401, b"Unauthorized", "text/plain")
                    return
                if not self.headers.get("Origin"):
                    self._json({"status": 403, "error": "Origin null is not allowed to call this agent"})
                    return
                req = json.loads(body)
                mbean = f'org.apache.activemq.artemis:broker="{double.broker}"'
                wanted = {a: double.attributes[a] for a in req["attribute"] if a in double.attributes}
                if req.get("type") != "read" or req.get("mbean") != "org.apache.activemq.artemis:broker=*":
                    self._json({"status": 400, "error": "unexpected request"})
                elif len(wanted) < len(req["attribute"]):
                    self._json({"status": 404, "error": "javax.management.AttributeNotFoundException"})
                else:
                    self._json({"request": req, "value": {mbean: wanted}, "status": 200, "timestamp": 0})

            def _json(self, payload: dict[str, object]) -> None:
                self._send(200, json.dumps(payload).encode(), "application/json")

            def _send(self, status: int, data: bytes, ctype: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


# -- CORE double -------------------------------------------------------------------------------


class _ThreadedPeer:
    """A loopback listener that serves each accepted connection in its own thread (``_serve``)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.sock.close()


class CoreDouble(_ThreadedPeer):
    """Answers the CORE client handshake (ping echo, single-node topology) with the CoreServer codec."""

    def __init__(self, node_id: str) -> None:
        self.node_id = node_id
        super().__init__()

    def _serve(self, conn: socket.socket) -> None:
        server = CoreServer(node_id=self.node_id, router="r")
        conn.settimeout(HANG_GUARD_SECONDS)
        with conn:
            try:
                while data := conn.recv(65536):
                    for event in server.receive_data(data):
                        conn.sendall(server.reply(event, unique_event_id=1))
            except OSError:
                pass


# -- broadcast group double --------------------------------------------------------------------


class Broadcaster:
    """Sends broker-format discovery datagrams to a group on loopback, every ``period`` s, until stopped."""

    def __init__(self, group: str, port: int, datagrams: list[bytes], period: float = 0.05) -> None:
        self.group, self.port, self.datagrams, self.period = group, port, datagrams, period
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @classmethod
    def of(cls, group: str, port: int, broadcasts: list[Broadcast], **kw: float) -> Broadcaster:
        return cls(group, port, [encode_broadcast(b) for b in broadcasts], **kw)

    def _run(self) -> None:
        while not self._stop.is_set():
            for data in self.datagrams:
                self.sock.sendto(data, (self.group, self.port))
            self._stop.wait(self.period)  # the broadcast period, as a broker's broadcast group has

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(HANG_GUARD_SECONDS)
        self.sock.close()


# -- AMQP router double ------------------------------------------------------------------------


class AmqpRouterDouble(_ThreadedPeer):
    """An acceptor with ``router=R``: SASL PLAIN checked against one password, then a redirect."""

    def __init__(self, password: str, redirect_to: tuple[str, int]) -> None:
        from artemis_routing_cli.protocols.amqp import AmqpServer

        self._server_cls = AmqpServer
        self.password = password
        self.redirect_to = redirect_to
        self.users: list[str | None] = []
        super().__init__()

    def _serve(self, conn: socket.socket) -> None:
        from artemis_routing_cli.protocols.amqp import OpenReceived, SaslInit

        server = self._server_cls()
        conn.settimeout(HANG_GUARD_SECONDS)
        with conn:
            try:
                while data := conn.recv(65536):
                    for event in server.receive_data(data):
                        if isinstance(event, SaslInit):
                            self.users.append(event.username)
                            ok = event.password == self.password.encode()
                            conn.sendall(server.sasl_outcome(ok))
                            if not ok:
                                return
                        elif isinstance(event, OpenReceived):
                            conn.sendall(server.redirect("r", *self.redirect_to))
                            return
                    conn.sendall(server.data_to_send())
            except OSError:
                pass
