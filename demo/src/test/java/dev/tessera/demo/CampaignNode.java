package dev.tessera.demo;

import dev.tessera.controller.render.Offering;
import java.util.List;

/**
 * The simulated nodes the crash campaign runs on, one after the other, each with the offerings it
 * serves. One node has one offering at a time, so the campaign relabels the node between rounds;
 * but {@code mig-dynamic} does not count an admin's MIG devices against its placements (a placement
 * that overlaps one is refused at prepare, by design: decision 17), so the admin's MIG devices that
 * {@code mig-static} offers live on a node of their own rather than beside the GPUs whose MIG
 * devices come and go.
 */
enum CampaignNode {
  /** Four H100s not in MIG mode: offered whole, as every MIG placement, or in memory shares. */
  WHOLE(4, List.of(), List.of(Offering.EXCLUSIVE, Offering.MIG_DYNAMIC, Offering.SHARED)),
  /** Two H100s: GPU 0 whole, GPU 1 in MIG mode with two 3g.40gb an admin made (slices 0 and 4). */
  ADMIN_MIG(2, List.of("--mig-enabled", "1", "--mig", "1:9@0,9@4"), List.of(Offering.MIG_STATIC));

  static final String PROFILE = "H100-SXM5-80GB";

  final int gpus;
  final List<String> simulatorArgs;
  final List<Offering> offerings;

  CampaignNode(int gpus, List<String> simulatorArgs, List<Offering> offerings) {
    this.gpus = gpus;
    this.simulatorArgs = List.copyOf(simulatorArgs);
    this.offerings = List.copyOf(offerings);
  }

  static CampaignNode serving(Offering offering) {
    return List.of(values()).stream()
        .filter(n -> n.offerings.contains(offering))
        .findFirst()
        .orElseThrow();
  }
}
