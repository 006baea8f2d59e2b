package arouter.udf;

import org.apache.spark.sql.api.java.UDF2;

/**
 * A local-target-filter as the broker applies it: Pattern.compile(pattern).matcher(text).matches(),
 * the whole text. A null text or pattern: null.
 */
public final class RegexMatches implements UDF2<String, String, Boolean> {
    private static final long serialVersionUID = 1L;

    @Override
    public Boolean call(String text, String pattern) {
        if (text == null || pattern == null) {
            return null;
        }
        return Patterns.of(pattern).matcher(text).matches();
    }
}
