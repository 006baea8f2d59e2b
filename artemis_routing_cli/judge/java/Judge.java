package arouter.judge;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.activemq.artemis.api.core.TransportConfiguration;
import org.apache.activemq.artemis.core.config.ClusterConnectionConfiguration;
import org.apache.activemq.artemis.core.config.FileDeploymentManager;
import org.apache.activemq.artemis.core.config.impl.FileConfiguration;
import org.apache.activemq.artemis.core.config.routing.ConnectionRouterConfiguration;
import org.apache.activemq.artemis.core.config.routing.PoolConfiguration;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.management.ManagementService;
import org.apache.activemq.artemis.core.server.routing.ConnectionRouterManager;

/**
 * arouter's second judge: the installation's own loader on one broker.xml, as the broker does at start-up,
 * without starting a server (no acceptor, journal, data directory or network).
 *
 * <p>Stages, in the broker's order: file deployment (FileDeploymentManager: ${} substitution, XInclude,
 * the schema of the first {@code core} element, FileConfigurationParser), the broker properties
 * (ConfigurationImpl.parseProperties; its errors go to the status, as in the broker), then every connection
 * router as ConnectionRouterManager.deployConnectionRouter builds it (cache, pool, policy and its
 * properties, key and local-target filters). Pools are built, never started: their start connects to the
 * targets. What a start does that can stop the broker without the network is said from the configuration
 * (a cluster pool whose cluster connection ClusterManager would not deploy, a discovery pool whose group
 * does not exist: both a NullPointerException in the broker).
 *
 * <p>Input: arguments {@code load BROKER.XML [PROPERTIES]}; stdin: system properties for ${}, in
 * java.util.Properties form. Output (stdout, UTF-8, one record per line, tab-separated, tabs and line
 * breaks escaped): {@code STATUS json}, {@code ROUTER name}, then {@code VERDICT starts} or
 * {@code VERDICT refuses stage router exception-class message}.
 */
public final class Judge {
   private static PrintStream out;

   private Judge() {
   }

