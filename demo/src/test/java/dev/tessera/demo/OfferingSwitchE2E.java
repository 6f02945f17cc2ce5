package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.tessera.controller.render.Offering;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What a platform team does to a node in its first week: switch its offering with {@code kubectl
 * label --overwrite}, right after the install (the slices first written by a create), between every
 * pair of offerings in both directions. Each switch must publish the new offering's pool complete
 * with no write the API server refuses (a conflict on a stale cache is retried, and counted apart);
 * the time each takes is printed (the figures in docs/benchmarks.md come from {@code
 * -Dtessera.switch.rounds=10}). And a switch while a claim holds a whole GPU keeps that GPU from
 * being handed out again as MIG devices.
 *
 * <p>The node: two H100s, GPU 0 whole, GPU 1 in MIG mode with a 3g.40gb an admin made at slice 4,
 * so every offering renders something different.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OfferingSwitchE2E {
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  private static final Pattern REJECTED =
      Pattern.compile("(?m)^tessera_controller_slice_writes_rejected_total\\{[^}]*} (\\S+)$");
  private static final Pattern CONFLICTS =
      Pattern.compile("(?m)^tessera_controller_slice_write_conflicts_total\\{[^}]*} (\\S+)$");

  private static TesseraOnNode tessera;

  @BeforeAll
  static void start() throws Exception {
    tessera =
        TesseraOnNode.start(
            Clusters.require(),
            "H100-SXM5-80GB",
            2,
            Offering.EXCLUSIVE,
            "--mig-enabled",
            "1",
            "--mig",
            "1:9@4");
  }

  @AfterAll
  static void stop() throws Exception {
    if (tessera != null) {
      tessera.close();
    }
  }

  /** What each offering's pool looks like on this node, told apart by its shape. */
  private static Predicate<List<ResourceSlice>> looksLike(Offering offering) {
    return slices -> {
      List<Device> devices =
          slices.stream()
              .filter(s -> s.getSpec().getDevices() != null)
              .flatMap(s -> s.getSpec().getDevices().stream())
              .toList();
      boolean counters =
          slices.stream()
              .anyMatch(
                  s ->
                      s.getSpec().getSharedCounters() != null
                          && !s.getSpec().getSharedCounters().isEmpty());
      boolean shared =
          devices.stream().anyMatch(d -> Boolean.TRUE.equals(d.getAllowMultipleAllocations()));
      boolean mig = devices.stream().anyMatch(d -> d.getName().contains("-mig-"));
      boolean whole = devices.stream().anyMatch(d -> !d.getName().contains("-mig-"));
      return switch (offering) {
        case EXCLUSIVE -> whole && !mig && !counters && !shared;
        // GPU 0 (not in MIG mode) is offered whole beside GPU 1's MIG device.
        case MIG_STATIC -> mig && !counters && !shared;
        case MIG_DYNAMIC -> counters && mig && whole;
        case SHARED -> shared && !counters;
      };
    };
  }

  /** The pool as consumers trust it: one generation, all its slices there. */
  private static boolean complete(List<ResourceSlice> slices) {
    if (slices.isEmpty()) {
      return false;
    }
    long generation = slices.get(0).getSpec().getPool().getGeneration();
    long count = slices.get(0).getSpec().getPool().getResourceSliceCount();
    return slices.size() == count
        && slices.stream().allMatch(s -> s.getSpec().getPool().getGeneration() == generation);
  }

  /** Labels the node and returns how long until the new offering's pool was published complete. */
  private static Duration switchTo(Offering offering) {
    long start = System.nanoTime();
    NodeLabels.set(tessera.client(), tessera.nodeName(), Offering.NODE_LABEL, offering.label());
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              var slices = tessera.slices();
              return complete(slices) && looksLike(offering).test(slices);
            });
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static double sum(Pattern metric, String metrics) {
    Matcher m = metric.matcher(metrics);
    double total = 0;
    while (m.find()) {
      total += Double.parseDouble(m.group(1));
    }
    return total;
  }

  @Test
  @Order(1)
  void everyPairOfOfferingsSwitchedRightAfterInstallConvergesWithNoWriteRefused() throws Exception {
    int rounds = Integer.getInteger("tessera.switch.rounds", 1);
    var offerings = List.of(Offering.values());
    Map<String, List<Long>> millis = new java.util.TreeMap<>();
    Offering current = Offering.EXCLUSIVE;
    switchTo(current);
    for (int round = 0; round < rounds; round++) {
      for (Offering from : offerings) {
        for (Offering to : offerings) {
          if (from == to) {
            continue;
          }
          if (current != from) {
            switchTo(from);
          }
          Duration took = switchTo(to);
          current = to;
          millis
              .computeIfAbsent(from.label() + " -> " + to.label(), k -> new ArrayList<>())
              .add(took.toMillis());
        }
      }
    }
    String metrics = tessera.deployment().controllerMetrics();
    System.out.println("== offering switches: pair, median ms, all ms (" + rounds + " rounds)");
    millis.forEach(
        (pair, ms) -> {
          var sorted = ms.stream().sorted().toList();
          System.out.printf(
              "switch %-26s median %5d ms  %s%n", pair, sorted.get(sorted.size() / 2), ms);
        });
    System.out.printf(
        "slice writes refused: %.0f, conflicts retried: %.0f%n",
        sum(REJECTED, metrics), sum(CONFLICTS, metrics));
    assertThat(sum(REJECTED, metrics)).as("slice writes the API server refused").isZero();
    assertThat(metrics).contains("tessera_controller_queue_depth");
  }

  @Test
  @Order(2)
  void aGpuAWholeGpuClaimHoldsOffersNoMigPlacementAfterASwitchToMigDynamic() throws Exception {
    switchTo(Offering.EXCLUSIVE);
    tessera.applyScenario("01-gpu-per-pod");
    try {
      // Only GPU 0 is offered whole; one pod gets it (the scheduler may take either first), the
      // other waits: it goes, so that nothing but the MIG claim below asks for GPU 1 once it is
      // offered.
      String holder =
          await()
              .atMost(Duration.ofSeconds(120))
              .until(
                  () ->
                      tessera.claims().stream()
                          .filter(
                              c -> c.getStatus() != null && c.getStatus().getAllocation() != null)
                          .map(c -> c.getMetadata().getName())
                          .filter(name -> name.startsWith("gpu-pod-"))
                          .map(name -> name.startsWith("gpu-pod-1-") ? "gpu-pod-1" : "gpu-pod-2")
                          .findFirst()
                          .orElse(null),
                  java.util.Objects::nonNull);
      String waiting = holder.equals("gpu-pod-1") ? "gpu-pod-2" : "gpu-pod-1";
      String saw = tessera.saw(holder, null);
      assertThat(TesseraOnNode.gpus(saw)).containsExactly("0");
      tessera.client().pods().inNamespace("default").withName(waiting).delete();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  tessera.claims().stream()
                      .noneMatch(c -> c.getMetadata().getName().startsWith(waiting + "-")));
      switchTo(Offering.MIG_DYNAMIC);
      tessera.applyScenario("11-mig-dynamic-by-profile");
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> allocatedDevice("mig-dynamic") != null);
        // GPU 0's counters are all taken by the whole-GPU claim: its placements cannot be had.
        assertThat(allocatedDevice("mig-dynamic")).startsWith("gpu-1-mig-1g10gb-");
        // Back to exclusive: GPU 1 (MIG devices allocated) offers no whole GPU; GPU 0 is still
        // held.
        switchTo(Offering.EXCLUSIVE);
        assertThat(tessera.slices().stream().flatMap(s -> s.getSpec().getDevices().stream()))
            .extracting(Device::getName)
            .containsExactly("gpu-0");
      } finally {
        tessera.deleteScenario("11-mig-dynamic-by-profile");
        // Only the whole-GPU claim is left prepared.
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> tessera.checkpointedClaims().size() == 1);
      }
    } finally {
      tessera.deleteScenarioAndWaitForUnprepare("01-gpu-per-pod");
    }
    assertThat(tessera.cdiSpecs()).isEmpty();
    assertThat(tessera.checkpointedClaims()).isEmpty();
  }

  /**
   * After an upgrade the controller finds slices written before it said their pool generation in an
   * annotation (it caches slices' metadata only): it reads their generation from the slices
   * themselves (counted), so the next switch publishes the generation after theirs, not a first one
   * that consumers would not trust beside a higher one.
   */
  @Test
  @Order(3)
  void aPoolWhoseSlicesDoNotAnnotateTheirGenerationSwitchesToTheNextGeneration() throws Exception {
    switchTo(Offering.MIG_DYNAMIC);
    // Its counters apart from its devices: more slices than exclusive's one, so the switch below
    // is a new generation, not an update in place.
    assertThat(tessera.slices()).hasSizeGreaterThan(1);
    long before = tessera.slices().get(0).getSpec().getPool().getGeneration();
    double readsBefore = UnannotatedPools.reads(tessera.deployment().controllerMetrics());
    UnannotatedPools.strip(tessera);
    // The controller reads the generation of each such slice from the slice itself.
    await()
        .atMost(CONVERGE)
        .until(
            () -> UnannotatedPools.reads(tessera.deployment().controllerMetrics()) > readsBefore);

    switchTo(Offering.EXCLUSIVE);

    var after = tessera.slices();
    assertThat(after)
        .allSatisfy(
            s -> {
              assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(before + 1);
              assertThat(s.getMetadata().getAnnotations())
                  .containsEntry(UnannotatedPools.GENERATION, Long.toString(before + 1))
                  .containsEntry(UnannotatedPools.POOL, tessera.nodeName());
            });
  }

  /** The device allocated to the first claim whose name starts with {@code prefix}, if any. */
  private static String allocatedDevice(String prefix) {
    return tessera.claims().stream()
        .filter(c -> c.getMetadata().getName().startsWith(prefix))
        .map(ResourceClaim::getStatus)
        .filter(s -> s != null && s.getAllocation() != null)
        .map(s -> s.getAllocation().getDevices().getResults().get(0).getDevice())
        .findFirst()
        .orElse(null);
  }
}
