package dev.tessera.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The matrix {@link RbacMatrixE2E} asserts is the one {@code deploy/README.md} shows. */
class RbacMatrixDocTest {
  @Test
  void theReadmeShowsTheMatrixTheE2eTestAsserts() throws IOException {
    List<String> readme = Files.readAllLines(HelmChart.REPO.resolve("deploy/README.md"));
    int start = readme.indexOf(RbacMatrixE2E.table().get(0));
    assertThat(start).as("the matrix's header in deploy/README.md").isNotNegative();
    int end = start;
    while (end < readme.size() && readme.get(end).startsWith("|")) {
      end++;
    }
    assertThat(readme.subList(start, end)).containsExactlyElementsOf(RbacMatrixE2E.table());
  }
}
