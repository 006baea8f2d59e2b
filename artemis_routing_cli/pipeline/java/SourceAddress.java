package arouter.udf;

/**
 * The SOURCE_IP key of a user-given source address, as arouter's engine derives it
 * (routing/keys.py: source_address, java_socket_address, source_ip_key), char for char.
 *
 * <p>Accepted: an IPv4 address, IPv6 (with a numeric %scope), either with :PORT (IPv6 in brackets),
 * or Java's own socket text starting with "/" (kept as it is). The address rules are Python's
 * ipaddress module's (four decimal octets without leading zeros; IPv6 with one "::" at most and an
 * optional dotted IPv4 tail), because simulate reads the keys with them. Pure Java, no Spark: tests
 * run it on the JDK against the engine. {@link #key} answers null for a value that is not an address.
 */
public final class SourceAddress {
    // The chars Python's str.strip() removes (str.isspace()); a test checks the list against Python.
    static final String PY_SPACE = "\t\n\u000b\u000c\r\u001c\u001d\u001e\u001f \u0085\u00a0\u1680\u2000\u2001"
        + "\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000";

    private SourceAddress() {
    }

    /**
     * The key (before any key-filter) of {@code value}, or null when it is not a source address.
     *
     * @param nativeTransport the router's acceptors run Netty's native transport (the broker's default)
     * @param everyScope the broker prints a scope on every IPv6 peer (native transport up to Artemis 2.35)
     */
    public static String key(String value, boolean nativeTransport, boolean everyScope) {
        String v = strip(value);
        if (v.startsWith("/")) {
            int idx = v.lastIndexOf(':');
            return idx > 0 ? v.substring(1, idx) : v.substring(1);
        }
        String whole = host(v, nativeTransport, everyScope);
        if (whole != null) {
            return whole;
        }
        String inner;
        String rest;
        if (v.startsWith("[")) {
            int close = v.indexOf(']');
            if (close < 2) {
                return null;
            }
            inner = v.substring(1, close);
            rest = v.substring(close + 1);
        } else {
            int end = 0;
            while (end < v.length() && (isAsciiDigit(v.charAt(end)) || v.charAt(end) == '.')) {
                end++;
            }
            if (end == 0) {
                return null;
            }
            inner = v.substring(0, end);
            rest = v.substring(end);
        }
        if (!rest.isEmpty() && !(rest.charAt(0) == ':' && rest.length() > 1 && allAsciiDigits(rest.substring(1)))) {
            return null;
        }
        return host(inner, nativeTransport, everyScope);
    }

    static String strip(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && PY_SPACE.indexOf(s.charAt(start)) >= 0) {
            start++;
        }
        while (end > start && PY_SPACE.indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(start, end);
    }

    /** An IP address with an optional numeric IPv6 scope, as the key the broker's text gives; else null. */
    private static String host(String text, boolean nativeTransport, boolean everyScope) {
        int pct = text.indexOf('%');
        String bare = pct < 0 ? text : text.substring(0, pct);
        String scope = pct < 0 ? null : text.substring(pct + 1);
        long v4 = ipv4(bare);
        if (v4 >= 0) {
            return scope == null ? dotted(v4) : null;
        }
        int[] v6 = ipv6(bare);
        if (v6 == null) {
            return null;
        }
        if (scope != null && (scope.isEmpty() || !allAsciiDigits(scope))) {
            return null;
        }
        boolean mapped = v6[0] == 0 && v6[1] == 0 && v6[2] == 0 && v6[3] == 0 && v6[4] == 0 && v6[5] == 0xffff;
        if (mapped) {
            return dotted(((long) v6[6] << 16) | v6[7]);
        }
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < 8; i++) {
            if (i > 0) {
                out.append(':');
            }
            out.append(Integer.toHexString(v6[i]));
        }
        String id = scope == null ? "0" : withoutLeadingZeros(scope);
        boolean linkLocal = (v6[0] & 0xffc0) == 0xfe80;
        if (!id.equals("0") || (nativeTransport && (everyScope || linkLocal))) {
            out.append('%').append(id);
        }
        return out.append(']').toString();
    }

    private static String withoutLeadingZeros(String digits) {
        int i = 0;
        while (i < digits.length() - 1 && digits.charAt(i) == '0') {
            i++;
        }
        return digits.substring(i);
    }

    private static String dotted(long v) {
        return ((v >> 24) & 0xff) + "." + ((v >> 16) & 0xff) + "." + ((v >> 8) & 0xff) + "." + (v & 0xff);
    }

    private static boolean isAsciiDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean allAsciiDigits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!isAsciiDigit(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Python's IPv4Address: exactly four decimal octets, no leading zeros, each up to 255; else -1. */
    static long ipv4(String s) {
        if (s.isEmpty()) {
            return -1;
        }
        String[] octets = s.split("\\.", -1);
        if (octets.length != 4) {
            return -1;
        }
        long out = 0;
        for (String o : octets) {
            if (o.isEmpty() || !allAsciiDigits(o) || o.length() > 3 || (!o.equals("0") && o.charAt(0) == '0')) {
                return -1;
            }
            int n = Integer.parseInt(o);
            if (n > 255) {
                return -1;
            }
            out = (out << 8) | n;
        }
        return out;
    }

    /** Python's IPv6Address (no scope): the eight groups, or null. */
    static int[] ipv6(String s) {
        if (s.isEmpty()) {
            return null;
        }
        java.util.List<String> parts = new java.util.ArrayList<>(java.util.Arrays.asList(s.split(":", -1)));
        if (parts.size() < 3) {
            return null;
        }
        String last = parts.get(parts.size() - 1);
        if (last.indexOf('.') >= 0) {
            long v4 = ipv4(last);
            if (v4 < 0) {
                return null;
            }
            parts.remove(parts.size() - 1);
            parts.add(Long.toHexString((v4 >> 16) & 0xffff));
            parts.add(Long.toHexString(v4 & 0xffff));
        }
        int n = parts.size();
        if (n > 9) {
            return null;
        }
        int skip = -1;
        for (int i = 1; i < n - 1; i++) {
            if (parts.get(i).isEmpty()) {
                if (skip >= 0) {
                    return null;
                }
                skip = i;
            }
        }
        int hi;
        int lo;
        int skipped;
        if (skip >= 0) {
            hi = skip;
            lo = n - skip - 1;
            if (parts.get(0).isEmpty()) {
                hi--;
                if (hi != 0) {
                    return null;
                }
            }
            if (parts.get(n - 1).isEmpty()) {
                lo--;
                if (lo != 0) {
                    return null;
                }
            }
            skipped = 8 - (hi + lo);
            if (skipped < 1) {
                return null;
            }
        } else {
            if (n != 8 || parts.get(0).isEmpty() || parts.get(n - 1).isEmpty()) {
                return null;
            }
            hi = n;
            lo = 0;
            skipped = 0;
        }
        int[] out = new int[8];
        int k = 0;
        for (int i = 0; i < hi; i++) {
            int g = hextet(parts.get(i));
            if (g < 0) {
                return null;
            }
            out[k++] = g;
        }
        k += skipped;
        for (int i = n - lo; i < n; i++) {
            int g = hextet(parts.get(i));
            if (g < 0) {
                return null;
            }
            out[k++] = g;
        }
        return out;
    }

    private static int hextet(String h) {
        if (h.isEmpty() || h.length() > 4) {
            return -1;
        }
        for (int i = 0; i < h.length(); i++) {
            if (Character.digit(h.charAt(i), 16) < 0 || h.charAt(i) > 'f') {
                return -1;
            }
        }
        return Integer.parseInt(h, 16);
    }
}
