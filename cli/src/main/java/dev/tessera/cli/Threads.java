package dev.tessera.cli;

/** A warm-up's own daemon thread: a call never waits for one to exit. */
final class Threads {
  private Threads() {}

  static void start(String name, Runnable work) {
    Thread thread = new Thread(work, name);
    thread.setDaemon(true);
    thread.start();
  }
}
