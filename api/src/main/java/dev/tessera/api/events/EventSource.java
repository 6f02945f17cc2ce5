package dev.tessera.api.events;

/**
 * Who reports Events: the component ({@code tessera-kubelet-plugin}, {@code tessera-controller})
 * and the host it runs on (the node, or the controller's pod), written as both the old {@code
 * source} and the newer {@code reportingComponent}/{@code reportingInstance}.
 */
public record EventSource(String component, String host) {
  public EventSource {
    host = host == null ? "" : host;
  }
}
