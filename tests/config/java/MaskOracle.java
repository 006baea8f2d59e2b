import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import javax.crypto.Cipher;
import javax.crypto.spec.SecretKeySpec;

/**
 * What the JDK says about masked passwords, one line per request on stdin:
 * "E key text" masks text (hex of the Blowfish cipher text, as a BigInteger prints it);
 * "D key text" prints "ok" when the cipher text decodes, "fail" when the JDK throws;
 * "X key text" decodes as DefaultSensitiveStringCodec does and prints "ok HEX" (the plain text, as
 * new String(bytes) makes it with UTF-8, the default charset since Java 18, in hex of its UTF-8
 * bytes) or "fail TOSTRING" (the exception the codec throws, as its toString()).
 * Keys and texts arrive as hex of their UTF-8 bytes, so any character survives the pipe.
 */
public class MaskOracle {
    static String unhex(String hex) {
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    static String decode(byte[] keyBytes, String text) {
        byte[] data;
        try {
            data = new BigInteger(text, 16).toByteArray();
        } catch (Exception e) {
            return "fail " + new IllegalArgumentException("Password must be encrypted.");
        }
        if (data.length % 8 != 0) {
            byte[] padded = new byte[(data.length / 8 + 1) * 8];
            System.arraycopy(data, 0, padded, padded.length - data.length, data.length);
            data = padded;
        }
        try {
            SecretKeySpec key = new SecretKeySpec(keyBytes, "Blowfish");
            Cipher cipher = Cipher.getInstance("Blowfish");
            cipher.init(Cipher.DECRYPT_MODE, key);
            String plain = new String(cipher.doFinal(data), StandardCharsets.UTF_8);
            StringBuilder hex = new StringBuilder("ok ");
            for (byte b : plain.getBytes(StandardCharsets.UTF_8)) {
                hex.append(String.format("%02x", b & 0xff));
            }
            return hex.toString();
        } catch (Exception e) {
            return "fail " + e;
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ", -1);
            String text = unhex(parts[2]);
            if (parts[0].equals("X")) {
                System.out.println(decode(unhex(parts[1]).getBytes(StandardCharsets.UTF_8), text));
                continue;
            }
            SecretKeySpec key = new SecretKeySpec(unhex(parts[1]).getBytes(StandardCharsets.UTF_8), "Blowfish");
            if (parts[0].equals("E")) {
                Cipher cipher = Cipher.getInstance("Blowfish");
                cipher.init(Cipher.ENCRYPT_MODE, key);
                System.out.println(new BigInteger(cipher.doFinal(text.getBytes(StandardCharsets.UTF_8))).toString(16));
                continue;
            }
            String answer;
            try {
                byte[] data = new BigInteger(text, 16).toByteArray();
                if (data.length % 8 != 0) {
                    byte[] padded = new byte[(data.length / 8 + 1) * 8];
                    System.arraycopy(data, 0, padded, padded.length - data.length, data.length);
                    data = padded;
                }
                Cipher cipher = Cipher.getInstance("Blowfish");
                cipher.init(Cipher.DECRYPT_MODE, key);
                cipher.doFinal(data);
                answer = "ok";
            } catch (Exception e) {
                answer = "fail";
            }
            System.out.println(answer);
        }
    }
}
