package dev.tessera.api.startup;

import io.micronaut.core.io.service.SoftServiceLoader.StaticDefinition;
import io.micronaut.core.io.service.SoftServiceLoader.StaticServiceLoader;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * One service's providers, from the jar's index instead of Micronaut's scan. A provider is found as
 * Micronaut's own loader finds it (a public no-argument constructor), and one whose class or
 * constructor is missing or not public is left out, as there: a library's optional integration
 * whose dependency the jar does not carry. It is made only when Micronaut loads it, and one that
 * fails while made fails that load, naming itself.
 */
final class IndexedServiceLoader implements StaticServiceLoader<Object> {
  private static final MethodType NO_ARGUMENTS = MethodType.methodType(void.class);

  private final List<String> providers;
  private final ClassLoader classLoader;

  IndexedServiceLoader(List<String> providers, ClassLoader classLoader) {
    this.providers = List.copyOf(providers);
    this.classLoader = classLoader;
  }

  @Override
  public Stream<StaticDefinition<Object>> findAll(Predicate<String> nameCondition) {
    return providers.stream()
        .filter(nameCondition)
        .flatMap(
            name ->
                constructor(name)
                    .map(made -> StaticDefinition.<Object>of(name, () -> make(name, made)))
                    .stream());
  }

  private Optional<MethodHandle> constructor(String name) {
    try {
      Class<?> type = Class.forName(name, false, classLoader);
      return Optional.of(MethodHandles.publicLookup().findConstructor(type, NO_ARGUMENTS));
    } catch (NoClassDefFoundError
        | ClassNotFoundException
        | NoSuchMethodException
        | IllegalAccessException e) {
      return Optional.empty();
    }
  }

  private static Object make(String name, MethodHandle constructor) {
    try {
      return constructor.invoke();
    } catch (Error e) {
      throw e;
    } catch (Throwable e) {
      // Named: a provider that fails while made fails the context, as with Micronaut's own loader.
      throw new IllegalStateException("service provider " + name + " failed while made", e);
    }
  }
}
