import java.io.*;
import java.nio.charset.StandardCharsets;

/**
 * How the broker's reader decodes bytes: each stdin line is hex bytes; the answer is the text
 * {@code new InputStreamReader(stream, UTF_8)} gives, read char by char to the end as
 * XMLUtil.readerToString does, as hex UTF-16 units ("-" for none). JDK 18+ reads with UTF-8 by default;
 * the test names the charset so that the answer does not depend on the locale it runs in.
 */
public class Utf8ReaderOracle {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            byte[] data = new byte[line.length() / 2];
            for (int i = 0; i < data.length; i++) {
                data[i] = (byte) Integer.parseInt(line.substring(2 * i, 2 * i + 2), 16);
            }
            Reader reader = new InputStreamReader(new ByteArrayInputStream(data), StandardCharsets.UTF_8);
            StringBuilder units = new StringBuilder();
            for (int c; (c = reader.read()) != -1; ) {
                units.append(units.length() == 0 ? "" : ",").append(Integer.toHexString(c));
            }
            out.append(units.length() == 0 ? "-" : units).append('\n');
        }
        System.out.print(out);
    }
}
