package dev.tessera.plugin.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The validator the CDI property relies on refuses what container-device-interface refuses. */
class CdiValidationTest {
  private static final String VALID =
      """
      {"cdiVersion": "0.5.0", "kind": "k8s.gpu.tessera.dev/claim",
       "devices": [{"name": "0f7e-gpu-0", "containerEdits": {
         "deviceNodes": [{"path": "/dev/nvidia0", "hostPath": "/run/nvidia/driver/dev/nvidia0"}],
         "env": ["CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps"],
         "mounts": [{"hostPath": "/var/lib/mps", "containerPath": "/tmp/nvidia-mps",
           "options": ["rw", "rbind"]}]}}],
       "containerEdits": {"env": ["NVIDIA_VISIBLE_DEVICES=void"],
         "deviceNodes": [{"path": "/dev/nvidiactl"}]}}""";

  private static List<String> problems(String spec) {
    return CdiValidation.problems(spec.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aSpecAsTesseraWritesItLoads() {
    assertThat(problems(VALID)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          unknown version        | "0.5.0"                      | "0.9.0"                        | unknown
          version below features | "0.5.0"                      | "0.4.0"                        | needs at least 0.5.0
          vendor with a digit    | "k8s.gpu.tessera.dev/claim"  | "8ks.gpu/claim"                | start with a letter
          vendor ends in a dot   | "k8s.gpu.tessera.dev/claim"  | "k8s.gpu./claim"               | end with a letter
          no class               | "k8s.gpu.tessera.dev/claim"  | "k8s.gpu.tessera.dev"          | not vendor/class
          class with a slash     | "k8s.gpu.tessera.dev/claim"  | "k8s.gpu/claim/x"              | invalid character '/'
          device name with +     | "0f7e-gpu-0"                 | "0f7e-gpu-0-mig-1g+me-0"       | invalid character '+'
          device name ends in -  | "0f7e-gpu-0"                 | "0f7e-gpu-"                    | end with a letter
          env without a key      | "CUDA_MPS_PIPE_DIRECTORY=/tmp/nvidia-mps" | "=x"              | invalid environment
          env without =          | "NVIDIA_VISIBLE_DEVICES=void" | "NVIDIA_VISIBLE_DEVICES"      | invalid environment
          relative device node   | "/dev/nvidiactl"             | "dev/nvidiactl"                | not absolute
          relative mount         | "/tmp/nvidia-mps"            | "tmp/nvidia-mps"               | not absolute
          empty mount host path  | "/var/lib/mps"               | ""                             | empty hostPath
          unknown field          | "options"                    | "option"                       | unknown field option
          wrong type             | ["rw", "rbind"]              | "rw"                           | not STRINGS
          device node type       | {"path": "/dev/nvidiactl"}   | {"path": "/dev/nvidiactl", "type": "x"} | invalid type
          device node perms      | {"path": "/dev/nvidiactl"}   | {"path": "/dev/nvidiactl", "permissions": "rx"} | invalid permissions
          key named twice        | "kind": "k8s.gpu.tessera.dev/claim" | "kind": "a/b", "kind": "a/b" | not JSON
          not JSON               | }}                           | }                              | not JSON
          """)
  void aBrokenRuleIsFound(String rule, String from, String to, String problem) {
    String spec = VALID.replaceFirst(java.util.regex.Pattern.quote(from), to);
    assertThat(spec).isNotEqualTo(VALID);
    assertThat(problems(spec)).as(rule).anyMatch(p -> p.contains(problem));
  }

  @Test
  void aDeviceWithoutEditsTwoOfOneNameOrNoneAreFound() {
    String noEdits =
        """
        {"cdiVersion": "0.3.0", "kind": "a/b", "devices": [{"name": "d", "containerEdits": {}}]}""";
    assertThat(problems(noEdits)).anyMatch(p -> p.contains("empty device edits"));
    String twice =
        """
        {"cdiVersion": "0.3.0", "kind": "a/b", "devices": [
          {"name": "d", "containerEdits": {"env": ["A=1"]}},
          {"name": "d", "containerEdits": {"env": ["A=1"]}}]}""";
    assertThat(problems(twice)).anyMatch(p -> p.contains("named twice"));
    assertThat(problems("{\"cdiVersion\": \"0.3.0\", \"kind\": \"a/b\", \"devices\": []}"))
        .contains("no devices");
  }

  @Test
  void featuresRaiseTheVersionTheyNeed() {
    String mountType =
        """
        {"cdiVersion": "0.3.0", "kind": "a/b", "devices": [{"name": "d", "containerEdits": {
          "mounts": [{"hostPath": "/a", "containerPath": "/b", "type": "bind"}]}}]}""";
    assertThat(problems(mountType)).anyMatch(p -> p.contains("needs at least 0.4.0"));
    assertThat(problems(mountType.replace("0.3.0", "v0.4.0"))).isEmpty();
    String dottedClass =
        """
        {"cdiVersion": "0.5.0", "kind": "a/b.c", "devices": [{"name": "d", "containerEdits": {
          "env": ["A=1"]}}]}""";
    assertThat(problems(dottedClass)).anyMatch(p -> p.contains("needs at least 0.6.0"));
    String gids =
        """
        {"cdiVersion": "0.6.0", "kind": "a/b", "devices": [{"name": "d", "containerEdits": {
          "additionalGids": [44]}}]}""";
    assertThat(problems(gids)).anyMatch(p -> p.contains("needs at least 0.7.0"));
  }
}
