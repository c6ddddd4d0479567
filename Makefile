# garchive: a drop-in replacement for `git archive`.
#
#   make deps       install the build and test dependencies (Debian)
#   make            build ./garchive
#   make test       build, then run the whole test suite under prove
#   make check-asan the test suite under AddressSanitizer + UBSan
#   make install    PREFIX=/usr/local DESTDIR=  (and make uninstall)
#   make doc        re-render Documentation/garchive.1 (needs asciidoctor)
#   make bench      time garchive against git archive (bench/run)
#
# Sources are found by wildcard: a new src/*.c, t/unit/*.c or t/t*.sh
# needs no change here.

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

DEPS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libgit2 zlib 2>/dev/null)
DEPS_LIBS := $(shell $(PKG_CONFIG) --libs libgit2 zlib 2>/dev/null)

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(DEPS_CFLAGS) \
	     -pthread $(WARNINGS) $(CFLAGS)
ALL_LDFLAGS = -pthread $(LDFLAGS)
ALL_LIBS = $(DEPS_LIBS) $(LIBS)

SRCS := $(sort $(wildcard src/*.c))
OBJS := $(SRCS:.c=.o)
LIB_OBJS := $(filter-out src/main.o,$(OBJS))
UNIT_SRCS := $(sort $(wildcard t/unit/*.c))
UNIT_TESTS := $(UNIT_SRCS:.c=.t)
SHELL_TESTS := $(sort $(wildcard t/t[0-9]*.sh))

PROVE ?= prove
PROVE_FLAGS ?= -j2

DEB_PACKAGES = build-essential pkg-config libgit2-dev zlib1g-dev git gzip \
	       xz-utils unzip python3 git-lfs valgrind clang \
	       libclang-rt-14-dev asciidoctor man-db groff-base bash-completion

.PHONY: all deps test unit check-asan clean install uninstall doc bench

all: garchive

garchive: src/main.o libgarchive.a
	$(CC) $(ALL_LDFLAGS) -o $@ src/main.o libgarchive.a $(ALL_LIBS)

libgarchive.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

src/%.o: src/%.c $(wildcard include/garchive/*.h) $(wildcard src/*.h) Makefile
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

t/unit/%.t: t/unit/%.c t/unit/tap.h libgarchive.a
	$(CC) $(ALL_CFLAGS) -It/unit $(ALL_LDFLAGS) -o $@ $< libgarchive.a \
		$(ALL_LIBS)

unit: $(UNIT_TESTS)

# prove -e '' runs the unit test binaries and the shell scripts directly.
test: garchive unit
	$(PROVE) $(PROVE_FLAGS) -e '' $(UNIT_TESTS) $(SHELL_TESTS)

deps:
	@if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	$$sudo apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q \
		$(DEB_PACKAGES)

# A separate build tree, so sanitizer objects never mix with normal ones.
check-asan:
	$(MAKE) -C . clean-objs
	$(MAKE) CC=clang CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
		LDFLAGS='-fsanitize=address,undefined' garchive unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(PROVE) $(PROVE_FLAGS) -e '' $(UNIT_TESTS) $(SHELL_TESTS)
	$(MAKE) -C . clean-objs

# Builds its input repositories under bench/work (or $BENCH_DIR) on the
# first run, then prints a table; it asserts nothing.
bench: garchive
	bench/run

clean-objs:
	rm -f src/*.o libgarchive.a garchive $(UNIT_TESTS)

clean: clean-objs
	rm -rf t/trash-* t/unit/*.dSYM

# The rendered manual page is committed, so that building and installing
# need no documentation toolchain; `make doc` renders it again (always:
# its date and version come from the sources, not from file times) and
# t7000 fails when the committed page is stale.  DOC_OUT lets that test
# render elsewhere.
ASCIIDOCTOR ?= asciidoctor
MANPAGE = Documentation/garchive.1
DOC_OUT ?= $(MANPAGE)
GARCHIVE_VERSION := $(shell sed -n \
	's/^\#define GARCHIVE_VERSION "\(.*\)"$$/\1/p' src/main.c)

doc:
	$(ASCIIDOCTOR) -b manpage -a mansource='garchive $(GARCHIVE_VERSION)' \
		-o $(DOC_OUT) Documentation/garchive.adoc

# git runs `git-garchive` from PATH for `git garchive` and shows
# `man git-garchive` for `git garchive --help`; its bash completion loads
# completions/git-garchive on demand and calls _git_garchive from it.
INSTALLED = $(BINDIR)/garchive $(BINDIR)/git-garchive \
	    $(MANDIR)/man1/garchive.1 $(MANDIR)/man1/git-garchive.1 \
	    $(COMPLETIONDIR)/garchive $(COMPLETIONDIR)/git-garchive

install: garchive
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(COMPLETIONDIR)
	install -m 755 garchive $(DESTDIR)$(BINDIR)/garchive
	ln -sf garchive $(DESTDIR)$(BINDIR)/git-garchive
	install -m 644 $(MANPAGE) $(DESTDIR)$(MANDIR)/man1/garchive.1
	ln -sf garchive.1 $(DESTDIR)$(MANDIR)/man1/git-garchive.1
	install -m 644 contrib/completion/garchive.bash \
		$(DESTDIR)$(COMPLETIONDIR)/garchive
	ln -sf garchive $(DESTDIR)$(COMPLETIONDIR)/git-garchive

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
