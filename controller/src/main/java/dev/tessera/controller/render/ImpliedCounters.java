package dev.tessera.controller.render;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which of a GPU's counters the scheduler needs to see: the always-kept ones (the memory slices)
 * and those the kept ones do not already bound. A counter is implied when no set of placements that
 * the remaining counters let be allocated together can overdraw it — then publishing it changes
 * nothing the scheduler may allocate, and only costs it a comparison for every candidate placement
 * (the mig-dynamic shape scheduled at half the rate of the same devices without counters, issue
 * 13).
 *
 * <p>Decided exactly, by search over the sets of placements, one counter at a time: dropping a
 * counter is accepted only when the largest sum of it over every set the still-kept counters allow
 * fits its total, so the sets allowed after each step are the sets allowed before it. Where the
 * search would run past {@code budget} sets, the counter is kept (never wrong, only slower).
 */
final class ImpliedCounters {
  /** Real GPUs have a few thousand sets of non-overlapping placements; far more is garbage. */
  static final int DEFAULT_BUDGET = 200_000;

  private final int budget;

  ImpliedCounters(int budget) {
    this.budget = budget;
  }

  ImpliedCounters() {
    this(DEFAULT_BUDGET);
  }

  /**
   * @param totals every counter of the GPU and what it holds, in publishing order
   * @param placements what each placement consumes (counters it does not name: 0)
   * @param alwaysKept counters published whatever the search says
   * @return the counters to publish, in the order of {@code totals}
   */
  Set<String> needed(
      Map<String, Long> totals, List<Map<String, Long>> placements, Set<String> alwaysKept) {
    var kept = new LinkedHashSet<>(totals.keySet());
    for (String counter : totals.keySet()) {
      if (alwaysKept.contains(counter)) {
        continue;
      }
      var without = new ArrayList<>(kept);
      without.remove(counter);
      var search = new Search(totals, placements, without, counter);
      if (search.largestSum() <= totals.get(counter)) {
        kept.remove(counter);
      }
    }
    return kept;
  }

  /** Largest sum of one counter over the sets of placements that fit the other counters. */
  private final class Search {
    private final long[][] consumed;
    private final long[] limits;
    private final long[] target;
    private final long[] used;
    private long best;
    private int visited;

    Search(
        Map<String, Long> totals,
        List<Map<String, Long>> placements,
        List<String> constraints,
        String counter) {
      consumed = new long[placements.size()][constraints.size()];
      target = new long[placements.size()];
      for (int p = 0; p < placements.size(); p++) {
        for (int c = 0; c < constraints.size(); c++) {
          consumed[p][c] = placements.get(p).getOrDefault(constraints.get(c), 0L);
        }
        target[p] = placements.get(p).getOrDefault(counter, 0L);
      }
      limits = constraints.stream().mapToLong(totals::get).toArray();
      used = new long[constraints.size()];
    }

    /** Long.MAX_VALUE when the search ran past the budget: keep the counter. */
    long largestSum() {
      best = 0;
      visited = 0;
      return extend(0, 0) ? best : Long.MAX_VALUE;
    }

    /** Every set is reached once: placements are added in index order. */
    private boolean extend(int from, long sum) {
      best = Math.max(best, sum);
      if (++visited > budget) {
        return false;
      }
      for (int p = from; p < consumed.length; p++) {
        if (!fits(p)) {
          continue;
        }
        add(p, 1);
        boolean finished = extend(p + 1, sum + target[p]);
        add(p, -1);
        if (!finished) {
          return false;
        }
      }
      return true;
    }

    private boolean fits(int p) {
      for (int c = 0; c < limits.length; c++) {
        if (used[c] + consumed[p][c] > limits[c]) {
          return false;
        }
      }
      return true;
    }

    private void add(int p, int sign) {
      for (int c = 0; c < limits.length; c++) {
        used[c] += sign * consumed[p][c];
      }
    }
  }
}
