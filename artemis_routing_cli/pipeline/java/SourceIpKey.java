package arouter.udf;

import org.apache.spark.sql.api.java.UDF3;

/**
 * arouter_source_ip(value, native, everyScope): the SOURCE_IP key of a user-given source address
 * ({@link SourceAddress#key}), null when the value is not an address (or is null).
 */
public final class SourceIpKey implements UDF3<String, Boolean, Boolean, String> {
    private static final long serialVersionUID = 1L;

    @Override
    public String call(String value, Boolean nativeTransport, Boolean everyScope) {
        if (value == null || nativeTransport == null || everyScope == null) {
            return null;
        }
        return SourceAddress.key(value, nativeTransport, everyScope);
    }
}
