package dev.tessera.api.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.tessera.api.DriverNames;
import dev.tessera.api.Quantities;
import dev.tessera.api.fuzz.Fuzz;
import dev.tessera.api.fuzz.JsonTrees;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Any JSON as opaque parameters: the decoder accepts it, or rejects it with errors that each name a
 * field under the parameters' path; nothing else escapes, and nothing takes long.
 */
class OpaqueConfigDecoderFuzzTest {
  private static final String PATH = "spec.devices.config[3].opaque.parameters";
  private static final Duration QUICK = Duration.ofSeconds(2);
  private static final JsonTrees TREES =
      new JsonTrees(
          List.of(
              "apiVersion",
              "kind",
              "sharing",
              "strategy",
              "timeSlicingConfig",
              "interval",
              "mpsConfig",
              "defaultActiveThreadPercentage",
              "defaultPinnedDeviceMemoryLimit",
              DriverNames.CONFIG_API_VERSION,
              DeviceConfig.GpuConfig.KIND,
              DeviceConfig.MigDeviceConfig.KIND,
              "Exclusive",
              "TimeSlicing",
              "MPS",
              "Default",
              "Short",
              "Medium",
              "Long",
              "10Gi"));
  private static final List<Object> VALID =
      List.of(
          config("GpuConfig", Map.of("strategy", "Exclusive")),
          config("GpuConfig", Map.of("strategy", "TimeSlicing")),
          config(
              "GpuConfig",
              Map.of("strategy", "TimeSlicing", "timeSlicingConfig", Map.of("interval", "Long"))),
          config(
              "GpuConfig",
              Map.of(
                  "strategy",
                  "MPS",
                  "mpsConfig",
                  Map.of(
                      "defaultActiveThreadPercentage",
                      50,
                      "defaultPinnedDeviceMemoryLimit",
                      "10Gi"))),
          config("MigDeviceConfig", Map.of("strategy", "MPS", "mpsConfig", Map.of())),
          Map.of("apiVersion", DriverNames.CONFIG_API_VERSION, "kind", "MigDeviceConfig"));

  private final OpaqueConfigDecoder decoder = new OpaqueConfigDecoder();

  @Test
  void anyJsonIsAcceptedOrRejectedByField() {
    Fuzz.check("decoder, any JSON", r -> TREES.tree(r, 5), this::acceptedOrRejectedByField);
  }

  @Test
  void mutatedConfigsAreAcceptedOrRejectedByField() {
    Fuzz.check(
        "decoder, mutated configs",
        r -> TREES.mutationOf(VALID, r),
        this::acceptedOrRejectedByField);
  }

  @Test
  void quantitiesAreAcceptedOrRejectedByField() {
    Fuzz.check(
        "decoder, pinned-memory quantities",
        r -> mps(Map.of("defaultPinnedDeviceMemoryLimit", JsonTrees.quantity(r))),
        this::acceptedOrRejectedByField);
  }

