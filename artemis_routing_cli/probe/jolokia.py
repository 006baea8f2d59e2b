"""Step 3 of a probe: read the target broker's ``Active``, ``NodeID`` and ``ConnectionCount`` over Jolokia.

These are the attributes the broker's router reads over its management connection (readiness:
``Active``; node id: ``NodeID``; LEAST_CONNECTIONS: ``ConnectionCount``) on the broker MBean
``org.apache.activemq.artemis:broker="<name>"``. The target broker's name is not in our
broker.xml, so the read uses the pattern ``org.apache.activemq.artemis:broker=*``, which matches
only MBeans whose sole key is ``broker``: the broker MBean itself.

Request: ``POST <url>`` with ``{"type": "read", "mbean": PATTERN, "attribute": [...]}``, basic
auth with the pool's username/password, and an ``Origin`` header: the broker's default
``jolokia-access.xml`` has ``<strict-checking/>``, which refuses requests whose Origin does not
match ``allow-origin`` (default ``*://localhost*``). We send the Jolokia URL's own origin, as a
browser on that console would.

Answer: ``{"status": 200, "value": {"<mbean name>": {"Active": true, ...}}}``; errors come as
HTTP 401/403 or as ``{"status": 4xx/5xx, "error": "..."}``.
"""

from __future__ import annotations

import base64
import json
import string
from urllib.parse import urlsplit

from .model import Credentials, Endpoint, Management

BROKER_MBEAN_PATTERN = "org.apache.activemq.artemis:broker=*"
BROKER_MBEAN_PREFIX = "org.apache.activemq.artemis:broker="
ATTRIBUTES = ("Active", "NodeID", "ConnectionCount")
TEMPLATE_FIELDS = frozenset({"host", "port", "name"})


def template_fields(template: str) -> set[str]:
    """The ``{field}`` names used by a URL template (ValueError when the braces are malformed)."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def check_template(template: str) -> str | None:
    """Why a ``--jolokia`` template is unusable, or None when it is fine."""
    if not template.startswith(("http://", "https://")):
        return "must start with http:// or https://"
    try:
        names = template_fields(template)
    except ValueError as exc:
        return f"malformed braces ({exc})"
    unknown = names - TEMPLATE_FIELDS
    if unknown:
        return f"unknown placeholder {{{sorted(unknown)[0]}}} (use {{host}}, {{port}}, {{name}})"
    return None


def url_for(template: str, endpoint: Endpoint) -> str:
    host = endpoint.host  # the broker's form: an IPv6 address is already in brackets
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return template.format(host=host, port=endpoint.port, name=endpoint.name)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def request_body() -> bytes:
    return json.dumps({"type": "read", "mbean": BROKER_MBEAN_PATTERN, "attribute": list(ATTRIBUTES)}).encode()


def request_headers(url: str, creds: Credentials, origin: str | None = None) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "Origin": origin or origin_of(url)}
    if creds.username is not None:
        token = f"{creds.username}:{creds.password or ''}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(token).decode("ascii")
    return headers


def parse_response(status: int, body: bytes) -> Management:
    """Read a Jolokia answer into a :class:`Management`; every failure is an ``error`` line."""
    if status == 401:
        return Management(error="management API refused the credentials (HTTP 401)")
    if status == 403:
        return Management(error="management API forbids this request (HTTP 403; check jolokia-access.xml)")
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return Management(error=f"management API answered HTTP {status} without Jolokia JSON")
    if not isinstance(data, dict):
        return Management(error="management API answer is not a Jolokia response")
    jstatus = data.get("status", status)
    if jstatus != 200:
        message = str(data.get("error") or f"status {jstatus}").splitlines()[0]
        return Management(error=f"Jolokia error {jstatus}: {message}")
    value = data.get("value")
    if not isinstance(value, dict):
        return Management(error="Jolokia answer has no attribute values")
    brokers = {k: v for k, v in value.items() if isinstance(k, str) and k.startswith(BROKER_MBEAN_PREFIX)
               and "," not in k and isinstance(v, dict)}
    if brokers:
        mbean, attrs = next(iter(brokers.items()))
        name = mbean[len(BROKER_MBEAN_PREFIX):].strip('"')
    elif "Active" in value:  # a read of one exact broker MBean
        attrs, name = value, None
    else:
        return Management(error="no broker MBean (org.apache.activemq.artemis:broker=...) in the answer")
    return _attributes(attrs, name)


def _attributes(attrs: dict[str, object], name: str | None) -> Management:
    active = attrs.get("Active")
    node_id = attrs.get("NodeID")
    count = attrs.get("ConnectionCount")
    return Management(
        active=active if isinstance(active, bool) else None,
        node_id=node_id if isinstance(node_id, str) and node_id else None,
        connection_count=count if isinstance(count, int) and not isinstance(count, bool) else None,
        broker_name=name,
    )
