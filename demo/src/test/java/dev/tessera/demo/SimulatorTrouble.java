package dev.tessera.demo;

import dev.tessera.controller.render.Offering;
import java.io.IOException;
import java.util.List;
import java.util.Random;

/**
 * What the NVML simulator does wrong in a round of the crash campaign: nothing, one call made slow
 * ({@code delay_ms.<symbol>}), or one call failing a counted number of times (a line of its faults
 * file). The call is one the plugin makes on the round's path: the MIG calls of prepare and
 * unprepare where the offering makes MIG devices; elsewhere (prepare of a whole GPU, a share, MPS
 * or time-slicing asks NVML nothing) the calls of the plugin's start-up after the round's kill.
 */
sealed interface SimulatorTrouble {

  /** Calls made when a dynamic MIG device is created or destroyed. */
  List<String> DYNAMIC_MIG_CALLS =
      List.of(
          "nvmlDeviceGetHandleByUUID",
          "nvmlDeviceGetMigMode",
          "nvmlDeviceSetMigMode",
          "nvmlDeviceGetGpuInstances",
          "nvmlDeviceCreateGpuInstanceWithPlacement",
          "nvmlGpuInstanceGetInfo",
          "nvmlGpuInstanceCreateComputeInstance",
          "nvmlDeviceGetMigDeviceHandleByIndex",
          "nvmlComputeInstanceDestroy",
          "nvmlGpuInstanceDestroy");

  /** Calls of the plugin's discovery when it starts (after a kill); with MIG devices, theirs. */
  List<String> START_UP_CALLS =
      List.of(
          "nvmlDeviceGetHandleByIndex_v2",
          "nvmlDeviceGetName",
          "nvmlDeviceGetUUID",
          "nvmlDeviceGetMemoryInfo_v2",
          "nvmlDeviceGetPciInfo_v3",
          "nvmlDeviceGetMigMode");

  List<String> STATIC_MIG_CALLS =
      List.of(
          "nvmlDeviceGetMigMode",
          "nvmlDeviceGetMaxMigDeviceCount",
          "nvmlDeviceGetMigDeviceHandleByIndex",
          "nvmlDeviceGetGpuInstanceId",
          "nvmlDeviceGetUUID");

  /** Codes that say nothing about the GPU's health (the health monitor would taint a lost GPU). */
  List<String> CODES = List.of("NVML_ERROR_UNKNOWN", "NVML_ERROR_TIMEOUT");

  record None() implements SimulatorTrouble {}

  /** Takes effect at the plugin's next start (the simulator reads its config at init). */
  record Slow(String call, int millis) implements SimulatorTrouble {}

  record Failing(String call, String code, int count) implements SimulatorTrouble {}

  static SimulatorTrouble draw(Random random, Offering offering) {
    List<String> calls =
        switch (offering) {
          case MIG_DYNAMIC -> DYNAMIC_MIG_CALLS;
          case MIG_STATIC -> STATIC_MIG_CALLS;
          case EXCLUSIVE, SHARED -> START_UP_CALLS;
        };
    String call = calls.get(random.nextInt(calls.size()));
    int draw = random.nextInt(10);
    if (draw < 4) {
      return new None();
    }
    if (draw < 7) {
      // A MIG change is slow on hardware too; discovery's calls run once per GPU or MIG device.
      int millis =
          offering == Offering.MIG_DYNAMIC ? 200 + random.nextInt(800) : 50 + random.nextInt(250);
      return new Slow(call, millis);
    }
    return new Failing(call, CODES.get(random.nextInt(CODES.size())), 1 + random.nextInt(2));
  }

  default boolean injected() {
    return !(this instanceof None);
  }

  default void apply(TesseraOnNode node) throws IOException {
    switch (this) {
      case None none -> {}
      case Slow slow -> node.setNvmlDelay(slow.call(), slow.millis());
      case Failing failing ->
          node.injectNvmlFault(failing.call() + " " + failing.code() + " " + failing.count());
    }
  }

  /**
   * Undoes {@link #apply} (a delay stays until the plugin's next start); returns whether a failing
   * call failed at least once.
   */
  default boolean clear(TesseraOnNode node) throws IOException {
    return switch (this) {
      case None none -> false;
      case Slow slow -> {
        node.setNvmlDelay(slow.call(), 0);
        yield false;
      }
      case Failing failing ->
          node.clearNvmlFaults().stream()
              .anyMatch(
                  l -> l.startsWith(failing.call() + " ") && !l.endsWith(" " + failing.count()));
    };
  }
}
