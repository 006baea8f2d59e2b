"""``arouter probe``: check a router's pool targets now, as the broker's TargetMonitor would.

Public API:

* :func:`runner.probe` / :func:`runner.run_probe` — every pool of a loaded broker.xml → ProbeReport;
* :func:`runner.check_endpoint` — one target (connect, TLS, handshake, Jolokia) → Check;
* :func:`readiness.judge` — the readiness rule (shared with ``arouter serve``);
* :func:`runner.report_targets` — a report as ``routing.targets.Target``s for the targets file.

Modules: ``resolve`` (pool members from broker.xml), ``discovery`` + ``broadcast`` (UDP
discovery groups), ``connect`` (DNS/TCP/TLS), ``handshake`` (CORE/AMQP/MQTT), ``jolokia`` +
``http`` (management reads), ``readiness``, ``runner``, ``render`` (text/JSON).
"""
