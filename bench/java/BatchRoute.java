// The same arithmetic and I/O as bench/batch_bench.py's Python run, on the JVM, for comparison:
// read one key per line (UTF-8, "\n" only), FNV-1a over UTF-16 chars, floor-or-first lookup in a
// sorted ring of target node-id hashes, one JSON line per key out.
// Usage: java BatchRoute KEYS_FILE OUT_FILE NAME=NODE_ID...
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public final class BatchRoute {
    static int fnv(String s) {
        int h = 0x811c9dc5;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x01000193;
        }
        return h;
    }

    static void jsonString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        out.append('"');
    }

    public static void main(String[] args) throws IOException {
        TreeMap<Integer, String[]> ring = new TreeMap<>();
        for (int i = 2; i < args.length; i++) {
            String[] nv = args[i].split("=", 2);
            ring.put(fnv(nv[1]), nv);
        }
        long start = System.nanoTime();
        long n = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(args[0]),
                StandardCharsets.UTF_8), 1 << 20);
             Writer out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(args[1]),
                StandardCharsets.UTF_8), 1 << 20)) {
            StringBuilder sb = new StringBuilder(256);
            StringBuilder all = new StringBuilder();
            int c;
            // read lines split on '\n' only (BufferedReader.readLine would also split on '\r')
            while ((c = in.read()) != -1) {
                if (c != '\n') { all.append((char) c); continue; }
                String key = all.toString();
                all.setLength(0);
                Map.Entry<Integer, String[]> e = ring.floorEntry(fnv(key));
                if (e == null) e = ring.firstEntry();
                sb.setLength(0);
                sb.append("{\"key\": ");
                jsonString(sb, key);
                sb.append(", \"key_value\": ");
                jsonString(sb, key);
                sb.append(", \"status\": \"OK\", \"target\": \"").append(e.getValue()[0])
                  .append("\", \"node_id\": \"").append(e.getValue()[1]).append("\", \"local\": false}\n");
                out.write(sb.toString());
                n++;
            }
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("%d %.3f%n", n, secs);
    }
}
