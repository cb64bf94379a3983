# Rivulet — a thin wrapper around meson. See README.md.
BUILD    ?= _build
ASAN     ?= _build-asan
BENCH    ?= _build-bench
MESON    ?= meson
XVFB     := xvfb-run -a -s "-screen 0 1280x1024x24 -nolisten tcp"
DBUS     := dbus-run-session --
RUN_ENV  := GSETTINGS_SCHEMA_DIR=$(BUILD)/data

.PHONY: all deps deps-run build run test test-gradio test-debian13 test-asan test-valgrind bench fuzz clean \
        flatpak flatpak-repo test-flatpak

all: build

# What the app needs to build and run (make run); deps adds what the tests need.
deps-run:
	@bash .ci/deps run

deps:
	@bash .ci/deps test

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --buildtype=debugoptimized

build: deps-run $(BUILD)/build.ninja
	$(MESON) compile -C $(BUILD)

run: build
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ]; then \
	  echo "No display: running Rivulet under Xvfb (set DISPLAY to see it)."; \
	  $(RUN_ENV) $(XVFB) $(DBUS) $(BUILD)/app/ui/rivulet $(ARGS); \
	else \
	  $(RUN_ENV) $(BUILD)/app/ui/rivulet $(ARGS); \
	fi

test: deps build
	@bash .ci/test $(BUILD)

# Rivulet against real Gradio 4.44/5.49/6.25 servers (a Debian 13 root, cached; see app/docs/real-gradio.md).
test-gradio: deps build
	@bash tests/gradio/run $(BUILD)

# The Flatpak: a bundle in $(BUILD), against GNOME 50 if installed, else a local Debian 13
# runtime (cached); then tested as installed from that bundle. See app/docs/packaging.md.
FLATPAK_DEPS := flatpak flatpak-builder bubblewrap ostree mmdebstrap elfutils x11-utils
flatpak:
	@RIV_DEPS_EXTRA="$(FLATPAK_DEPS)" bash .ci/deps
	@bash tests/flatpak/build $(BUILD)

# That build published into a signed OSTree repo with its .flatpakrepo and .flatpakref:
#   make flatpak-repo GPG_KEY=<id> [GPG_HOMEDIR=dir] [REPO_URL=https://…] [REPO_DIR=dir]
# (see tests/flatpak/publish and app/docs/packaging.md). It does not build: run make flatpak first.
flatpak-repo:
	@bash tests/flatpak/publish $(BUILD)

test-flatpak:
	@RIV_DEPS_EXTRA="$(FLATPAK_DEPS)" bash .ci/deps
	@bash tests/flatpak/run $(BUILD)

# The headless and UI suites built (--werror) and run on Debian 13, GTK 4.18 and libadwaita
# 1.7, inside the real-Gradio suite's Debian 13 root (see app/docs/packaging.md).
test-debian13:
	@bash tests/debian13/run $(BUILD)

test-asan: deps
	@[ -f $(ASAN)/build.ninja ] || $(MESON) setup $(ASAN) -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug
	$(MESON) compile -C $(ASAN)
	@bash .ci/test $(ASAN) asan

test-valgrind: deps build
	@bash .ci/test $(BUILD) valgrind

# Benchmarks measure an optimised build of their own.
bench: deps
	@[ -f $(BENCH)/build.ninja ] || $(MESON) setup $(BENCH) --buildtype=release
	$(MESON) compile -C $(BENCH)
	@bash tests/bench/run $(BENCH)

# libFuzzer targets (clang + ASan/UBSan) in their own build dir, FUZZ_SECONDS per target.
fuzz:
	@RIV_DEPS_EXTRA="clang libclang-rt-14-dev" bash .ci/deps
	@[ -f _build-fuzz/build.ninja ] || CC=clang $(MESON) setup _build-fuzz --werror -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debugoptimized
	ninja -C _build-fuzz fuzz-targets
	bash tests/fuzz/run _build-fuzz $${FUZZ_SECONDS:-60}

clean:
	rm -rf $(BUILD) $(ASAN) _build-*
