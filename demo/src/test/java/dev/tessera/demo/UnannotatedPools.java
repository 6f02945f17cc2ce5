package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node's pool as a controller before decision 45 wrote it: its slices without the annotations
 * that say their pool and generation (the controller caches slices' metadata only, and reads the
 * generation of such a slice from the slice itself, counted).
 */
final class UnannotatedPools {
  /** The annotations saying a slice's pool and its generation, as the controller writes them. */
  static final String POOL = "gpu.tessera.dev/pool";

  static final String GENERATION = "gpu.tessera.dev/pool-generation";

  private static final Pattern READS =
      Pattern.compile("(?m)^tessera_controller_slice_generation_reads_total(?:\\{[^}]*})? (\\S+)$");

  private UnannotatedPools() {}

  /** Removes both annotations from every slice of the node's pool. */
  static void strip(TesseraOnNode tessera) {
    for (ResourceSlice slice : tessera.slices()) {
      tessera
          .client()
          .resource(slice)
          .patch(
              PatchContext.of(PatchType.JSON),
              """
              [{"op":"remove","path":"/metadata/annotations/gpu.tessera.dev~1pool-generation"},
               {"op":"remove","path":"/metadata/annotations/gpu.tessera.dev~1pool"}]""");
    }
  }

  /** The slices the controller has read whole for their generation, from its metrics; 0 if none. */
  static double reads(String controllerMetrics) {
    Matcher m = READS.matcher(controllerMetrics);
    double total = 0;
    while (m.find()) {
      total += Double.parseDouble(m.group(1));
    }
    return total;
  }
}
