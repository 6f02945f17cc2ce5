package dev.tessera.api.startup;

import io.micronaut.core.io.service.SoftServiceLoader.StaticServiceLoader;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Micronaut's static service loaders for an app run from one jar: the jar's own services, and an
 * empty loader for every other service name, because from one jar a service the jar does not list
 * has no provider. Micronaut asks for some it never finds (its context builder's {@code
 * io.micronaut.context.ApplicationContextConfigurer}), and a name missing here would send it back
 * to scanning the jar. So {@link #containsKey} answers for every name, though only the jar's own
 * are entries. Through this hook Micronaut passes no provider-name condition of a caller's (it
 * passes none that can refuse a name), as with the loaders its AOT build generates.
 */
final class EveryServiceOfTheJar extends AbstractMap<String, StaticServiceLoader<?>> {
  private final Map<String, StaticServiceLoader<?>> ofTheJar;
  private final StaticServiceLoader<?> none;

  EveryServiceOfTheJar(JarServices services, ClassLoader classLoader) {
    var loaders = new LinkedHashMap<String, StaticServiceLoader<?>>();
    services
        .byService()
        .forEach(
            (service, providers) ->
                loaders.put(service, new IndexedServiceLoader(providers, classLoader)));
    this.ofTheJar = Collections.unmodifiableMap(loaders);
    this.none = new IndexedServiceLoader(List.of(), classLoader);
  }

  @Override
  public StaticServiceLoader<?> get(Object service) {
    return service instanceof String name ? ofTheJar.getOrDefault(name, none) : null;
  }

  @Override
  public boolean containsKey(Object service) {
    return service instanceof String;
  }

  @Override
  public Set<Entry<String, StaticServiceLoader<?>>> entrySet() {
    return ofTheJar.entrySet();
  }
}
