// The JDK's own java.util.Properties.load on each file named on the command line, keys in
// insertion order as the broker's InsertionOrderedProperties keeps them (first place, last value).
// Output per file: "FILE <name>", then "E <hex key> <hex value>" lines, or "X <message>".
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

public class PropsOracle {
    static final class Ordered extends Properties {
        final LinkedHashMap<Object, Object> order = new LinkedHashMap<>();

        @Override
        public synchronized Object put(Object key, Object value) {
            return order.put(key.toString(), value.toString());
        }
    }

    static String hex(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            b.append(String.format("%04x", (int) s.charAt(i)));
        }
        return b.length() == 0 ? "-" : b.toString();
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String name : args) {
            out.append("FILE ").append(name).append('\n');
            Ordered p = new Ordered();
            try (InputStream in = new FileInputStream(name)) {
                p.load(in);
                for (Map.Entry<Object, Object> e : p.order.entrySet()) {
                    out.append("E ").append(hex((String) e.getKey())).append(' ')
                       .append(hex((String) e.getValue())).append('\n');
                }
            } catch (IllegalArgumentException e) {
                out.append("X ").append(e.getMessage()).append('\n');
            }
        }
        System.out.print(out);
    }
}
