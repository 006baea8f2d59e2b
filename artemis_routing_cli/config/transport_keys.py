"""The URL parameters the broker keeps as transport parameters (``TransportConstants``' allowable keys).

The broker's TCP URL schema copies a query parameter into the transport *params* only when its
name is in the acceptor's (or connector's) allowable set; every other name goes to *extraProps*
(``BeanSupport.setData``). Netty reads only params; protocol managers also see extraProps
(``getCombinedParams``), which is how acceptor-only settings such as ``amqpCredits`` work.
The lists below are the names in Artemis 2.4x's ``TransportConstants`` (plus the two
``activemq.*`` password settings), so a spelling mistake such as ``sslEnable`` is an extraProp
the transport never reads.
"""

from __future__ import annotations

# Both sides.
_SHARED = frozenset({
    "activemq.passwordcodec", "activemq.usemaskedpassword", "batchDelay", "crlPath", "enabledCipherSuites",
    "enabledProtocols", "handshake-timeout", "host", "httpUpgradeEnabled", "keyStoreAlias", "keyStorePassword",
    "keyStorePath", "keyStoreProvider", "keyStoreType", "nioRemotingThreads", "port", "remotingThreads",
    "sniHost", "sslEnabled", "sslProvider", "tcpNoDelay", "tcpReceiveBufferSize", "tcpSendBufferSize",
    "trustManagerFactoryPlugin", "trustStorePassword", "trustStorePath", "trustStoreProvider", "trustStoreType",
    "useEpoll", "useKQueue", "useNio", "verifyHost", "writeBufferHighWaterMark", "writeBufferLowWaterMark",
})

ACCEPTOR_KEYS: frozenset[str] = _SHARED | {
    "autoStart", "backlog", "clusterConnection", "connectionTtl", "connectionTtlMax", "connectionTtlMin",
    "connectionsAllowed", "directDeliver", "disableStompServerHeader", "heartBeatToConnectionTtlModifier",
    "httpResponseTime", "httpServerScanPeriod", "needClientAuth", "protocol", "protocols", "proxyProtocolEnabled",
    "quietPeriod", "router", "scheme", "shutdownTimeout", "sslAutoReload", "stomp-enable-message-id",
    "stomp-min-large-message-size", "stompConsumerCredits", "stompConsumerWindowSize", "stompEnableMessageId",
    "stompMaxFramePayloadLength", "stompMinLargeMessageSize", "useInvm", "wantClientAuth",
    "webSocketMaxFramePayloadLength",
}

CONNECTOR_KEYS: frozenset[str] = _SHARED | {
    "activemqServerName", "connect-timeout-millis", "forceSSLParameters", "httpClientIdleScanPeriod",
    "httpClientIdleTime", "httpEnabled", "httpRequiresSessionId", "httpUpgradeEndpoint", "localAddress",
    "localPort", "servletPath", "socksEnabled", "socksHost", "socksPassword", "socksPort", "socksRemoteDNS",
    "socksUsername", "socksVersion", "trustAll", "useDefaultSslContext", "useGlobalWorkerPool",
    "useNioGlobalWorkerPool", "useServlet",
}

# The protocol names a stock broker registers (ProtocolManagerFactory.getProtocols), case-sensitive.
BROKER_PROTOCOLS: tuple[str, ...] = ("AMQP", "CORE", "HORNETQ", "MQTT", "OPENWIRE", "STOMP")

# The URL schemas the broker's transport parsers register (URIFactory looks the scheme up exactly).
SCHEMES: tuple[str, ...] = ("tcp", "vm")
