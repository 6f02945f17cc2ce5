package dev.tessera.plugin.kubelet;

import dev.tessera.api.kubelet.dra.v1beta1.Claim;
import dev.tessera.api.kubelet.dra.v1beta1.DRAPluginGrpc;
import dev.tessera.api.kubelet.dra.v1beta1.Device;
import dev.tessera.api.kubelet.dra.v1beta1.NodePrepareResourceResponse;
import dev.tessera.api.kubelet.dra.v1beta1.NodePrepareResourcesRequest;
import dev.tessera.api.kubelet.dra.v1beta1.NodePrepareResourcesResponse;
import dev.tessera.api.kubelet.dra.v1beta1.NodeUnprepareResourceResponse;
import dev.tessera.api.kubelet.dra.v1beta1.NodeUnprepareResourcesRequest;
import dev.tessera.api.kubelet.dra.v1beta1.NodeUnprepareResourcesResponse;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.PreparedDevice;
import io.grpc.stub.StreamObserver;
import java.util.List;

/**
 * The kubelet's DRA v1beta1 API (kubelet 1.32+; no share IDs), translated to and from {@link
 * ClaimBatch}.
 */
public final class DraV1beta1Service extends DRAPluginGrpc.DRAPluginImplBase {
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

  public DraV1beta1Service(ClaimBatch batch) {
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
    return device.build();
  }
}
