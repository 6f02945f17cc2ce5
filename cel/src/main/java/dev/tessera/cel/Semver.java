package dev.tessera.cel;

import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A semantic version as CEL's {@code semver()} library sees it (a device attribute of type
 * version). Build metadata is ignored in comparisons, as semver says; a pre-release sorts before
 * its release.
 */
public record Semver(long major, long minor, long patch, String preRelease)
    implements Comparable<Semver> {
  private static final Pattern STRICT =
      Pattern.compile(
          "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
              + "(?:-([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?");

  /** What {@code normalize} accepts: a leading v, a missing minor or patch, leading zeros. */
  private static final Pattern LOOSE =
      Pattern.compile("v?(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?(?:-([0-9A-Za-z.-]+))?(?:\\+.*)?");

  private static final Comparator<Semver> ORDER =
      Comparator.comparingLong(Semver::major)
          .thenComparingLong(Semver::minor)
          .thenComparingLong(Semver::patch)
          .thenComparing(Semver::preRelease, Semver::comparePreRelease);

  public Semver {
    preRelease = preRelease == null ? "" : preRelease;
  }

  public static Semver parse(String text) {
    return parse(text, false);
  }

  public static Semver parse(String text, boolean normalize) {
    Matcher m = (normalize ? LOOSE : STRICT).matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException("not a semver: \"" + text + "\"");
    }
    return new Semver(
        Long.parseLong(m.group(1)), number(m.group(2)), number(m.group(3)), m.group(4));
  }

  public static boolean isSemver(String text, boolean normalize) {
    return (normalize ? LOOSE : STRICT).matcher(text).matches();
  }

  private static long number(String group) {
    return group == null ? 0 : Long.parseLong(group);
  }

  @Override
  public int compareTo(Semver other) {
    return ORDER.compare(this, other);
  }

  private static int comparePreRelease(String a, String b) {
    if (a.isEmpty() || b.isEmpty()) {
      return Boolean.compare(a.isEmpty(), b.isEmpty());
    }
    String[] x = a.split("\\.");
    String[] y = b.split("\\.");
    for (int i = 0; i < Math.min(x.length, y.length); i++) {
      boolean xn = x[i].chars().allMatch(Character::isDigit);
      boolean yn = y[i].chars().allMatch(Character::isDigit);
      int c =
          xn && yn
              ? Long.compare(Long.parseLong(x[i]), Long.parseLong(y[i]))
              : xn != yn ? (xn ? -1 : 1) : x[i].compareTo(y[i]);
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(x.length, y.length);
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch + (preRelease.isEmpty() ? "" : "-" + preRelease);
  }
}
