package dev.tessera.api;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Kubernetes resource quantities ({@code 10Gi}, {@code 1.5G}, {@code 512M}, {@code 1e9}). */
public final class Quantities {
  // Possessive: a long run of digits that does not match fails in linear time, not quadratic.
  private static final Pattern QUANTITY =
      Pattern.compile(
          "([+-]?(?:\\d++(?:\\.\\d*+)?|\\.\\d++))"
              + "(?:([eE][+-]?\\d++)|(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?)");

  /** The most digits a long has before the point. */
  private static final int LONG_DIGITS = 19;

  private static final Map<String, BigDecimal> SUFFIXES =
      Map.ofEntries(
          Map.entry("Ki", BigDecimal.valueOf(1L << 10)),
          Map.entry("Mi", BigDecimal.valueOf(1L << 20)),
          Map.entry("Gi", BigDecimal.valueOf(1L << 30)),
          Map.entry("Ti", BigDecimal.valueOf(1L << 40)),
          Map.entry("Pi", BigDecimal.valueOf(1L << 50)),
          Map.entry("Ei", BigDecimal.valueOf(1L << 60)),
          Map.entry("m", new BigDecimal("0.001")),
          Map.entry("k", BigDecimal.valueOf(1_000L)),
          Map.entry("M", BigDecimal.valueOf(1_000_000L)),
          Map.entry("G", BigDecimal.valueOf(1_000_000_000L)),
          Map.entry("T", BigDecimal.valueOf(1_000_000_000_000L)),
          Map.entry("P", BigDecimal.valueOf(1_000_000_000_000_000L)),
          Map.entry("E", BigDecimal.valueOf(1_000_000_000_000_000_000L)));

  private Quantities() {}

  /**
   * The quantity as a whole number, rounded up (as Kubernetes does for byte amounts).
   *
   * @throws IllegalArgumentException if the text is not a quantity or does not fit a long
   */
  public static long parseLong(String text) {
    Matcher m = QUANTITY.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a quantity: \"" + text + "\"");
    }
    BigDecimal mantissa = new BigDecimal(m.group(1));
    BigInteger exponent = BigInteger.ZERO;
    if (m.group(2) != null) {
      exponent = new BigInteger(m.group(2).substring(1));
    } else if (m.group(3) != null) {
      mantissa = mantissa.multiply(SUFFIXES.get(m.group(3)));
    }
    if (mantissa.signum() == 0) {
      return 0;
    }
    // The digits before the point (zero or less: the value is below 1), worked out before the value
    // is: 1e999999999 would otherwise be built digit by digit, and 1e-2147483648 overflow the
    // scale.
    BigInteger digits =
        BigInteger.valueOf((long) mantissa.precision() - mantissa.scale()).add(exponent);
    if (digits.compareTo(BigInteger.valueOf(LONG_DIGITS)) > 0) {
      throw new IllegalArgumentException("quantity out of range: \"" + text + "\"");
    }
    if (digits.signum() <= 0) {
      return mantissa.signum() > 0 ? 1 : 0;
    }
    BigDecimal value = mantissa.scaleByPowerOfTen(exponent.intValueExact());
    try {
      return value.setScale(0, RoundingMode.CEILING).longValueExact();
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("quantity out of range: \"" + text + "\"", e);
    }
  }

  /** Bytes in the binary form Kubernetes prints, e.g. {@code 80Gi}; plain bytes when not exact. */
  public static String formatBytes(long bytes) {
    String[] suffixes = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
    for (int i = 0; i < suffixes.length; i++) {
      long unit = 1L << (10 * (6 - i));
      if (bytes != 0 && bytes % unit == 0) {
        return (bytes / unit) + suffixes[i];
      }
    }
    return Long.toString(bytes);
  }
}
