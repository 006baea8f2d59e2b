// Connect COUNT times in a row to an AMQP redirector with rhea, one connection after the other,
// and print one JSON line per connection: what the client saw of the redirect.
// usage: node rhea_redirects.js HOST PORT COUNT [tls]
'use strict';
const rhea = require('rhea');

const [host, portText, countText] = process.argv.slice(2);
const port = Number(portText);
const count = Number(countText || '1');
const tls = process.argv[5] === 'tls';

function once(index) {
  return new Promise((resolve) => {
    const container = rhea.create_container({ id: `rhea-${index}` });
    let result = null;
    const finish = (outcome) => {
      if (result === null) {
        result = outcome;
        resolve(outcome);
      }
    };
    container.on('connection_close', (context) => {
      const error = context.connection.error || null;
      finish({ index, closed: true, condition: error && error.condition,
               info: error && error.info ? error.info : null });
    });
    container.on('disconnected', (context) => {
      finish({ index, closed: false, error: context.error ? String(context.error.message || context.error) : null });
    });
    container.on('error', () => {});
    // reconnect off: the application follows the redirect (rhea hands it over in connection_close)
    const options = { host, port, reconnect: false };
    if (tls) Object.assign(options, { transport: 'tls', rejectUnauthorized: false });
    const connection = container.connect(options);
    // as applications do: a link at once, so the client's Begin and Attach follow its Open unasked
    connection.open_receiver('orders');
    connection.open_sender('orders');
  });
}

(async () => {
  for (let i = 0; i < count; i += 1) {
    const outcome = await once(i);
    process.stdout.write(JSON.stringify(outcome) + '\n');
  }
})();
