package arouter.udf;

import javax.net.ssl.SNIHostName;
import org.apache.spark.sql.api.java.UDF1;

/**
 * arouter_sni_sendable(host): whether a Java client can connect to {@code host} with SNI, i.e.
 * whether {@code new SNIHostName(host)} (IDN.toASCII with the STD3 rules, no empty name, no trailing
 * dot) accepts it; null for null. The JDK's own check, as the broker's Java clients run it.
 */
public final class SniSendable implements UDF1<String, Boolean> {
    private static final long serialVersionUID = 1L;

    @Override
    public Boolean call(String host) {
        if (host == null) {
            return null;
        }
        try {
            new SNIHostName(host);
            return Boolean.TRUE;
        } catch (IllegalArgumentException e) {
            return Boolean.FALSE;
        }
    }
}
