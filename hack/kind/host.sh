# Sourced by hack/kind/{up,down}: what a podman host needs changed for kind's nodes, recorded in $HOST_RECORD so
# down undoes exactly that (../shared/reference/kind-podman.md lists each error met without it):
#   - containers.conf drop-in: runc where crun refuses the host's cgroups (a cgroup v1 or hybrid host), default
#     ulimits within the caller's hard limits (without them the runtime's setrlimit fails on hosts that cap them),
#     and a private cgroup namespace by default (kind asks for one on its CLI; podman 4.3's Docker API ignores the
#     CgroupnsMode a Testcontainers client sends, and a node without one sees the host's cgroup paths), and exec
#     sessions' conmon gone 5 s after the command exits (through the Docker API podman keeps it 300 s, as Docker keeps
#     an exec's exit code 5 minutes, so it outlives a Testcontainers node by minutes; the client reads it at once);
#   - /lib/modules: kind always mounts it read-only into the node; made (empty) when the host has none;
#   - sysctls: netavark turns on forwarding, the node's kubelet sets its kernel tunables (a privileged container
#     writes the host's): their values before up are written back by down;
#   - firewall: the chains netavark adds for kind's network are removed with it;
#   - /run/netns: netavark makes it (a mount of its own) for the nodes' namespaces; removed when it was not there
#     before and is empty again.
# shellcheck shell=bash

HOST_RECORD=$KIND_STATE/host
PODMAN_CONF=/etc/containers/containers.conf.d/50-tessera-kind.conf
# Forwarding (netavark) and the kubelet's own tunables (setupKernelTunables, as hack/cluster/up records them).
HOST_SYSCTLS=(net.ipv4.ip_forward net.ipv6.conf.all.forwarding net.ipv6.conf.default.forwarding
  vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
  kernel.keys.root_maxbytes)

# host_cgroup_v1: the host runs cgroup v1 (or hybrid: v1 controllers with a cgroup2 mount beside them).
host_cgroup_v1() { [ ! -f /sys/fs/cgroup/cgroup.controllers ]; }

