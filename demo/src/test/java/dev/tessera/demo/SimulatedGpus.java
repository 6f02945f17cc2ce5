package dev.tessera.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The GPUs as the NVML simulator holds them now (its state file, {@code var/lib/mock-nvml/state}:
 * hack/mock-nvml, "Persistence"): what the hardware is, whatever the plugin thinks.
 */
record SimulatedGpus(List<Gpu> gpus) {
  SimulatedGpus {
    gpus = List.copyOf(gpus);
  }

  /**
   * One GPU: MIG mode now, compute mode (0 default, 3 exclusive-process), time-slice (0 default).
   */
  record Gpu(
      int index,
      String uuid,
      boolean migEnabled,
      int computeMode,
      int timeSlice,
      List<GpuInstance> instances) {
    Gpu {
      instances = List.copyOf(instances);
    }
  }

  /** A GPU instance: its profile id and first memory slice. */
  record GpuInstance(int id, int profileId, int start, int size) {}

  static SimulatedGpus read(Path driverRoot) throws IOException {
    var gpus = new ArrayList<Gpu>();
    var instances = new ArrayList<List<GpuInstance>>();
    for (String line : Files.readAllLines(driverRoot.resolve("var/lib/mock-nvml/state"))) {
      String[] f = line.strip().split("\\s+");
      // gpu idx cur pending computeMode timeslice uuid | gi gpu id profileId start size
      if (f[0].equals("gpu") && f.length >= 7) {
        instances.add(new ArrayList<>());
        gpus.add(
            new Gpu(
                Integer.parseInt(f[1]),
                f[6],
                f[2].equals("1"),
                Integer.parseInt(f[4]),
                Integer.parseInt(f[5]),
                List.of()));
      } else if (f[0].equals("gi") && f.length >= 6) {
        instances
            .get(Integer.parseInt(f[1]))
            .add(
                new GpuInstance(
                    Integer.parseInt(f[2]),
                    Integer.parseInt(f[3]),
                    Integer.parseInt(f[4]),
                    Integer.parseInt(f[5])));
      }
    }
    var out = new ArrayList<Gpu>();
    for (int i = 0; i < gpus.size(); i++) {
      Gpu g = gpus.get(i);
      out.add(
          new Gpu(
              g.index(),
              g.uuid(),
              g.migEnabled(),
              g.computeMode(),
              g.timeSlice(),
              instances.get(i)));
    }
    return new SimulatedGpus(out);
  }
}
