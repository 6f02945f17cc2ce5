package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.status.Status;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * One logback configuration on the demo's class path (src/test/resources/logback-test.xml, read
 * before the controller's and the plugin's logback.xml): logback starts without a warning, so it
 * prints none of its own status lines into the tests' output.
 */
class LogbackConfigTest {
  @Test
  void oneConfigurationAndNoWarningOfLogbacksOwn() throws Exception {
    assertThat(Collections.list(getClass().getClassLoader().getResources("logback-test.xml")))
        .singleElement()
        .satisfies(url -> assertThat(url.getPath()).contains("/demo/target/test-classes/"));

    var context = (LoggerContext) LoggerFactory.getILoggerFactory();
    assertThat(context.getStatusManager().getCopyOfStatusList())
        .filteredOn(s -> s.getLevel() >= Status.WARN)
        .isEmpty();
    assertThat(context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getLevel()).hasToString("WARN");
  }
}
