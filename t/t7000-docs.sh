#!/bin/sh
test_description='the manual page: renders cleanly, is current, covers git archive'
. "$(dirname "$0")/lib.sh"

page="$GARCHIVE_SRC/Documentation/garchive.1"

test_lazy_prereq ASCIIDOCTOR 'asciidoctor --version'
test_lazy_prereq GROFF 'groff --version'
test_lazy_prereq MAN 'man --version'

# The nested make must not see the jobserver or the variables of a
# `make test` that runs us.
run_make () {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make --no-print-directory -C "$GARCHIVE_SRC" "$@"
}

test_expect_success 'the rendered page is there' '
	test_path_is_file "$page" &&
	test_path_is_file "$GARCHIVE_SRC/Documentation/garchive.adoc"
'

# Building and installing need no asciidoctor only if the page is in the
# repository, not merely rendered in this checkout (a source tarball has
# no .git: the test above is all it can check).
test_lazy_prereq SRC_CHECKOUT 'git -C "$GARCHIVE_SRC" rev-parse --git-dir'

test_expect_success SRC_CHECKOUT 'the rendered page is committed' '
	git -C "$GARCHIVE_SRC" ls-files --error-unmatch \
		Documentation/garchive.1 Documentation/garchive.adoc
'

test_expect_success GROFF 'groff renders the page without a warning' '
	groff -man -Tutf8 -ww -z "$page" 2>err &&
	test_must_be_empty err
'

test_expect_success MAN 'man -l renders the page without a warning' '
	MANWIDTH=80 man --warnings=all -l "$page" >out 2>err &&
	test_must_be_empty err &&
	grep "^NAME" out &&
	grep "garchive - create a byte-stable archive" out
'

# asciidoctor turns a stray "--" into an em dash and "*a*_b_" into
# literal stars: option names must survive as typed.
test_expect_success MAN 'no option name is mangled by the markup' '
	MANWIDTH=80 man -l "$page" >out 2>err &&
	! grep "\\\\(em" "$page" &&
	! grep -e "\*\*" -e "__" -e "[*][-<a-z.@+]" out
'

# Asciidoctor's version is in a comment line; anything else that
# differs means Documentation/garchive.adoc changed without `make doc`.
test_expect_success ASCIIDOCTOR 'make doc renders exactly the committed page' '
	run_make doc DOC_OUT="$PWD/garchive.1" &&
	grep -v "^\.\\\\\" Generator: " "$page" >expect &&
	grep -v "^\.\\\\\" Generator: " garchive.1 >actual &&
	test_cmp expect actual
'

test_expect_success 'the page is for this version of garchive' '
	version=$(garchive --version | sed -n "s/^garchive version //p") &&
	grep "^\.TH \"GARCHIVE\" \"1\" \"[0-9-]*\" \"garchive $version\"" \
		"$page"
'

# Every option git archive documents in its usage must be described,
# and garchive's own options too.
test_expect_success MAN 'every option of git archive -h is described' '
	MANWIDTH=200 man -l "$page" >out 2>err &&
	test_expect_code 129 git archive -h >usage &&
	{
		sed -n "s/^ *-[a-z], \(--[-a-z]*\).*/\1/p" usage &&
		sed -n "s/^ *\(-[-a-zA-Z]*\).*/\1/p" usage
	} | sed "s/^-NUM\$/-<NUM>/" | sort -u >options &&
	grep -e --format -e --remote -e "-<NUM>" -e --output options &&
	printf "%s\n" --mtime --threads --version --help -h -c >>options &&
	while read -r opt; do
		grep -E "^ *(-[^,]*, )?$opt([ ,=]|\$)" out >/dev/null ||
		{ echo "not described: $opt"; return 1; }
	done <options
'

test_expect_success MAN 'every section the manual promises is there' '
	MANWIDTH=80 man -l "$page" >out 2>err &&
	for section in NAME SYNOPSIS DESCRIPTION OPTIONS FORMATS \
		CONFIGURATION ATTRIBUTES ENVIRONMENT "EXIT STATUS" \
		"OUTPUT STABILITY" "DIFFERENCES FROM GIT ARCHIVE" EXAMPLES \
		"SEE ALSO"
	do
		grep "^$section\$" out || return 1
	done
'

test_expect_success MAN 'the configuration keys garchive reads are described' '
	MANWIDTH=200 man -l "$page" >out 2>err &&
	for key in tar.umask "tar.<fmt>.command" "tar.<fmt>.remote" \
		core.bigFileThreshold core.autocrlf core.eol \
		"filter.<driver>.smudge" "diff.<driver>.binary" \
		core.attributesFile core.abbrev \
		uploadArchive.allowUnreachable garchive.threads
	do
		grep -E "^       ([^ ]*, )*$key([ ,]|\$)" out ||
		{ echo "missing: $key"; return 1; }
	done
'

test_expect_success MAN 'garchive --help and garchive help show the page' '
	MANWIDTH=80 garchive --help >out 2>err &&
	grep "garchive - create a byte-stable archive" out &&
	MANWIDTH=80 garchive help >out 2>err &&
	grep "garchive - create a byte-stable archive" out
'

test_expect_success 'garchive help without man fails as git help does' '
	mkdir nobin &&
	ln -s "$GARCHIVE_BUILD_DIR/garchive" nobin/garchive &&
	test_expect_code 128 env PATH="$PWD/nobin" garchive help >out 2>err &&
	cat >expect <<-\EOF &&
	warning: failed to exec '"'"'man'"'"': No such file or directory
	fatal: no man viewer handled the request
	EOF
	test_cmp expect err
'

test_done
