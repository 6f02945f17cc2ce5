package dev.tessera.controller.render;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Version strings as semantic versions, so claims can compare them with CEL's {@code semver()}:
 * driver {@code 580.95.05} becomes {@code 580.95.5} (semver forbids leading zeros), CUDA {@code
 * 13.0} becomes {@code 13.0.0}.
 */
final class Versions {
  private Versions() {}

  static String semver(String version) {
    String[] parts = version.strip().split("\\.");
    String[] three = Arrays.copyOf(parts, 3);
    return Arrays.stream(three)
        .map(p -> p == null || p.isEmpty() ? "0" : Long.toString(Long.parseLong(p)))
        .collect(Collectors.joining("."));
  }
}
