# Shared by hack/cluster/{build,up,down,smoke}: pinned versions, cache and state paths, logging.
# shellcheck shell=bash disable=SC2034  # the variables are for the scripts that source this

cluster_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# say, die, need_root (and the JDK and build-tool helpers).
# shellcheck source=../lib.sh
. "$cluster_dir/../lib.sh"
# shellcheck source=versions.env
. "$cluster_dir/versions.env"

# The build cache lives outside the work tree, one folder per component and version.
CACHE=${TESSERA_CACHE:-$HOME/.cache/tessera}/cluster
KUBE_BIN=$CACHE/kubernetes-$KUBERNETES_VERSION/bin
ETCD_BIN=$CACHE/etcd-$ETCD_VERSION/bin
CONTAINERD_BIN=$CACHE/containerd-$CONTAINERD_VERSION/bin
if [ "$RUNC_VERSION" = debian ]; then RUNC=/usr/sbin/runc; else RUNC=$CACHE/runc-$RUNC_VERSION/bin/runc; fi
CNI_BIN=/usr/lib/cni

# Everything a running cluster owns: PKI, configs, data, logs, PIDs, the kubelet's and containerd's dirs.
STATE=${TESSERA_CLUSTER_DIR:-/var/lib/tessera-cluster}
NODE_NAME=${TESSERA_NODE_NAME:-tessera-node}
NETNS=tessera-cluster            # private network namespace for containerd, CNI and pods
# A point-to-point link between the host and that namespace: the API server listens on the host end only, so
# host processes and pods on the node's (namespaced) host network reach it, and nothing outside this machine.
API_LINK=tcl-api                 # the host end; its peer in $NETNS is tcl-pods
API_IP=10.250.0.1                # the API server's address (host end of the link)
API_PEER_IP=10.250.0.2           # the namespace's end
CGROUP_ROOT=/tessera-cluster     # kubelet cgroupRoot, pre-created in every cgroup v1 hierarchy
CONTAINERD_SOCK=/run/tessera-containerd/containerd.sock

# kubectl as the cluster's admin; ctr in containerd's Kubernetes namespace.
kube() { "$KUBE_BIN/kubectl" --kubeconfig="$STATE/admin.kubeconfig" "$@"; }
ctr_k8s() { "$CONTAINERD_BIN/ctr" --address="$CONTAINERD_SOCK" --namespace=k8s.io "$@"; }

# The images' cache key: what goes into them (pause.c, mkimage, refs, Debian's busybox version).
images_dir() {
  local bb key
  bb=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || echo none)
  key=$({ cat "$cluster_dir/pause.c" "$cluster_dir/mkimage"; echo "$PAUSE_IMAGE $BUSYBOX_IMAGE $bb"; } \
    | sha256sum | cut -c1-12)
  echo "$CACHE/images-$key"
}

# make_busybox_image OUT.tar: the workload image $BUSYBOX_IMAGE (Debian's static busybox, its applets as links) as
# an OCI archive. Shared by build (the local cluster) and hack/kind/up.
make_busybox_image() {
  if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
    die "a static /bin/busybox is needed for $BUSYBOX_IMAGE (apt-get install busybox-static)"
  fi
  local rootfs applet
  rootfs=$(mktemp -d)
  chmod 755 "$rootfs"
  mkdir -p "$rootfs/bin" "$rootfs/tmp" "$rootfs/etc"
  cp /bin/busybox "$rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -s busybox "$rootfs/bin/$applet"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$rootfs/etc/passwd"
  echo 'root:x:0:' >"$rootfs/etc/group"
  "$cluster_dir/mkimage" "$1" "$BUSYBOX_IMAGE" "$rootfs" '["/bin/sh"]'
  rm -rf "$rootfs"
}

# --- The cluster's processes, by the PID files and command lines up recorded (down, component) -------------------
component_pid() { cat "$STATE/pid/$1.pid" 2>/dev/null; }
# component_running NAME: its recorded PID is alive and still runs the binary NAME (not a reused PID).
component_running() {
  local pid
  pid=$(component_pid "$1") || return 1
  [ "$(basename "$(readlink "/proc/$pid/exe" 2>/dev/null)" " (deleted)")" = "$1" ]
}
# component_stop NAME: SIGTERM, up to 30 s for it to exit, then SIGKILL, as a kubelet ends a static pod with the default
# grace period. The API server takes all 30 s while any watch is open: its --shutdown-watch-termination-grace-period
# defaults to 0 (watches are not drained) and its HTTP server then waits for them up to the 60 s request timeout, so
# it is killed, as a kubeadm cluster's is; the outage tests' outage is that 30 s plus their own.
component_stop() {
  local pid i
  if component_running "$1"; then
    pid=$(component_pid "$1")
    say "stopping $1 (pid $pid)"
    kill -TERM "$pid"
    for ((i = 0; i < 60; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then say "$1 ignored SIGTERM: SIGKILL"; kill -KILL "$pid"; sleep 0.5; fi
  fi
  rm -f "$STATE/pid/$1.pid"
}
