# Baton — set-up, build, run, test and bench entry points.
# `make run` and `make test` work on a fresh Debian/Ubuntu machine: they
# install what is missing first (idempotent, quick when done).

SHELL := /bin/bash
.DEFAULT_GOAL := run

# One cargo target dir outside the clone, reused by every clone and CI run.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/baton-target
CARGO ?= cargo
# Where the embedded model lives (tests read it from here too).
export BATON_MODELS_DIR ?= $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/baton/models
BIN_DIR := $(CARGO_TARGET_DIR)/debug
REL_DIR := $(CARGO_TARGET_DIR)/release
BATON := $(BIN_DIR)/baton
DESKTOP := $(REL_DIR)/baton-desktop
# The GPU backend the embedded model is built with by build and run: auto
# (scripts/detect-gpu.sh), cuda, vulkan, metal or none (the CPU). package
# builds for the CPU unless GPU is given. Tests always build for the CPU.
GPU ?= auto
ifeq ($(filter auto none cuda vulkan metal,$(GPU)),)
$(error GPU must be auto, none, cuda, vulkan or metal, not '$(GPU)')
endif
GPU_BACKEND := $(if $(filter auto,$(GPU)),$(shell scripts/detect-gpu.sh),$(GPU))
GPU_FEATURES := $(if $(filter cuda vulkan metal,$(GPU_BACKEND)),--features $(GPU_BACKEND))
# Vulkan: headers new enough for llama.cpp (scripts/vulkan-headers.sh),
# found when the build runs (after setup installed the tools).
GPU_ENV := $(if $(filter vulkan,$(GPU_BACKEND)),env $$($(CURDIR)/scripts/vulkan-headers.sh))
# On Linux the CPU build carries llama.cpp's CPU kernels for every processor
# level and loads the best one at run time (baton-local's cpu-variants); a
# GPU build keeps the x86-64-v3 kernels compiled in.
UNAME := $(shell uname)
CPU_FEATURES = $(if $(and $(filter Linux,$(UNAME)),$(filter none,$(GPU_BACKEND))),--features cpu-variants)
# Tests build for the CPU: their setup installs no GPU build tools.
test test-e2e bench lint: GPU_BACKEND := none
# A package runs on other machines: a GPU backend only when asked for.
package: GPU_FEATURES := $(if $(filter cuda vulkan metal,$(GPU)),--features $(GPU))
package: GPU_BACKEND := $(if $(filter cuda vulkan metal,$(GPU)),$(GPU),none)
package: GPU_ENV := $(if $(filter vulkan,$(GPU)),env $$($(CURDIR)/scripts/vulkan-headers.sh))

.PHONY: setup setup-system ui ui-deps bindings build run test test-ui test-e2e bench soak fmt lint package clean-setup

## setup: system packages and tools (apt, cargo-nextest), the embedded model; idempotent
setup: setup-system
	@scripts/fetch-model.sh
	@scripts/fetch-whisper.sh
	@scripts/fetch-piper.sh
	@scripts/fetch-embed.sh

## setup-system: system packages and tools only (apt, cargo-nextest, tauri-driver); idempotent
setup-system:
	@BATON_GPU=$(GPU_BACKEND) scripts/setup.sh

## ui-deps: the web UI's npm packages (npm ci only when the lock file changed)
ui-deps:
	@cd ui && if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then npm ci --no-audit --no-fund; fi

## ui: the web UI, built into ui/dist (embedded into the desktop app)
ui: ui-deps
	cd ui && npm run build

## bindings: regenerate ui/src/lib/bindings.ts from the shell's commands and events
# (built as nextest builds: the same features, so nothing is built twice)
bindings:
	BATON_WRITE_BINDINGS=1 $(CARGO) nextest run --workspace --all-targets $(CPU_FEATURES) \
	  -E 'test(committed_bindings)'

## build: the UI, the baton CLI and the desktop app (release), providers.json beside them
build: setup ui
	$(GPU_ENV) $(CARGO) build --release -p baton-cli -p baton-desktop -p baton-stt $(GPU_FEATURES) $(CPU_FEATURES)
	cp providers.json $(REL_DIR)/providers.json

## run: set up, build, open the desktop app on the embedded model (no display: `baton chat`)
run: setup ui
	@if [ -z "$$DISPLAY" ] && [ -z "$$WAYLAND_DISPLAY" ] && [ "$$(uname)" = Linux ]; then \
	  echo "No display (DISPLAY/WAYLAND_DISPLAY unset): starting \`baton chat\` in this terminal instead of the desktop app."; \
	  $(GPU_ENV) $(CARGO) build --release -p baton-cli -p baton-stt $(GPU_FEATURES) $(CPU_FEATURES) && cp providers.json $(REL_DIR)/providers.json && $(REL_DIR)/baton chat; \
	else \
	  $(GPU_ENV) $(CARGO) build --release -p baton-desktop -p baton-stt $(GPU_FEATURES) $(CPU_FEATURES) && cp providers.json $(REL_DIR)/providers.json && $(DESKTOP); \
	fi

