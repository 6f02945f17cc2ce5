package dev.tessera.api.config;

import dev.tessera.api.DriverNames;
import dev.tessera.api.Quantities;
import dev.tessera.api.config.DeviceConfig.GpuConfig;
import dev.tessera.api.config.DeviceConfig.MigDeviceConfig;
import dev.tessera.api.config.Sharing.TimeSliceInterval;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Strict decoding of Tessera's opaque parameters from their JSON tree (maps, lists, strings,
 * numbers, booleans as any JSON library produces them). Unknown fields, wrong types and values
 * outside the allowed set are rejected, each error naming the field's full path. Used by the
 * admission webhook and again by the node plugin at prepare time, since the webhook may be off.
 */
public final class OpaqueConfigDecoder {
  private static final String API_VERSION = "apiVersion";
  private static final String KIND = "kind";
  private static final String SHARING = "sharing";
  private static final String STRATEGY = "strategy";
  private static final String TIME_SLICING_CONFIG = "timeSlicingConfig";
  private static final String INTERVAL = "interval";
  private static final String MPS_CONFIG = "mpsConfig";
  private static final String THREAD_PERCENTAGE = "defaultActiveThreadPercentage";
  private static final String PINNED_MEMORY = "defaultPinnedDeviceMemoryLimit";
  private static final int MAX_ECHO = 64;
  private static final List<String> STRATEGIES = SharingStrategy.configNames();

  /**
   * Decodes one config.
   *
   * @param parameters the {@code opaque.parameters} value
   * @param path where the parameters sit in their object, e.g. {@code
   *     spec.devices.config[0].opaque.parameters}; errors are reported under it
   */
  public DeviceConfig decode(Object parameters, String path) throws InvalidConfigException {
    var errors = new ArrayList<FieldError>();
    DeviceConfig config = decodeRoot(parameters, path, errors);
    if (!errors.isEmpty()) {
      throw new InvalidConfigException(errors);
    }
    return config;
  }

  private DeviceConfig decodeRoot(Object parameters, String path, List<FieldError> errors) {
    Map<String, Object> root = asObject(parameters, path, errors);
    if (root == null) {
      return null;
    }
    rejectUnknown(root, path, Set.of(API_VERSION, KIND, SHARING), errors);
    String apiVersion = requiredString(root, API_VERSION, path, errors);
    if (apiVersion != null && !apiVersion.equals(DriverNames.CONFIG_API_VERSION)) {
      errors.add(
          unsupported(
              join(path, API_VERSION), apiVersion, List.of(DriverNames.CONFIG_API_VERSION)));
    }
    String kind = requiredString(root, KIND, path, errors);
    List<String> kinds = List.of(GpuConfig.KIND, MigDeviceConfig.KIND);
    if (kind == null) {
      return null;
    }
    if (!kinds.contains(kind)) {
      errors.add(unsupported(join(path, KIND), kind, kinds));
      return null;
    }
    boolean mig = kind.equals(MigDeviceConfig.KIND);
    Sharing sharing =
        root.containsKey(SHARING)
            ? decodeSharing(root.get(SHARING), join(path, SHARING), mig, errors)
            : new Sharing.Exclusive();
    return mig ? new MigDeviceConfig(sharing) : new GpuConfig(sharing);
  }

  private Sharing decodeSharing(Object value, String path, boolean mig, List<FieldError> errors) {
    Map<String, Object> sharing = asObject(value, path, errors);
    if (sharing == null) {
      return null;
    }
    rejectUnknown(sharing, path, Set.of(STRATEGY, TIME_SLICING_CONFIG, MPS_CONFIG), errors);
    String name = requiredString(sharing, STRATEGY, path, errors);
    SharingStrategy strategy =
        name == null ? null : SharingStrategy.ofConfigName(name).orElse(null);
    if (name != null && strategy == null) {
      errors.add(unsupported(join(path, STRATEGY), name, STRATEGIES));
      return null;
    }
    if (sharing.containsKey(TIME_SLICING_CONFIG) && strategy != SharingStrategy.TIME_SLICING) {
      errors.add(
          new FieldError(
              join(path, TIME_SLICING_CONFIG),
              "only allowed when strategy is " + SharingStrategy.TIME_SLICING.configName()));
    }
    if (sharing.containsKey(MPS_CONFIG) && strategy != SharingStrategy.MPS) {
      errors.add(
          new FieldError(
              join(path, MPS_CONFIG),
              "only allowed when strategy is " + SharingStrategy.MPS.configName()));
    }
    if (strategy == null) {
      return null;
    }
    return switch (strategy) {
      case TIME_SLICING -> decodeTimeSlicing(sharing.get(TIME_SLICING_CONFIG), path, mig, errors);
      case MPS -> decodeMps(sharing.get(MPS_CONFIG), join(path, MPS_CONFIG), errors);
      case EXCLUSIVE -> new Sharing.Exclusive();
    };
  }

