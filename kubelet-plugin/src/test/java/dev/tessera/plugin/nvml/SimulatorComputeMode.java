package dev.tessera.plugin.nvml;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import dev.tessera.plugin.nvml.NvmlHandle.Device;
import java.util.Map;

/**
 * The simulator's compute-mode calls, for tests only: the plugin sets compute modes with {@code
 * nvidia-smi}, so they are not part of the {@link Nvml} port. Loads the library an open {@link
 * JnaNvml} loaded (the same process-wide copy, so the same state) and takes its device handles.
 */
public final class SimulatorComputeMode {
  private final Calls lib;

  private SimulatorComputeMode(Calls lib) {
    this.lib = lib;
  }

  /** The compute-mode calls of the library {@code nvml} loaded. */
  public static SimulatorComputeMode of(JnaNvml nvml) {
    return new SimulatorComputeMode(
        Native.load(nvml.libraryPath(), Calls.class, Map.of(Library.OPTION_OPEN_FLAGS, 1)));
  }

  /** {@code nvmlDeviceGetComputeMode}. */
  public ComputeMode get(Device device) {
    var mode = new IntByReference();
    check(
        "nvmlDeviceGetComputeMode", lib.nvmlDeviceGetComputeMode(new Pointer(device.peer()), mode));
    return ComputeMode.of(mode.getValue());
  }

  /** {@code nvmlDeviceSetComputeMode}. */
  public void set(Device device, ComputeMode mode) {
    check(
        "nvmlDeviceSetComputeMode",
        lib.nvmlDeviceSetComputeMode(new Pointer(device.peer()), mode.value()));
  }

  private static void check(String call, int code) {
    if (code != 0) {
      throw new NvmlException(call, code, "simulator call failed");
    }
  }

  interface Calls extends Library {
    int nvmlDeviceGetComputeMode(Pointer device, IntByReference mode);

    int nvmlDeviceSetComputeMode(Pointer device, int mode);
  }
}
