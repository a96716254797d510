#!/usr/bin/env bash
# Installs what Baton needs to build, run and test. Idempotent: installs
# only what is missing, so a second run takes well under a second.
set -euo pipefail

APT_PACKAGES=(
  build-essential pkg-config libssl-dev   # native builds, TLS for reqwest
  dbus dbus-x11 gnome-keyring libsecret-tools  # Secret Service for keychain tests
  curl time                               # bench baselines and peak RSS
  cmake clang libclang-dev                # llama.cpp, built from source by llama-cpp-sys-2
  tesseract-ocr tesseract-ocr-eng libtesseract-dev libleptonica-dev  # local OCR for images and scanned PDFs
  libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev  # the desktop app (Tauri 2)
  librsvg2-dev libayatana-appindicator3-dev libxdo-dev
  xvfb xauth webkit2gtk-driver            # end-to-end tests of the real app under a virtual display
  xdotool x11-utils dunst python3-tk      # keys pressed anywhere (the global shortcut), windows mapped, a real notification daemon, a text box dictation types into, in those tests
  chromium                                # UI browser tests (Playwright drives Debian's Chromium)
  espeak-ng libespeak-ng-dev              # offline text-to-speech
  libasound2-dev alsa-utils libasound2-plugins  # sound devices (cpal on ALSA, routed to PulseAudio)
  pulseaudio pulseaudio-utils sox         # a private sound server for the real-audio tests; sox makes its room echo
  flac vorbis-tools lame                  # FLAC, Ogg Vorbis and MP3 files for the audio decoding tests
  dovecot-imapd dovecot-lmtpd postfix openssl  # real IMAP and SMTP servers for the e-mail tests (started per test)
  redis-server                            # sessions shared by several `baton serve` (the tests start their own)
)
# A Vulkan build of the embedded model (`make build GPU=vulkan`, or a GPU
# found by scripts/detect-gpu.sh): headers, loader, Mesa's drivers (AMD,
# Intel, and lavapipe on the CPU) and the shader compiler.
if [ "${BATON_GPU:-none}" = vulkan ]; then
  APT_PACKAGES+=(libvulkan-dev glslc spirv-headers mesa-vulkan-drivers)
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# The web UI build needs Node.js with npm (any recent distribution of it).
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  # Postfix is installed unconfigured: the e-mail tests start instances of
  # their own on loopback; nothing listens for mail on this machine.
  echo "postfix postfix/main_mailer_type select No configuration" | "${sudo_cmd[@]}" debconf-set-selections
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "setup: installing tauri-driver"
  cargo install tauri-driver --locked
fi

if ! cargo nextest --version >/dev/null 2>&1; then
  echo "setup: installing cargo-nextest"
  cargo install cargo-nextest --locked
fi
