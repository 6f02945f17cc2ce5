package dev.tessera.api.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator.ExecutionStatus;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.status.Status;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;

class LogbackSetupTest {
  /** A class loader that finds no logback-test.xml (the test class path has none either). */
  private static final ClassLoader PLAIN = new URLClassLoader(new URL[0], null);

  private static LoggerContext configured(Map<String, String> env, ExecutionStatus expected) {
    return configured(env::get, name -> null, PLAIN, expected);
  }

  private static LoggerContext configured(
      UnaryOperator<String> env,
      UnaryOperator<String> systemProperty,
      ClassLoader classLoader,
      ExecutionStatus expected) {
    var context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    var setup = new LogbackSetup(env, systemProperty, classLoader);
    setup.setContext(context);
    assertThat(setup.configure(context)).isEqualTo(expected);
    return context;
  }

  private static String encoded(LoggerContext context, String message) {
    var out =
        (ConsoleAppender<ILoggingEvent>)
            context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("OUT");
    var logger = context.getLogger("dev.tessera.plugin.prepare.Preparer");
    var event = new LoggingEvent("fqcn", logger, Level.INFO, message, null, null);
    event.addKeyValuePair(new org.slf4j.event.KeyValuePair("claim.uid", "u-1"));
    return new String(out.getEncoder().encode(event), StandardCharsets.UTF_8);
  }

  @Test
  void textLinesAtInfoByDefault() {
    var context = configured(Map.of(), ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    var root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.INFO);
    assertThat(((ConsoleAppender<?>) root.getAppender("OUT")).getEncoder())
        .isInstanceOf(PatternLayoutEncoder.class);
    assertThat(encoded(context, "prepared"))
        .contains(" INFO  ", "prepared", "claim.uid=\"u-1\"")
        .doesNotStartWith("{");
    // gRPC's and netty's chatter stays out, as in the XML this replaced.
    assertThat(context.getLogger("io.netty").getEffectiveLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.netty.bootstrap").getEffectiveLevel()).isEqualTo(Level.ERROR);
    assertThat(context.getLogger("io.grpc.netty.Utils").getEffectiveLevel()).isEqualTo(Level.ERROR);
  }

  @Test
  void jsonLinesAndTheLevelFromTheEnvironment() {
    var context =
        configured(
            Map.of("LOG_FORMAT", "JSON", "LOG_LEVEL", "debug"),
            ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    var root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    assertThat(root.getLevel()).isEqualTo(Level.DEBUG);
    assertThat(((ConsoleAppender<?>) root.getAppender("OUT")).getEncoder())
        .isInstanceOf(JsonEncoder.class);
    assertThat(encoded(context, "prepared"))
        .startsWith("{")
        .contains("\"level\":\"INFO\"", "\"message\":\"prepared\"", "\"claim.uid\"", "\"u-1\"");
  }

  @Test
  void aValueItCannotReadIsNamedAndTheDefaultKept() {
    var context =
        configured(
            Map.of("LOG_FORMAT", "yaml", "LOG_LEVEL", "LOUD"),
            ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY);
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getLevel()).isEqualTo(Level.INFO);
    assertThat(context.getStatusManager().getCopyOfStatusList())
        .filteredOn(s -> s.getLevel() == Status.WARN)
        .extracting(Status::getMessage)
        .anySatisfy(m -> assertThat(m).contains("LOG_FORMAT=yaml"))
        .anySatisfy(m -> assertThat(m).contains("LOG_LEVEL=LOUD"));
  }

  @Test
  void aConfigurationFileAskedForByNameIsLeftToLogback() {
    var context =
        configured(
            name -> null,
            name -> name.equals("logback.configurationFile") ? "logback-json.xml" : null,
            PLAIN,
            ExecutionStatus.INVOKE_NEXT_IF_ANY);
    assertThat(context.getLogger(Logger.ROOT_LOGGER_NAME).getAppender("OUT")).isNull();
  }

  @Test
  void aTestSuitesLogbackTestXmlIsLeftToLogback(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("logback-test.xml"), "<configuration/>");
    try (var withTestXml = new URLClassLoader(new URL[] {dir.toUri().toURL()}, null)) {
      configured(name -> null, name -> null, withTestXml, ExecutionStatus.INVOKE_NEXT_IF_ANY);
    }
  }
}
