package dev.tessera.api.startup;

import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.Micronaut;

/**
 * How both apps start their Micronaut context without letting Micronaut scan their jar through a
 * zip file system (decision 41): first the jar's services are handed to Micronaut from an index,
 * before anything asks it for one; then the context starts with the app's defaults read from
 * {@value #DEFAULTS}, not from an {@code application.properties}.
 */
public final class AppContext {
  /** The app's defaults on its class path, below env vars and system properties. */
  public static final String DEFAULTS = "tessera-defaults.properties";

  private AppContext() {}

  /** Starts the context of the app whose main class is {@code main}. */
  public static ApplicationContext start(Class<?> main, String[] args) {
    ClassLoader jar = main.getClassLoader();
    MicronautServiceIndex.install(System.getProperty("java.class.path"), jar);
    return Micronaut.build(args)
        .mainClass(main)
        .banner(false)
        .propertySources(AppDefaults.of(DEFAULTS, jar))
        .start();
  }
}
