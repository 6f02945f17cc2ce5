package dev.tessera.plugin.kubelet;

import dev.tessera.api.kubelet.dra.v1.Claim;
import dev.tessera.api.kubelet.dra.v1.DRAPluginGrpc;
import dev.tessera.api.kubelet.dra.v1.Device;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tessera.api.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.tessera.api.kubelet.dra.v1.NodeUnprepareResourceResponse;
import dev.tessera.api.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.tessera.api.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PreparedDevice;
import dev.tessera.plugin.kubelet.ClaimBatch.Outcome;
import io.grpc.stub.StreamObserver;
import java.util.List;

/** The kubelet's DRA v1 API (kubelet 1.34+), translated to and from {@link ClaimBatch}. */
public final class DraV1Service extends DRAPluginGrpc.DRAPluginImplBase {
  private final ClaimBatch batch;

  public DraV1Service(ClaimBatch batch) {
    this.batch = batch;
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    var reply = NodePrepareResourcesResponse.newBuilder();
    batch
        .prepare(refs(request.getClaimsList()))
        .forEach((uid, outcome) -> reply.putClaims(uid, prepared(outcome)));
    response.onNext(reply.build());
    response.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    var reply = NodeUnprepareResourcesResponse.newBuilder();
    batch
        .unprepare(refs(request.getClaimsList()))
        .forEach(
            (uid, outcome) ->
                reply.putClaims(
                    uid,
                    NodeUnprepareResourceResponse.newBuilder()
                        .setError(outcome instanceof Outcome.Failed f ? f.error() : "")
                        .build()));
    response.onNext(reply.build());
    response.onCompleted();
  }

  private static NodePrepareResourceResponse prepared(Outcome outcome) {
    var result = NodePrepareResourceResponse.newBuilder();
    switch (outcome) {
      case Outcome.Prepared p -> p.devices().forEach(d -> result.addDevices(device(d)));
      case Outcome.Failed f -> result.setError(f.error());
      case Outcome.Done d -> {}
    }
    return result.build();
  }

  private static Device device(PreparedDevice d) {
    var device =
        Device.newBuilder()
            .addAllRequestNames(d.requestNames())
            .setPoolName(d.pool())
            .setDeviceName(d.device())
            .addAllCdiDeviceIds(d.cdiDeviceIds());
    if (d.shareId() != null) {
      device.setShareId(d.shareId());
    }
    return device.build();
  }

  private static List<ClaimRef> refs(List<Claim> claims) {
    return claims.stream()
        .map(c -> new ClaimRef(c.getNamespace(), c.getName(), c.getUid()))
        .toList();
  }
}
