"""What the broker's AMQP protocol manager takes from an acceptor, for the answers ``serve`` writes.

``ProtonProtocolManagerFactory.createProtocolManager`` fills a ``ProtonProtocolManager`` from the
acceptor's params and extraProps together (``getCombinedParams``) with commons-beanutils 1.11
(``BeanSupport.setData``). The settings a redirecting acceptor shows a client:

* ``saslMechanisms`` (``String[]``): the mechanisms offered, in this order (default: PLAIN,
  ANONYMOUS); a client choosing one not listed gets sasl-outcome sys. An empty list offers
  ANONYMOUS alone. beanutils' ArrayConverter splits the text with a ``StreamTokenizer``: commas
  and blanks separate, letters, digits, ``.`` and ``-`` make words, ``"..."`` is one word, ``/``
  starts a comment and any other character (``_``) ends a word and is dropped;
* ``maxFrameSize`` (``int``, default 131072): advertised in the Open and the largest AMQP frame
  accepted; ``initialRemoteMaxFrameSize`` (``int``, default 4096): the largest SASL frame;
* ``amqpIdleTimeout`` (``Long``) over ``<connection-ttl-override>`` over the default connection
  TTL 60000 ms (``ProtonProtocolManager.internalConnectionEntry``; a negative TTL is 0): the
  transport's idle timeout, cast to an ``int``; the Open advertises half of it, and nothing when
  it is 0.

beanutils converts a number it cannot read (``abc``, ``0x10``, ``5.5``, out of range, empty, or a
parameter written without ``=``) to 0 - for the ``Long`` wrapper as for the ``int``s - without a
word; so ``amqpIdleTimeout=abc`` turns the idle timeout off and ``maxFrameSize=abc`` the frame limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from ..config.model import BrokerConfig
from ..config.nodes import first_descendant, java_int, text_content
from ..javastr import java_parse_int, java_parse_long, java_trim
from ..protocols.amqp import (
    BROKER_MAX_FRAME_SIZE,
    BROKER_SASL_MECHANISMS,
    SASL_MAX_FRAME_SIZE,
    SERVED_SASL_MECHANISMS,
    AmqpServer,
    broker_failure_open,
    encode_open,
)

#: ActiveMQClient.DEFAULT_CONNECTION_TTL (ms): the AMQP connection TTL without an override.
DEFAULT_CONNECTION_TTL = 60_000
#: ``<connection-ttl-override>``'s default: no override.
NO_TTL_OVERRIDE = -1
#: AnonymousServerSASL.ANONYMOUS_MECH: what an empty ``saslMechanisms`` leaves on offer.
ANONYMOUS_ONLY = ("ANONYMOUS",)
#: Mechanisms the broker runs through its JAAS login modules, which ``serve`` cannot.
LOGIN_MODULE_MECHANISMS = ("GSSAPI", "SCRAM-SHA-256", "SCRAM-SHA-512")


@dataclass(frozen=True)
class AmqpSettings:
    """One acceptor's AMQP answers: what the SASL layer offers, the frame limits, the idle timeout."""

    mechanisms: tuple[str, ...] = BROKER_SASL_MECHANISMS
    max_frame_size: int = BROKER_MAX_FRAME_SIZE
    sasl_max_frame_size: int = SASL_MAX_FRAME_SIZE
    idle_timeout: int = DEFAULT_CONNECTION_TTL  # ms, the transport's; the Open says half; 0: none
    notes: tuple[str, ...] = field(default=(), compare=False)  # start-up warnings

    @property
    def open_idle_timeout(self) -> int | None:
        """The Open's idle-time-out: proton-j advertises half its own timeout, none when it has none."""
        return self.idle_timeout // 2 if self.idle_timeout > 0 else None

    @cached_property
    def failure_open(self) -> bytes:
        """The encoded Open before every refusing Close, made once per acceptor."""
        return encode_open(broker_failure_open(self.max_frame_size, self.open_idle_timeout))

    def server(self) -> AmqpServer:
        return AmqpServer(self.mechanisms, max_frame_size=self.max_frame_size,
                          sasl_max_frame_size=self.sasl_max_frame_size, failure_open=self.failure_open)


DEFAULT_AMQP = AmqpSettings()


def amqp_settings(params: Mapping[str, str | None], ttl_override: int = NO_TTL_OVERRIDE,
                  where: str = "") -> AmqpSettings:
    """The settings an acceptor with these combined params (params and extraProps) gives."""
    notes: list[str] = []
    mechanisms = BROKER_SASL_MECHANISMS
    if "saslMechanisms" in params:
        text = params["saslMechanisms"]
        if text is None:
            notes.append(f"{where}saslMechanisms has no value: beanutils makes it [null], which the broker's SASL "
                         "layer cannot offer; serve offers the default PLAIN, ANONYMOUS")
        else:
            mechanisms = tuple(bean_string_array(text)) or ANONYMOUS_ONLY
            notes.extend(_mechanism_notes(mechanisms, where))
    max_frame = bean_int(params["maxFrameSize"]) if "maxFrameSize" in params else BROKER_MAX_FRAME_SIZE
    sasl_frame = (bean_int(params["initialRemoteMaxFrameSize"]) if "initialRemoteMaxFrameSize" in params
                  else SASL_MAX_FRAME_SIZE)
    ttl = DEFAULT_CONNECTION_TTL
    if ttl_override != NO_TTL_OVERRIDE:
        ttl = ttl_override
    if "amqpIdleTimeout" in params:
        ttl = bean_long(params["amqpIdleTimeout"])
    idle = _java_int_cast(max(ttl, 0))
    return AmqpSettings(mechanisms, max_frame, sasl_frame, idle, tuple(notes))


