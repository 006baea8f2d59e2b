import java.lang.reflect.Method;

/**
 * Prints JDK's java.util.regex.Grapheme.getType for every code point as runs "start type", one a
 * line: the table artemis_routing_cli/jregex/_javaregex_grapheme.py is generated from (Java 17).
 * Run with --add-opens java.base/java.util.regex=ALL-UNNAMED.
 */
public final class GraphemeTypes {
    private GraphemeTypes() {
    }

    public static void main(String[] args) throws Exception {
        Method getType = Class.forName("java.util.regex.Grapheme").getDeclaredMethod("getType", int.class);
        getType.setAccessible(true);
        StringBuilder out = new StringBuilder();
        out.append(System.getProperty("java.version")).append('\n');
        int prev = -1;
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
            int type = (Integer) getType.invoke(null, cp);
            if (type != prev) {
                out.append(cp).append(' ').append(type).append('\n');
                prev = type;
            }
        }
        System.out.print(out);
    }
}
