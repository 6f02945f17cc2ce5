package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;

class ClusterChoiceTest {
  private static Cluster cluster(String unavailable) {
    return new Cluster() {
      @Override
      public Optional<String> unavailableReason() {
        return Optional.ofNullable(unavailable);
      }

      @Override
      public Path adminKubeconfig() {
        return Path.of("kubeconfig");
      }

      @Override
      public String nodeName() {
        return "node";
      }

      @Override
      public Path registryDir() {
        return Path.of("registry");
      }

      @Override
      public Path pluginsDir() {
        return Path.of("plugins");
      }

      @Override
      public Path cdiDir() {
        return Path.of("cdi");
      }

      @Override
      public String hostNetworkAddress() {
        return "192.0.2.1";
      }

      @Override
      public ProcessBuilder installCommand(Path driverRoot, Path images, List<String> helmArgs) {
        return new ProcessBuilder("true");
      }
    };
  }

  @Test
  void theFirstAvailableClusterIsUsed() {
    Cluster local = cluster("no local cluster");
    Cluster kind = cluster(null);

    assertThat(ClusterChoice.of(List.of(local, kind), true)).isEqualTo(new ClusterChoice.Use(kind));
  }

  @Test
  void withoutAnyClusterTheTestsSkipNamingEveryReason() {
    var choice =
        ClusterChoice.of(List.of(cluster("no local cluster"), cluster("no Docker engine")), false);

    assertThat(choice)
        .isEqualTo(
            new ClusterChoice.Skip("no cluster to run on: no local cluster; no Docker engine"));
  }

  @Test
  void onCiAMissingClusterIsAFailureNotASkip() {
    var choice = ClusterChoice.of(List.of(cluster("no local cluster")), true);

    assertThat(choice).isInstanceOf(ClusterChoice.Fail.class);
    assertThat(((ClusterChoice.Fail) choice).reason())
        .contains("must run on CI")
        .contains("no local cluster");
  }

  @Test
  void kindIsUnavailableWithoutAContainerEngineAndSaysSo() {
    Assumptions.assumeFalse(
        DockerClientFactory.instance().isDockerAvailable(), "a Docker engine exists here");

    assertThat(new KindCluster().unavailableReason())
        .hasValueSatisfying(r -> assertThat(r).contains("no container engine"));
  }
}
