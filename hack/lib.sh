# Shared by the hack/ scripts: messages and errors, the root check, pick the newest JDK on the machine and make sure
# gcc/make exist.
# shellcheck shell=bash

# say MESSAGE: a line of progress, with the time. die MESSAGE: the error on stderr, then exit 1. One style for
# every script (hack/cluster/lib.sh and hack/kind/lib.sh source this).
say() { printf '[%s] %s\n' "$(date +%T)" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$(date +%T)" "$*" >&2; exit 1; }

# need_root [MESSAGE]: dies unless running as root, with MESSAGE (default: "<script> needs root").
need_root() {
  [ "$(id -u)" = 0 ] || die "${1:-$(basename "$0") needs root}"
}

# The newest JDK under /usr/lib/jvm (by its major version), unless JAVA_HOME is already set to one.
tessera_pick_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then return; fi
  local best="" best_major=0 dir major
  for dir in /usr/lib/jvm/*/; do
    dir=${dir%/}
    [ -x "$dir/bin/javac" ] || continue
    major=$("$dir/bin/java" -XshowSettings:properties -version 2>&1 \
      | awk -F'= ' '/java.specification.version/ {print $2}' | cut -d. -f1)
    [ -n "$major" ] || continue
    if [ "$major" -gt "$best_major" ]; then best="$dir"; best_major=$major; fi
  done
  if [ -z "$best" ]; then echo "no JDK under /usr/lib/jvm" >&2; return 1; fi
  if [ "$best_major" -lt 21 ]; then echo "Tessera needs JDK 21+, newest found is $best_major" >&2; return 1; fi
  export JAVA_HOME="$best"
  export PATH="$JAVA_HOME/bin:$PATH"
}

# gcc and make build the NVML simulator; openssl makes the webhook tests' certificates; shellcheck checks the
# hack/kind scripts (KindScriptsIT, which on CI fails without it); Go fetches NVIDIA's nvml.h for the simulator's
# ABI and symbol checks (hack/mock-nvml/nvml-h, from the Go module proxy). Installed with apt when missing and root.
tessera_need_build_tools() {
  # busybox (static): hack/images and hack/jib-check put it into the plugin's image, for the driver tools that are
  # scripts (the NVML simulator's stand-ins).
  local go_pkg=""
  command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || go_pkg=golang-go
  if command -v gcc >/dev/null && command -v make >/dev/null && command -v openssl >/dev/null \
    && command -v shellcheck >/dev/null && [ -x /bin/busybox ] && [ -z "$go_pkg" ]; then return; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086 # go_pkg is one word or none
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc make libc6-dev binutils openssl shellcheck \
      busybox-static $go_pkg >/dev/null
  elif command -v gcc >/dev/null && command -v make >/dev/null && command -v openssl >/dev/null; then
    [ -z "$go_pkg" ] || echo "Go is missing: the NVML simulator's ABI and symbol checks need it to fetch nvml.h" >&2
    command -v shellcheck >/dev/null || echo "shellcheck is missing: KindScriptsIT skips its shellcheck of hack/kind (fails on CI)" >&2
  else
    echo "gcc, make (the NVML simulator) and openssl (the webhook tests) are needed" >&2; return 1
  fi
}

# tessera_sysctls KEY...: "key=value" of each sysctl this kernel has, for a record to restore later.
tessera_sysctls() {
  local k
  for k in "$@"; do
    if [ -e "/proc/sys/${k//.//}" ]; then echo "$k=$(sysctl -n "$k")"; fi
  done
}

# tessera_restore_sysctls FILE: writes back each "key=value" of FILE (from tessera_sysctls) that changed since.
tessera_restore_sysctls() {
  local key value
  while IFS='=' read -r key value; do
    [ "$(sysctl -n "$key")" = "$value" ] || { sysctl -qw "$key=$value" && say "restored $key=$value"; }
  done <"$1"
}

# tessera_remove_run_netns: removes /run/netns, which `ip netns` and podman's netavark each make as a mount of its own,
# for a caller that made it; returns 1 and leaves it where it still holds network namespaces (another engine's, or
# another tier's: the local cluster's and podman's share it).
tessera_remove_run_netns() {
  [ -d /run/netns ] || return 0
  [ -z "$(ls -A /run/netns 2>/dev/null)" ] || return 1
  if mountpoint -q /run/netns; then umount /run/netns 2>/dev/null || umount -l /run/netns; fi
  rmdir /run/netns
}

# tessera_build_lock DIR: waits for, then holds, the lock of the cache entry DIR (the file DIR.lock), so two runs
# that both find DIR missing (two test tiers, a test and a user's build) build it one after the other: each
# re-checks DIR once it holds the lock, and the second finds it built. tessera_build_unlock releases it early; the
# script's exit releases it too.
tessera_build_lock() {
  mkdir -p "$(dirname "$1")"
  exec {tessera_build_fd}>"$1.lock"
  flock "$tessera_build_fd"
}
tessera_build_unlock() { exec {tessera_build_fd}>&-; }

# The Go environment for tools built from the Go module proxy (Helm, kind), under cache dir $1: the local
# cluster's module and build caches (hack/cluster/build), so modules they share download and compile once.
# GOTOOLCHAIN=local: a module that wants a newer Go fails loudly instead of fetching a toolchain.
tessera_go_env() {
  local go=$1/cluster/go
  export GOTOOLCHAIN=local GOPATH=$go GOMODCACHE=$go/pkg/mod GOCACHE=$go/cache GOFLAGS="-modcacherw -buildvcs=false"
}

# tessera_copy_libs ROOTFS DIR: copies every shared library the ELF files under DIR load (as ldd resolves them on
# this host) into ROOTFS, at the same paths, with the dynamic loader. For images of a jlink'ed runtime.
tessera_copy_libs() {
  local rootfs=$1 lib
  # Not the graphics and sound libraries of java.desktop (X11 and more): nothing headless loads them.
  find "$2" -type f \( -name '*.so' -o -perm -u+x \) -not \( -name 'libawt_xawt.so' -o -name 'libjawt.so' \
    -o -name 'libsplashscreen.so' -o -name 'libjsound.so' \) -print0 | xargs -0 -r ldd 2>/dev/null \
    | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' | sort -u |
    while read -r lib; do
      # The runtime's own libraries (ldd resolves them inside ROOTFS) are there already.
      case "$lib" in "$rootfs"/*) continue ;; esac
      mkdir -p "$rootfs$(dirname "$lib")"
      cp -L "$lib" "$rootfs$lib"
    done
}

# tessera_unpack_image ARCHIVE DIR: the root filesystem of an OCI image-layout archive (hack/images') in DIR, its
# layers unpacked as a runtime would (mtimes kept: the JVM maps an AOT cache only with its jar's mtime as trained).
tessera_unpack_image() {
  local oci layer
  oci=$(mktemp -d)
  tar -xf "$1" -C "$oci"
  mkdir -p "$2"
  for layer in "$oci"/blobs/sha256/*; do
    if gzip -t "$layer" 2>/dev/null; then tar -xzf "$layer" -C "$2"; fi
  done
  rm -rf --one-file-system "$oci"
}

# tessera_images DIR: the node plugin's and the controller's image archives (kubelet-plugin.oci.tar,
# controller.oci.tar) in DIR: built by hack/images, or links to those in $TESSERA_IMAGES where that is set (with
# its busybox.oci.tar, if there). For the scripts that install Tessera into a cluster.
tessera_images() {
  local dir=$1 hack f
  hack=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  mkdir -p "$dir"
  if [ -z "${TESSERA_IMAGES:-}" ]; then
    "$hack/images" "$dir"
    return
  fi
  for f in kubelet-plugin controller busybox; do
    if [ -f "$TESSERA_IMAGES/$f.oci.tar" ]; then ln -sfn "$(cd "$TESSERA_IMAGES" && pwd)/$f.oci.tar" "$dir/"; fi
  done
  for f in kubelet-plugin controller; do
    [ -e "$dir/$f.oci.tar" ] || { echo "TESSERA_IMAGES=$TESSERA_IMAGES has no $f.oci.tar" >&2; return 1; }
  done
}

# tessera_simulated_node ROOT SEED: a simulated GPU node's driver root, as the demo runs on: 4 x H100-SXM5-80GB
# from the NVML simulator, UUIDs seeded with SEED (the node's name).
tessera_simulated_node() {
  "$(dirname "${BASH_SOURCE[0]}")/mock-nvml/mock-nvml-setup" --root "$1" --profile H100-SXM5-80GB --gpus 4 --seed "$2"
}

# Builds everything and writes the test classpath of the plugin module to $TESSERA_TEST_CP
# (for the programs in its test sources: the demo and the benchmark).
tessera_build_plugin_test_classpath() {
  tessera_build_test_classpath kubelet-plugin
}

# Builds everything and writes the test classpath of module $1 to $TESSERA_TEST_CP.
tessera_build_test_classpath() {
  local module="$1"
  ./mvnw -B -q --no-transfer-progress install -DskipTests -DskipITs
  ./mvnw -B -q --no-transfer-progress -pl "$module" \
    org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath \
    -Dmdep.outputFile=target/test-classpath.txt -Dmdep.includeScope=test
  TESSERA_TEST_CP="$module/target/test-classes:$module/target/classes:$(cat "$module/target/test-classpath.txt")"
  export TESSERA_TEST_CP
}

# The node plugin's JVM flags, as one line.
tessera_plugin_jvm_options() {
  grep -v '^#' kubelet-plugin/jvm.options | tr '\n' ' '
}
