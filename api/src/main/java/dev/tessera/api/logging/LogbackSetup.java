package dev.tessera.api.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * Both apps' logging, set up in code: through logback's XML configuration the first logger cost a
 * fresh JVM 214 ms (JIT) and 50 ms with the AOT cache, and loaded 542 more classes (Joran and the
 * JDK's XML parser) for a file that never changes; set up here, 120 and 26 ms (docs/benchmarks.md,
 * decision 40). Each app registers it in its own {@code META-INF/services}, so the library users of
 * {@code api} keep their own logging.
 *
 * <p>{@code LOG_LEVEL} (default INFO) sets the root level, {@code LOG_FORMAT=json} writes JSON
 * lines (default: text). A logback configuration asked for by name ({@code
 * -Dlogback.configurationFile}) or a {@code logback-test.xml} on the class path (the test suites)
 * wins: logback reads it as before.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class LogbackSetup extends ContextAwareBase implements Configurator {
  /** Text lines; claim.uid / claim.namespace / claim.name ride along as key/values and MDC. */
  static final String TEXT_PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{20} %msg %kvp %mdc%n%ex";

  private final UnaryOperator<String> env;
  private final UnaryOperator<String> systemProperty;
  private final ClassLoader classLoader;

  /** What logback's service loader calls. */
  public LogbackSetup() {
    this(System::getenv, System::getProperty, LogbackSetup.class.getClassLoader());
  }

  LogbackSetup(
      UnaryOperator<String> env, UnaryOperator<String> systemProperty, ClassLoader classLoader) {
    this.env = env;
    this.systemProperty = systemProperty;
    this.classLoader = classLoader;
  }

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (systemProperty.apply("logback.configurationFile") != null
        || classLoader.getResource("logback-test.xml") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    Encoder<ILoggingEvent> encoder = encoder(context);
    encoder.start();
    var out = new ConsoleAppender<ILoggingEvent>();
    out.setContext(context);
    out.setName("OUT");
    out.setEncoder(encoder);
    out.start();
    var root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(rootLevel());
    root.addAppender(out);
    context.getLogger("io.grpc.netty").setLevel(Level.ERROR);
    context.getLogger("io.netty").setLevel(Level.WARN);
    // grpc-netty sets SO_KEEPALIVE on every channel; Unix sockets have no such option.
    context.getLogger("io.netty.bootstrap").setLevel(Level.ERROR);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  private Encoder<ILoggingEvent> encoder(LoggerContext context) {
    String format = env.apply("LOG_FORMAT");
    if (format != null && format.trim().equalsIgnoreCase("json")) {
      var json = new JsonEncoder();
      json.setContext(context);
      return json;
    }
    if (format != null && !format.isBlank() && !format.trim().equalsIgnoreCase("text")) {
      addWarn("LOG_FORMAT=" + format + " is neither text nor json; writing text");
    }
    var text = new PatternLayoutEncoder();
    text.setContext(context);
    text.setPattern(TEXT_PATTERN);
    return text;
  }

  private Level rootLevel() {
    String value = env.apply("LOG_LEVEL");
    if (value == null || value.isBlank()) {
      return Level.INFO;
    }
    Level level = Level.toLevel(value.trim().toUpperCase(Locale.ROOT), null);
    if (level == null) {
      addWarn("LOG_LEVEL=" + value + " is not a log level; logging at INFO");
      return Level.INFO;
    }
    return level;
  }
}
