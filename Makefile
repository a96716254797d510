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
BATON := $(BIN_DIR)/baton

.PHONY: setup build run test bench fmt lint clean-setup

## setup: system packages and tools (apt, cargo-nextest), the embedded model; idempotent
setup:
	@scripts/setup.sh
	@scripts/fetch-model.sh

## build: the baton binary, with providers.json copied next to it
build: setup
	$(CARGO) build --workspace --bins
	cp providers.json $(BIN_DIR)/providers.json

## run: set up, build, start an interactive chat
run: build
	$(BATON) chat

## test: set up, then every test (keychain tests on a private Secret Service)
test: setup
	cp providers.json $(BIN_DIR)/providers.json 2>/dev/null || true
	scripts/with-keyring.sh $(CARGO) nextest run --workspace --all-targets --no-fail-fast

## bench: criterion benchmarks and whole-flow benchmarks, as ratios against baselines
bench: setup
	scripts/bench.sh

## fmt: format the code
fmt:
	$(CARGO) fmt --all

## lint: formatting check and clippy with warnings as errors
lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
