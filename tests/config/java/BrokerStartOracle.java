import java.io.File;
import org.apache.activemq.artemis.core.config.FileDeploymentManager;
import org.apache.activemq.artemis.core.config.impl.FileConfiguration;
import org.apache.activemq.artemis.core.config.routing.ConnectionRouterConfiguration;
import org.apache.activemq.artemis.core.server.impl.ActiveMQServerImpl;

/**
 * The real broker's start-up, as far as a test needs it: for each (broker.xml, broker properties or
 * "", instance folder) given, read the file as the broker does (FileDeploymentManager, the broker's
 * reader and parser), then start an ActiveMQServerImpl on it (no persistence, no JMX), which applies
 * the broker properties and deploys the connection routers. Prints, per case:
 *   CASE path
 *   PARSE exception            (the file is refused while it is read or parsed)
 *   ROUTER name keyFilter      (each router's key-filter as UTF-16 units in hex, "null" when unset)
 *   STATE state                (STARTED, or STARTING when start-up failed: the log line before says why)
 */
public class BrokerStartOracle {
    public static void main(String[] args) throws Exception {
        for (int i = 0; i + 2 < args.length; i += 3) {
            System.out.println("CASE " + args[i]);
            System.out.flush();
            FileConfiguration config = new FileConfiguration();
            FileDeploymentManager deployment = new FileDeploymentManager(new File(args[i]).toURI().toString());
            deployment.addDeployable(config);
            try {
                deployment.readConfiguration();
            } catch (Throwable t) {
                System.out.println("PARSE " + t);
                continue;
            }
            config.setBrokerInstance(new File(args[i + 2]));
            config.setPersistenceEnabled(false);
            config.setSecurityEnabled(false);
            config.setJMXManagementEnabled(false);
            ActiveMQServerImpl server = new ActiveMQServerImpl(config);
            if (!args[i + 1].isEmpty()) {
                server.setProperties(args[i + 1]);
            }
            try {
                server.start();
                System.out.flush();
                for (ConnectionRouterConfiguration router : config.getConnectionRouters()) {
                    System.out.println("ROUTER " + router.getName() + " " + units(router.getKeyFilter()));
                }
                System.out.println("STATE " + server.getState());
            } finally {
                server.stop();
            }
            System.out.flush();
        }
    }

    private static String units(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < text.length(); k++) {
            out.append(k == 0 ? "" : ",").append(Integer.toHexString(text.charAt(k)));
        }
        return out.length() == 0 ? "-" : out.toString();
    }
}
