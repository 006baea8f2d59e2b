import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.IDN;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import javax.net.ssl.SNIHostName;

/**
 * What a Java client puts in its SNI extension, and what Netty makes of bytes, for arouter's tests.
 * One string per line ("x" + four hex digits per UTF-16 unit); answers one line each:
 *   "idn OK" | "idn !"   IDN.toASCII(s, IDN.USE_STD3_ASCII_RULES)
 *   then a tab and "sni OK" | "sni !"   new SNIHostName(s).getAsciiName()
 * A line "lower HEXBYTES" answers new String(bytes, ISO_8859_1).toLowerCase(Locale.US) as a token.
 */
public class SniOracle {
    static String decode(String tok) {
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < tok.length(); i += 4) out.append((char) Integer.parseInt(tok.substring(i, i + 4), 16));
        return out.toString();
    }

    static String encode(String s) {
        StringBuilder out = new StringBuilder("x");
        for (int i = 0; i < s.length(); i++) out.append(String.format("%04x", (int) s.charAt(i)));
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.startsWith("lower ")) {
                String hex = line.substring(6);
                byte[] b = new byte[hex.length() / 2];
                for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
                System.out.println(encode(new String(b, StandardCharsets.ISO_8859_1).toLowerCase(Locale.US)));
                continue;
            }
            String s = decode(line);
            String idn;
            try {
                idn = encode(IDN.toASCII(s, IDN.USE_STD3_ASCII_RULES));
            } catch (IllegalArgumentException e) {
                idn = "!";
            }
            String sni;
            try {
                sni = encode(new SNIHostName(s).getAsciiName());
            } catch (IllegalArgumentException e) {
                sni = "!";
            }
            System.out.println(idn + "\t" + sni);
        }
    }
}
