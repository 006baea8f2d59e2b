// Which file names a broker properties list entry's ?filter= picks, by the JDK's own URLDecoder and
// java.util.regex, the way ConfigurationImpl.parseProperties reads the entry with URISupport
// (query after the last '?', parameters split on & and ;, names and values URL-decoded, last wins).
// Arguments: the entry, then the names in the directory. Output: "ok", then the picked names in
// Arrays.sort order, one a line (as hex of their UTF-16 units); or "fail <exception>".
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

public class FilterOracle {
    static String hex(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            b.append(String.format("%04x", (int) s.charAt(i)));
        }
        return b.toString();
    }

    public static void main(String[] args) {
        String entry = args[0];
        try {
            Pattern pattern = Pattern.compile(".*\\.(json|properties)");
            if (entry.contains("?")) {
                String query = entry.substring(entry.lastIndexOf('?') + 1);
                Map<String, String> params = new HashMap<>();
                if (!query.isEmpty()) {
                    for (String parameter : query.split("[&;]")) {
                        int eq = parameter.indexOf('=');
                        if (eq >= 0) {
                            params.put(URLDecoder.decode(parameter.substring(0, eq), StandardCharsets.UTF_8),
                                       URLDecoder.decode(parameter.substring(eq + 1), StandardCharsets.UTF_8));
                        } else {
                            params.put(parameter, null);
                        }
                    }
                }
                if (params.containsKey("filter")) {
                    pattern = Pattern.compile(params.get("filter"));
                }
            }
            List<String> picked = new ArrayList<>();
            for (int i = 1; i < args.length; i++) {
                if (pattern.matcher(args[i]).matches()) {
                    picked.add(args[i]);
                }
            }
            String[] sorted = picked.toArray(new String[0]);
            java.util.Arrays.sort(sorted);
            StringBuilder out = new StringBuilder("ok\n");
            for (String name : sorted) {
                out.append(hex(name)).append('\n');
            }
            System.out.print(out);
        } catch (Exception e) {
            System.out.println("fail " + e.getClass().getName());
        }
    }
}
