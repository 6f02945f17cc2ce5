#!/usr/bin/env bash
# Checks mock-nvml-hostpaths: inside its mount namespace a client reading host paths finds the root's files, and the
# host is unchanged once the command is gone. Skips (exit 0, says so) where no mount namespace can be made.
# usage: hostpaths_test.sh <built libnvidia-ml.so.1>
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LIB="$1"
HP="$HERE/mock-nvml-hostpaths"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/mock-nvml-hostpaths-test.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
fail=0 n=0
check() { n=$((n + 1)); if ! eval "$1"; then echo "FAIL: $1" >&2; fail=$((fail + 1)); fi; }

R="$TMP/root"
"$HERE/mock-nvml-setup" --root "$R" --profile H100-SXM5-80GB --gpus 2 --seed s1 --mig-enabled all --lib "$LIB" >/dev/null
R="$(cd "$R" && pwd -P)"

set +e
"$HP" --root "$R" true 2>"$TMP/skip"
rc=$?
set -e
if [ "$rc" = 77 ]; then
    echo "hostpaths_test: skipped: $(cat "$TMP/skip")"
    exit 0
fi
check '[ "$rc" = 0 ]'

# What the host has before, to compare after.
cat /proc/self/mountinfo > "$TMP/mountinfo.before"
cp /proc/devices "$TMP/devices.before"
ls -A /proc/driver > "$TMP/driver.before"
ls -A /dev > "$TMP/dev.before"
ls -A /sys/bus/pci/devices > "$TMP/pci.before"
host_pci="$(head -n 1 "$TMP/pci.before")"

# Inside: a client that ignores driver roots, reading absolute paths. Each line is "name value".
"$HP" --root "$R" -- bash -c '
    set -u
    cmp -s /proc/driver/nvidia/capabilities/mig/monitor "$1/proc/driver/nvidia/capabilities/mig/monitor" && echo monitor ok
    cmp -s /proc/driver/nvidia-caps/mig-minors "$1/proc/driver/nvidia-caps/mig-minors" && echo mig-minors ok
    [ -d /proc/driver/nvidia/capabilities/gpu1/mig ] && echo gpu1-mig ok
    echo "caps $(grep " nvidia-caps$" /proc/devices)"
    for bdf in 0000:18:00.0 0000:2a:00.0; do echo "numa-$bdf $(cat /sys/bus/pci/devices/$bdf/numa_node)"; done
    echo "link $(readlink -f /sys/bus/pci/devices/0000:2a:00.0)"
    echo "nvidia0 $(stat -L -c %d:%i /dev/nvidia0)"
    echo "cap2 $(stat -L -c %d:%i /dev/nvidia-caps/nvidia-cap2)"
    echo "ld $LD_LIBRARY_PATH"
    echo x > /dev/null && echo devnull ok
    [ -e "/sys/bus/pci/devices/$2/vendor" ] && echo host-pci ok
    [ -e /dev/pts ] && [ -e /dev/shm ] && echo dev-mounts ok
' inside "$R" "$host_pci" > "$TMP/inside"
v() { sed -n "s/^$1 //p" "$TMP/inside"; }
check '[ "$(v monitor)" = ok ] && [ "$(v mig-minors)" = ok ] && [ "$(v gpu1-mig)" = ok ]'
check '[ "$(v caps)" = "$(grep " nvidia-caps$" "$R/proc/devices")" ] && [ "$(v caps)" = "236 nvidia-caps" ]'
check '[ "$(v numa-0000:18:00.0)" = "$(cat "$R/sys/bus/pci/devices/0000:18:00.0/numa_node")" ] && [ "$(v numa-0000:18:00.0)" = 0 ]'
check '[ "$(v numa-0000:2a:00.0)" = "$(cat "$R/sys/bus/pci/devices/0000:2a:00.0/numa_node")" ] && [ "$(v numa-0000:2a:00.0)" = 1 ]'
# The link still names the root complex (pci0000:20), as /sys/bus/pci/devices/<bdf> does on a real node.
check '[ "$(v link)" = "$R/sys/devices/pci0000:20/0000:20:01.0/0000:2a:00.0" ]'
check '[ "$(v nvidia0)" = "$(stat -L -c %d:%i "$R/dev/nvidia0")" ]'
check '[ "$(v cap2)" = "$(stat -L -c %d:%i "$R/dev/nvidia-caps/nvidia-cap2")" ]'
check '[ "$(v ld)" = "$R/usr/lib/x86_64-linux-gnu" ] || [[ "$(v ld)" == "$R/usr/lib/x86_64-linux-gnu:"* ]]'
# The host's own entries stay visible beside the root's.
check '[ "$(v devnull)" = ok ] && [ "$(v dev-mounts)" = ok ]'
check '[ -z "$host_pci" ] || [ "$(v host-pci)" = ok ]'
# The command's status is the script's.
check '"$HP" --root "$R" sh -c "exit 3"; [ $? = 3 ]'

# After: the host is as it was, no mount of ours and no staging dir left.
check 'diff -q "$TMP/mountinfo.before" /proc/self/mountinfo >/dev/null'
check '! grep -q "$R\|mock-nvml" /proc/self/mountinfo'
# (cat, not cmp -s: GNU cmp -s takes procfs' zero st_size for the length)
check '[ "$(cat /proc/devices)" = "$(cat "$TMP/devices.before")" ]'
check '[ "$(ls -A /proc/driver)" = "$(cat "$TMP/driver.before")" ]'
check '[ "$(ls -A /dev)" = "$(cat "$TMP/dev.before")" ]'
check '[ "$(ls -A /sys/bus/pci/devices)" = "$(cat "$TMP/pci.before")" ]'
check '! ls -d "${TMPDIR:-/tmp}"/mock-nvml-hostpaths.* >/dev/null 2>&1'

# Not root: says so and skips (77). Not a root: fails.
if command -v setpriv >/dev/null; then
    check 'setpriv --reuid=65534 --regid=65534 --clear-groups "$HP" --root "$R" true 2>/dev/null; [ $? = 77 ]'
fi
check '! "$HP" --root "$TMP" true 2>/dev/null'

echo "hostpaths_test: $n checks, $fail failures"
[ "$fail" = 0 ]
