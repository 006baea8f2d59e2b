import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;

/**
 * What a JSSE client that leaves SNI to the JDK sends: for each host name (one per line, "x" + four hex
 * digits per UTF-16 unit), an SSLEngine made with createSSLEngine(host, port) in client mode, no
 * SSLParameters.setServerNames, wraps its ClientHello; the answer is the server_name extension's host
 * name bytes in hex ("h" + hex), or "-" when the ClientHello carries none.
 */
public class DefaultSniOracle {
    static String decode(String tok) {
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < tok.length(); i += 4) out.append((char) Integer.parseInt(tok.substring(i, i + 4), 16));
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, null, null);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) {
            SSLEngine engine = ctx.createSSLEngine(decode(line), 61617);
            engine.setUseClientMode(true);
            ByteBuffer net = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
            engine.wrap(ByteBuffer.allocate(0), net);
            net.flip();
            out.append(serverName(net)).append('\n');
        }
        System.out.print(out);
    }

    /** The host_name of the server_name extension of the ClientHello record in b, or "-". */
    static String serverName(ByteBuffer b) {
        b.position(5 + 4 + 2 + 32);                                            // record, handshake, version, random
        b.position(b.position() + 1 + (b.get(b.position()) & 0xff));           // session id
        b.position(b.position() + 2 + (b.getShort(b.position()) & 0xffff));    // cipher suites
        b.position(b.position() + 1 + (b.get(b.position()) & 0xff));           // compression methods
        int end = b.position() + 2 + (b.getShort() & 0xffff);
        while (b.position() < end) {
            int type = b.getShort() & 0xffff;
            int len = b.getShort() & 0xffff;
            if (type == 0) {                                                   // server_name
                b.getShort();                                                  // the list's length
                b.get();                                                       // name type: host_name
                byte[] name = new byte[b.getShort() & 0xffff];
                b.get(name);
                StringBuilder hex = new StringBuilder("h");
                for (byte x : name) hex.append(String.format("%02x", x));
                return hex.toString();
            }
            b.position(b.position() + len);
        }
        return "-";
    }
}
