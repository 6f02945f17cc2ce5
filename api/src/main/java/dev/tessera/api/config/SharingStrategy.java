package dev.tessera.api.config;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The sharing strategies of the opaque config ({@code sharing.strategy}), by the name written in
 * the config, kept in the checkpoint and shown in messages.
 */
public enum SharingStrategy {
  EXCLUSIVE("Exclusive"),
  TIME_SLICING("TimeSlicing"),
  MPS("MPS");

  private final String configName;

  SharingStrategy(String configName) {
    this.configName = configName;
  }

  /** The name as written in the config, e.g. {@code TimeSlicing}. */
  public String configName() {
    return configName;
  }

  /** The strategy a config names, if any. */
  public static Optional<SharingStrategy> ofConfigName(String name) {
    return Arrays.stream(values()).filter(s -> s.configName.equals(name)).findFirst();
  }

  /** Every strategy's config name, in order. */
  public static List<String> configNames() {
    return Arrays.stream(values()).map(SharingStrategy::configName).toList();
  }

  @Override
  public String toString() {
    return configName;
  }
}
