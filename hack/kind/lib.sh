# Shared by hack/kind/{up,demo,down}: settings, where the cluster's files live, and the tools (kind, kubectl,
# Helm, Docker) found or built.
# shellcheck shell=bash disable=SC2034  # the variables are for the scripts that source this

kind_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$kind_dir/../.." && pwd)
# say, die, make_busybox_image, images_dir and the local cluster's versions (its kubectl as a fallback).
# shellcheck source=../cluster/lib.sh
. "$repo/hack/cluster/lib.sh"
# shellcheck source=../lib.sh
. "$repo/hack/lib.sh"

# kind, built from the Go module proxy on first use into $cache/kind-<version>/bin/kind (as hack/helm builds Helm).
KIND_VERSION=${TESSERA_KIND_VERSION:-0.33.0}
# The node image: Kubernetes 1.37.0, the newest 1.37 that kind v0.33.0 ships an image for (its release notes list
# v1.37.0, v1.36.4, v1.35.8, v1.34.11, built for that release and pinned by digest, as kind asks; a kindest/node
# tag alone may name an image built for another kind release). It is also kind v0.33.0's default.
KIND_NODE_IMAGE=${TESSERA_KIND_IMAGE:-kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5}
CLUSTER=${TESSERA_KIND_CLUSTER:-tessera}
NODE=$CLUSTER-control-plane      # kind's name for the one node (the control plane runs pods too)
CONTEXT=kind-$CLUSTER            # the kubeconfig context kind writes
cache=${TESSERA_CACHE:-$HOME/.cache/tessera}
# What up made besides the cluster: the kind config, the images, the simulated driver root (mounted into the
# node at the same path), the mode. down removes it whole.
KIND_STATE=${TESSERA_KIND_DIR:-$cache/kind-clusters/$CLUSTER}
DRIVER_ROOT=$KIND_STATE/driver-root
HELM=${TESSERA_HELM:-$repo/hack/helm}
RELEASE=tessera
NAMESPACE=tessera-system
DRIVER=gpu.tessera.dev

# Docker runs kind's nodes: without a reachable engine nothing here can work, so say so first.
need_docker() {
  command -v docker >/dev/null \
    || die "no docker command: kind runs its nodes as Docker containers (without Docker: the local cluster, hack/cluster/README.md)"
  local err
  if ! err=$(docker info 2>&1 >/dev/null); then
    die "the Docker engine is not reachable (docker info: $(printf '%s' "$err" | grep -v '^[[:space:]]*$' | tail -n 1))"
  fi
}

# The kind binary: $TESSERA_KIND_BIN, or the cached build of $KIND_VERSION, built now when missing.
kind_bin() {
  if [ -n "${TESSERA_KIND_BIN:-}" ]; then echo "$TESSERA_KIND_BIN"; return; fi
  local dir=$cache/kind-$KIND_VERSION
  if [ ! -x "$dir/bin/kind" ]; then
    local go
    go=$(command -v go || echo /usr/local/go/bin/go)
    [ -x "$go" ] || die "Go is needed to build kind $KIND_VERSION (or set TESSERA_KIND_BIN to a kind binary)"
    say "building kind $KIND_VERSION from the Go module proxy into $dir (a minute, once)" >&2
    tessera_go_env "$cache"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/bin"
    (cd / && CGO_ENABLED=0 GOBIN=$dir.tmp/bin "$go" install -trimpath -ldflags "-s -w" "sigs.k8s.io/kind@v$KIND_VERSION") >&2
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "$dir/bin/kind"
}

# kubectl from PATH, or the local cluster's (hack/cluster/build) where there is none.
kubectl_bin() {
  if command -v kubectl >/dev/null; then command -v kubectl; return; fi
  [ -x "$KUBE_BIN/kubectl" ] || die "kubectl is needed (on PATH, or built by hack/cluster/build)"
  echo "$KUBE_BIN/kubectl"
}

# kube ARGS: kubectl against the kind cluster's context.
kube() { "$KUBECTL" --context "$CONTEXT" "$@"; }

# The driver's ResourceSlices on the node: a field of each device, space-separated (jsonpath).
slice_field() {
  kube get resourceslices --field-selector "spec.driver=$DRIVER,spec.nodeName=$NODE" \
    -o jsonpath="{.items[*].spec.devices[*].$1}" 2>/dev/null
}
