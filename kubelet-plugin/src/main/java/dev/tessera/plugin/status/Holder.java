package dev.tessera.plugin.status;

import java.util.List;

/**
 * A claim holding a device, as the GpuNode's status shows it.
 *
 * @param pods the pods the claim is reserved for, as read at its prepare (empty when the plugin
 *     restarted since: the checkpoint keeps claims, not pods)
 */
public record Holder(String namespace, String name, String uid, List<String> pods) {
  public Holder {
    pods = List.copyOf(pods);
  }
}
