package arouter.udf;

import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/** Compiled java.util.regex patterns, once per pattern text and JVM (driver or executor). */
final class Patterns {
    private static final ConcurrentHashMap<String, Pattern> COMPILED = new ConcurrentHashMap<>();

    private Patterns() {
    }

    static Pattern of(String source) {
        Pattern p = COMPILED.get(source);
        if (p == null) {
            p = Pattern.compile(source);
            COMPILED.putIfAbsent(source, p);
        }
        return p;
    }
}
