package arouter.judge;

import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import javax.security.auth.Subject;

import org.apache.activemq.artemis.core.config.FileDeploymentManager;
import org.apache.activemq.artemis.core.config.impl.FileConfiguration;
import org.apache.activemq.artemis.core.config.routing.ConnectionRouterConfiguration;
import org.apache.activemq.artemis.core.server.routing.ConnectionRouter;
import org.apache.activemq.artemis.core.server.routing.ConnectionRouterManager;
import org.apache.activemq.artemis.core.server.routing.targets.Target;
import org.apache.activemq.artemis.core.server.routing.targets.TargetResult;
import org.apache.activemq.artemis.core.server.routing.pools.Pool;
import org.apache.activemq.artemis.spi.core.protocol.RemotingConnection;
import org.apache.activemq.artemis.spi.core.remoting.Connection;
import org.apache.activemq.artemis.spi.core.security.jaas.RolePrincipal;

/**
 * The installation's own ConnectionRouter (key resolution, key-filter, policy and its transformKey,
 * local-target-filter, cache) on given keys. Each router is loaded from a broker.xml and deployed by
 * ConnectionRouterManager as at start-up; only its pool is ours: a fixed list of ready targets with the
 * node ids the case gives (a real pool would connect to them). Input file, one record per line,
 * tab-separated, fields escaped as Judge.clean does, an absent value written as a lone NUL:
 * {@code C  BROKER.XML  ROUTER  NODE-IDS(comma)  PROPERTIES}, then {@code K  CLIENT-ID  USER  REMOTE  SNI  ROLES(\u001f)}.
 * Output per K: {@code STATUS TAB TARGET} (a node id, "local", or empty); per C that fails: {@code X message}.
 */
final class Route {
   private static final String NUL = "\u0000";

   private Route() {
   }

   private static String field(String[] parts, int i) {
      if (i >= parts.length || parts[i].equals(NUL)) {
         return null;
      }
      return unescape(parts[i]);
   }

