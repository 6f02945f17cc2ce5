package dev.tessera.plugin.kubelet;

import com.google.protobuf.InvalidProtocolBufferException;
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

  /**
   * Encodes a prepare's reply and decodes its request, as the first prepare would: protobuf builds
   * each message's schema on its first use. For the start-up's warm-up, before registration.
   */
  public static void warmUp() {
    var reply =
        NodePrepareResourcesResponse.newBuilder()
            .putClaims(
                "uid",
                NodePrepareResourceResponse.newBuilder()
                    .addDevices(
                        Device.newBuilder()
                            .addRequestNames("gpu")
                            .setPoolName("node")
                            .setDeviceName("gpu-0")
                            .addCdiDeviceIds("k8s.gpu.tessera.dev/claim=uid-gpu-0"))
                    .build())
            .build();
    var request =
        NodePrepareResourcesRequest.newBuilder()
            .addClaims(Claim.newBuilder().setNamespace("ns").setName("claim").setUid("uid"))
            .build();
    try {
      NodePrepareResourcesResponse.parseFrom(reply.toByteArray());
      NodePrepareResourcesRequest.parseFrom(request.toByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("a message of our own does not decode", e);
    }
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
