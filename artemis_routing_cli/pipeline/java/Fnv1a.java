package arouter.udf;

import org.apache.spark.sql.api.java.UDF1;

/**
 * The broker's 32-bit FNV-1a over the UTF-16 code units of a Java string, as a signed int:
 * h = 0x811c9dc5; for each char c: h = (h ^ c) * 0x01000193, with int wrap-around.
 * Null in, null out.
 */
public final class Fnv1a implements UDF1<String, Integer> {
    private static final long serialVersionUID = 1L;

    public static int hash(String text) {
        int h = 0x811c9dc5;
        for (int i = 0, n = text.length(); i < n; i++) {
            h = (h ^ text.charAt(i)) * 0x01000193;
        }
        return h;
    }

    @Override
    public Integer call(String text) {
        return text == null ? null : hash(text);
    }
}
