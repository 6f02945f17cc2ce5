package dev.tessera.plugin.kubelet;

import dev.tessera.api.DriverNames;
import dev.tessera.api.kubelet.registration.v1.InfoRequest;
import dev.tessera.api.kubelet.registration.v1.PluginInfo;
import dev.tessera.api.kubelet.registration.v1.RegistrationGrpc;
import dev.tessera.api.kubelet.registration.v1.RegistrationStatus;
import dev.tessera.api.kubelet.registration.v1.RegistrationStatusResponse;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Answers the kubelet's plugin watcher: who we are, where our DRA socket is, what we speak. */
public final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(RegistrationService.class);

  /** The kubelet picks the first entry it supports, so the newest API comes first. */
  static final List<String> SUPPORTED_VERSIONS =
      List.of("v1.DRAPlugin", "v1beta1.DRAPlugin", "v1alpha1.DRAResourceHealth");

  private final String driverName;
  private final String endpoint;
  private final Consumer<String> onRejected;
  private final CompletableFuture<Void> registered = new CompletableFuture<>();

  /**
   * @param endpoint the absolute path of the DRA socket, as the kubelet will dial it
   * @param onRejected called with the kubelet's reason when it refuses us; the plugin cannot work
   *     unregistered, so this should stop the process
   */
  public RegistrationService(String driverName, String endpoint, Consumer<String> onRejected) {
    this.driverName = driverName;
    this.endpoint = endpoint;
    this.onRejected = onRejected;
  }

  /** Completes when the kubelet reports that it registered us. */
  public CompletableFuture<Void> registered() {
    return registered;
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> response) {
    LOG.atInfo().addKeyValue("endpoint", endpoint).log("kubelet asked for plugin info");
    response.onNext(
        PluginInfo.newBuilder()
            .setType(DriverNames.DRA_PLUGIN_TYPE)
            .setName(driverName)
            .setEndpoint(endpoint)
            .addAllSupportedVersions(SUPPORTED_VERSIONS)
            .build());
    response.onCompleted();
  }

  @Override
  public void notifyRegistrationStatus(
      RegistrationStatus status, StreamObserver<RegistrationStatusResponse> response) {
    response.onNext(RegistrationStatusResponse.getDefaultInstance());
    response.onCompleted();
    if (status.getPluginRegistered()) {
      LOG.info("registered with the kubelet");
      registered.complete(null);
    } else {
      LOG.atError().addKeyValue("reason", status.getError()).log("the kubelet rejected the plugin");
      onRejected.accept(status.getError());
    }
  }
}