# host_has_cap_sys_resource: this process may raise limits and lower oom_score_adj (a VM's root usually may; a
# container's or a sandbox's root may not, and neither may the kind node nested in it).
host_has_cap_sys_resource() {
  local eff
  eff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
  (((16#$eff >> 24) & 1))
}

# host_prepare: the changes above, each recorded. podman only (Docker's daemon is configured by its owner).
host_prepare() {
  mkdir -p "$HOST_RECORD"
  tessera_sysctls "${HOST_SYSCTLS[@]}" >"$HOST_RECORD/sysctl.saved"
  iptables_chains >"$HOST_RECORD/chains.saved"
  if command -v nft >/dev/null; then nft list tables >"$HOST_RECORD/chains.saved.tables" 2>/dev/null || true; fi
  if [ ! -e /run/netns ]; then touch "$HOST_RECORD/made-run-netns"; fi
  if [ ! -d /lib/modules ]; then
    mkdir /lib/modules && touch "$HOST_RECORD/made-lib-modules"
    say "made /lib/modules (kind mounts it into the node; down removes it)"
  fi
  if [ ! -f "$PODMAN_CONF" ]; then
    local nofile nproc runtime=""
    nofile=$(ulimit -Hn) nproc=$(ulimit -Hu)
    [ "$nofile" != unlimited ] && [ "$nofile" -le 1048576 ] || nofile=1048576
    # podman caps nproc at 32768 (a higher default_ulimits value fails: "rlimit type 6").
    [ "$nproc" != unlimited ] && [ "$nproc" -le 32768 ] || nproc=32768
    if host_cgroup_v1; then runtime='runtime = "runc"'; fi
    if [ ! -d "$(dirname "$PODMAN_CONF")" ]; then
      mkdir -p "$(dirname "$PODMAN_CONF")" && touch "$HOST_RECORD/made-podman-conf-dir"
    fi
    cat >"$PODMAN_CONF" <<EOF
# Written by Tessera's hack/kind/up for kind's nodes; hack/kind/down removes it.
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
cgroupns = "private"
[engine]
exit_command_delay = 5
$runtime
EOF
    touch "$HOST_RECORD/made-podman-conf"
    say "podman: $PODMAN_CONF (${runtime:-the default runtime}, nofile=$nofile, nproc=$nproc)"
  fi
}

# host_restore: undoes what host_prepare recorded, and removes kind's network with netavark's chains. Safe to run
# twice, or with nothing recorded.
host_restore() {
  [ -d "$HOST_RECORD" ] || return 0
  if podman network exists kind 2>/dev/null && [ -z "$(podman ps -aq --filter network=kind)" ]; then
    podman network rm kind >/dev/null && say "removed podman network kind"
  fi
  [ -f "$HOST_RECORD/chains.saved" ] && remove_new_netavark_chains "$HOST_RECORD/chains.saved"
  if [ -f "$HOST_RECORD/sysctl.saved" ]; then tessera_restore_sysctls "$HOST_RECORD/sysctl.saved"; fi
  if [ -f "$HOST_RECORD/made-lib-modules" ]; then rmdir /lib/modules 2>/dev/null && say "removed /lib/modules"; fi
  if [ -f "$HOST_RECORD/made-run-netns" ] && [ -d /run/netns ]; then
    tessera_remove_run_netns && say "removed /run/netns"
  fi
  if [ -f "$HOST_RECORD/made-podman-conf" ]; then rm -f "$PODMAN_CONF" && say "removed $PODMAN_CONF"; fi
  if [ -f "$HOST_RECORD/made-podman-conf-dir" ]; then rmdir "$(dirname "$PODMAN_CONF")" 2>/dev/null || true; fi
  rm -rf "$HOST_RECORD"
}

# iptables_chains: "<tool> <table> <chain>" for every chain of iptables and ip6tables (the tools netavark calls).
iptables_chains() {
  local tool
  for tool in iptables ip6tables; do
    command -v "$tool-save" >/dev/null || continue
    "$tool-save" 2>/dev/null | awk -v tool="$tool" '/^\*/ {table = substr($0, 2)} /^:/ {print tool, table, substr($1, 2)}'
  done
}

# remove_new_netavark_chains SAVED: netavark's chains that were not there before up (SAVED, from iptables_chains):
# the rules jumping to them first, then their rules, then the chains; then the tables netavark's first rules
# brought into being, if they hold nothing now (an empty table is no firewall, but not the host as it was).
remove_new_netavark_chains() {
  local tool table chain rule family name
  local -a args
  { iptables_chains | grep -vxFf "$1" | grep ' NETAVARK' || true; } | while read -r tool table chain; do
    { "$tool-save" -t "$table" | grep -E -- "^-A [^ ]+ .*-j $chain( |$)" || true; } | while read -r rule; do
      eval "args=(${rule#-A })"
      "$tool" -t "$table" -D "${args[@]}" 2>/dev/null || true
    done
    "$tool" -t "$table" -F "$chain" 2>/dev/null || true
  done
  { iptables_chains | grep -vxFf "$1" | grep ' NETAVARK' || true; } | while read -r tool table chain; do
    if "$tool" -t "$table" -X "$chain" 2>/dev/null; then say "removed $tool $table chain $chain"; fi
  done
  [ -f "$1.tables" ] && command -v nft >/dev/null || return 0
  { nft list tables 2>/dev/null | grep -vxFf "$1.tables" || true; } | while read -r _ family name; do
    case "$family" in ip) tool=iptables ;; ip6) tool=ip6tables ;; *) continue ;; esac
    if ! "$tool-save" -t "$name" 2>/dev/null | grep -q '^-A'; then
      nft delete table "$family" "$name" && say "removed the empty nft table $family $name"
    fi
  done
}
