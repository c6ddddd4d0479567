# garchive: a drop-in replacement for `git archive`.
#
#   make deps       install what building and `make test` need (Debian)
#   make deps-dev   also what check-asan, valgrind, fuzz and doc need
#   make            build ./garchive and ./garchive-remote-http (the
#                   http(s) transport of --remote, on libcurl)
#   make test       build, then run the whole test suite under prove
#   make check-asan the test suite under AddressSanitizer + UBSan, built
#                   in build/asan (the normal build is left alone)
#   make valgrind   unit tests and a subset of the suite under memcheck
#   make fuzz       every libFuzzer target for FUZZ_SECONDS (clang), built
#                   in build/fuzz and run by t/fuzz/run
#   make install    PREFIX=/usr/local DESTDIR=  (and make uninstall):
#                   garchive, git garchive, garchive-release, the manual
#                   page and bash completion
#   make doc        re-render Documentation/garchive.1 (needs asciidoctor)
#   make bench      time garchive against git archive (bench/run)
#   make bench-scaling  how time and memory grow with the number of files
#                   and the largest blob (bench/scaling)
#
# Sources are found by wildcard: a new src/<folder>/*.c, t/unit/*.c or
# t/t*.sh needs no change here.  Each folder of src/ is a subsystem
# (Documentation/technical/architecture.md) and is on the include path,
# so a source names a header by its bare name wherever it lives.
#
# Objects and the library go under build/, garchive and the unit tests
# in place.  BUILD=dir puts all of them under dir instead (check-asan
# uses build/asan); the test scripts find that garchive through
# GARCHIVE_BUILD_DIR.  Each object's header dependencies are written
# beside it by the compiler (-MMD -MP), so editing a header rebuilds
# exactly what includes it.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions

CC ?= cc
PKG_CONFIG ?= pkg-config
CFLAGS ?= -O2 -g
# CI builds with WERROR=1.
WERROR ?=
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	   -Wno-missing-field-initializers $(if $(WERROR),-Werror)

# pkg-config is asked when a recipe first needs its answer, not when make
# reads this file: in `make deps all`, `deps` installs pkg-config and
# libgit2-dev before anything is compiled.  Each is asked once per run.
DEPS_CFLAGS = $(eval DEPS_CFLAGS := $$(call pkg_config,--cflags))$(DEPS_CFLAGS)
DEPS_LIBS = $(eval DEPS_LIBS := $$(call pkg_config,--libs))$(DEPS_LIBS)
pkg_config = $(call pkg_config_checked,$(shell $(PKG_CONFIG) $(1) libgit2 \
	zlib libcrypto 2>/dev/null || echo pkg-config-failed))
pkg_config_checked = $(if $(filter pkg-config-failed,$(1)),$(error \
	$(PKG_CONFIG) does not find libgit2, zlib and libcrypto: run `make deps` \
	first (Debian), or install pkg-config and the development files \
	of libgit2, zlib and OpenSSL's libcrypto),$(1))

# libcurl is asked for apart: only garchive-remote-http links it, so
# that garchive itself does not map libcurl and its TLS libraries at
# every start (see src/remote/remote-http.c).
CURL_CFLAGS = $(eval CURL_CFLAGS := $$(call curl_config,--cflags))$(CURL_CFLAGS)
CURL_LIBS = $(eval CURL_LIBS := $$(call curl_config,--libs))$(CURL_LIBS)
curl_config = $(call curl_config_checked,$(shell $(PKG_CONFIG) $(1) libcurl \
	2>/dev/null || echo pkg-config-failed))
curl_config_checked = $(if $(filter pkg-config-failed,$(1)),$(error \
	$(PKG_CONFIG) does not find libcurl: run `make deps` first (Debian), \
	or install the development files of libcurl, e.g. \
	libcurl4-openssl-dev),$(1))

SRC_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard src/*/*.c src/*/*.h))))
INCLUDES = -Iinclude -Isrc $(addprefix -I,$(SRC_DIRS))

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(INCLUDES) $(DEPS_CFLAGS) \
	     -pthread $(WARNINGS) $(CFLAGS)
ALL_LDFLAGS = -pthread $(LDFLAGS)
ALL_LIBS = $(DEPS_LIBS) $(LIBS)

