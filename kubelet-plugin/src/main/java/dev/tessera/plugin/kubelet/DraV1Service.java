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
import io.grpc.stub.StreamObserver;
import java.util.List;

/** The kubelet's DRA v1 API (kubelet 1.34+), translated to and from {@link ClaimBatch}. */
public final class DraV1Service extends DRAPluginGrpc.DRAPluginImplBase {
  private static final DraTranslation.Messages<
          Claim, NodePrepareResourceResponse, NodeUnprepareResourceResponse>
      MESSAGES =
          new DraTranslation.Messages<>() {
            @Override
            public ClaimRef ref(Claim c) {
              return new ClaimRef(c.getNamespace(), c.getName(), c.getUid());
            }

            @Override
            public NodePrepareResourceResponse prepared(List<PreparedDevice> devices) {
              var reply = NodePrepareResourceResponse.newBuilder();
              devices.forEach(d -> reply.addDevices(device(d)));
              return reply.build();
            }

            @Override
            public NodePrepareResourceResponse prepareFailed(String error) {
              return NodePrepareResourceResponse.newBuilder().setError(error).build();
            }

            @Override
            public NodeUnprepareResourceResponse unprepared(String error) {
              return NodeUnprepareResourceResponse.newBuilder().setError(error).build();
            }
          };

  private final DraTranslation translation;

  public DraV1Service(ClaimBatch batch) {
    this.translation = new DraTranslation(batch);
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> response) {
    response.onNext(
        NodePrepareResourcesResponse.newBuilder()
            .putAllClaims(translation.prepare(request.getClaimsList(), MESSAGES))
            .build());
    response.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request,
      StreamObserver<NodeUnprepareResourcesResponse> response) {
    response.onNext(
        NodeUnprepareResourcesResponse.newBuilder()
            .putAllClaims(translation.unprepare(request.getClaimsList(), MESSAGES))
            .build());
    response.onCompleted();
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
}
