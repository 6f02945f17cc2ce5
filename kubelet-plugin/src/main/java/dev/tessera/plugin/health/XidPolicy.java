package dev.tessera.plugin.health;

import dev.tessera.api.health.TaintEffect;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which XIDs make a GPU unfit for new work. Most XIDs mean the GPU or its driver is in trouble; a
 * few are caused by the application that was running (a bad memory access, a graphics engine
 * exception) and say nothing about the GPU — those are published for information only, as NVIDIA's
 * driver does (13, 31, 43, 45, 68, 109), plus any the operator lists.
 */
public final class XidPolicy {
  /** XIDs caused by applications, not by the GPU. */
  public static final Set<Integer> APPLICATION_XIDS = Set.of(13, 31, 43, 45, 68, 109);

  private final Set<Integer> informational;

  public XidPolicy(Set<Integer> additionalInformational) {
    var all = new TreeSet<>(APPLICATION_XIDS);
    all.addAll(additionalInformational);
    this.informational = Set.copyOf(all);
  }

  public TaintEffect effectOf(long xid) {
    return xid <= Integer.MAX_VALUE && informational.contains((int) xid)
        ? TaintEffect.NONE
        : TaintEffect.NO_SCHEDULE;
  }
}