BUILD ?=
# O: where garchive and the unit tests go; B: where objects go.
O := $(if $(BUILD),$(patsubst %/,%,$(BUILD))/)
B := $(if $(O),$(O),build/)
DEPFLAGS = -MMD -MP

SRCS := $(sort $(wildcard src/*/*.c))
OBJS := $(addprefix $(B),$(SRCS:.c=.o))
# Only the executable links these (see src/cli/no-tls.c).
EXE_SRCS := src/cli/main.c src/cli/no-tls.c
EXE_OBJS := $(addprefix $(B),$(EXE_SRCS:.c=.o))
# garchive-remote-http: its own main and the libcurl code (plus
# no-tls.c, for the libgit2 it reads the configuration with).
HELPER_SRCS := src/remote/remote-http.c src/remote/curl.c
HELPER_OBJS := $(addprefix $(B),$(HELPER_SRCS:.c=.o))
LIB_OBJS := $(filter-out $(EXE_OBJS) $(HELPER_OBJS),$(OBJS))
UNIT_SRCS := $(sort $(wildcard t/unit/*.c))
UNIT_TESTS := $(addprefix $(O),$(UNIT_SRCS:.c=.t))
SHELL_TESTS := $(sort $(wildcard t/t[0-9]*.sh))

PROVE ?= prove
PROVE_FLAGS ?= -j2

# Debian packages, by names that every release since 12 (bookworm) has.
# DEB_PACKAGES build garchive and run every script of `make test`: the
# http(s) transport links libcurl (libcurl4-openssl-dev), t9400 serves
# archives over HTTP with lighttpd; the tests compare with git, read zip
# and xz archives back (unzip, xz-utils),
# build raw objects (python3), archive LFS pointers (git-lfs), install and
# read the manual and completion (man-db, groff-base, bash-completion) and
# watch system calls (strace); garchive verify decompresses with bzip2
# and zstd and hashes with OpenSSL's libcrypto (libssl-dev).
# DEB_DEV_PACKAGES are for the developer's targets and CI: check-asan and
# fuzz (clang and its runtime), valgrind, doc (asciidoctor).
DEB_PACKAGES = build-essential pkg-config libgit2-dev zlib1g-dev libssl-dev \
	       libcurl4-openssl-dev lighttpd git gzip xz-utils bzip2 zstd unzip python3 git-lfs man-db \
	       groff-base bash-completion strace
DEB_DEV_PACKAGES = clang libclang-rt-dev valgrind asciidoctor

.PHONY: all deps deps-dev test test-sha256 test-own-reader unit check-asan valgrind fuzz fuzz-build \
	record-2.39 clean install uninstall doc bench bench-scaling

all: $(O)garchive $(O)garchive-remote-http

$(O)garchive: $(EXE_OBJS) $(B)libgarchive.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(EXE_OBJS) $(B)libgarchive.a $(ALL_LIBS)

$(O)garchive-remote-http: $(HELPER_OBJS) $(B)src/cli/no-tls.o $(B)libgarchive.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(HELPER_OBJS) $(B)src/cli/no-tls.o \
		$(B)libgarchive.a $(CURL_LIBS) $(ALL_LIBS)

$(HELPER_OBJS): ALL_CFLAGS += $(CURL_CFLAGS) \
	-DGARCHIVE_VERSION='"$(GARCHIVE_VERSION)"'

$(B)libgarchive.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(B)src/%.o: src/%.c Makefile
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# A unit test is compiled and linked in one step; its dependencies go
# under $(B) with the objects'.
$(O)t/unit/%.t: t/unit/%.c $(B)libgarchive.a Makefile
	@mkdir -p $(@D) $(B)t/unit
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -MF $(B)t/unit/$*.d -MT $@ -It/unit \
		$(ALL_LDFLAGS) -o $@ $< $(B)libgarchive.a \
		$(ALL_LIBS)

unit: $(UNIT_TESTS)

# The wall clock the tests share between git and garchive (t/clock.c):
# a preloaded library, built without the sanitizer flags of check-asan.
TEST_CLOCK = t/clock.so
$(TEST_CLOCK): t/clock.c
	$(CC) -shared -fPIC -O2 -o $@ t/clock.c -ldl

# prove -e '' runs the unit test binaries and the shell scripts directly.
test: all unit $(TEST_CLOCK)
	@echo "== make test: $(words $(UNIT_TESTS)) unit tests and \
	$(words $(SHELL_TESTS)) scripts under prove $(PROVE_FLAGS), about 10 \
	minutes on 2 idle cores (each script reports when it ends)."
	@echo "   A failing test prints why on stderr.  One script, verbosely: \
	prove -v t/t3000-tar.sh"
	$(PROVE) $(PROVE_FLAGS) -e '' $(UNIT_TESTS) $(SHELL_TESTS)

# The scripts with every test repository in SHA-256 (t/README), but for
# those that do not hold there yet (issue 24): SHA-1 fixtures or records
# to replace.  None left: the variable stays for the next such script.
SHA256_PENDING =
SHA256_TESTS = $(filter-out $(SHA256_PENDING:%=t/%.sh),$(SHELL_TESTS))
test-sha256: all unit $(TEST_CLOCK)
	@echo "== make test-sha256: $(words $(SHA256_TESTS)) scripts with \
	SHA-256 repositories; not yet: $(SHA256_PENDING)"
	GARCHIVE_TEST_OBJECT_FORMAT=sha256 $(PROVE) $(PROVE_FLAGS) -e '' \
		$(SHA256_TESTS)

# The unit tests and every script with garchive's own object and ref
# stores serving SHA-1 repositories too (GARCHIVE_TEST_READER, t/README),
# as they serve SHA-256 ones: the reader chosen at open (repofmt.h).
test-own-reader: all unit $(TEST_CLOCK)
	@echo "== make test-own-reader: $(words $(UNIT_TESTS)) unit tests and \
	$(words $(SHELL_TESTS)) scripts read through garchive's own stores"
	GARCHIVE_TEST_READER=garchive $(PROVE) $(PROVE_FLAGS) -e '' \
		$(UNIT_TESTS) $(SHELL_TESTS)

# Records what git 2.39 does in the scripts that compare with it through
# a record (test_uses_git_2_39_record, t/lib.sh), into t/ref-2.39/, and
# in the unit test cli (t/unit/ref-2.39/cli.gz), for the runs with
# another git.  Needs git 2.39 (Debian 12); run it after
# editing such a script, and commit the records with the script.
RECORD_TESTS = $(shell grep -l '^test_uses_git_2_39_record' $(SHELL_TESTS))
record-2.39: all unit $(TEST_CLOCK)
	@git --version | grep -q '^git version 2\.39\.' || \
		{ echo "record-2.39 needs git 2.39, not $$(git --version)"; exit 1; }
	GARCHIVE_TEST_RECORD_2_39=1 $(PROVE) $(PROVE_FLAGS) -e '' \
		$(O)t/unit/cli.t $(RECORD_TESTS)

# With `make deps all` (or `make -j deps test`), nothing is compiled
# before the packages are in.
$(OBJS) $(UNIT_TESTS): | $(filter deps deps-dev,$(MAKECMDGOALS))

APT_INSTALL = @if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	echo "== apt-get update, then install: $(1)"; \
	$$sudo apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q \
		--no-install-recommends $(1) && \
	echo "== installed: $(1)"

deps:
	@echo "== make deps: the Debian packages that building garchive and \
	running make test need"
	$(call APT_INSTALL,$(DEB_PACKAGES))

deps-dev:
	@echo "== make deps-dev: make deps, and what check-asan, valgrind, \
	fuzz and doc need"
	$(call APT_INSTALL,$(DEB_PACKAGES) $(DEB_DEV_PACKAGES))

# A separate build tree, so sanitizer objects never mix with normal
# ones and the normal build stays as it was: the scripts test
# build/asan/garchive (GARCHIVE_BUILD_DIR), the unit tests are run from
# build/asan/t/unit.  Tests marked EXPENSIVE (t/README) are left to
# make test, here and under valgrind.
ASAN_DIR = build/asan
ASAN_CFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	      -fno-sanitize-recover=undefined
check-asan: $(TEST_CLOCK)
	$(MAKE) BUILD=$(ASAN_DIR) CC=clang CFLAGS='$(ASAN_CFLAGS)' \
		LDFLAGS='-fsanitize=address,undefined $(CURDIR)/t/lsan-default.c' \
		all unit
	@# garchive --help looks for Documentation/ beside the binary.
	ln -sfn $(CURDIR)/Documentation $(ASAN_DIR)/Documentation
	GARCHIVE_BUILD_DIR=$(CURDIR)/$(ASAN_DIR) GARCHIVE_TEST_SKIP_EXPENSIVE=1 \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/t/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(PROVE) $(PROVE_FLAGS) -e '' \
		$(addprefix $(ASAN_DIR)/,$(UNIT_SRCS:.c=.t)) $(SHELL_TESTS)

# Builds its input repositories under bench/work (or $BENCH_DIR) on the
# first run, then prints a table; it asserts nothing.
bench: garchive
	bench/run

# The same for bench/scaling's repositories (several GB of input: the
# first run builds them, in a few minutes).
bench-scaling: garchive
	bench/scaling

clean-objs:
	rm -f $(B)src/*/*.o $(B)src/*/*.d $(B)t/unit/*.d $(B)libgarchive.a \
		$(O)garchive $(O)garchive-remote-http $(UNIT_TESTS)

clean: clean-objs
	rm -rf build t/trash-* t/unit/*.dSYM $(TEST_CLOCK) t/fuzz/work \
		t/valgrind/logs

# memcheck over the unit tests and a representative subset of the shell
# tests: t/valgrind/garchive stands in for the binary and logs each run;
# any error or definite leak in any log fails the target.  Forked
# children that never reach exec are not checked (they share the
# parent's heap).
VALGRIND ?= valgrind
# (Tests that compare with the clock or time a whole run stay out.)
VALGRIND_TESTS ?= t/t3000-tar.sh t/t8000-hostile.sh t/t8100-faults.sh
VALGRIND_OPTS = --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite --show-leak-kinds=definite \
		--suppressions=$(CURDIR)/t/valgrind/libgit2.supp --num-callers=30 \
		--child-silent-after-fork=yes

# sink.t checks the errno of a failed execve(), which valgrind cannot
# pass on (it kills a child whose execve fails); its sinks run under
# memcheck through t8100's filter rows.
VALGRIND_UNITS = $(filter-out t/unit/sink.t,$(UNIT_TESTS))
VALGRIND_UNIT = $(VALGRIND) -q $(VALGRIND_OPTS) --log-file=$(CURDIR)/t/valgrind/logs/unit.%p

valgrind: all unit $(TEST_CLOCK)
	rm -rf t/valgrind/logs && mkdir -p t/valgrind/logs
	GARCHIVE_VALGRIND=1 \
		$(PROVE) $(PROVE_FLAGS) -e '$(VALGRIND_UNIT)' $(VALGRIND_UNITS)
	GARCHIVE_BUILD_DIR=$(CURDIR)/t/valgrind GARCHIVE_TEST_SKIP_EXPENSIVE=1 \
	GARCHIVE_VALGRIND_REAL=$(CURDIR)/garchive \
	GARCHIVE_VALGRIND_LOGS=$(CURDIR)/t/valgrind/logs \
	GARCHIVE_VALGRIND_OPTS='$(VALGRIND_OPTS)' \
		$(PROVE) $(PROVE_FLAGS) -e '' $(VALGRIND_TESTS)
	t/valgrind/check-logs t/valgrind/logs

# libFuzzer targets: t/fuzz/NAME.c against the library objects built with
# clang into build/fuzz (never mixed with the normal objects), as
# build/fuzz/NAME-fuzzer.  `make fuzz` runs t/fuzz/run, which runs each
# from a scratch copy of its seed corpus t/fuzz/NAME/ for FUZZ_SECONDS;
# a crash fails the target and leaves the input in t/fuzz/work/.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 20
# Targets run at a time, one core each.
FUZZ_JOBS ?= 2
FUZZ_SANITIZE = -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS = -std=c11 -D_GNU_SOURCE $(INCLUDES) $(DEPS_CFLAGS) \
	      -pthread $(WARNINGS) -O1 -g -fno-omit-frame-pointer \
	      $(FUZZ_SANITIZE) -fsanitize=fuzzer-no-link
FUZZ_DIR = build/fuzz
FUZZ_SRCS := $(sort $(wildcard t/fuzz/*.c))
FUZZ_TARGETS := $(patsubst t/fuzz/%.c,$(FUZZ_DIR)/%-fuzzer,$(FUZZ_SRCS))
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_DIR)/obj/%.o,$(filter-out \
	     $(EXE_SRCS) $(HELPER_SRCS),$(SRCS)))

$(FUZZ_DIR)/obj/%.o: src/%.c Makefile
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(FUZZ_DIR)/%-fuzzer: t/fuzz/%.c $(FUZZ_OBJS) Makefile
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -MF $@.d -MT $@ -It/fuzz \
		-fsanitize=fuzzer -o $@ $< \
		$(FUZZ_OBJS) $(ALL_LIBS) -pthread

# Keep the objects: they are intermediates of a pattern chain.
.SECONDARY: $(FUZZ_OBJS)

# The header dependencies the compiler wrote (none before the first build).
-include $(OBJS:.o=.d) $(patsubst $(O)t/unit/%.t,$(B)t/unit/%.d,$(UNIT_TESTS)) \
	 $(FUZZ_OBJS:.o=.d) $(FUZZ_TARGETS:=.d)

fuzz-build: $(FUZZ_TARGETS)

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) \
		t/fuzz/run $(FUZZ_TARGETS)

# The rendered manual page is committed, so that building and installing
# need no documentation toolchain; `make doc` renders it again (always:
# its date and version come from the sources, not from file times) and
# t7000 fails when the committed page is stale.  DOC_OUT lets that test
# render elsewhere.
ASCIIDOCTOR ?= asciidoctor
MANPAGE = Documentation/garchive.1
DOC_OUT ?= $(MANPAGE)
GARCHIVE_VERSION := $(shell sed -n \
	's/^\#define GARCHIVE_VERSION "\(.*\)"$$/\1/p' src/cli/cmd-version.c)
# The page's date is the :revdate: of its source: asciidoctor's manpage
# backend would take the file's modification time (the day of a clone).
DOC_DATE := $(shell sed -n 's/^:revdate: *//p' Documentation/garchive.adoc)

doc:
	$(ASCIIDOCTOR) -b manpage -a mansource='garchive $(GARCHIVE_VERSION)' \
		-a docdate='$(DOC_DATE)' \
		-o $(DOC_OUT) Documentation/garchive.adoc

# git runs `git-garchive` from PATH for `git garchive` and shows
# `man git-garchive` for `git garchive --help`; its bash completion loads
# completions/git-garchive on demand and calls _git_garchive from it.
# garchive runs garchive-remote-http from its own directory; a web
# server runs garchive-http-backend, a CGI program, without arguments.
INSTALLED = $(BINDIR)/garchive $(BINDIR)/git-garchive \
	    $(BINDIR)/garchive-remote-http $(BINDIR)/garchive-http-backend \
	    $(BINDIR)/garchive-release \
	    $(MANDIR)/man1/garchive.1 $(MANDIR)/man1/git-garchive.1 \
	    $(COMPLETIONDIR)/garchive $(COMPLETIONDIR)/git-garchive

install: $(O)garchive $(O)garchive-remote-http
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(COMPLETIONDIR)
	install -m 755 $(O)garchive $(DESTDIR)$(BINDIR)/garchive
	install -m 755 $(O)garchive-remote-http \
		$(DESTDIR)$(BINDIR)/garchive-remote-http
	ln -sf garchive $(DESTDIR)$(BINDIR)/garchive-http-backend
	ln -sf garchive $(DESTDIR)$(BINDIR)/git-garchive
	install -m 755 contrib/release/garchive-release \
		$(DESTDIR)$(BINDIR)/garchive-release
	install -m 644 $(MANPAGE) $(DESTDIR)$(MANDIR)/man1/garchive.1
	ln -sf garchive.1 $(DESTDIR)$(MANDIR)/man1/git-garchive.1
	install -m 644 contrib/completion/garchive.bash \
		$(DESTDIR)$(COMPLETIONDIR)/garchive
	ln -sf garchive $(DESTDIR)$(COMPLETIONDIR)/git-garchive

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
