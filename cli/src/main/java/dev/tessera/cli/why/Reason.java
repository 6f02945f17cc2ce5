package dev.tessera.cli.why;

import dev.tessera.cel.Quantity;
import dev.tessera.cli.core.ClaimRef;
import java.util.List;

/**
 * Why one device of a node does not serve one request, or that it does. Each kind says it in its
 * own words ({@link WhyText}); devices with the same words are printed together.
 */
public sealed interface Reason {
  /** The device this is about; empty for what concerns the whole node or request. */
  String device();

  /** The request's DeviceClass does not exist. */
  record NoSuchClass(String deviceClass) implements Reason {
    @Override
    public String device() {
      return "";
    }
  }

  /** No device of the node is of the request's class (its selectors are false on all of them). */
  record NoDeviceOfClass(String deviceClass, int devices) implements Reason {
    @Override
    public String device() {
      return "";
    }
  }

  /**
   * A selector of the request is false on the device.
   *
   * @param tested what the selector reads of the device, as {@code name=value}
   */
  record SelectorFalse(String device, int index, String expression, List<String> tested)
      implements Reason {
    public SelectorFalse {
      tested = List.copyOf(tested);
    }
  }

  /** The device matches but allocated claims hold it whole. */
  record Taken(String device, List<ClaimRef> by) implements Reason {
    public Taken {
      by = List.copyOf(by);
    }
  }

  /** The device matches but carries taints the request does not tolerate. */
  record Tainted(String device, List<String> taints) implements Reason {
    public Tainted {
      taints = List.copyOf(taints);
    }
  }

  /**
   * The device matches, but what it would consume of a shared counter (mig-dynamic: a memory slice,
   * memory, an engine) is more than allocated devices left of the GPU's counter set.
   */
  record CountersExhausted(
      String device,
      String counterSet,
      String counter,
      Quantity needs,
      Quantity left,
      List<ClaimRef> by)
      implements Reason {
    public CountersExhausted {
      by = List.copyOf(by);
    }
  }

  /** A shared device has less of a capacity left than the request asks. */
  record CapacityShort(
      String device, String capacity, Quantity asks, Quantity left, List<ClaimRef> by)
      implements Reason {
    public CapacityShort {
      by = List.copyOf(by);
    }
  }

  /** Where the analysis does not model what the scheduler does, or CEL failed. */
  record CannotDecide(String device, String why) implements Reason {}

  /** The device could serve the request now. */
  record Fits(String device, String note) implements Reason {}
}
