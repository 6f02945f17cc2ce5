package dev.tessera.demo;

import dev.tessera.controller.render.Offering;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * Every round of a crash campaign, drawn from its seed before the first one runs (pure), so a seed
 * replays the same rounds: offerings, claims, kill moments and simulator trouble. (When a kill
 * lands is a log line away from the moment drawn, so a replay is the same campaign, not the same
 * interleaving to the millisecond.)
 *
 * <p>Round {@code r} is served by offering {@code r mod 4}, so every offering gets a quarter of the
 * rounds and consecutive rounds relabel the node; the rounds of the node with an admin's MIG
 * devices ({@link CampaignNode}) run after the others, so each node is set up once.
 */
record CampaignPlan(long seed, List<Round> rounds) {
  static final List<Offering> CYCLE =
      List.of(Offering.EXCLUSIVE, Offering.MIG_DYNAMIC, Offering.SHARED, Offering.MIG_STATIC);

  CampaignPlan {
    rounds = List.copyOf(rounds);
  }

  /** When the round's kill comes. */
  enum Kill {
    /** Right after the kubelet asked the plugin to prepare a claim of the first wave. */
    PREPARE,
    /** Once the first wave's pods run and nothing is in flight. */
    IDLE,
    /** Right after the kubelet asked the plugin to unprepare a claim, as the round is drained. */
    UNPREPARE
  }

  /**
   * One round: a first wave of claims; then a second created while part of the first is deleted
   * (with a second kill in that traffic when {@code killInSecondWave}); then everything deleted.
   *
   * @param killDelayMillis how long after the kubelet's call the kill comes
   * @param deletedOfFirst how many of the first wave's claims go while the second comes
   */
  record Round(
      int index,
      Offering offering,
      SimulatorTrouble trouble,
      Kill kill,
      int killDelayMillis,
      boolean killInSecondWave,
      List<ClaimKind> firstWave,
      List<ClaimKind> secondWave,
      int deletedOfFirst) {
    Round {
      firstWave = List.copyOf(firstWave);
      secondWave = List.copyOf(secondWave);
    }

    CampaignNode node() {
      return CampaignNode.serving(offering);
    }

    int kills() {
      return 1 + (killInSecondWave ? 1 : 0);
    }

    @Override
    public String toString() {
      return "round %d: %s, kill at %s (+%d ms)%s, %s, first wave %s, then %s while %d of them go"
          .formatted(
              index,
              offering.label(),
              kill,
              killDelayMillis,
              killInSecondWave ? " and in the second wave" : "",
              trouble,
              firstWave,
              secondWave,
              deletedOfFirst);
    }
  }

  static CampaignPlan draw(long seed, int rounds) {
    var random = new Random(seed);
    var drawn = new ArrayList<Round>();
    for (int r = 0; r < rounds; r++) {
      drawn.add(round(random, r, CYCLE.get(r % CYCLE.size())));
    }
    drawn.sort(Comparator.comparing(Round::node));
    return new CampaignPlan(seed, drawn);
  }

  private static Round round(Random random, int index, Offering offering) {
    List<ClaimKind> kinds = ClaimKind.servedBy(offering);
    List<ClaimKind> first = wave(random, offering, kinds, List.of(), 1 + random.nextInt(3), true);
    int deleted = random.nextInt(first.size() + 1);
    List<ClaimKind> second =
        wave(
            random,
            offering,
            kinds,
            first.subList(deleted, first.size()),
            random.nextInt(3),
            false);
    Kill kill = Kill.values()[random.nextInt(Kill.values().length)];
    return new Round(
        index,
        offering,
        SimulatorTrouble.draw(random, offering),
        kill,
        random.nextInt(300),
        random.nextInt(3) == 0,
        first,
        second,
        deleted);
  }

  /**
   * Up to {@code size} kinds drawn from {@code kinds} that fit the node beside {@code held}; with
   * {@code atLeastOne}, one of them takes something of the offering (not only admin access).
   */
  private static List<ClaimKind> wave(
      Random random,
      Offering offering,
      List<ClaimKind> kinds,
      List<ClaimKind> held,
      int size,
      boolean atLeastOne) {
    var taken = new ArrayList<>(held);
    var wave = new ArrayList<ClaimKind>();
    for (int attempt = 0; attempt < 4 * size && wave.size() < size; attempt++) {
      ClaimKind kind = kinds.get(random.nextInt(kinds.size()));
      if (fits(offering, taken, kind) && (kind != ClaimKind.ADMIN_ACCESS || !wave.contains(kind))) {
        wave.add(kind);
        taken.add(kind);
      }
    }
    if (atLeastOne && wave.stream().allMatch(k -> k.units == 0)) {
      wave.add(
          kinds.stream()
              .filter(k -> k.units > 0 && fits(offering, taken, k))
              .findFirst()
              .orElseThrow());
    }
    return List.copyOf(wave);
  }

  private static boolean fits(Offering offering, List<ClaimKind> taken, ClaimKind kind) {
    int used =
        taken.stream().filter(k -> k.pool().equals(kind.pool())).mapToInt(k -> k.units).sum();
    return used + kind.units <= ClaimKind.capacity(offering, kind.pool());
  }
}
