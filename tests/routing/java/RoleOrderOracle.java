import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.security.auth.Subject;

/**
 * The JDK's own collections as the broker's login path uses them, for arouter's role-order tests.
 *
 * Strings travel as "x" + four hex digits per UTF-16 unit; files as hex bytes. One case per line:
 *   hs TOK...            -> a HashSet<String> filled in that order, iterated
 *   props HEX            -> Properties.load of those bytes, entrySet() keys
 *   login USER HEX       -> the roles file HEX through the broker's login path (re-written here:
 *                           inverted map, login module commit, Subject, getPrincipals(class))
 *   logins USER HEX      -> how many different orders 50 runs of that login path give
 */
public class RoleOrderOracle {
    static final class Role implements Principal {
        final String name;
        Role(String name) { this.name = name; }
        public String getName() { return name; }
        public boolean equals(Object o) { return o instanceof Role && ((Role) o).name.equals(name); }
        public int hashCode() { return name.hashCode(); }
    }

    static final class User implements Principal {
        final String name;
        User(String name) { this.name = name; }
        public String getName() { return name; }
        public boolean equals(Object o) { return o instanceof User && ((User) o).name.equals(name); }
        public int hashCode() { return name.hashCode(); }
    }

    static String decode(String tok) {
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < tok.length(); i += 4) out.append((char) Integer.parseInt(tok.substring(i, i + 4), 16));
        return out.toString();
    }

    static String encode(String s) {
        StringBuilder out = new StringBuilder("x");
        for (int i = 0; i < s.length(); i++) out.append(String.format("%04x", (int) s.charAt(i)));
        return out.toString();
    }

    static byte[] bytes(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    static Properties load(String hex) throws Exception {
        Properties p = new Properties();
        p.load(new ByteArrayInputStream(bytes(hex)));
        return p;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "US-ASCII"));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ");
            List<String> out = new ArrayList<>();
            if (parts[0].equals("hs")) {
                Set<String> set = new HashSet<>();
                for (int i = 1; i < parts.length; i++) set.add(decode(parts[i]));
                out.addAll(set);
            } else if (parts[0].equals("props")) {
                for (Map.Entry<Object, Object> e : load(parts.length > 1 ? parts[1] : "").entrySet()) {
                    out.add((String) e.getKey());
                }
            } else if (parts[0].equals("logins")) {
                // the login path 50 times over (new principal objects each time): how many orders came out
                Set<List<String>> seen = new HashSet<>();
                for (int i = 0; i < 50; i++) seen.add(login(decode(parts[1]), parts.length > 2 ? parts[2] : ""));
                out.add(String.valueOf(seen.size()));
            } else if (parts[0].equals("login")) {
                out.addAll(login(decode(parts[1]), parts.length > 2 ? parts[2] : ""));
            }
            StringBuilder s = new StringBuilder();
            for (String o : out) {
                if (s.length() > 0) s.append(' ');
                s.append(encode(o));
            }
            System.out.println(s);
        }
    }

    static List<String> login(String user, String hex) throws Exception {
        List<String> out = new ArrayList<>();
        Properties props = load(hex);
        Map<String, Set<String>> inverted = new HashMap<>(props.size());
        for (Map.Entry<Object, Object> e : props.entrySet()) {
            for (String u : ((String) e.getValue()).split(",")) {
                inverted.computeIfAbsent(u, k -> new HashSet<>()).add((String) e.getKey());
            }
        }
        Set<Principal> principals = new HashSet<>();
        principals.add(new User(user));
        Set<String> mine = inverted.get(user);
        if (mine != null) {
            for (String r : mine) principals.add(new Role(r));
        }
        Subject subject = new Subject();
        subject.getPrincipals().addAll(principals);
        for (Role r : subject.getPrincipals(Role.class)) out.add(r.getName());
        return out;
    }
}
