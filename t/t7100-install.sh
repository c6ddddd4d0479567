#!/bin/sh
test_description='make install: layout, git garchive, man and completion'
. "$(dirname "$0")/lib.sh"

dest="$TRASH_DIRECTORY/dest"
bindir="$dest/usr/local/bin"

test_lazy_prereq BASH_COMPLETION '
	bash --version &&
	test -r /usr/share/bash-completion/bash_completion &&
	test -r /usr/share/bash-completion/completions/git
'
test_lazy_prereq MAN 'man --version'

# The nested make must not see the jobserver or the variables of a
# `make test` that runs us.  It installs the garchive under test: one
# built elsewhere (make check-asan's build/asan) through BUILD.
run_make () {
	if test "$GARCHIVE_BUILD_DIR" != "$GARCHIVE_SRC"
	then
		set -- BUILD="$GARCHIVE_BUILD_DIR" "$@"
	fi
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make --no-print-directory -C "$GARCHIVE_SRC" "$@"
}

# Files and symbolic links under $dest, sorted.
installed_files () {
	(cd "$dest" && find . \( -type f -o -type l \) -print | sort)
}

test_expect_success 'setup: a repository' '
	git init -q repo &&
	cd repo &&
	mkdir sub &&
	echo one >one.txt &&
	echo two >sub/two.txt &&
	printf "#!/bin/sh\n" >sub/run.sh &&
	chmod +x sub/run.sh &&
	git add . &&
	test_tick &&
	git commit -q -m initial
'

test_expect_success 'make install lays out exactly the expected files' '
	run_make install DESTDIR="$dest" PREFIX=/usr/local >out 2>err &&
	cat >expect <<-\EOF &&
	./usr/local/bin/garchive
	./usr/local/bin/garchive-http-backend
	./usr/local/bin/garchive-release
	./usr/local/bin/garchive-remote-http
	./usr/local/bin/git-garchive
	./usr/local/share/bash-completion/completions/garchive
	./usr/local/share/bash-completion/completions/git-garchive
	./usr/local/share/man/man1/garchive.1
	./usr/local/share/man/man1/git-garchive.1
	EOF
	installed_files >actual &&
	test_cmp expect actual
'

test_expect_success 'the installed files are the built ones' '
	test -x "$bindir/garchive" &&
	cmp "$GARCHIVE_BUILD_DIR/garchive" "$bindir/garchive" &&
	cmp "$GARCHIVE_BUILD_DIR/garchive" "$bindir/git-garchive" &&
	cmp "$GARCHIVE_BUILD_DIR/garchive" "$bindir/garchive-http-backend" &&
	cmp "$GARCHIVE_BUILD_DIR/garchive-remote-http" \
		"$bindir/garchive-remote-http" &&
	man1="$dest/usr/local/share/man/man1" &&
	cmp "$GARCHIVE_SRC/Documentation/garchive.1" "$man1/garchive.1" &&
	cmp "$GARCHIVE_SRC/Documentation/garchive.1" "$man1/git-garchive.1" &&
	comp="$dest/usr/local/share/bash-completion/completions" &&
	src="$GARCHIVE_SRC/contrib/completion/garchive.bash" &&
	cmp "$src" "$comp/garchive" &&
	cmp "$src" "$comp/git-garchive" &&
	test -x "$bindir/garchive-release" &&
	cmp "$GARCHIVE_SRC/contrib/release/garchive-release" \
		"$bindir/garchive-release"
'

test_expect_success 'the installed garchive-release finds the installed garchive' '
	cd repo &&
	git tag -a -m v1 v1.0 &&
	mkdir ../rel &&
	(
		PATH="$bindir:$PATH" && export PATH &&
		garchive-release --output-dir ../rel v1.0
	) &&
	(cd ../rel && sha256sum -c SHA256SUMS) &&
	git archive --format=tar --prefix=repo-1.0/ v1.0 >expect.tar &&
	test_cmp expect.tar ../rel/repo-1.0.tar
'

test_expect_success 'without garchive on PATH, garchive-release says GARCHIVE=' '
	cd repo &&
	mkdir ../empty-bin &&
	ln -s "$(command -v git)" ../empty-bin/git &&
	(
		PATH="$TRASH_DIRECTORY/empty-bin:/usr/bin:/bin" &&
		export PATH &&
		! command -v garchive &&
		test_expect_code 1 "$bindir/garchive-release" v1.0 2>err
	) &&
	grep "^garchive-release: cannot run .garchive.: not found" err &&
	grep "GARCHIVE=/path/to/garchive garchive-release v1.0" err &&
	GARCHIVE="$GARCHIVE_BUILD_DIR/garchive" PATH="$TRASH_DIRECTORY/empty-bin:/usr/bin:/bin" \
		"$bindir/garchive-release" --output-dir ../rel2 v1.0 &&
	test -s ../rel2/repo-1.0.tar
'

# with_installed CMD...: run CMD with the installed bin directory first
# in PATH.
with_installed () {
	(
		PATH="$bindir:$PATH" &&
		export PATH &&
		"$@"
	)
}

