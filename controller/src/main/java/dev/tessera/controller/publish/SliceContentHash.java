package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A digest of what a slice says (its spec and owners), written on the slice as an annotation. The
 * controller keeps only slices' metadata in memory (a node of 8 H100s in {@code mig-dynamic} is
 * about 1.6 MiB of model objects) and compares digests to find out that nothing changed. Map
 * entries are ordered by key so the digest does not depend on a map's iteration order.
 */
final class SliceContentHash {
  /** The annotation holding the digest on every slice the controller writes. */
  static final String ANNOTATION = "gpu.tessera.dev/content-hash";

  private final JsonMapper json =
      JsonMapper.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

  /** The digest a slice carries in its annotation; null when it carries none. */
  static String annotated(ResourceSlice slice) {
    Map<String, String> annotations = slice.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(ANNOTATION);
  }

  /** Each slice's name and the digest it carries (null for a slice without one). */
  static Map<String, String> byName(List<ResourceSlice> slices) {
    var digests = new HashMap<String, String>();
    for (ResourceSlice slice : slices) {
      digests.put(slice.getMetadata().getName(), annotated(slice));
    }
    return digests;
  }

  String of(ResourceSlice slice) {
    MessageDigest digest;
    try {
      digest = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    try (var out = new DigestOutputStream(OutputStream.nullOutputStream(), digest)) {
      json.writeValue(
          out, new Object[] {slice.getSpec(), slice.getMetadata().getOwnerReferences()});
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
