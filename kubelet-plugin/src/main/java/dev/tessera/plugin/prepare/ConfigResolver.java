package dev.tessera.plugin.prepare;

import dev.tessera.api.config.DeviceConfig;
import dev.tessera.api.config.DeviceConfig.GpuConfig;
import dev.tessera.api.config.DeviceConfig.MigDeviceConfig;
import dev.tessera.api.config.InvalidConfigException;
import dev.tessera.api.config.OpaqueConfigDecoder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAllocationConfiguration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Picks the opaque config that applies to one allocated device (pure). Configs from the device
 * class come first, then the claim's own; among those that name the device's request (or no request
 * at all) and fit its kind, the last one wins. Other drivers' configs are ignored. Every config of
 * ours is decoded strictly, so a bad one fails the claim even where a later one would win.
 */
public final class ConfigResolver {
  private final String driverName;
  private final OpaqueConfigDecoder decoder;
  private final UnaryOperator<Object> toJsonTree;

  /**
   * @param toJsonTree turns the parameters as the Kubernetes client decoded them into plain maps
   *     and lists
   */
  public ConfigResolver(
      String driverName, OpaqueConfigDecoder decoder, UnaryOperator<Object> toJsonTree) {
    this.driverName = driverName;
    this.decoder = decoder;
    this.toJsonTree = toJsonTree;
  }

  /** Our configs in precedence order (lowest first), decoded, with the requests they name. */
  public List<Scoped> decodeAll(List<DeviceAllocationConfiguration> configs)
      throws InvalidConfigException {
    var indexed = new ArrayList<Integer>();
    for (int i = 0; i < configs.size(); i++) {
      indexed.add(i);
    }
    indexed.sort(
        Comparator.comparingInt(i -> "FromClaim".equals(configs.get(i).getSource()) ? 1 : 0));
    var scoped = new ArrayList<Scoped>();
    for (int i : indexed) {
      DeviceAllocationConfiguration config = configs.get(i);
      if (config.getOpaque() == null || !driverName.equals(config.getOpaque().getDriver())) {
        continue;
      }
      String path = "status.allocation.devices.config[" + i + "].opaque.parameters";
      DeviceConfig decoded =
          decoder.decode(toJsonTree.apply(config.getOpaque().getParameters()), path);
      List<String> requests = config.getRequests() == null ? List.of() : config.getRequests();
      scoped.add(new Scoped(requests, decoded, path));
    }
    return scoped;
  }

  /** The config for a device allocated for {@code request}; the kind's default when none fits. */
  public DeviceConfig forDevice(List<Scoped> configs, String request, boolean mig) {
    return chosen(configs, request, mig)
        .map(Scoped::config)
        .orElse(mig ? MigDeviceConfig.defaults() : GpuConfig.defaults());
  }

  /** The config that wins for a device allocated for {@code request}, with where it was written. */
  public Optional<Scoped> chosen(List<Scoped> configs, String request, boolean mig) {
    Scoped chosen = null;
    for (Scoped config : configs) {
      boolean kindFits = mig == (config.config() instanceof MigDeviceConfig);
      if (kindFits && config.appliesTo(request)) {
        chosen = config;
      }
    }
    return Optional.ofNullable(chosen);
  }

  /**
   * A decoded config and the requests it names (empty: all of them).
   *
   * @param path where its parameters sit in the claim, for errors about it
   */
  public record Scoped(List<String> requests, DeviceConfig config, String path) {
    public Scoped {
      requests = List.copyOf(requests);
    }

    boolean appliesTo(String request) {
      if (requests.isEmpty() || requests.contains(request)) {
        return true;
      }
      int slash = request.indexOf('/');
      return slash > 0 && requests.contains(request.substring(0, slash));
    }
  }
}
