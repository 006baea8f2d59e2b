"""TLS with SNI (key type SNI_HOST) and ROLE_NAME from the broker's properties files."""

from __future__ import annotations

import socket

import pytest

from artemis_routing_cli.protocols.mqtt import MqttClient
from artemis_routing_cli.routing.targets import state_from_options
from artemis_routing_cli.serve.auth import parse_properties, user_roles, verify_password

from .conftest import HANG_GUARD, NODE_IDS, ROUTER_CORE, on_both_loops, recv_until_closed, tls_connect

pytestmark = pytest.mark.network


def mqtt_over(sock: socket.socket, client_id: str, username: str | None = None, password: str | None = None):
    client = MqttClient()
    sock.sendall(client.connect(client_id, username=username, password=password))
    events = client.receive_data(recv_until_closed(sock))
    [connack] = events
    return connack


@on_both_loops
@pytest.mark.parametrize(("sni", "reference", "key"), [
    ("tenant-a.example.com", "127.0.0.1:5555", "tenant-a.example.com"),  # local-target-filter: local
    ("tenant-b.example.com", "10.0.0.2:61618", "tenant-b.example.com"),
    (None, "10.0.0.2:61618", "NULL"),
])
def test_sni_host_comes_from_the_tls_client_hello(serve, cert, sni, reference, key):
    crt, pem_key = cert
    running = serve(ROUTER_CORE, listen=["tls://127.0.0.1:0"], routers=["by-sni"], tls_cert=crt, tls_key=pem_key,
                    local_target="127.0.0.1:5555", state=state_from_options(NODE_IDS))
    with tls_connect(running.port(), sni) as sock:
        connack = mqtt_over(sock, "c1")
    assert (connack.reason_code, connack.server_reference) == (0x9C, reference)
    assert running.routes()[0]["key"] == key


@on_both_loops
def test_plain_client_on_a_tls_listener_is_dropped(serve, cert):
    crt, pem_key = cert
    running = serve(ROUTER_CORE, listen=["tls://127.0.0.1:0"], routers=["by-sni"], tls_cert=crt, tls_key=pem_key)
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        sock.sendall(MqttClient().connect("plain"))
        assert recv_until_closed(sock) == b""
    assert running.routes() == []


ROLES = """# role=user1,user2 as in artemis-roles.properties
viewers=alice,bob
shard-1=alice
shard-2=bob, carol
admins = carol
"""


