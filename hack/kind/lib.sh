# Shared by hack/kind/{up,demo,down,node-image}: settings, where the cluster's files live, and the tools (kind,
# kubectl, Helm, the container engine) found or built.
# shellcheck shell=bash disable=SC2034  # the variables are for the scripts that source this

kind_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$kind_dir/../.." && pwd)
# say, die, make_busybox_image, images_dir and the local cluster's versions (its kubectl as a fallback).
# shellcheck source=../cluster/lib.sh
. "$repo/hack/cluster/lib.sh"
# shellcheck source=../lib.sh
. "$repo/hack/lib.sh"

# kind, built from the Go module proxy on first use into $cache/kind-<version>/bin/kind (as hack/helm builds Helm).
KIND_VERSION=${TESSERA_KIND_VERSION:-$KIND_VERSION} # versions.env
# The node image: Kubernetes 1.37.0, the newest 1.37 that kind v0.33.0 ships an image for (its release notes list
# v1.37.0, v1.36.4, v1.35.8, v1.34.11, built for that release and pinned by digest, as kind asks; a kindest/node
# tag alone may name an image built for another kind release). It is also kind v0.33.0's default.
KIND_NODE_IMAGE=${TESSERA_KIND_IMAGE:-kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5}
# Where no registry answers, Tessera's node image of the same Kubernetes version, built offline (node-image).
KIND_OFFLINE_IMAGE=localhost/tessera/kind-node:v$KIND_KUBERNETES_VERSION
CLUSTER=${TESSERA_KIND_CLUSTER:-tessera}
NODE=$CLUSTER-control-plane      # kind's name for the one node (the control plane runs pods too)
CONTEXT=kind-$CLUSTER            # the kubeconfig context kind writes
cache=${TESSERA_CACHE:-$HOME/.cache/tessera}
# What up made besides the cluster: the kind config, the images, the simulated driver root (mounted into the
# node at the same path), the mode. down removes it whole.
KIND_STATE=${TESSERA_KIND_DIR:-$cache/kind-clusters/$CLUSTER}
# The simulated driver roots, mounted into the node at the same paths: the plugin's (4 x H100), and one for the
# static MIG scenario (2 x H100, GPU 1 in MIG mode with a 3g.40gb device an admin made), which demo moves it to.
DRIVER_ROOTS=$KIND_STATE/driver-roots
DRIVER_ROOT=$DRIVER_ROOTS/h100x4
MIG_DRIVER_ROOT=$DRIVER_ROOTS/h100x2-mig
# kind writes the cluster's kubeconfig here, not into ~/.kube/config: down leaves no entry behind.
KUBECONFIG_FILE=$KIND_STATE/kubeconfig
HELM=${TESSERA_HELM:-$repo/hack/helm}
RELEASE=tessera
NAMESPACE=tessera-system
DRIVER=gpu.tessera.dev

# The engine kind runs its nodes on, in $ENGINE: Docker's daemon, or podman. They are told apart by the server's
# identity, not by which CLI is installed: a docker CLI may be there with no daemon (as on CI's machines), and
# podman's API socket speaks Docker's API, so a docker CLI pointed at it (DOCKER_HOST) is talking to podman.
# TESSERA_KIND_ENGINE=docker|podman chooses. Without a Docker daemon, podman (installed with apt when root and
# missing: what CI's machines run). kind is told with KIND_EXPERIMENTAL_PROVIDER.
kind_engine() {
  if [ -n "${TESSERA_KIND_ENGINE:-}" ]; then
    ENGINE=$TESSERA_KIND_ENGINE
  elif docker_answers; then
    if docker version --format '{{range .Server.Components}}{{.Name}};{{end}}' 2>/dev/null | grep -q Podman; then
      ENGINE=podman
    else
      ENGINE=docker
    fi
  elif command -v podman >/dev/null || { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; }; then
    ENGINE=podman
  else
    ENGINE=docker # to say below why it cannot be used
  fi
  case "$ENGINE" in
    docker)
      export KIND_EXPERIMENTAL_PROVIDER=docker # not kind's own guess, which may take a podman it finds
      command -v docker >/dev/null \
        || die "no container engine: kind runs its nodes as containers of Docker or podman, and neither is here (without one: the local cluster, hack/cluster/README.md)"
      docker_answers \
        || die "the Docker engine is not reachable (docker info: $(docker info 2>&1 >/dev/null | grep -v '^[[:space:]]*$' | tail -n 1)), and there is no podman"
      ;;
    podman)
      export KIND_EXPERIMENTAL_PROVIDER=podman
      command -v podman >/dev/null || apt_install podman netavark aardvark-dns runc nftables
      podman version >/dev/null || die "podman does not answer (podman version)"
      ;;
    *) die "TESSERA_KIND_ENGINE must be docker or podman, not '$ENGINE'" ;;
  esac
}

# docker_answers: a docker CLI whose server (Docker's daemon, or podman's API socket) answers.
docker_answers() { command -v docker >/dev/null && docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

# apt_install PACKAGE...: Debian packages, as root. Says so on stderr: node-image's stdout is the image's ref, read
# by its callers (on a fresh host the first line used to be this one, and the kind tier looked for a node image
# named "[hh:mm:ss] apt-get install debootstrap").
apt_install() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then die "missing (install them): $*"; fi
  say "apt-get install $*" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# engine ARGS: the engine's CLI (docker or podman).
engine() { "$ENGINE" "$@"; }

# The kind binary: $TESSERA_KIND_BIN, or the cached build of $KIND_VERSION, built now when missing.
kind_bin() {
  if [ -n "${TESSERA_KIND_BIN:-}" ]; then echo "$TESSERA_KIND_BIN"; return; fi
  local dir=$cache/kind-$KIND_VERSION
  if [ ! -x "$dir/bin/kind" ]; then
    tessera_build_lock "$dir"
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
    tessera_build_unlock
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
kube() { "$KUBECTL" --kubeconfig "$KUBECONFIG_FILE" --context "$CONTEXT" "$@"; }

# The driver's ResourceSlices on the node: a field of each device, space-separated (jsonpath).
slice_field() {
  kube get resourceslices --field-selector "spec.driver=$DRIVER,spec.nodeName=$NODE" \
    -o jsonpath="{.items[*].spec.devices[*].$1}" 2>/dev/null
}
