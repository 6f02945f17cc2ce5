package dev.tessera.demo;

import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

/**
 * Where a client's configuration reaches the API server, and the CA it trusts there as a PEM file,
 * for a process of its own that is given them (a TLS probe, a process logged in as a pod is).
 *
 * @param ca the kubeconfig's CA file, or its inline CA data written into a file
 */
record ApiServerEndpoint(String host, int port, Path ca) {

  /** The endpoint of {@code config}; a CA given inline is written to {@code dir}/ca.crt. */
  static ApiServerEndpoint of(Config config, Path dir) throws IOException {
    URI api = URI.create(config.getMasterUrl());
    Path ca;
    if (config.getCaCertFile() != null) {
      ca = Path.of(config.getCaCertFile());
    } else {
      Files.createDirectories(dir);
      ca =
          Files.writeString(
              dir.resolve("ca.crt"),
              new String(
                  Base64.getDecoder().decode(config.getCaCertData()), StandardCharsets.UTF_8));
    }
    return new ApiServerEndpoint(api.getHost(), api.getPort() == -1 ? 443 : api.getPort(), ca);
  }
}
