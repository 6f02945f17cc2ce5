#!/usr/bin/env bash
# Checks the layout mock-nvml-setup produces. usage: setup_test.sh <built libnvidia-ml.so.1>
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
LIB="$1"
TMP="$(mktemp -d "${TMPDIR:-/tmp}/mock-nvml-setup-test.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
fail=0 n=0
check() { n=$((n + 1)); if ! eval "$1"; then echo "FAIL: $1" >&2; fail=$((fail + 1)); fi; }

R="$TMP/root"
"$HERE/mock-nvml-setup" --root "$R" --profile H100-SXM5-80GB --gpus 2 --seed s1 --driver-version 580.95.05 \
    --mig-enabled all --mig '0:19@0' --lib "$LIB" >/dev/null
L="$R/usr/lib/x86_64-linux-gnu"
check '[ -f "$L/libnvidia-ml.so.580.95.05" ] && [ ! -L "$L/libnvidia-ml.so.580.95.05" ]'
check '[ "$(readlink "$L/libnvidia-ml.so.1")" = libnvidia-ml.so.580.95.05 ]'
check '[ "$(stat -c %i "$L/libnvidia-ml.so.580.95.05")" != "$(stat -c %i "$LIB")" ]'
check 'cmp -s "$L/libnvidia-ml.so.580.95.05" "$LIB"'
for pair in libcuda.so.1 libnvidia-ptxjitcompiler.so.1 libnvidia-nvvm.so.4 libnvidia-allocator.so.1 libcudadebugger.so.1; do
    check '[ -f "$L/$pair" ] && [ -L "$L/$pair" ]'
done
check '[ -f "$L/libnvidia-gpucomp.so.580.95.05" ]'
for b in nvidia-smi nvidia-cuda-mps-control nvidia-cuda-mps-server nvidia-debugdump nvidia-persistenced; do
    check '[ -x "$R/usr/bin/$b" ]'
done
# nvidia-cap2 is the MIG monitor capability (proc .../mig/monitor), what admin-access claims get.
for dev in nvidiactl nvidia-uvm nvidia-uvm-tools nvidia-modeset nvidia0 nvidia1 nvidia-caps/nvidia-cap1 nvidia-caps/nvidia-cap2; do
    if [ "$(id -u)" = 0 ]; then check '[ -c "$R/dev/$dev" ] || [ -f "$R/dev/$dev" ]'; else check '[ -f "$R/dev/$dev" ]'; fi
done
check '[ ! -e "$R/dev/nvidia2" ]'
check '[ -d "$R/dev/nvidia-caps" ]'
check 'grep -q "^DeviceFileMinor: 1$" "$R/proc/driver/nvidia/capabilities/mig/config"'
check 'grep -q "^DeviceFileMinor: 2$" "$R/proc/driver/nvidia/capabilities/mig/monitor"'
check 'grep -q "^gpu1/gi2/ci0/access 157$" "$R/proc/driver/nvidia-caps/mig-minors"'
C="$R/etc/mock-nvml/config"
check 'grep -qx "profile=H100-SXM5-80GB" "$C" && grep -qx "gpus=2" "$C" && grep -qx "seed=s1" "$C"'
# No absolute paths: the root may be seen at another path than where it was laid out (a plugin container).
check '! grep -q "^root=\|^state_file=\|^faults_file=\|^events_file=\|^telemetry_file=" "$C"'
check '! grep -q "$R" "$C"'
check 'grep -qx "mig_layout=0:19@0" "$C" && grep -qx "mig_enabled=all" "$C"'
check '[ -d "$R/var/lib/mock-nvml" ] && [ -f "$R/var/lib/mock-nvml/events" ] && [ -f "$R/etc/mock-nvml/faults" ] && [ -f "$R/var/lib/mock-nvml/telemetry" ]'

