package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.FieldValidateable.Validation;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every object the chart renders (CRD, RBAC, the admission policy with its CEL, the webhook
 * configuration, the DaemonSet, the Deployment, ...) is accepted by the real API server: applied
 * with server-side dry run and strict field validation, so the API server validates everything and
 * stores nothing. Its namespace is created first, as {@code helm install --create-namespace} would.
 */
class HelmChartE2E {
  private static KubernetesClient client;

  @BeforeAll
  static void connect() throws Exception {
    Cluster cluster = Clusters.requireApiServer();
    client = cluster.adminClient();
    HelmChart.createNamespace(client);
  }

  @AfterAll
  static void close() {
    if (client != null) {
      HelmChart.deleteNamespace(client);
      client.close();
    }
  }

  @Test
  void theApiServerAcceptsEveryRenderedObject() throws Exception {
    for (List<String> values :
        List.of(
            List.of("deviceClasses.extendedResource=true"),
            List.of("hostNetwork=true", "apiServer.host=192.0.2.2", "apiServer.port=6443"),
            List.of("plugin.privileged=false", "webhook.failurePolicy=Fail"))) {
      var args =
          new ArrayList<>(
              List.of(
                  "template",
                  HelmChart.RELEASE,
                  HelmChart.CHART.toString(),
                  "-n",
                  HelmChart.NAMESPACE,
                  "--include-crds"));
      values.forEach(v -> args.addAll(List.of("--set", v)));
      List<HasMetadata> objects =
          HelmChart.parse(HelmChart.helm(args).orFail("helm template").output());
      assertThat(objects).extracting(HasMetadata::getKind).contains("CustomResourceDefinition");
      for (HasMetadata object : objects) {
        HasMetadata accepted =
            client
                .resource(object)
                .dryRun()
                .fieldValidation(Validation.STRICT)
                .fieldManager("tessera-chart-e2e")
                .forceConflicts()
                .serverSideApply();
        assertThat(accepted.getMetadata().getName())
            .as("%s %s with %s", object.getKind(), object.getMetadata().getName(), values)
            .isEqualTo(object.getMetadata().getName());
      }
    }
  }
}
