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
for dev in nvidiactl nvidia-uvm nvidia-uvm-tools nvidia-modeset nvidia0 nvidia1 nvidia-caps/nvidia-cap1; do
    if [ "$(id -u)" = 0 ]; then check '[ -c "$R/dev/$dev" ] || [ -f "$R/dev/$dev" ]'; else check '[ -f "$R/dev/$dev" ]'; fi
done
check '[ ! -e "$R/dev/nvidia2" ]'
check '[ -d "$R/dev/nvidia-caps" ]'
check 'grep -q "^DeviceFileMinor: 1$" "$R/proc/driver/nvidia/capabilities/mig/config"'
check 'grep -q "^DeviceFileMinor: 2$" "$R/proc/driver/nvidia/capabilities/mig/monitor"'
check 'grep -q "^gpu1/gi2/ci0/access 157$" "$R/proc/driver/nvidia-caps/mig-minors"'
C="$R/etc/mock-nvml/config"
check 'grep -qx "profile=H100-SXM5-80GB" "$C" && grep -qx "gpus=2" "$C" && grep -qx "seed=s1" "$C"'
check 'grep -qx "root=$R" "$C" && grep -qx "state_file=$R/var/lib/mock-nvml/state" "$C"'
check 'grep -qx "mig_layout=0:19@0" "$C" && grep -qx "mig_enabled=all" "$C"'
check '[ -d "$R/var/lib/mock-nvml" ] && [ -f "$R/var/lib/mock-nvml/events" ] && [ -f "$R/etc/mock-nvml/faults" ]'

# stand-in binaries log argv (and stdin for mps-control)
"$R/usr/bin/nvidia-smi" -L
"$R/usr/bin/nvidia-cuda-mps-control" -d
echo "set_default_active_thread_percentage 50" | "$R/usr/bin/nvidia-cuda-mps-control"
check 'grep -qx -- "-L" "$R/var/log/mock-nvml/nvidia-smi.log"'
check 'grep -qx -- "-d" "$R/var/log/mock-nvml/nvidia-cuda-mps-control.log"'
check 'grep -q "stdin: set_default_active_thread_percentage 50" "$R/var/log/mock-nvml/nvidia-cuda-mps-control.log"'

# idempotent: a re-run keeps the state file and refreshes config
echo "gpu 0 1 1 0" > "$R/var/lib/mock-nvml/state"
"$HERE/mock-nvml-setup" --root "$R" --profile H100-SXM5-80GB --gpus 2 --seed s2 --lib "$LIB" >/dev/null
check 'grep -qx "gpu 0 1 1 0" "$R/var/lib/mock-nvml/state"'
check 'grep -qx "seed=s2" "$C"'
check '! "$HERE/mock-nvml-setup" --root "$TMP/bad" --profile NOPE --gpus 1 --seed x --lib "$LIB" 2>/dev/null'

echo "setup_test: $n checks, $fail failures"
[ "$fail" = 0 ]
