package dev.tessera.demo;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A process of Tessera's logged in as its pod is: a ServiceAccount's token and the cluster's CA,
 * found by fabric8's in-cluster configuration, instead of the admin's kubeconfig. The difference is
 * the start's: a kubeconfig is parsed as YAML, and its client certificate's key goes through a
 * PKCS#12 store's 10,000 rounds of PBKDF2 twice for each API client (decision 63), work a pod never
 * does. The account is bound to {@code cluster-admin}: what is measured is how the process logs in,
 * not the chart's RBAC.
 */
final class ServiceAccountLogin implements AutoCloseable {
  private static final long TOKEN_SECONDS = 6 * 3600;

  private final KubernetesClient admin;
  private final String namespace;
  private final String name;
  private final Map<String, String> env;

  private ServiceAccountLogin(
      KubernetesClient admin, String namespace, String name, Map<String, String> env) {
    this.admin = admin;
    this.namespace = namespace;
    this.name = name;
    this.env = env;
  }

  /**
   * Makes the ServiceAccount {@code name} in {@code namespace} (which exists), binds it to {@code
   * cluster-admin} under the same name, and writes its token (and the cluster's CA, where the
   * admin's kubeconfig holds it inline) into {@code dir}.
   */
  static ServiceAccountLogin create(KubernetesClient admin, String namespace, String name, Path dir)
      throws IOException {
    admin
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .serverSideApply();
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", "cluster-admin")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(name)
                .withNamespace(namespace)
                .endSubject()
                .build())
        .serverSideApply();
    String token =
        admin
            .serviceAccounts()
            .inNamespace(namespace)
            .withName(name)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(TOKEN_SECONDS)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Files.createDirectories(dir);
    Path tokenFile = Files.writeString(dir.resolve("token"), token);
    var api = ApiServerEndpoint.of(admin.getConfiguration(), dir);
    // What fabric8 reads in a pod, from the kubelet's environment and the projected files; the
    // kubeconfig that a process on this host would otherwise find is not tried.
    return new ServiceAccountLogin(
        admin,
        namespace,
        name,
        Map.of(
            "KUBERNETES_SERVICE_HOST", api.host(),
            "KUBERNETES_SERVICE_PORT", Integer.toString(api.port()),
            "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN", tokenFile.toString(),
            "KUBERNETES_CERTS_CA_FILE", api.ca().toString(),
            "KUBERNETES_AUTH_TRYKUBECONFIG", "false"));
  }

  /** The environment that logs a process in as the account (with no kubeconfig of its own). */
  Map<String, String> env() {
    return env;
  }

  /** Deletes the binding and the account. */
  @Override
  public void close() {
    admin.rbac().clusterRoleBindings().withName(name).delete();
    admin.serviceAccounts().inNamespace(namespace).withName(name).delete();
  }
}
