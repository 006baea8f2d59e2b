import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The broker's two regex calls, for arouter's randomised held-out check.
 *
 * <p>Stdin: one case a line, {@code HEX(pattern) SPACE HEX(text)}, each string as its UTF-16 code
 * units, four hex digits a unit (so lone surrogates pass unchanged). Stdout, one line a case:
 * {@code ERR <index> HEX(description)} when Pattern.compile throws; else
 * {@code OK <start> <end> <T|F>}: the span of group 0 of the first find() (-1 -1 when none) and
 * matches(); {@code THROW <class>} when matching throws.
 */
public final class RegexHeldOut {
    private RegexHeldOut() {
    }

    private static String unhex(String hex) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i + 4 <= hex.length(); i += 4) {
            out.append((char) Integer.parseInt(hex.substring(i, i + 4), 16));
        }
        return out.toString();
    }

    private static String hex(String text) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            out.append(String.format("%04x", (int) text.charAt(i)));
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ", -1);
            String pattern = unhex(parts[0]);
            String text = parts.length > 1 ? unhex(parts[1]) : "";
            Pattern p;
            try {
                p = Pattern.compile(pattern);
            } catch (PatternSyntaxException e) {
                out.append("ERR ").append(e.getIndex()).append(' ').append(hex(e.getDescription())).append('\n');
                continue;
            }
            try {
                Matcher m = p.matcher(text);
                String whole = p.matcher(text).matches() ? "T" : "F";
                if (m.find()) {
                    out.append("OK ").append(m.start()).append(' ').append(m.end()).append(' ').append(whole);
                } else {
                    out.append("OK -1 -1 ").append(whole);
                }
                out.append('\n');
            } catch (RuntimeException | StackOverflowError e) {
                out.append("THROW ").append(e.getClass().getSimpleName()).append('\n');
            }
        }
        System.out.print(out);
    }
}
