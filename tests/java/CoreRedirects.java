// Connect COUNT times with the Artemis CORE/JMS client of the distribution (lib/) to a redirecting
// acceptor, one client id per connection, and print one JSON line per connection: the address the
// client is connected to once its session exists (it follows the broker's DISCONNECT_V3 redirect on
// its own), and with SEND, whether a message sent there and received back arrived.
// usage: java -cp lib/*:. CoreRedirects URL COUNT CLIENT_ID_PREFIX [SEND]
import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.MessageProducer;
import javax.jms.Queue;
import javax.jms.Session;
import javax.jms.TextMessage;
import org.apache.activemq.artemis.jms.client.ActiveMQConnection;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;

public final class CoreRedirects {
    public static void main(String[] args) throws Exception {
        String url = args[0];
        int count = Integer.parseInt(args[1]);
        String prefix = args[2];
        boolean send = args.length > 3 && args[3].equals("SEND");
        for (int i = 0; i < count; i++) {
            String id = prefix + i;
            String remote;
            String sent = "";
            ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(url);
            factory.setClientID(id);
            try (Connection connection = factory.createConnection("a", "a")) {
                Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
                remote = String.valueOf(((ActiveMQConnection) connection).getSessionFactory().getConnection()
                    .getRemoteAddress());
                if (send) {
                    Queue queue = session.createQueue("arouter.redirected." + id);
                    MessageProducer producer = session.createProducer(queue);
                    producer.send(session.createTextMessage("hello " + id));
                    connection.start();
                    MessageConsumer consumer = session.createConsumer(queue);
                    TextMessage got = (TextMessage) consumer.receive(30000);
                    sent = got == null ? "lost" : got.getText();
                }
            } catch (Exception e) {
                remote = "error: " + e;
            }
            System.out.println("{\"client_id\": \"" + id + "\", \"remote\": \"" + remote.replace("\"", "'")
                + "\", \"received\": \"" + sent + "\"}");
        }
    }
}
