package dev.tessera.api.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.function.Function;

/**
 * Runs a property over inputs drawn from seeded {@link Random}s: a small property-test runner, so
 * the build needs no property-test library. Each try has its own seed, derived from the run's; a
 * failure names the try's seed and the command that replays that one try. How many tries: {@code
 * -Dtessera.fuzz.tries=N} (default {@value #DEFAULT_TRIES}); the run's seed: {@code
 * -Dtessera.fuzz.seed=S} (default: the clock's, printed). Each run prints its tries and seed.
 */
public final class Fuzz {
  public static final int DEFAULT_TRIES = 1000;
  private static final long STEP = 0x9E3779B97F4A7C15L;

  /** A property of one input: returns normally when it holds. */
  @FunctionalInterface
  public interface Property<T> {
    void check(T input) throws Exception;
  }

  private Fuzz() {}

  /** The tries of this run: {@code tessera.fuzz.tries}, else {@code defaultTries}. */
  public static int tries(int defaultTries) {
    return Integer.getInteger("tessera.fuzz.tries", defaultTries);
  }

  /**
   * Checks {@code property} on {@link #tries(int) tries(DEFAULT_TRIES)} inputs.
   *
   * @param name what is checked, for the report line and the failure
   * @param input draws one input from a try's random
   */
  public static <T> void check(String name, Function<Random, T> input, Property<T> property) {
    check(name, tries(DEFAULT_TRIES), input, property);
  }

  /** Checks {@code property} on {@code tries} inputs. */
  public static <T> void check(
      String name, int tries, Function<Random, T> input, Property<T> property) {
    long seed = Long.getLong("tessera.fuzz.seed", System.nanoTime());
    for (int i = 0; i < tries; i++) {
      long trySeed = seed + i * STEP;
      T value = input.apply(new Random(trySeed));
      try {
        property.check(value);
      } catch (Throwable e) {
        throw new AssertionError(
            name
                + ": failed at try "
                + (i + 1)
                + " of "
                + tries
                + "; replay with -Dtessera.fuzz.seed="
                + trySeed
                + " -Dtessera.fuzz.tries=1\ninput: "
                + abbreviate(
                    value instanceof byte[] bytes
                        ? new String(bytes, StandardCharsets.UTF_8)
                        : String.valueOf(value))
                + "\n"
                + e,
            e);
      }
    }
    System.out.printf("fuzz %s: %d tries passed (seed %d)%n", name, tries, seed);
  }

  private static String abbreviate(String text) {
    return text.length() <= 2000 ? text : text.substring(0, 2000) + "… (" + text.length() + ")";
  }
}