  /**
   * Where the exact value is cheap to work out, parseLong agrees with it (or says out of range).
   */
  @Test
  void quantitiesAgreeWithExactArithmetic() {
    Fuzz.check(
        "quantities, exact arithmetic",
        JsonTrees::quantity,
        text -> {
          BigDecimal exact = exact(text);
          if (exact == null) {
            return;
          }
          BigInteger rounded = exact.setScale(0, RoundingMode.CEILING).toBigIntegerExact();
          if (rounded.bitLength() < 64) {
            assertThat(Quantities.parseLong(text)).isEqualTo(rounded.longValueExact());
          } else {
            assertThatThrownBy(() -> Quantities.parseLong(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("out of range");
          }
        });
  }

  /** The value of a quantity with a small exponent, by plain BigDecimal arithmetic; else null. */
  private static BigDecimal exact(String text) {
    var m =
        Pattern.compile("([+-]?[0-9.]+)(?:[eE]([+-]?\\d{1,3})|([KMGTPE]i|[mkMGTPE])?)")
            .matcher(text);
    if (!m.matches()
        || m.group(1).equals(".")
        || m.group(1).chars().filter(c -> c == '.').count() > 1) {
      return null;
    }
    BigDecimal value = new BigDecimal(m.group(1));
    if (m.group(2) != null) {
      return value.scaleByPowerOfTen(Integer.parseInt(m.group(2)));
    }
    if (m.group(3) == null) {
      return value;
    }
    String suffix = m.group(3);
    if (suffix.equals("m")) {
      return value.movePointLeft(3);
    }
    boolean binary = suffix.endsWith("i");
    int power = (binary ? "KMGTPE" : "kMGTPE").indexOf(suffix.charAt(0)) + 1;
    return binary
        ? value.multiply(BigDecimal.valueOf(2).pow(10 * power))
        : value.movePointRight(3 * power);
  }

  /** Valid configs, as users write them, decode to what they say. */
  @Test
  void validConfigsDecodeToWhatTheySay() {
    Fuzz.check(
        "decoder, valid configs",
        OpaqueConfigDecoderFuzzTest::valid,
        valid -> assertThat(decoder.decode(valid.json(), PATH)).isEqualTo(valid.config()));
  }

  private void acceptedOrRejectedByField(Object parameters) {
    DeviceConfig decoded =
        assertTimeoutPreemptively(
            QUICK,
            () -> {
              try {
                return decoder.decode(parameters, PATH);
              } catch (InvalidConfigException e) {
                assertThat(e.errors()).isNotEmpty();
                for (FieldError error : e.errors()) {
                  assertThat(error.field()).startsWith(PATH);
                  assertThat(error.message()).isNotBlank().hasSizeLessThan(200);
                }
                assertThat(e.getMessage()).contains(PATH);
                return null;
              }
            });
    if (decoded != null) {
      assertThat(decoded.sharing()).isNotNull();
    }
  }

  record Valid(Object json, DeviceConfig config) {}

  private static Valid valid(Random random) {
    boolean mig = random.nextBoolean();
    String kind = mig ? "MigDeviceConfig" : "GpuConfig";
    return switch (random.nextInt(3)) {
      case 0 ->
          new Valid(
              config(kind, Map.of("strategy", "Exclusive")),
              withSharing(mig, new Sharing.Exclusive()));
      case 1 -> {
        var intervals = Sharing.TimeSliceInterval.values();
        var interval = intervals[random.nextInt(intervals.length)];
        yield new Valid(
            config(
                "GpuConfig",
                Map.of(
                    "strategy",
                    "TimeSlicing",
                    "timeSlicingConfig",
                    Map.of("interval", interval.name()))),
            new DeviceConfig.GpuConfig(new Sharing.TimeSlicing(interval)));
      }
      default -> {
        int threads = 1 + random.nextInt(100);
        long bytes = 1 + random.nextLong(1L << 40);
        Object limit = random.nextBoolean() ? (Object) bytes : Long.toString(bytes);
        yield new Valid(
            config(
                kind,
                Map.of(
                    "strategy",
                    "MPS",
                    "mpsConfig",
                    Map.of(
                        "defaultActiveThreadPercentage",
                        threads,
                        "defaultPinnedDeviceMemoryLimit",
                        limit))),
            withSharing(mig, new Sharing.Mps(OptionalInt.of(threads), OptionalLong.of(bytes))));
      }
    };
  }

  private static DeviceConfig withSharing(boolean mig, Sharing sharing) {
    return mig ? new DeviceConfig.MigDeviceConfig(sharing) : new DeviceConfig.GpuConfig(sharing);
  }

  private static Map<String, Object> mps(Map<String, Object> mpsConfig) {
    return config("GpuConfig", Map.of("strategy", "MPS", "mpsConfig", mpsConfig));
  }

  private static Map<String, Object> config(String kind, Map<String, Object> sharing) {
    return Map.of("apiVersion", DriverNames.CONFIG_API_VERSION, "kind", kind, "sharing", sharing);
  }
}
