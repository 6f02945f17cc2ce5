package dev.tessera.api.config;

import java.util.Optional;

/**
 * What a config may ask of a device allocated with admin access: nothing. Such a device is handed
 * over as it is, beside the claims that use it, so no sharing can be set up for it (that would
 * change the device under those claims). Judged by the admission webhook on a claim's configs and
 * again by the node plugin at prepare time, since the webhook may be off.
 */
public final class AdminAccessRule {
  private AdminAccessRule() {}

  /**
   * Why {@code config} cannot apply to a request with admin access, if it cannot.
   *
   * @param parametersPath where the config's parameters sit, e.g. {@code
   *     spec.devices.config[0].opaque.parameters}; the error names the strategy field under it
   * @param request the request with admin access, for the message
   */
  public static Optional<FieldError> check(
      DeviceConfig config, String parametersPath, String request) {
    Sharing sharing = config.sharing();
    if (!sharing.allowsSharing()) {
      return Optional.empty();
    }
    return Optional.of(
        new FieldError(
            parametersPath + ".sharing.strategy",
            "request "
                + request
                + " has adminAccess, which hands its devices over as they are beside the claims"
                + " that use them; it cannot ask for sharing "
                + sharing.strategy().configName()
                + " (leave sharing out or use Exclusive)"));
  }
}
