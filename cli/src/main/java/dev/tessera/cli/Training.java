package dev.tessera.cli;

import dev.tessera.cel.DeviceSelectors;
import dev.tessera.cli.core.Snapshot;
import dev.tessera.cli.kube.ApiServerSnapshot;
import dev.tessera.cli.nodes.NodeRows;
import dev.tessera.cli.nodes.TableText;
import dev.tessera.cli.why.Why;
import dev.tessera.cli.why.WhyText;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesList;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * {@code kubectl-tessera train}, run once by the install: the work of a real call without a cluster
 * (the built-in {@code train.yaml} through the analysis and the rendering, and a list against a
 * closed local port), so the class cache made of this run holds what a real call loads.
 */
final class Training {
  private Training() {}

  static int run(PrintStream out) throws Exception {
    try (KubernetesClient client =
            new KubernetesClientBuilder()
                .withConfig(
                    new ConfigBuilder()
                        .withMasterUrl("https://127.0.0.1:1")
                        .withRequestRetryBackoffLimit(0)
                        .withConnectionTimeout(200)
                        .build())
                .build();
        InputStream yaml = Training.class.getResourceAsStream("train.yaml")) {
      List<HasMetadata> items =
          client.getKubernetesSerialization().unmarshal(yaml, KubernetesList.class).getItems();
      var snapshot =
          new Snapshot(
              "gpu.tessera.dev",
              of(items, ResourceSlice.class),
              of(items, ResourceClaim.class),
              of(items, DeviceClass.class),
              Map.of("train", Map.of("gpu-0", List.of("gpu.tessera.dev/xid=79"))));
      String table = TableText.render(NodeRows.of(snapshot, true));
      var why = new Why(snapshot, new DeviceSelectors());
      var text = new StringBuilder(table);
      snapshot.claims().forEach(c -> text.append(WhyText.render(why.explain(c))));
      try {
        new ApiServerSnapshot(client).read("gpu.tessera.dev");
      } catch (RuntimeException expected) {
        // nothing listens there: the request path is loaded all the same
      }
      out.printf("trained on %d characters of output%n", text.length());
      return 0;
    }
  }

  private static <T> List<T> of(List<HasMetadata> items, Class<T> type) {
    return items.stream().filter(type::isInstance).map(type::cast).toList();
  }
}
