package dev.tessera.cel;

import java.math.BigDecimal;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Kubernetes quantity as CEL's {@code quantity()} library sees it: an exact number, compared by
 * value ({@code 1Gi} equals {@code 1073741824}).
 */
public record Quantity(BigDecimal value) implements Comparable<Quantity> {
  private static final Pattern QUANTITY =
      Pattern.compile(
          "([+-]?(?:\\d++(?:\\.\\d*+)?|\\.\\d++))"
              + "(?:([eE][+-]?\\d++)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)");

  private static final Map<String, BigDecimal> SUFFIXES =
      Map.ofEntries(
          Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
          Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
          Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
          Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
          Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
          Map.entry("Ei", BigDecimal.valueOf(1L << 60)),
          Map.entry("n", new BigDecimal("0.000000001")),
          Map.entry("u", new BigDecimal("0.000001")),
          Map.entry("m", new BigDecimal("0.001")),
          Map.entry("k", BigDecimal.valueOf(1_000L)),
          Map.entry("M", BigDecimal.valueOf(1_000_000L)),
          Map.entry("G", BigDecimal.valueOf(1_000_000_000L)),
          Map.entry("T", BigDecimal.valueOf(1_000_000_000_000L)),
          Map.entry("P", BigDecimal.valueOf(1_000_000_000_000_000L)),
          Map.entry("E", BigDecimal.valueOf(1_000_000_000_000_000_000L)));

  public Quantity {
    value = value.stripTrailingZeros();
  }

  public static Quantity of(long value) {
    return new Quantity(BigDecimal.valueOf(value));
  }

  /** Parses {@code 10Gi}, {@code 1.5G}, {@code 100m}, {@code 1e9}. */
  public static Quantity parse(String text) {
    Matcher m = QUANTITY.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a quantity: \"" + text + "\"");
    }
    BigDecimal number = new BigDecimal(m.group(1));
    if (m.group(2) != null) {
      number = number.scaleByPowerOfTen(Integer.parseInt(m.group(2).substring(1)));
    } else if (m.group(3) != null) {
      number = number.multiply(SUFFIXES.get(m.group(3)));
    }
    return new Quantity(number);
  }

  public static boolean isQuantity(String text) {
    return QUANTITY.matcher(text.trim()).matches();
  }

  public Quantity add(Quantity other) {
    return new Quantity(value.add(other.value));
  }

  public Quantity subtract(Quantity other) {
    return new Quantity(value.subtract(other.value));
  }

  @Override
  public int compareTo(Quantity other) {
    return value.compareTo(other.value);
  }

  /** Bytes the way people read them: {@code 40Gi}, {@code 512Mi}, else the plain number. */
  public String human() {
    BigDecimal[] units = {
      BigDecimal.valueOf(1L << 40), BigDecimal.valueOf(1L << 30), BigDecimal.valueOf(1L << 20)
    };
    String[] names = {"Ti", "Gi", "Mi"};
    for (int i = 0; i < units.length; i++) {
      if (value.abs().compareTo(units[i]) >= 0) {
        BigDecimal scaled = value.divide(units[i], 1, java.math.RoundingMode.HALF_UP);
        return scaled.stripTrailingZeros().toPlainString() + names[i];
      }
    }
    return value.toPlainString();
  }

  @Override
  public String toString() {
    return value.toPlainString();
  }
}
