#!/usr/bin/env bash
# Builds the deployment images from this checkout: the shared service image (deploy/Dockerfile,
# context: the repository root) and the Redis image (deploy/redis). Host networking for the build
# (npm and apt reach their registries through the host). Prints each build's time.
# Needs the local base images: run .ci/docker-setup.sh first (as root) on a machine that cannot pull.
# Env: RLF_IMAGE (default rlfactory:dev), REDIS_IMAGE (default rlfactory-redis:dev),
#      DOCKER (default docker), DOCKER_BUILD_ARGS (extra arguments, e.g. --no-cache).
set -euo pipefail
cd "$(dirname "$0")/.."

RLF_IMAGE=${RLF_IMAGE:-rlfactory:dev}
REDIS_IMAGE=${REDIS_IMAGE:-rlfactory-redis:dev}
DOCKER=${DOCKER:-docker}
read -r -a extra <<<"${DOCKER_BUILD_ARGS:-}"

build() {
  local tag=$1 dockerfile=$2 context=$3 start
  start=$(date +%s)
  printf '\n== docker build %s (%s)\n' "$tag" "$dockerfile"
  "$DOCKER" build --network host "${extra[@]}" -f "$dockerfile" -t "$tag" "$context"
  printf '== %s built in %ss, %s\n' "$tag" "$(( $(date +%s) - start ))" \
    "$("$DOCKER" image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1e6}')"
}

total=$(date +%s)
build "$RLF_IMAGE" deploy/Dockerfile .
build "$REDIS_IMAGE" deploy/redis/Dockerfile deploy/redis
printf '\n== images built in %ss\n' "$(( $(date +%s) - total ))"
