package dev.tessera.controller.render;

import java.util.Locale;

/** PCI addresses in the form of the standard {@code resource.kubernetes.io/pciBusID} attribute. */
final class PciAddresses {
  private PciAddresses() {}

  /**
   * NVML's bus ID ({@code 00000000:1B:00.0}, an 8-digit domain) as an extended BDF with a 4-digit
   * domain, lower case ({@code 0000:1b:00.0}).
   */
  static String busId(String nvmlBusId) {
    String[] domainAndRest = nvmlBusId.strip().split(":", 2);
    String domain = domainAndRest[0];
    domain = domain.length() > 4 ? domain.substring(domain.length() - 4) : domain;
    return (domain + ":" + domainAndRest[1]).toLowerCase(Locale.ROOT);
  }
}
