package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Informers that list and watch metadata only, through {@link MetadataClient} (fabric8's informers
 * have no metadata mode of their own): on one driver's ResourceSlices (the controller reads a
 * cached slice's name, version, owners and annotations) and on Nodes (their labels and UID).
 * fabric8 reads each answer into a {@link ResourceSlice} or {@link Node} whose spec and status are
 * null.
 */
final class MetadataInformers {
  private final KubernetesClient metadataClient;

  MetadataInformers(MetadataClient metadata) {
    this.metadataClient = metadata.client();
  }

  /** A runnable informer on the driver's slices, listing {@code page} at a time. */
  SharedIndexInformer<ResourceSlice> slicesOf(String driverName, long page) {
    @SuppressWarnings("unchecked")
    var operation =
        (BaseOperation<ResourceSlice, ResourceSliceList, ?>)
            metadataClient
                .dynamicResourceAllocation()
                .v1()
                .resourcesSlices()
                .withField("spec.driver", driverName)
                .withLimit(page);
    return informer(ResourceSlice.class, operation, list -> list.setItems(new ArrayList<>()));
  }

  /** A runnable informer on every Node, listing {@code page} at a time. */
  SharedIndexInformer<Node> nodes(long page) {
    @SuppressWarnings("unchecked")
    var operation = (BaseOperation<Node, NodeList, ?>) metadataClient.nodes().withLimit(page);
    return informer(Node.class, operation, list -> list.setItems(new ArrayList<>()));
  }

  private static <T extends HasMetadata, L extends KubernetesResourceList<T>>
      SharedIndexInformer<T> informer(
          Class<T> type, BaseOperation<T, L, ?> operation, Consumer<L> noItems) {
    return new DefaultSharedIndexInformer<>(
        type,
        new MetadataOnly<>(operation, noItems),
        0,
        operation.getOperationContext().getExecutor());
  }

  /**
   * The operation's own list and watch, but an empty metadata list says {@code "items": null},
   * which fabric8's informer does not take: {@code noItems} gives such a list an empty one.
   */
  private record MetadataOnly<T extends HasMetadata, L extends KubernetesResourceList<T>>(
      BaseOperation<T, L, ?> operation, Consumer<L> noItems) implements ListerWatcher<T, L> {
    @Override
    public CompletableFuture<AbstractWatchManager<T>> submitWatch(
        ListOptions options, Watcher<T> watcher) {
      return operation.submitWatch(options, watcher);
    }

    @Override
    public CompletableFuture<L> submitList(ListOptions options) {
      return operation
          .submitList(options)
          .thenApply(
              list -> {
                if (list.getItems() == null) {
                  noItems.accept(list);
                }
                return list;
              });
    }

    @Override
    public Long getLimit() {
      return operation.getLimit();
    }

    @Override
    public int getWatchReconnectInterval() {
      return operation.getWatchReconnectInterval();
    }

    @Override
    public String getApiEndpointPath() {
      return operation.getApiEndpointPath();
    }

    @Override
    public Config getConfig() {
      return operation.getConfig();
    }
  }
}