   private static String unescape(String text) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < text.length(); i++) {
         char c = text.charAt(i);
         if (c == '\\' && i + 1 < text.length()) {
            char n = text.charAt(++i);
            b.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
         } else {
            b.append(c);
         }
      }
      return b.toString();
   }

   static void run(String casesFile, PrintStream out) throws Exception {
      ScheduledExecutorService scheduled = Executors.newSingleThreadScheduledExecutor(r -> {
         Thread t = new Thread(r, "arouter-route");
         t.setDaemon(true);
         return t;
      });
      ConnectionRouter router = null;
      String failed = null;
      for (String line : Files.readAllLines(Paths.get(casesFile), StandardCharsets.UTF_8)) {
         String[] parts = line.split("\t", -1);
         if (parts[0].equals("C")) {
            router = null;
            failed = null;
            try {
               router = deploy(field(parts, 1), field(parts, 2), field(parts, 3), field(parts, 4), scheduled);
            } catch (Throwable error) {
               failed = error.getClass().getName() + ": " + error.getMessage();
               out.println("X\t" + Judge.clean(failed));
            }
         } else if (parts[0].equals("K")) {
            if (router == null) {
               out.println("X");
               continue;
            }
            String roles = field(parts, 5);
            TargetResult result;
            try {
               result = router.getTarget(connection(field(parts, 3), field(parts, 4), roles), field(parts, 1),
                                         field(parts, 2));
            } catch (RuntimeException error) { // the broker's own router throws on this connection
               out.println("THROWS " + error.getClass().getSimpleName() + "\t" + Judge.clean(error.getMessage()));
               continue;
            }
            Target target = result.getTarget();
            String shown = target == null ? "" : target.isLocal() ? "local" : target.getNodeID();
            out.println(result.getStatus() + "\t" + Judge.clean(shown));
         }
      }
   }

   private static String loadedXml;
   private static FileConfiguration loaded;

   private static ConnectionRouter deploy(String xml, String name, String nodeIds, String properties,
                                          ScheduledExecutorService scheduled) throws Exception {
      if (!xml.equals(loadedXml)) { // a file holds many routers: it is read once
         loadedXml = null;
         FileConfiguration fresh = new FileConfiguration();
         FileDeploymentManager deployment = new FileDeploymentManager(new java.io.File(xml).toURI().toString());
         deployment.addDeployable(fresh);
         deployment.readConfiguration();
         fresh.parseProperties(properties);
         loaded = fresh;
         loadedXml = xml;
      }
      FileConfiguration configuration = loaded;
      ConnectionRouterManager manager = new ConnectionRouterManager(configuration, Judge.server(configuration), scheduled);
      for (ConnectionRouterConfiguration config : configuration.getConnectionRouters()) {
         if (config.getName().equals(name)) {
            boolean hadPool = config.getPoolConfiguration() != null;
            manager.deployConnectionRouter(config);
            ConnectionRouter router = manager.getRouter(name);
            if (hadPool) {
               Field pool = ConnectionRouter.class.getDeclaredField("pool");
               pool.setAccessible(true);
               Field local = ConnectionRouter.class.getDeclaredField("localTarget");
               local.setAccessible(true);
               Target localTarget = ((TargetResult) local.get(router)).getTarget();
               pool.set(router, readyPool(nodeIds == null ? new String[0] : nodeIds.split(",", -1), localTarget));
            }
            return router;
         }
      }
      throw new IllegalArgumentException("no connection router " + name);
   }

   private static Target target(String nodeId) {
      return (Target) Proxy.newProxyInstance(Route.class.getClassLoader(), new Class<?>[]{Target.class},
         (proxy, method, args) -> {
            switch (method.getName()) {
               case "getNodeID":
                  return nodeId;
               case "isConnected":
                  return true;
               case "toString":
                  return "target " + nodeId;
               case "hashCode":
                  return nodeId.hashCode();
               case "equals":
                  return proxy == args[0];
               default:
                  return Judge.answer(method.getReturnType());
            }
         });
   }

   /** Ready targets with these node ids, in order; "local:ID" is the router's own LocalTarget (local-target-enabled). */
   private static Pool readyPool(String[] nodeIds, Target localTarget) throws Exception {
      List<Target> targets = new ArrayList<>();
      for (String id : nodeIds) {
         if (id.startsWith("local:")) {
            java.lang.reflect.Method set = org.apache.activemq.artemis.core.server.routing.targets.AbstractTarget.class
               .getDeclaredMethod("setNodeID", String.class);
            set.setAccessible(true);
            set.invoke(localTarget, id.substring("local:".length()));
            targets.add(localTarget);
         } else if (!id.isEmpty()) {
            targets.add(target(id));
         }
      }
      return (Pool) Proxy.newProxyInstance(Route.class.getClassLoader(), new Class<?>[]{Pool.class},
         (proxy, method, args) -> {
            switch (method.getName()) {
               case "getTargets":
               case "getAllTargets":
                  return new ArrayList<>(targets);
               case "getReadyTarget":
               case "getTarget":
                  for (Target t : targets) {
                     if (t.getNodeID().equals(args[0])) {
                        return t;
                     }
                  }
                  return null;
               case "isTargetReady":
               case "isStarted":
                  return true;
               default:
                  return Judge.answer(method.getReturnType());
            }
         });
   }

   private static Connection connection(String remote, String sni, String roles) {
      Subject subject = new Subject();
      if (roles != null) {
         for (String role : roles.split("\u001f", -1)) {
            subject.getPrincipals().add(new RolePrincipal(role));
         }
      }
      RemotingConnection protocol = (RemotingConnection) Proxy.newProxyInstance(Route.class.getClassLoader(),
         new Class<?>[]{RemotingConnection.class}, (proxy, method, args) ->
            method.getName().equals("getSubject") ? (roles == null ? null : subject) : Judge.answer(method.getReturnType()));
      return (Connection) Proxy.newProxyInstance(Route.class.getClassLoader(), new Class<?>[]{Connection.class},
         (proxy, method, args) -> {
            switch (method.getName()) {
               case "getRemoteAddress":
                  return remote;
               case "getSNIHostName":
                  return sni;
               case "getProtocolConnection":
                  return protocol;
               default:
                  return Judge.answer(method.getReturnType());
            }
         });
   }
}
