package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.ListOptions;
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

/**
 * An informer on one driver's ResourceSlices that lists and watches their metadata only, through
 * {@link SliceMetadataClient} (fabric8's informers have no metadata mode of their own). The
 * controller reads a cached slice's name, version, owners and annotations; fabric8 reads each
 * answer into a {@link ResourceSlice} whose spec is null.
 */
final class MetadataSliceInformer {
  private final KubernetesClient metadataClient;

  MetadataSliceInformer(SliceMetadataClient metadata) {
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
    return new DefaultSharedIndexInformer<>(
        ResourceSlice.class,
        new MetadataOnly(operation),
        0,
        operation.getOperationContext().getExecutor());
  }

  /**
   * The operation's own list and watch, but an empty metadata list says {@code "items": null},
   * which fabric8's informer does not take.
   */
  private record MetadataOnly(BaseOperation<ResourceSlice, ResourceSliceList, ?> operation)
      implements ListerWatcher<ResourceSlice, ResourceSliceList> {
    @Override
    public CompletableFuture<AbstractWatchManager<ResourceSlice>> submitWatch(
        ListOptions options, Watcher<ResourceSlice> watcher) {
      return operation.submitWatch(options, watcher);
    }

    @Override
    public CompletableFuture<ResourceSliceList> submitList(ListOptions options) {
      return operation
          .submitList(options)
          .thenApply(
              list -> {
                if (list.getItems() == null) {
                  list.setItems(new ArrayList<>());
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
