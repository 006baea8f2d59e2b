"""arouter: offline tooling for Apache ActiveMQ Artemis connection routing."""

__version__ = "0.1.0"