@pytest.mark.parametrize(("user", "reference"), [
    ("alice", "127.0.0.1:5555"),  # roles viewers, shard-1: the key-filter finds shard-1 -> local
    ("bob", "10.0.0.1:61617"),  # shard-2
])
def test_role_name_key_from_properties_files(serve, tmp_path, user, reference):
    users = tmp_path / "artemis-users.properties"
    users.write_text("alice=a-pw\nbob=b-pw\n", encoding="latin-1")
    roles = tmp_path / "artemis-roles.properties"
    roles.write_text(ROLES, encoding="latin-1")
    running = serve(ROUTER_CORE, routers=["by-role"], users_file=str(users), roles_file=str(roles),
                    local_target="127.0.0.1:5555", state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        connack = mqtt_over(sock, f"{user}-client", user, f"{user[0]}-pw")
    assert (connack.reason_code, connack.server_reference) == (0x9C, reference)
    assert running.routes()[0]["key"] == ("shard-1" if user == "alice" else "shard-2")


def test_bad_password_gets_mqtt5_bad_user_name_or_password(serve, tmp_path):
    users = tmp_path / "artemis-users.properties"
    users.write_text("alice=a-pw\n", encoding="latin-1")
    running = serve(ROUTER_CORE, routers=["by-role"], users_file=str(users))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        connack = mqtt_over(sock, "x", "alice", "nope")
    assert connack.reason_code == 0x86
    assert running.routes() == []


def test_properties_parsing_follows_java():
    text = "# comment\n! also\n  key\\ one = va\\\n    lue  \nplain:x\nbare\nu=\\u0041\\tB\n"
    assert parse_properties(text) == [("key one", "value  "), ("plain", "x"), ("bare", ""), ("u", "A\tB")]


def test_user_roles_come_in_java_hashset_order():
    # Verified with Java 17: Properties.load + the broker's inversion into HashMap<String, HashSet>
    # prints [zeta, A1, Bb, Aa, ops-team, amq, role-b, users, admins] ("Aa" and "Bb" share a hash).
    lines = parse_properties("zeta=alice\nusers=alice,bob\nadmins=alice\nops-team=alice\namq=alice\n"
                             "A1=alice\nrole-b=alice\nBb=alice\nAa=alice\n")
    assert user_roles(lines, "alice") == ("zeta", "A1", "Bb", "Aa", "ops-team", "amq", "role-b", "users", "admins")
    assert user_roles(lines, "bob") == ("users",)
    assert user_roles(parse_properties("r=alice, bob\n"), "bob") == ()  # no trimming: the user is " bob"


def test_hashed_passwords_verify_like_the_broker():
    # ENC(iterations:salt:hash) as 'artemis user add' writes it; the hash was computed with Java 17's
    # PBKDF2WithHmacSHA1 (PBEKeySpec("sécret", salt 00..1f, 1024 iterations, 512 bits)).
    digest = ("604ea5a5cafbd10cf9464cfeaecc41c057be4f37f7557db7ab1147c66706c92560ed9fa66f3518ee339945d40e35b2d8"
              "d5261f5b5222cbd0219201643a059acf")
    stored = f"ENC(1024:{bytes(range(32)).hex().upper()}:{digest.upper()})"
    assert verify_password(stored, "sécret")
    assert not verify_password(stored, "secret")
    assert verify_password("plain", "plain") and not verify_password("plain", "plai")


@on_both_loops
def test_tls_client_that_half_closes_before_its_connect_is_closed_quietly(serve, cert, caplog):
    """Over TLS a half-close cannot be kept open: the listener closes the connection and asyncio
    has nothing to warn about (it warns when a protocol asks to keep a TLS half-close)."""
    crt, pem_key = cert
    running = serve(ROUTER_CORE, listen=["tls://127.0.0.1:0"], routers=["by-sni"], tls_cert=crt, tls_key=pem_key,
                    state=state_from_options(NODE_IDS))
    with caplog.at_level("WARNING", logger="asyncio"), tls_connect(running.port(), "tenant-b.example.com") as sock:
        sock.sendall(b"\x10")  # half a CONNECT
        sock.shutdown(socket.SHUT_WR)  # TCP half-close, without a TLS close_notify
        sock.settimeout(HANG_GUARD)
        while sock.recv(65536):  # raw bytes now (the TLS layer was dropped by shutdown): until EOF
            pass
    assert running.routes() == []
    assert not [r for r in caplog.records if "eof_received" in r.getMessage()]


def test_security_disabled_in_broker_xml_ignores_the_users_and_roles_files(serve, tmp_path):
    """<security-enabled>false</security-enabled>: SecurityStoreImpl.authenticate validates nobody and
    sets no Subject, so a bad password passes, the claimed user is the USER_NAME key and ROLE_NAME is NULL."""
    users, roles = tmp_path / "users.properties", tmp_path / "roles.properties"
    users.write_text("alice=s3cret\n", encoding="latin-1")
    roles.write_text("shard-2=alice\n", encoding="latin-1")
    core = "<security-enabled> FALSE </security-enabled>" + ROUTER_CORE  # trimmed, any case: parseBoolean
    running = serve(core, routers=["by-role"], users_file=str(users), roles_file=str(roles),
                    state=state_from_options(NODE_IDS))
    with socket.create_connection(("127.0.0.1", running.port()), timeout=HANG_GUARD) as sock:
        connack = mqtt_over(sock, "c1", username="alice", password="wrong")
    assert connack.reason_code == 0x9C
    [route] = running.routes()
    assert route["key"] == "NULL"
    [said] = [r for r in running.records if "security-enabled" in r["message"]]
    assert "--users-file and --roles-file ignored" in said["message"]
