// new java.math.BigDecimal(text).toString() for each argument, one per line.
public class BigDecimalOracle {
    public static void main(String[] args) {
        StringBuilder out = new StringBuilder();
        for (String text : args) {
            out.append(new java.math.BigDecimal(text).toString()).append('\n');
        }
        System.out.print(out);
    }
}
