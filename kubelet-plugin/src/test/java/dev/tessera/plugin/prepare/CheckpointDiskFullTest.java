package dev.tessera.plugin.prepare;

import static dev.tessera.plugin.Fixtures.DRIVER;
import static dev.tessera.plugin.Fixtures.NODE;
import static dev.tessera.plugin.Fixtures.claim;
import static dev.tessera.plugin.Fixtures.inventory;
import static dev.tessera.plugin.Fixtures.result;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tessera.api.config.OpaqueConfigDecoder;
import dev.tessera.api.fuzz.Fuzz;
import dev.tessera.api.inventory.MigMode;
import dev.tessera.plugin.cdi.CdiSpec;
import dev.tessera.plugin.cdi.CdiSpecBuilder;
import dev.tessera.plugin.cdi.CdiSpecWriter;
import dev.tessera.plugin.cdi.DriverRoot;
import dev.tessera.plugin.cdi.NodePaths;
import dev.tessera.plugin.checkpoint.CheckpointStore;
import dev.tessera.plugin.claim.ClaimRef;
import dev.tessera.plugin.claim.ClaimState;
import dev.tessera.plugin.claim.PrepareException;
import dev.tessera.plugin.mig.DynamicMig;
import dev.tessera.plugin.mig.FakeMigHardware;
import dev.tessera.plugin.mig.MigPlanner;
import dev.tessera.plugin.sharing.DriverTools;
import dev.tessera.plugin.sharing.MpsPaths;
import dev.tessera.plugin.sharing.NvidiaSmi;
import dev.tessera.plugin.sharing.ProcessMpsDaemons;
import dev.tessera.plugin.sharing.RecordingRunner;
import dev.tessera.plugin.sharing.SharingEffects;
import dev.tessera.plugin.sharing.SharingPlanner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * The disk fills up while a prepare writes the checkpoint (at a random save of the prepare, after a
 * random number of bytes): the prepare fails naming the file and the disk's error, the claims
 * prepared before are still in the checkpoint, no temp file stays, and once there is room again the
 * kubelet's retry prepares the claim.
 */
class CheckpointDiskFullTest {
  private static final String ENOSPC = "No space left on device";
  @TempDir Path dir;
  private final JsonMapper json = JsonMapper.builder().build();
  private final AtomicInteger tries = new AtomicInteger();

  @Test
  void aFullDiskFailsThePrepareAndLeavesNothingHalfWritten() {
    Fuzz.check(
        "checkpoint, disk full",
        Fuzz.tries(200),
        r -> new FullDisk(1 + r.nextInt(2), r.nextInt(1200)),
        this::failsCleanlyAndRecovers);
  }

  private void failsCleanlyAndRecovers(FullDisk disk) throws Exception {
    Path root = Files.createDirectories(dir.resolve("try-" + tries.incrementAndGet()));
    Files.createDirectories(root.resolve("dev"));
    Files.createFile(root.resolve("dev/nvidiactl"));
    var claims = new FakeClaimSource();
    var store = new CheckpointStore(root.resolve("data/checkpoint.json"), json, disk::open);
    var state = state(root, claims, store);
    claims.put(claim("uid-0", "c0", List.of(result("gpu", "gpu-0")), List.of()));
    state.prepare(new ClaimRef("default", "c0", "uid-0"));
    byte[] before = Files.readAllBytes(store.file());

    disk.fillUp();
    claims.put(claim("uid-1", "c1", List.of(result("gpu", "gpu-2")), List.of()));
    var ref = new ClaimRef("default", "c1", "uid-1");
    if (disk.failed()) {
      throw new AssertionError("filled up before the prepare");
    }
    try {
      state.prepare(ref);
    } catch (PrepareException e) {
      assertThat(e)
          .hasMessageContaining("cannot write checkpoint " + store.file())
          .hasMessageContaining(ENOSPC);
    }
    if (!disk.failed()) {
      // The fill-up point lay past what this prepare wrote: it succeeded, nothing to check here.
      assertThat(store.load("b1").claims()).containsKeys("uid-0", "uid-1");
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      assertThat(files.map(Path::getFileName).map(Path::toString))
          .noneMatch(name -> name.endsWith(".tmp"));
    }
    var afterFailure = store.load("b1");
    assertThat(afterFailure.claims().get("uid-0").state()).isEqualTo(ClaimState.PrepareCompleted);
    if (!afterFailure.claims().containsKey("uid-1")) {
      assertThat(Files.readAllBytes(store.file())).isEqualTo(before);
    }

    disk.makeRoom();
    assertThat(state.prepare(ref))
        .singleElement()
        .satisfies(d -> assertThat(d.device()).isEqualTo("gpu-2"));
    assertThat(store.load("b1").claims().get("uid-1").state())
        .isEqualTo(ClaimState.PrepareCompleted);
  }

