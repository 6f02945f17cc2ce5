package dev.tessera.controller.publish;

import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An informer on one driver's ResourceSlices that asks the API server for their metadata only
 * ({@code as=PartialObjectMetadata}, as client-go's metadata informers do; fabric8's informers have
 * no such mode). The controller reads a cached slice's name, version, owners and annotations; a
 * whole slice of a {@code mig-dynamic} node is ~90 KiB, which the API server would serialize and
 * the controller parse again for every slice it writes, only to drop it. fabric8 reads each answer
 * into a {@link ResourceSlice} whose spec is null.
 */
final class MetadataSliceInformer implements AutoCloseable {
  private static final String METADATA =
      "application/json;as=PartialObjectMetadata%s;g=meta.k8s.io;v=v1";

  private static final Interceptor ACCEPT_METADATA =
      new Interceptor() {
        @Override
        public void before(
            BasicBuilder builder, HttpRequest request, Interceptor.RequestTags tags) {
          accept(request.uri()).ifPresent(accept -> builder.setHeader("Accept", accept));
        }
      };

  private final KubernetesClient metadataClient;

  /**
   * What the informer's requests accept: a list the list form, a watch's events single objects;
   * nothing else of this client's (an auth exchange, say) is changed.
   */
  static Optional<String> accept(URI request) {
    if (request.getPath() == null || !request.getPath().endsWith("/resourceslices")) {
      return Optional.empty();
    }
    boolean watch =
        request.getRawQuery() != null
            && Arrays.asList(request.getRawQuery().split("&")).contains("watch=true");
    return Optional.of(METADATA.formatted(watch ? "" : "List"));
  }

  /** A client of its own, with the same configuration as {@code client}, asks for metadata. */
  MetadataSliceInformer(KubernetesClient client) {
    this.metadataClient =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withHttpClientBuilderConsumer(
                b -> b.addOrReplaceInterceptor("tessera-metadata-only", ACCEPT_METADATA))
            .build();
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

  @Override
  public void close() {
    metadataClient.close();
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
