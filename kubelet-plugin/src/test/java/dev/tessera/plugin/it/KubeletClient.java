package dev.tessera.plugin.it;

import dev.tessera.api.kubelet.dra.v1.Claim;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tessera.api.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.tessera.api.kubelet.drahealth.v1alpha1.DRAResourceHealthGrpc;
import dev.tessera.api.kubelet.drahealth.v1alpha1.NodeWatchResourcesRequest;
import dev.tessera.api.kubelet.drahealth.v1alpha1.NodeWatchResourcesResponse;
import dev.tessera.api.kubelet.registration.v1.InfoRequest;
import dev.tessera.api.kubelet.registration.v1.PluginInfo;
import dev.tessera.api.kubelet.registration.v1.RegistrationGrpc;
import dev.tessera.api.kubelet.registration.v1.RegistrationStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Plays the kubelet: dials the plugin's sockets as the kubelet's plugin manager does. */
public final class KubeletClient implements AutoCloseable {
  private final ManagedChannel registration;
  private final ManagedChannel dra;

  public KubeletClient(Path registrationSocket, Path draSocket) {
    this.registration = dial(registrationSocket);
    this.dra = dial(draSocket);
  }

  private static ManagedChannel dial(Path socket) {
    return Grpc.newChannelBuilder(
            "unix://" + socket.toAbsolutePath(), InsecureChannelCredentials.create())
        .build();
  }

  public PluginInfo getInfo() {
    return RegistrationGrpc.newBlockingStub(registration).getInfo(InfoRequest.getDefaultInstance());
  }

  public void notifyRegistration(boolean registered, String error) {
    RegistrationGrpc.newBlockingStub(registration)
        .notifyRegistrationStatus(
            RegistrationStatus.newBuilder()
                .setPluginRegistered(registered)
                .setError(error)
                .build());
  }

  /** The claim as the kubelet names it in a v1 request. */
  public static Claim ref(ResourceClaim claim) {
    return Claim.newBuilder()
        .setNamespace(claim.getMetadata().getNamespace())
        .setName(claim.getMetadata().getName())
        .setUid(claim.getMetadata().getUid())
        .build();
  }

  /** NodePrepareResources (v1) of the claims in one call; the answers by claim UID. */
  public Map<String, NodePrepareResourceResponse> prepare(ResourceClaim... claims) {
    var request = NodePrepareResourcesRequest.newBuilder();
    for (ResourceClaim claim : claims) {
      request.addClaims(ref(claim));
    }
    return v1().nodePrepareResources(request.build()).getClaimsMap();
  }

  /** NodeUnprepareResources (v1) of one claim; its error, empty on success. */
  public String unprepare(ResourceClaim claim) {
    return v1().nodeUnprepareResources(
            NodeUnprepareResourcesRequest.newBuilder().addClaims(ref(claim)).build())
        .getClaimsMap()
        .get(claim.getMetadata().getUid())
        .getError();
  }

  public dev.tessera.api.kubelet.dra.v1.DRAPluginGrpc.DRAPluginBlockingStub v1() {
    return dev.tessera.api.kubelet.dra.v1.DRAPluginGrpc.newBlockingStub(dra)
        .withDeadlineAfter(45, TimeUnit.SECONDS);
  }

  public dev.tessera.api.kubelet.dra.v1beta1.DRAPluginGrpc.DRAPluginBlockingStub v1beta1() {
    return dev.tessera.api.kubelet.dra.v1beta1.DRAPluginGrpc.newBlockingStub(dra)
        .withDeadlineAfter(45, TimeUnit.SECONDS);
  }

  /**
   * Opens the DRA health stream as the kubelet does; every response lands in the returned queue
   * until the client closes.
   */
  public BlockingQueue<NodeWatchResourcesResponse> watchHealth() {
    var responses = new LinkedBlockingQueue<NodeWatchResourcesResponse>();
    DRAResourceHealthGrpc.newStub(dra)
        .nodeWatchResources(
            NodeWatchResourcesRequest.getDefaultInstance(),
            new StreamObserver<>() {
              @Override
              public void onNext(NodeWatchResourcesResponse value) {
                responses.add(value);
              }

              @Override
              public void onError(Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    return responses;
  }

  @Override
  public void close() throws InterruptedException {
    registration.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    dra.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