test_expect_success 'git garchive runs the installed git-garchive' '
	cd repo &&
	test "$(with_installed command -v git-garchive)" = \
		"$bindir/git-garchive" &&
	garchive --format=tar HEAD >expect &&
	with_installed git garchive --format=tar HEAD >actual &&
	test_cmp expect actual &&
	git archive --format=tar HEAD >git.tar &&
	test_cmp git.tar actual
'

test_expect_success 'git -C and a subdirectory reach git garchive' '
	git -C repo archive --format=tar HEAD >expect &&
	with_installed git -C repo garchive --format=tar HEAD >actual &&
	test_cmp expect actual &&
	(cd repo/sub && git archive HEAD >../../expect) &&
	(cd repo/sub && with_installed git garchive HEAD >../../actual) &&
	test_cmp expect actual
'

# git passes `-c` to the commands it runs in GIT_CONFIG_PARAMETERS.
test_expect_success 'git -c reaches git garchive' '
	cd repo &&
	git -c tar.umask=022 archive --format=tar HEAD >expect &&
	with_installed git -c tar.umask=022 garchive --format=tar HEAD \
		>actual &&
	git archive --format=tar HEAD >default &&
	! cmp -s expect default &&
	test_cmp expect actual
'

test_expect_success MAN 'man finds garchive and git-garchive under the prefix' '
	MANWIDTH=80 man -M "$dest/usr/local/share/man" garchive >out 2>err &&
	grep "garchive - create a byte-stable archive" out &&
	MANWIDTH=80 man -M "$dest/usr/local/share/man" git-garchive >out 2>err &&
	grep "garchive - create a byte-stable archive" out
'

# An installed garchive puts <prefix>/share/man in front of MANPATH for
# help, so the page is found where MANPATH does not lead.
test_expect_success MAN 'installed garchive help finds its page off MANPATH' '
	cd repo &&
	MANWIDTH=80 MANPATH=/nonexistent "$bindir/garchive" help >out 2>err &&
	grep "garchive - create a byte-stable archive" out &&
	MANWIDTH=80 MANPATH=/nonexistent "$bindir/git-garchive" --help \
		>out 2>err &&
	grep "garchive - create a byte-stable archive" out
'

test_expect_success MAN 'git garchive --help shows the installed page' '
	cd repo &&
	MANWIDTH=80 with_installed git garchive --help >out 2>err &&
	grep "garchive - create a byte-stable archive" out
'

# complete_installed LINE: what bash-completion, finding the installed
# scripts by itself as it does for a real user, offers for LINE.
complete_installed () {
	XDG_DATA_DIRS="$dest/usr/local/share:/usr/share" \
	BASH_COMPLETION_USER_DIR="$TRASH_DIRECTORY/no-such-dir" \
	PATH="$bindir:$PATH" bash -c '
		. /usr/share/bash-completion/bash_completion
		COMP_LINE=$1
		COMP_POINT=${#1}
		read -r -a COMP_WORDS <<<"$1"
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		__load_completion "${COMP_WORDS[0]}" || exit 1
		fn=$(complete -p "${COMP_WORDS[0]}" |
		     sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
			"${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"
	' complete_installed "$1"
}

test_expect_success BASH_COMPLETION 'installed completion: garchive --form' '
	cd repo &&
	complete_installed "garchive --form" >actual &&
	echo "--format=" >expect &&
	test_cmp expect actual
'

# git's completion has no _git_garchive: it asks bash-completion to load
# completions/git-garchive, then calls the function defined there.
test_expect_success BASH_COMPLETION 'installed completion: git garchive --form' '
	cd repo &&
	complete_installed "git garchive --form" >actual &&
	echo "--format=" >expect &&
	test_cmp expect actual
'

test_expect_success 'make uninstall removes exactly what was installed' '
	mkdir -p "$dest/usr/local/bin" &&
	echo other >"$dest/usr/local/bin/other" &&
	run_make uninstall DESTDIR="$dest" PREFIX=/usr/local >out 2>err &&
	echo ./usr/local/bin/other >expect &&
	installed_files >actual &&
	test_cmp expect actual
'

test_expect_success 'PREFIX and MANDIR are honoured' '
	rm -rf "$dest" &&
	run_make install DESTDIR="$dest" PREFIX=/opt/ga \
		MANDIR=/opt/ga/man >out 2>err &&
	cat >expect <<-\EOF &&
	./opt/ga/bin/garchive
	./opt/ga/bin/garchive-http-backend
	./opt/ga/bin/garchive-release
	./opt/ga/bin/garchive-remote-http
	./opt/ga/bin/git-garchive
	./opt/ga/man/man1/garchive.1
	./opt/ga/man/man1/git-garchive.1
	./opt/ga/share/bash-completion/completions/garchive
	./opt/ga/share/bash-completion/completions/git-garchive
	EOF
	installed_files >actual &&
	test_cmp expect actual &&
	run_make uninstall DESTDIR="$dest" PREFIX=/opt/ga \
		MANDIR=/opt/ga/man >out 2>err &&
	installed_files >actual &&
	test_must_be_empty actual
'

test_done
