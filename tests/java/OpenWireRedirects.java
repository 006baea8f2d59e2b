// Connect COUNT times in a row with the ActiveMQ Classic OpenWire client and a failover: URL to a
// redirecting acceptor, and print one JSON line per connection: the broker the failover transport
// ended up connected to (it follows the ConnectionControl redirect on its own).
// usage: java -cp ... OpenWireRedirects HOST PORT COUNT CLIENT_ID_PREFIX
import javax.jms.Connection;
import org.apache.activemq.ActiveMQConnection;
import org.apache.activemq.ActiveMQConnectionFactory;
import org.apache.activemq.transport.failover.FailoverTransport;

public final class OpenWireRedirects {
    public static void main(String[] args) throws Exception {
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        int count = Integer.parseInt(args[2]);
        String prefix = args[3];
        for (int i = 0; i < count; i++) {
            String url = "failover:(tcp://" + host + ":" + port + ")?startupMaxReconnectAttempts=0"
                + "&maxReconnectAttempts=3&initialReconnectDelay=10&timeout=20000";
            ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(url);
            Connection connection = factory.createConnection();
            String connected;
            try {
                connection.setClientID(prefix + "-" + i);
                connection.start();
                FailoverTransport failover = ((ActiveMQConnection) connection).getTransport().narrow(FailoverTransport.class);
                connected = String.valueOf(failover.getConnectedTransportURI());
            } catch (Exception e) {
                connected = "error: " + e;
            } finally {
                try {
                    connection.close();
                } catch (Exception ignored) {
                    // the outcome is printed below
                }
            }
            System.out.println("{\"index\": " + i + ", \"connected\": \"" + connected.replace("\"", "'") + "\"}");
        }
    }
}