  private DeviceState state(Path root, FakeClaimSource claims, CheckpointStore store) {
    var runner = new RecordingRunner();
    var tools = new DriverTools(root, runner);
    var paths = NodePaths.forDriverRoot(DriverRoot.at(root));
    var mps = new MpsPaths(root.resolve("data/mps"));
    var migs =
        new FakeMigHardware()
            .gpu("GPU-00000000", MigMode.DISABLED)
            .gpu("GPU-00000002", MigMode.DISABLED);
    var cdi = new CdiSpecWriter(root.resolve("cdi"), DRIVER, json);
    var sharingPlanner = new SharingPlanner();
    var sharing = new SharingEffects(new NvidiaSmi(tools), new ProcessMpsDaemons(mps, tools));
    var mig = new DynamicMig(new MigPlanner(), migs, () -> inventory(3));
    var node = new NodeClaims(store, NodeLock.beside(store.file()), "b1");
    return new DeviceState(
        claims,
        new ClaimPlanner(
            DRIVER,
            NODE,
            new ConfigResolver(DRIVER, new OpaqueConfigDecoder(), UnaryOperator.identity())),
        () -> inventory(3),
        new CdiSpecBuilder(
            DRIVER,
            new CdiSpec.ContainerEdits(
                List.of("NVIDIA_VISIBLE_DEVICES=void"),
                List.of(paths.deviceNode("/dev/nvidiactl")),
                List.of())),
        new DeviceEditsResolver(paths, mps),
        cdi,
        sharingPlanner,
        sharing,
        mig,
        node,
        new ClaimRollback(node, cdi, sharingPlanner, sharing, mig));
  }

  /**
   * A disk that, once {@link #fillUp() filled up}, fails the {@code save}-th file opened for
   * writing after {@code bytes} bytes, with the error a full ext4 gives.
   */
  record FullDisk(int save, int bytes, AtomicInteger opened, AtomicInteger state) {
    FullDisk(int save, int bytes) {
      this(save, bytes, new AtomicInteger(), new AtomicInteger());
    }

    void fillUp() {
      opened.set(0);
      state.set(1);
    }

    void makeRoom() {
      state.set(0);
    }

    boolean failed() {
      return state.get() == 2;
    }

    FileChannel open(Path file) throws IOException {
      FileChannel channel =
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE);
      boolean fails = state.get() == 1 && opened.incrementAndGet() == save;
      return fails ? new Failing(channel, bytes, () -> state.set(2)) : channel;
    }

    @Override
    public String toString() {
      return "a disk full at save " + save + " after " + bytes + " bytes";
    }
  }

  /** Writes up to {@code room} bytes, then fails every write as ENOSPC does. */
  private static final class Failing extends FileChannel {
    private final FileChannel delegate;
    private final Runnable onFailure;
    private long room;

    Failing(FileChannel delegate, long room, Runnable onFailure) {
      this.delegate = delegate;
      this.room = room;
      this.onFailure = onFailure;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      if (room <= 0) {
        onFailure.run();
        throw new IOException(ENOSPC);
      }
      int limit = src.limit();
      src.limit((int) Math.min(limit, src.position() + room));
      try {
        int written = delegate.write(src);
        room -= written;
        return written;
      } finally {
        src.limit(limit);
      }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return delegate.read(dsts, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      throw new IOException(ENOSPC);
    }

    @Override
    public long position() throws IOException {
      return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      delegate.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      delegate.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      delegate.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      throw new IOException(ENOSPC);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return delegate.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      throw new IOException(ENOSPC);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      delegate.close();
    }
  }
}
