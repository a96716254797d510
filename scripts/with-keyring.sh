#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked
# gnome-keyring (a real Secret Service), so keychain tests never touch the
# user's own keyring. Sets BATON_REQUIRE_KEYCHAIN=1: keychain tests fail
# rather than skip if the keyring did not come up.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/data" "$dir/run"
chmod 700 "$dir/run"
export XDG_DATA_HOME="$dir/data" XDG_RUNTIME_DIR="$dir/run"
exec dbus-run-session -- bash -c '
  printf %s baton-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  export BATON_REQUIRE_KEYCHAIN=1
  exec "$@"' bash "$@" 2> >(grep -v "Failed to set fd limit" >&2)
