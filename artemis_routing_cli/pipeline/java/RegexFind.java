package arouter.udf;

import java.util.regex.Matcher;
import org.apache.spark.sql.api.java.UDF2;

/**
 * A key-filter as the broker applies it: Pattern.compile(pattern).matcher(text).find(), and on
 * success the text of the first match (group 0, possibly empty). No match or a null text: null.
 */
public final class RegexFind implements UDF2<String, String, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String call(String text, String pattern) {
        if (text == null || pattern == null) {
            return null;
        }
        Matcher m = Patterns.of(pattern).matcher(text);
        return m.find() ? m.group() : null;
    }
}
