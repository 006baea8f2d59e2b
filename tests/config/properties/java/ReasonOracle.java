// The broker's status reasons (ConfigurationImpl.trackError: the cause of an InvocationTargetException
// when it has one, else the exception; then toString()) for the failures arouter models, built on the
// JDK the way the broker's code builds them. The broker's classes are stand-ins of the same names
// (compiled by the test beside this file), so Class.toString() and Enum.valueOf() speak as they would.
// One request a line on stdin, fields separated by TAB; one reason a line on stdout.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.StringReader;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;

public class ReasonOracle {
    static String reason(Throwable t) {
        Throwable toLog = t;
        if (t instanceof InvocationTargetException && t.getCause() != null) {
            toLog = t.getCause();
        }
        return toLog.toString();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static Throwable fail(String[] f) throws Exception {
        switch (f[0]) {
            case "leaf":
                return new InvocationTargetException(null, "No accessor method descriptor for: " + f[1] + " on: "
                                                     + Class.forName(f[2]));
            case "through":
                NoSuchMethodException cause = new NoSuchMethodException("Unknown property '" + f[1] + "' on class '"
                                                                         + Class.forName(f[2]) + "'");
                return new InvocationTargetException(cause, "Cannot access property with key: " + f[1]);
            case "mapped":
                return new InvocationTargetException(null, "Entry does not exist in: " + f[1] + " for mapped key: "
                                                     + f[2]);
            case "map":
                try {
                    Map.class.getDeclaredConstructor().newInstance();
                    return null;
                } catch (NoSuchMethodException e) {
                    return new InvocationTargetException(e, "No getter for property");
                }
            case "enum":
                try {
                    Enum.valueOf((Class<Enum>) Class.forName(f[1]), f[2]);
                    return null;
                } catch (IllegalArgumentException e) {
                    return e;
                }
            case "long":
                return new IllegalArgumentException("AMQ209004: Failed to parse long value from " + f[1]);
            case "kv":
                return new IllegalArgumentException("map value " + f[1] + " not in k=v format");
            case "clear":
                return new InvocationTargetException(null, "Can only clear entries from collection or map "
                                                     + "properties. property: " + f[1] + ", on: " + f[2]);
            case "load":
                try {
                    new Properties().load(new StringReader(f[1]));
                    return null;
                } catch (IllegalArgumentException e) {
                    return e;
                }
            default:
                throw new IllegalArgumentException(f[0]);
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            Throwable t = fail(line.split("\t", -1));
            System.out.println(t == null ? "none" : reason(t));
        }
    }
}