def _mechanism_notes(mechanisms: tuple[str, ...], where: str) -> list[str]:
    notes = []
    unserved = [m for m in mechanisms if m in LOGIN_MODULE_MECHANISMS]
    if unserved:
        notes.append(f"{where}saslMechanisms offers {', '.join(unserved)}, which the broker carries out with its "
                     "JAAS login modules: serve cannot, and answers a client choosing one with sasl-outcome sys")
    if "EXTERNAL" in mechanisms:
        notes.append(f"{where}saslMechanisms offers EXTERNAL: serve asks for no client certificate, so a client "
                     "choosing it gets sasl-outcome sys (the broker's answer without a peer certificate)")
    if not any(m in SERVED_SASL_MECHANISMS for m in mechanisms):
        notes.append(f"{where}saslMechanisms={','.join(mechanisms)}: no SASL client can log in; only clients "
                     "that skip SASL reach the router")
    return notes


def bean_long(text: str | None) -> int:
    """beanutils' conversion to ``Long``: ``Long.valueOf`` of the trimmed text, else 0."""
    value = java_parse_long(java_trim(text)) if text is not None else None
    return 0 if value is None else value


def bean_int(text: str | None) -> int:
    """beanutils' conversion to ``int``: ``Integer.valueOf`` of the trimmed text, else 0."""
    value = java_parse_int(java_trim(text)) if text is not None else None
    return 0 if value is None else value


def _java_int_cast(value: int) -> int:
    """``(int) value`` of a Java long."""
    return (value + 2**31) % 2**32 - 2**31


# java.io.StreamTokenizer as beanutils' ArrayConverter sets it up (delimiter ',', allowed '.' '-')
_QUOTES = "\"'"
_ESCAPES = {"a": "\x07", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\x0b"}


def _word_char(ch: str) -> bool:
    code = ord(ch)
    return (ch.isascii() and ch.isalnum()) or ch in ".-" or 160 <= code <= 255 or code >= 256


def _blank(ch: str) -> bool:
    return ord(ch) <= 0x20 or ch == ","


def bean_string_array(text: str) -> list[str]:
    """beanutils' ``String[]`` conversion (ArrayConverter.parseElements) of ``text``."""
    value = java_trim(text)
    if value.startswith("{") and value.endswith("}"):
        value = value[1:-1]
    words: list[str] = []
    i, n = 0, len(value)
    while i < n:
        ch = value[i]
        if _blank(ch):
            i += 1
        elif _word_char(ch):
            start = i
            while i < n and _word_char(value[i]):
                i += 1
            words.append(value[start:i])
        elif ch in _QUOTES:
            word, i = _quoted(value, i + 1, ch)
            words.append(word)
        elif ch == "/":  # a comment to the end of the line
            while i < n and value[i] not in "\r\n":
                i += 1
        else:  # an ordinary character: a token without a word, which the converter skips
            i += 1
    return words


def _quoted(value: str, i: int, quote: str) -> tuple[str, int]:
    out: list[str] = []
    n = len(value)
    while i < n and value[i] != quote and value[i] not in "\r\n":
        ch = value[i]
        i += 1
        if ch == "\\" and i < n:
            ch = value[i]
            i += 1
            if "0" <= ch <= "7":
                digits = ch
                limit = 3 if ch <= "3" else 2
                while len(digits) < limit and i < n and "0" <= value[i] <= "7":
                    digits += value[i]
                    i += 1
                ch = chr(int(digits, 8))
            else:
                ch = _ESCAPES.get(ch, ch)
        out.append(ch)
    if i < n and value[i] == quote:
        i += 1
    return "".join(out), i


def connection_ttl_override(cfg: BrokerConfig) -> tuple[int, str | None]:
    """``<connection-ttl-override>`` as FileConfigurationParser reads it (the first element of that
    name under ``<core>``, trimmed, Long.parseLong, -1 or more than 0), and a warning when the
    broker would refuse it (it then does not start; serve carries on without the override)."""
    core = cfg.core
    element = first_descendant(core, "connection-ttl-override") if core is not None else None
    if element is None:
        return NO_TTL_OVERRIDE, None
    text = text_content(element)
    value = java_int(text, bits=64)
    if value is None or not (value == NO_TTL_OVERRIDE or value > 0):
        return NO_TTL_OVERRIDE, (f"<connection-ttl-override>{java_trim(text)}</connection-ttl-override> is not -1 "
                                 "or a number greater than 0: the broker does not start with it (serve ignores it)")
    return value, None
