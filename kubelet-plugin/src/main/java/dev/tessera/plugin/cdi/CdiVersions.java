package dev.tessera.plugin.cdi;

/**
 * The lowest {@code cdiVersion} a spec's fields need, per the CDI spec's version rules, so older
 * runtimes can still read what we write.
 */
final class CdiVersions {
  static final String BASE = "0.3.0";
  static final String HOST_PATH = "0.5.0";

  private CdiVersions() {}

  static String minimum(CdiSpec spec) {
    boolean hostPath =
        hasHostPath(spec.containerEdits())
            || spec.devices().stream().anyMatch(d -> hasHostPath(d.containerEdits()));
    // 0.5.0 also allowed device names to start with a digit; claim UIDs often do.
    boolean digitName =
        spec.devices().stream().anyMatch(d -> Character.isDigit(d.name().charAt(0)));
    return hostPath || digitName ? HOST_PATH : BASE;
  }

  private static boolean hasHostPath(CdiSpec.ContainerEdits edits) {
    return edits != null
        && edits.deviceNodes().stream()
            .anyMatch(n -> n.hostPath() != null && !n.hostPath().isEmpty());
  }
}
