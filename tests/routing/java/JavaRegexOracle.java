import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Test oracle for arouter's Java-regex adapter.
 *
 * <p>Reads one case per line on stdin: {@code base64(pattern) SPACE base64(input)}, both UTF-8.
 * Writes one answer per line, in order:
 * <ul>
 *   <li>{@code OK F <base64(group 0 of the first find())> <T|F>} when find() succeeded; the last
 *       field is matches();</li>
 *   <li>{@code OK N <T|F>} when find() failed;</li>
 *   <li>{@code ERR <index> <base64(description)>} when Pattern.compile threw.</li>
 * </ul>
 * This is exactly what the broker does: {@code Pattern.compile(f).matcher(v).find()} for
 * key-filter and {@code .matches()} for local-target-filter.
 */
public final class JavaRegexOracle {
    private JavaRegexOracle() {
    }

    private static String enc(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String dec(String s) {
        return new String(Base64.getDecoder().decode(s), StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split(" ", -1);
            String pattern = dec(parts[0]);
            String input = parts.length > 1 ? dec(parts[1]) : "";
            Pattern p;
            try {
                p = Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                out.println("ERR " + e.getIndex() + " " + enc(e.getDescription()));
                continue;
            }
            Matcher m = p.matcher(input);
            String matches = p.matcher(input).matches() ? "T" : "F";
            if (m.find()) {
                out.println("OK F " + enc(m.group()) + " " + matches);
            } else {
                out.println("OK N " + matches);
            }
        }
        out.flush();
    }
}
