#!/usr/bin/env bash
# `make test`'s preparation, arranged for time on a fresh machine: the
# workspace's test build (the long step, all CPU) starts first, in the
# background, and the embedded models and the fixtures' tools and servers
# (mostly network and disk) download and install beside it. The system
# packages and the web UI come before (`make test` runs `setup-system`
# and `ui` first): the build needs their libraries, and the desktop crate
# embeds the UI.
#
#   scripts/prepare-tests.sh [CARGO FEATURE ARGS…]
#
# Exits non-zero when the build or any step fails (a failed step stops
# the build too).
set -euo pipefail
cd "$(dirname "$0")/.."

# The build in a process group of its own, so that it can be stopped.
set -m
(
  set -o pipefail
  "${CARGO:-cargo}" nextest run --workspace --all-targets "$@" --no-run 2>&1 \
    | sed -u 's/^/[test build] /'
) &
build=$!
set +m
trap 'kill -- "-$build" 2>/dev/null || true' EXIT

started=$SECONDS
scripts/fetch-model.sh
scripts/fetch-whisper.sh
scripts/fetch-piper.sh
scripts/fetch-embed.sh
scripts/make-fixtures.sh --tools-only
echo "prepare-tests: models and fixture tools ready after $((SECONDS - started)) s; waiting for the test build"

status=0
wait "$build" || status=$?
trap - EXIT
if [ "$status" -ne 0 ]; then
  echo "prepare-tests: the test build failed (exit $status)" >&2
  exit "$status"
fi
echo "prepare-tests: the test build finished after $((SECONDS - started)) s"