# stand-in binaries log argv; the MPS control stand-in behaves like a daemon
"$R/usr/bin/nvidia-smi" -L
check 'grep -qx -- "-L" "$R/var/log/mock-nvml/nvidia-smi.log"'
M="$R/usr/bin/nvidia-cuda-mps-control" MLOG="$R/var/log/mock-nvml/nvidia-cuda-mps-control.log"
export CUDA_MPS_PIPE_DIRECTORY="$TMP/mps/pipe" CUDA_MPS_LOG_DIRECTORY="$TMP/mps/log"
check '! echo get_server_list | "$M" 2>/dev/null'
check 'CUDA_VISIBLE_DEVICES=GPU-1 "$M" -d'
check '[ -p "$TMP/mps/pipe/control" ] && kill -0 "$(cat "$TMP/mps/pipe/nvidia-cuda-mps-control.pid")"'
check 'grep -qx -- "-d | pipe=$TMP/mps/pipe log=$TMP/mps/log visible=GPU-1" "$MLOG"'
check '! "$M" -d 2>/dev/null'
check '[ "$(grep -c "^startup" "$TMP/mps/log/control.log")" = 1 ]'
check 'echo "set_default_active_thread_percentage 50" | "$M"'
check 'grep -qx "set_default_active_thread_percentage 50" "$TMP/mps/log/control.log"'
daemon=$(cat "$TMP/mps/pipe/nvidia-cuda-mps-control.pid")
check 'echo quit | "$M"'
check '{ [ ! -e "/proc/$daemon" ] || grep -q "^$daemon ([a-z]*) Z" "/proc/$daemon/stat"; } && [ ! -e "$TMP/mps/pipe/nvidia-cuda-mps-control.pid" ]'
check 'grep -q "pipe=$TMP/mps/pipe | stdin: quit;" "$MLOG"'
# -f: the daemon in the foreground and in a PID namespace of its own (as in a pod), seen through its pipe dir
# alone; the client stand-in names it, and says so when it goes
if unshare -p -f --mount-proc true 2>/dev/null; then
    CUDA_VISIBLE_DEVICES=GPU-2 unshare -p -f --mount-proc "$M" -f & fg=$!
    n=0; while ! echo get_server_list | "$M" >/dev/null 2>&1 && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    check 'echo get_server_list | "$M"'
    check '[ ! -e "$TMP/mps/pipe/nvidia-cuda-mps-control.pid" ] && grep -q "^[^-]*-1-" "$TMP/mps/pipe/daemon-id"'
    "$R/usr/bin/mock-mps-client" > "$TMP/client.out" & client=$!
    n=0; while ! grep -q "served by" "$TMP/client.out" && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done
    check 'grep -qx "mps client: served by daemon $(cat "$TMP/mps/pipe/daemon-id")" "$TMP/client.out"'
    check 'echo quit | "$M"'
    wait "$fg"
    check '! echo get_server_list | "$M" 2>/dev/null'
    rc=0; wait "$client" || rc=$?
    check '[ "$rc" = 2 ] && grep -q "^mps client: lost daemon " "$TMP/client.out"'
fi
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY

# nvidia-smi sets compute mode and time-slice in the state file, by index or UUID, under its lock
S="$R/var/lib/mock-nvml/state"
printf 'gpu 0 0 0 0 0 GPU-aaa\ngpu 1 0 0 0 0 GPU-bbb\n' > "$S"
check '"$R/usr/bin/nvidia-smi" -i GPU-bbb -c EXCLUSIVE_PROCESS && grep -qx "gpu 1 0 0 3 0 GPU-bbb" "$S"'
check '"$R/usr/bin/nvidia-smi" compute-policy -i 0 --set-timeslice 2 && grep -qx "gpu 0 0 0 0 2 GPU-aaa" "$S"'
check '! "$R/usr/bin/nvidia-smi" -i GPU-zzz -c DEFAULT 2>/dev/null'
check '! "$R/usr/bin/nvidia-smi" compute-policy -i 0 --set-timeslice 4 2>/dev/null'
check 'grep -qx "compute-policy -i 0 --set-timeslice 2" "$R/var/log/mock-nvml/nvidia-smi.log"'
# tool_delay_ms.<tool> holds a stand-in once it has logged the call, before it acts
echo "tool_delay_ms.nvidia-smi=400" >> "$R/etc/mock-nvml/config"
"$R/usr/bin/nvidia-smi" -i 0 -c PROHIBITED & smi=$!
sleep 0.1
check 'grep -qx -- "-i 0 -c PROHIBITED" "$R/var/log/mock-nvml/nvidia-smi.log" && grep -qx "gpu 0 0 0 0 2 GPU-aaa" "$S"'
wait "$smi"
check 'grep -qx "gpu 0 0 0 2 2 GPU-aaa" "$S"'
sed -i '/^tool_delay_ms/d' "$R/etc/mock-nvml/config"