   public static void main(String[] args) throws Exception {
      out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
      System.setOut(System.err); // the broker's log lines go to stderr: stdout holds only the records
      Properties defined = new Properties();
      defined.load(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
      for (String name : defined.stringPropertyNames()) {
         System.setProperty(name, defined.getProperty(name));
      }
      if (args.length >= 2 && args[0].equals("load")) {
         load(args[1], args.length > 2 ? args[2] : "");
      } else if (args.length == 2 && args[0].equals("batch")) {
         // one JVM for many files: LIST holds a line per file, BROKER.XML TAB PROPERTIES
         for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get(args[1]), StandardCharsets.UTF_8)) {
            String[] parts = line.split("\t", -1);
            out.println("FILE\t" + clean(parts[0]));
            load(parts[0], parts.length > 1 ? parts[1] : "");
         }
      } else if (args.length == 2 && args[0].equals("route")) {
         Route.run(args[1], out);
      } else {
         System.err.println("usage: load BROKER.XML [PROPERTIES] | batch LIST | route CASES");
         System.exit(64);
      }
      System.exit(0);
   }

   /** ConfigurationImpl.getStatus() where the version has it (2.27 and later); "" before. */
   private static String status(FileConfiguration configuration) {
      try {
         return String.valueOf(configuration.getClass().getMethod("getStatus").invoke(configuration));
      } catch (ReflectiveOperationException absent) {
         return "";
      }
   }

   static String clean(String text) {
      if (text == null) {
         return "";
      }
      return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\r", "\\r").replace("\n", "\\n");
   }

   private static void refuse(String stage, String router, Throwable error) {
      Throwable shown = error;
      // the broker's "Invalid configuration" wraps the schema's own message: show both
      String message = shown.getMessage();
      if (shown.getCause() != null && shown.getCause() != shown) {
         message = message + ": " + shown.getCause().getClass().getName() + ": " + shown.getCause().getMessage();
      }
      out.println("VERDICT\trefuses\t" + stage + "\t" + clean(router) + "\t" + shown.getClass().getName() + "\t"
                     + clean(message));
   }

   static void load(String xml, String properties) {
      FileConfiguration configuration = new FileConfiguration();
      String stage = "parse";
      String router = "";
      try {
         FileDeploymentManager deployment = new FileDeploymentManager(new File(xml).toURI().toString());
         deployment.addDeployable(configuration);
         deployment.readConfiguration();
         stage = "properties";
         configuration.parseProperties(properties.isEmpty() ? null : properties);
         out.println("STATUS\t" + clean(status(configuration)));
         stage = "routers";
         ScheduledExecutorService scheduled = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "arouter-judge");
            t.setDaemon(true);
            return t;
         });
         ConnectionRouterManager manager = new ConnectionRouterManager(configuration, server(configuration), scheduled);
         for (ConnectionRouterConfiguration routerConfiguration : configuration.getConnectionRouters()) {
            router = routerConfiguration.getName();
            String startFailure = startFailure(configuration, routerConfiguration);
            manager.deployConnectionRouter(routerConfiguration);
            if (startFailure != null) {
               stage = "start";
               throw new NullPointerException(startFailure);
            }
            out.println("ROUTER\t" + clean(router));
         }
         stage = "diverts";
         router = "";
         // ActiveMQServerImpl.deployDivert builds each divert's filter (FilterImpl.createFilter) as it starts
         for (org.apache.activemq.artemis.core.config.DivertConfiguration divert : configuration.getDivertConfigurations()) {
            router = divert.getName();
            org.apache.activemq.artemis.core.filter.impl.FilterImpl.createFilter(divert.getFilterString());
         }
         stage = "acceptors";
         router = "";
         checkAcceptors(configuration);
         out.println("VERDICT\tstarts");
      } catch (Throwable error) {
         refuse(stage, router, error);
      }
   }

   /**
    * What NettyAcceptor.startServerChannels throws before a byte goes on the network: a port out of range
    * (InetSocketAddress refuses it; createUnresolved checks the same without resolving), and the host
    * "null" a URL java.net.URI cannot read leaves (it never resolves, so the bind fails). Other host names
    * are not resolved here (that is the network); RemotingServiceImpl's first failure stops the broker.
    */
   private static void checkAcceptors(FileConfiguration configuration) throws Exception {
      for (TransportConfiguration acceptor : configuration.getAcceptorConfigurations()) {
         if (acceptor.getFactoryClassName() == null || !acceptor.getFactoryClassName().contains("Netty")) {
            continue;
         }
         java.util.Map<String, Object> params = acceptor.getParams();
         Object host = params.getOrDefault("host", "0.0.0.0");
         Object port = params.getOrDefault("port", 61616);
         int number = port instanceof Number ? ((Number) port).intValue() : Integer.parseInt(String.valueOf(port).trim());
         for (String h : String.valueOf(host).split(",")) {
            java.net.InetSocketAddress.createUnresolved(h.trim(), number);
            if (h.trim().equals("null")) {
               throw new java.net.UnknownHostException("acceptor " + acceptor.getName() + ": host null does not resolve: "
                                                          + "the bind fails (failedToBind)");
            }
         }
      }
   }

   /** What the router's start would throw without the network; the pool is then built static and empty. */
   private static String startFailure(FileConfiguration configuration, ConnectionRouterConfiguration router) {
      PoolConfiguration pool = router.getPoolConfiguration();
      if (pool == null) {
         return null;
      }
      String failure = null;
      if (pool.getClusterConnection() != null) {
         String name = pool.getClusterConnection();
         if (!clusterConnectionDeployed(configuration, name)) {
            failure = "ClusterPool.start: cluster connection " + name + " is not deployed by ClusterManager";
         }
         pool.setClusterConnection(null);
         pool.setStaticConnectors(new ArrayList<>());
      } else if (pool.getDiscoveryGroupName() != null) {
         String name = pool.getDiscoveryGroupName();
         if (configuration.getDiscoveryGroupConfigurations().get(name) == null) {
            failure = "DiscoveryGroupService.start: discovery group " + name + " does not exist";
         }
         pool.setDiscoveryGroupName(null);
         pool.setStaticConnectors(new ArrayList<>());
      }
      return failure;
   }

   /** ClusterManager.deployClusterConnection's checks: the first of that name, valid, its connector and group there. */
   private static boolean clusterConnectionDeployed(FileConfiguration configuration, String name) {
      for (ClusterConnectionConfiguration cc : configuration.getClusterConfigurations()) {
         if (cc.getName() == null || !cc.getName().equals(name)) {
            continue;
         }
         if (!cc.validateConfiguration()) {
            return false;
         }
         TransportConfiguration connector = configuration.getConnectorConfigurations().get(cc.getConnectorName());
         if (connector == null) {
            return false;
         }
         return cc.getDiscoveryGroupName() == null
            || configuration.getDiscoveryGroupConfigurations().get(cc.getDiscoveryGroupName()) != null;
      }
      return false;
   }

   static Object answer(Class<?> type) {
      if (type == boolean.class) {
         return false;
      }
      if (type == int.class || type == long.class || type == short.class || type == byte.class
         || type == double.class || type == float.class || type == char.class) {
         return java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(type, 1), 0);
      }
      return null;
   }

   /** The server as ConnectionRouterManager sees it while deploying: its configuration, a silent management. */
   static ActiveMQServer server(FileConfiguration configuration) {
      ClassLoader loader = Judge.class.getClassLoader();
      InvocationHandler silent = (proxy, method, args) -> answer(method.getReturnType());
      ManagementService management = (ManagementService) Proxy.newProxyInstance(loader,
         new Class<?>[]{ManagementService.class}, silent);
      InvocationHandler handler = (proxy, method, args) -> {
         switch (method.getName()) {
            case "getConfiguration":
               return configuration;
            case "getManagementService":
               return management;
            case "getNodeID": // 2.21's LocalTarget reads it as it is made
               return org.apache.activemq.artemis.api.core.SimpleString.toSimpleString("arouter-local-node");
            case "toString":
               return "arouter judge";
            case "hashCode":
               return 0;
            case "equals":
               return proxy == args[0];
            default:
               return answer(method.getReturnType());
         }
      };
      return (ActiveMQServer) Proxy.newProxyInstance(loader, new Class<?>[]{ActiveMQServer.class}, handler);
   }
}
