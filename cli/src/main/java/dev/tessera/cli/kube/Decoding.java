package dev.tessera.cli.kube;

import io.fabric8.kubernetes.api.model.resource.v1.DeviceClassList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The JSON mapper the lists are decoded with, and its warm-up. Jackson builds a deserializer per
 * model class on first use, by reflection: in a fresh JVM the first list of slices took three times
 * as long to decode as the second. {@link #warmUp} decodes a small list of each kind the call
 * reads, on the caller's thread, so that when started first on a thread of its own it runs on the
 * second core while the kubeconfig is read and the TLS handshake runs.
 */
public final class Decoding {
  /** The small lists {@link #warmUp} decodes; also what {@code kubectl-tessera train} serves. */
  public static final String SLICES = "train-slices.json";

  public static final String CLAIMS = "train-claims.json";
  public static final String CLASSES = "train-classes.json";

  private final KubernetesSerialization json = new KubernetesSerialization();

  KubernetesSerialization json() {
    return json;
  }

  /** Decodes the built-in lists once; returns how many items they held. */
  public int warmUp() {
    return json.unmarshal(text(SLICES), ResourceSliceList.class).getItems().size()
        + json.unmarshal(text(CLAIMS), ResourceClaimList.class).getItems().size()
        + json.unmarshal(text(CLASSES), DeviceClassList.class).getItems().size();
  }

  /** One of the built-in lists as JSON text. */
  public static String text(String name) {
    try (InputStream in = Decoding.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the jar lacks " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