## package: Linux bundles (.deb, AppImage) of the desktop app, with the icons in icons/
## (on Linux llama.cpp's libraries and CPU-kernel modules go to /usr/lib/baton)
## (the AppImage step downloads AppRun/linuxdeploy from GitHub: it needs that network)
package: setup ui
	$(CARGO) build --release -p baton-stt
	mkdir -p src-tauri/binaries && cp $(REL_DIR)/baton-stt src-tauri/binaries/baton-stt-$$(rustc -vV | sed -n 's/^host: //p')
	$(if $(CPU_FEATURES),$(CARGO) build --release -p baton-local $(CPU_FEATURES))
	cfg=$$(python3 scripts/package-config.py $(REL_DIR) $(if $(CPU_FEATURES),--llama-libs)) && \
	  cd src-tauri && $(GPU_ENV) ../ui/node_modules/.bin/tauri build --bundles deb --ci $(GPU_FEATURES) $(CPU_FEATURES) --config "$$cfg"
	@if [ -n "$(CPU_FEATURES)" ]; then \
	  echo "package: no AppImage for this build — it does not carry llama.cpp's libraries and CPU-kernel modules yet; the .deb does (GPU=vulkan or cuda builds one)"; \
	else cd src-tauri && ../ui/node_modules/.bin/tauri bundle --bundles appimage --ci \
	  || echo "package: no AppImage — Tauri's AppImage bundler downloads AppRun and linuxdeploy from GitHub, which this machine cannot reach; the .deb is built"; fi
	@ls -la $(REL_DIR)/bundle/*/*.deb $(REL_DIR)/bundle/*/*.AppImage 2>/dev/null || true

## test: set up, then every test: Rust (keychain tests on a private Secret Service),
## the UI (type check, unit, browser with mocked IPC) and the real app end to end
# The test build starts as soon as the system packages and the UI are
# there; the models and the fixtures' tools download beside it
# (scripts/prepare-tests.sh).
test: setup-system ui
	CARGO=$(CARGO) scripts/prepare-tests.sh $(CPU_FEATURES)
	cp providers.json $(BIN_DIR)/providers.json 2>/dev/null || true
	scripts/with-keyring.sh $(CARGO) nextest run --workspace --all-targets $(CPU_FEATURES) --no-fail-fast
	$(MAKE) --no-print-directory test-ui test-e2e

## test-ui: svelte-check, Vitest, and Playwright on the built UI with the Tauri IPC mocked
test-ui: ui-deps
	cd ui && npm run check && npm test && npm run build:mock && npm run test:browser

## test-e2e: the real desktop app under Xvfb, driven by tauri-driver + WebKitWebDriver
# Built as nextest builds (the whole workspace, every target): the same
# features, so after `make test`'s Rust tests nothing is built twice.
test-e2e:
	$(CARGO) build --workspace --all-targets $(CPU_FEATURES)
	scripts/with-keyring.sh node tests/e2e/desktop.mjs --app $(BIN_DIR)/baton-desktop \
	  --scripted $(BIN_DIR)/baton-scripted-llm --out $(CARGO_TARGET_DIR)/e2e-screenshots

## bench: criterion benchmarks and whole-flow benchmarks, as ratios against baselines
bench: setup
	BATON_CARGO_FEATURES="$(CPU_FEATURES)" scripts/bench.sh

## soak: memory of the desktop app after an hour of use against right after start (SOAK_MINUTES, default 60)
soak: setup
	make --no-print-directory ui >/dev/null
	$(CARGO) build --release -p baton-desktop -p baton-scripted-llm $(CPU_FEATURES)
	scripts/with-keyring.sh node tests/e2e/soak.mjs --app $(CARGO_TARGET_DIR)/release/baton-desktop \
	  --scripted $(CARGO_TARGET_DIR)/release/baton-scripted-llm --minutes $(or $(SOAK_MINUTES),60) | grep -v '^\['

## fmt: format the code
fmt:
	$(CARGO) fmt --all

## lint: formatting check and clippy with warnings as errors (as tests build, and baton-local without its CPU variants)
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets $(CPU_FEATURES) -- -D warnings
	$(if $(CPU_FEATURES),$(CARGO) clippy -p baton-local --all-targets -- -D warnings)
