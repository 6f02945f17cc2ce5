package dev.tessera.plugin.sharing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * A path inside another root file system (the host's driver root, mounted in the plugin's
 * container), resolved as that system would: an absolute symlink such as {@code
 * lib64/ld-linux-x86-64.so.2 -> /lib/x86_64-linux-gnu/...} points into the root, not into the
 * plugin's own file system. Like a chroot's lookup, without one.
 */
final class RootedPath {
  private static final int MAX_LINKS = 40; // as the kernel's limit on a lookup

  private RootedPath() {}

  /** The file {@code relative} names under {@code root}, if it exists there. */
  static Optional<Path> resolve(Path root, String relative) {
    Path current = root;
    Deque<String> todo = new ArrayDeque<>(List.of(relative.split("/")));
    int links = 0;
    try {
      while (!todo.isEmpty()) {
        String name = todo.pop();
        if (name.isEmpty() || name.equals(".")) {
          continue;
        }
        if (name.equals("..")) {
          current = current.equals(root) ? root : current.getParent();
          continue;
        }
        Path next = current.resolve(name);
        if (!Files.isSymbolicLink(next)) {
          current = next;
          continue;
        }
        if (++links > MAX_LINKS) {
          return Optional.empty();
        }
        String target = Files.readSymbolicLink(next).toString();
        if (target.startsWith("/")) {
          current = root;
        }
        List<String> parts = List.of(target.split("/"));
        for (int i = parts.size() - 1; i >= 0; i--) {
          todo.push(parts.get(i));
        }
      }
    } catch (IOException e) {
      return Optional.empty();
    }
    return Files.exists(current) ? Optional.of(current) : Optional.empty();
  }
}