# sysfs: each GPU's PCI device resolves to a path under its root complex (H100 buses 18 and 2a)
check '[ "$(readlink -f "$R/sys/bus/pci/devices/0000:18:00.0")" = "$(readlink -f "$R")/sys/devices/pci0000:00/0000:00:01.0/0000:18:00.0" ]'
check '[ "$(readlink -f "$R/sys/bus/pci/devices/0000:2a:00.0")" = "$(readlink -f "$R")/sys/devices/pci0000:20/0000:20:01.0/0000:2a:00.0" ]'
check '[ ! -e "$R/sys/bus/pci/devices/0000:3a:00.0" ]'
# ... with the files a real PCI device directory has: vendor, ids, class, and NUMA (first half node 0, rest node 1)
P="$R/sys/bus/pci/devices"
check '[ "$(cat "$P/0000:18:00.0/vendor")" = 0x10de ] && [ "$(cat "$P/0000:2a:00.0/vendor")" = 0x10de ]'
check '[ "$(cat "$P/0000:18:00.0/device")" = 0x2330 ] && [ "$(cat "$P/0000:18:00.0/subsystem_device")" = 0x16c1 ]'
check '[ "$(cat "$P/0000:18:00.0/subsystem_vendor")" = 0x10de ] && [ "$(cat "$P/0000:18:00.0/class")" = 0x030200 ]'
check '[ "$(cat "$P/0000:18:00.0/numa_node")" = 0 ] && [ "$(cat "$P/0000:2a:00.0/numa_node")" = 1 ]'
# /proc/devices: the driver's character majors, in the kernel's format
check 'grep -qx "195 nvidia-frontend" "$R/proc/devices" && grep -qx "236 nvidia-caps" "$R/proc/devices"'
check 'grep -qx "237 nvidia-uvm" "$R/proc/devices" && grep -qx "Character devices:" "$R/proc/devices"'
check '[ "$(awk "\$2 == \"nvidia-caps\" {print \$1}" "$R/proc/devices")" = 236 ]'
check 'sed -n "/^Block devices:/,\$p" "$R/proc/devices" | grep -qx "  8 sd"'

# idempotent: a re-run keeps the state file and refreshes config
echo "gpu 0 1 1 0" > "$R/var/lib/mock-nvml/state"
"$HERE/mock-nvml-setup" --root "$R" --profile H100-SXM5-80GB --gpus 2 --seed s2 --lib "$LIB" >/dev/null
check 'grep -qx "gpu 0 1 1 0" "$R/var/lib/mock-nvml/state"'
check '[ "$(grep -c nvidia-caps "$R/proc/devices")" = 1 ]'
# one GPU: node 0, as nvmlDeviceGetNumaNodeId says; the L40S's ids
"$HERE/mock-nvml-setup" --root "$TMP/one" --profile L40S --gpus 1 --seed s3 --lib "$LIB" >/dev/null
check '[ "$(cat "$TMP/one/sys/bus/pci/devices/0000:01:00.0/numa_node")" = 0 ]'
check '[ "$(cat "$TMP/one/sys/bus/pci/devices/0000:01:00.0/device")" = 0x26b9 ]'
check 'grep -qx "seed=s2" "$C"'
check '! "$HERE/mock-nvml-setup" --root "$TMP/bad" --profile NOPE --gpus 1 --seed x --lib "$LIB" 2>/dev/null'

echo "setup_test: $n checks, $fail failures"
[ "$fail" = 0 ]
