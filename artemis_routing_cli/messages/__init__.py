"""Messages through a broker: the filter language, divert flow and cluster-connection matching.

Public API::

    parse_filter(text) -> Filter                  # raises FilterSyntaxError (.column, 1-based)
    Filter.evaluate(msg) -> True | False | None | UNSUPPORTED;  Filter.verdict(msg) -> Verdict
    Message(address, properties, headers, routing_type);  message_from_json(obj) -> Message
    parse_typed_literal(text) -> typed value     # CLI --message-property NAME=VALUE
    simulate_message(config, address, message, routing_type=None) -> FlowResult   (messages.flow)
    cluster_matches(cc_address, address) -> bool                                 (messages.cluster)
    divert_problems(config) -> list[(Divert, code, message)]                     (messages.checks)
"""

from __future__ import annotations

from .message import Message, message_from_json
from .selector import UNSUPPORTED, Filter, FilterSyntaxError, Verdict, parse_filter, parse_optional_filter
from .values import JBigDecimal, JByte, JFloat, JLong, JShort, kind, parse_typed_literal

__all__ = [
    "UNSUPPORTED",
    "Filter",
    "FilterSyntaxError",
    "JBigDecimal",
    "JByte",
    "JFloat",
    "JLong",
    "JShort",
    "Message",
    "Verdict",
    "kind",
    "message_from_json",
    "parse_filter",
    "parse_optional_filter",
    "parse_typed_literal",
]