  private Sharing decodeTimeSlicing(
      Object value, String sharingPath, boolean mig, List<FieldError> errors) {
    String path = join(sharingPath, TIME_SLICING_CONFIG);
    if (value == null) {
      return new Sharing.TimeSlicing(TimeSliceInterval.Default);
    }
    if (mig) {
      errors.add(
          new FieldError(
              path, "not supported for MIG devices: the time-slice is a whole-GPU setting"));
      return null;
    }
    Map<String, Object> config = asObject(value, path, errors);
    if (config == null) {
      return null;
    }
    rejectUnknown(config, path, Set.of(INTERVAL), errors);
    if (!config.containsKey(INTERVAL)) {
      return new Sharing.TimeSlicing(TimeSliceInterval.Default);
    }
    String interval = string(config.get(INTERVAL), join(path, INTERVAL), errors);
    List<String> allowed = Arrays.stream(TimeSliceInterval.values()).map(Enum::name).toList();
    if (interval == null) {
      return null;
    }
    if (!allowed.contains(interval)) {
      errors.add(unsupported(join(path, INTERVAL), interval, allowed));
      return null;
    }
    return new Sharing.TimeSlicing(TimeSliceInterval.valueOf(interval));
  }

  private Sharing decodeMps(Object value, String path, List<FieldError> errors) {
    if (value == null) {
      return new Sharing.Mps(OptionalInt.empty(), OptionalLong.empty());
    }
    Map<String, Object> config = asObject(value, path, errors);
    if (config == null) {
      return null;
    }
    rejectUnknown(config, path, Set.of(THREAD_PERCENTAGE, PINNED_MEMORY), errors);
    OptionalInt threads = OptionalInt.empty();
    if (config.containsKey(THREAD_PERCENTAGE)) {
      String field = join(path, THREAD_PERCENTAGE);
      Long percentage = integer(config.get(THREAD_PERCENTAGE), field, errors);
      if (percentage != null && (percentage < 1 || percentage > 100)) {
        errors.add(new FieldError(field, "must be between 1 and 100, got " + percentage));
      } else if (percentage != null) {
        threads = OptionalInt.of(percentage.intValue());
      }
    }
    OptionalLong pinned = OptionalLong.empty();
    if (config.containsKey(PINNED_MEMORY)) {
      String field = join(path, PINNED_MEMORY);
      Long bytes = quantity(config.get(PINNED_MEMORY), field, errors);
      if (bytes != null && bytes <= 0) {
        errors.add(new FieldError(field, "must be a positive quantity such as 10Gi"));
      } else if (bytes != null) {
        pinned = OptionalLong.of(bytes);
      }
    }
    return new Sharing.Mps(threads, pinned);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> asObject(Object value, String path, List<FieldError> errors) {
    if (value instanceof Map<?, ?> map) {
      return (Map<String, Object>) map;
    }
    errors.add(new FieldError(path, "must be an object, got " + typeName(value)));
    return null;
  }

  private static void rejectUnknown(
      Map<String, Object> object, String path, Set<String> known, List<FieldError> errors) {
    for (String key : object.keySet()) {
      if (!known.contains(key)) {
        errors.add(
            new FieldError(
                join(path, key),
                "unknown field; allowed: "
                    + known.stream().sorted().collect(Collectors.joining(", "))));
      }
    }
  }

  private static String requiredString(
      Map<String, Object> object, String key, String path, List<FieldError> errors) {
    if (!object.containsKey(key)) {
      errors.add(new FieldError(join(path, key), "required"));
      return null;
    }
    return string(object.get(key), join(path, key), errors);
  }

  private static String string(Object value, String path, List<FieldError> errors) {
    if (value instanceof String s) {
      return s;
    }
    errors.add(new FieldError(path, "must be a string, got " + typeName(value)));
    return null;
  }

  private static Long integer(Object value, String path, List<FieldError> errors) {
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigInteger big && big.bitLength() < 64) {
      return big.longValue();
    }
    errors.add(new FieldError(path, "must be an integer, got " + typeName(value)));
    return null;
  }

  private static Long quantity(Object value, String path, List<FieldError> errors) {
    if (value instanceof String s) {
      try {
        return Quantities.parseLong(s);
      } catch (IllegalArgumentException e) {
        errors.add(new FieldError(path, "must be a quantity such as 10Gi, got " + quoted(s)));
        return null;
      }
    }
    if (value instanceof Integer || value instanceof Long) {
      return ((Number) value).longValue();
    }
    errors.add(new FieldError(path, "must be a quantity such as 10Gi, got " + typeName(value)));
    return null;
  }

  private static FieldError unsupported(String path, String value, List<String> allowed) {
    return new FieldError(
        path, "unsupported value " + quoted(value) + "; allowed: " + String.join(", ", allowed));
  }

  /** A value the user wrote, quoted, and cut short: an error message need not echo a megabyte. */
  private static String quoted(String value) {
    return value.length() <= MAX_ECHO
        ? "\"" + value + "\""
        : "\"" + value.substring(0, MAX_ECHO) + "\"… (" + value.length() + " characters)";
  }

  private static String typeName(Object value) {
    return switch (value) {
      case null -> "null";
      case String s -> "string";
      case Boolean b -> "boolean";
      case Integer i -> "integer";
      case Long l -> "integer";
      case BigInteger b -> "integer";
      case Double d -> "number";
      case Float f -> "number";
      case BigDecimal d -> "number";
      case Map<?, ?> m -> "object";
      case List<?> l -> "array";
      default -> value.getClass().getSimpleName();
    };
  }

  private static String join(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }
}
