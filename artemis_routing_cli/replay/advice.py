"""What a log needs for a complete replay: the log4j2 lines to add to the broker's etc/log4j2.properties.

At INFO the broker's route line names the connection and the target, not the router's key. The key
is in the DEBUG lines of three loggers of the routing package; USER_NAME and ROLE_NAME are also in the
audit resource logger's AMQ601715 (off in the distribution's file). Logger names as the broker's
classes declare them (``LoggerFactory.getLogger(MethodHandles.lookup().lookupClass())``).
"""

from __future__ import annotations

ROUTING = "org.apache.activemq.artemis.core.server.routing"
#: (log4j2 id, logger name, what it adds)
DEBUG_LOGGERS = (
    ("arouter_key", f"{ROUTING}.KeyResolver", "the key value and the key-filter's match"),
    ("arouter_router", f"{ROUTING}.ConnectionRouter",
     "the cache's answer, the local-target-filter and the policy's choice"),
    ("arouter_pool", f"{ROUTING}.pools.AbstractPool", "the ready targets at each decision"),
)


#: the first version that reads etc/log4j2.properties (before: JBoss LogManager's etc/logging.properties)
LOG4J2_FROM = (2, 27)


def logging_file(version: tuple[int, int] | None) -> str:
    return "etc/logging.properties" if version is not None and version < LOG4J2_FROM else "etc/log4j2.properties"


#: a pattern with the thread, so that interleaved decisions' DEBUG lines keep apart (replay --pattern reads it)
THREAD_PATTERN = "%d %-5level [%logger] [%t] %msg%n"


def thread_lines() -> list[str]:
    """What to change when DEBUG lines of concurrent decisions interleave: the thread in the pattern."""
    return ["# decisions interleave: add the thread to the pattern, then replay with --pattern '"
            + THREAD_PATTERN + "'",
            f"appender.log_file.layout.pattern = {THREAD_PATTERN}"]


def log4j2_lines(key_types: set[str], version: tuple[int, int] | None = None) -> list[str]:
    """The lines that make the next replay of routers keyed by ``key_types`` complete, in the logging
    configuration the broker ``version`` reads (log4j2 when it is not known)."""
    if version is not None and version < LOG4J2_FROM:
        lines = ["# arouter replay: each routing decision's key, cache answer and ready targets",
                 f"# append ,{ROUTING} to the existing loggers= line, then:",
                 f"logger.{ROUTING}.level=DEBUG"]
        if key_types & {"USER_NAME", "ROLE_NAME"}:
            lines += ["# or, for USER_NAME and ROLE_NAME only: the audit log's AMQ601715, instead of ERROR:",
                      "logger.org.apache.activemq.audit.resource.level=INFO"]
        return lines
    lines = ["# arouter replay: each routing decision's key, cache answer and ready targets"]
    for ident, name, _ in DEBUG_LOGGERS:
        lines += [f"logger.{ident}.name={name}", f"logger.{ident}.level=DEBUG"]
    if key_types & {"USER_NAME", "ROLE_NAME"}:
        lines += ["# or, for USER_NAME and ROLE_NAME only: the audit log's AMQ601715 (user, roles, connection id),",
                  "# replacing the distribution's 'logger.audit_resource.level = OFF'",
                  "logger.audit_resource.level = INFO"]
    return lines
