// Connect COUNT times in a row to an MQTT redirector with MQTT.js, one connection after the other,
// and print one JSON line per connection: the CONNACK's reason code and Server Reference.
// usage: node mqtt_redirects.js HOST PORT COUNT VERSION(5|4) CLIENT_ID_PREFIX
'use strict';
const mqtt = require('mqtt');

const [host, portText, countText, versionText, prefix] = process.argv.slice(2);
const count = Number(countText || '1');
const protocolVersion = Number(versionText || '5');

function once(index) {
  return new Promise((resolve) => {
    let result = null;
    const finish = (outcome) => {
      if (result === null) {
        result = outcome;
        client.end(true);
        resolve(outcome);
      }
    };
    const client = mqtt.connect({
      host, port: Number(portText), protocolVersion, clientId: `${prefix || 'mqttjs'}-${index}`,
      reconnectPeriod: 0, connectTimeout: 20000, clean: true,
    });
    // MQTT.js does not follow a Server Reference: the application reads it from the CONNACK
    client.on('packetreceive', (packet) => {
      if (packet.cmd === 'connack') {
        const code = packet.reasonCode !== undefined ? packet.reasonCode : packet.returnCode;
        const reference = packet.properties ? packet.properties.serverReference || null : null;
        finish({ index, connack: code, serverReference: reference });
      }
    });
    client.on('error', (error) => {
      if (result === null && error.code === undefined) finish({ index, error: String(error.message) });
    });
    client.on('close', () => finish({ index, error: 'closed without CONNACK' }));
  });
}

(async () => {
  for (let i = 0; i < count; i += 1) {
    const outcome = await once(i);
    process.stdout.write(JSON.stringify(outcome) + '\n');
  }
})();
