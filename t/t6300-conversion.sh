#!/bin/sh
test_description='checkout conversion: eol, crlf, ident, working-tree-encoding'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record
. "$TEST_DIRECTORY/lib-attr.sh"

test_lazy_prereq ICONV 'printf a | iconv -f UTF-8 -t UTF-16LE'

# Every content kind the eol code tells apart, under every attribute.
contents='lf crlf mixed lonecr nul noeol empty utf8'

write_content () {
	case "$1" in
	lf) printf "one\ntwo\n" ;;
	crlf) printf "one\r\ntwo\r\n" ;;
	mixed) printf "one\r\ntwo\nthree\n" ;;
	lonecr) printf "one\rtwo\n" ;;
	nul) printf "one\000\ntwo\n" ;;
	noeol) printf "one\ntwo" ;;
	empty) : ;;
	utf8) printf "caf\303\251\n\342\202\254uro\n" ;;
	esac
}

# Compare HEAD in tar and zip under a configuration given as
# GIT_CONFIG_PARAMETERS, which git and garchive both read.
same_with_config () {
	(
		GIT_CONFIG_PARAMETERS=$1 && export GIT_CONFIG_PARAMETERS &&
		same_form_ HEAD &&
		same_form_ --format=zip HEAD
	)
}

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	mkdir -p sub &&
	for ext in t auto crlf lf eol autocrlf bin bincrlf binary legacy \
		legacyinput legacyoff legacytext unset none
	do
		for c in $contents; do
			write_content $c >$c.$ext || return 1
		done
	done &&
	for c in $contents; do
		write_content $c >sub/$c.crlf || return 1
	done &&
	ln -s lf.crlf link.crlf &&
	git add . &&
	cat >.gitattributes <<-\EOF &&
	*.t text
	*.auto text=auto
	*.crlf text eol=crlf
	*.lf text eol=lf
	*.eol eol=crlf
	*.autocrlf text=auto eol=crlf
	*.bin -text
	*.bincrlf -text eol=crlf
	*.binary binary
	*.legacy crlf
	*.legacyinput crlf=input
	*.legacyoff -crlf
	*.legacytext text -crlf
	*.unset !text
	EOF
	git add .gitattributes &&
	test_commit conv
'

test_expect_success 'eol attributes, every form' '
	cd repo &&
	same_in_forms
'

test_expect_success 'text eol=crlf and text=auto do convert' '
	cd repo &&
	garchive HEAD >c.tar &&
	tar xOf c.tar lf.crlf >out &&
	printf "one\r\ntwo\r\n" >expect &&
	test_cmp expect out &&
	tar xOf c.tar mixed.crlf >out &&
	printf "one\r\ntwo\r\nthree\r\n" >expect &&
	test_cmp expect out &&
	tar xOf c.tar mixed.autocrlf >out &&
	test_cmp mixed.autocrlf out
'

for autocrlf in unset true input false; do
	for eol in unset crlf lf native; do
		test_expect_success "core.autocrlf=$autocrlf core.eol=$eol" '
			cd repo &&
			params= &&
			if test $autocrlf != unset; then
				params="$(config_param core.autocrlf $autocrlf)"
			fi &&
			if test $eol != unset; then
				params="$params $(config_param core.eol $eol)"
			fi &&
			same_with_config "$params"
		'
	done
done

test_expect_success 'core.autocrlf from the repository config, every form' '
	cd repo &&
	test_when_finished "git config --unset core.autocrlf" &&
	git config core.autocrlf true &&
	same_in_forms
'

test_expect_success 'files above core.bigFileThreshold are not converted' '
	cd repo &&
	same_with_config "$(config_param core.bigfilethreshold 5)" &&
	same_with_config "$(config_param core.bigfilethreshold 1k) \
		$(config_param core.autocrlf true)" &&
	(
		GIT_CONFIG_PARAMETERS="$(config_param core.bigfilethreshold 5)" &&
		export GIT_CONFIG_PARAMETERS &&
		garchive HEAD >big.tar
	) &&
	tar xOf big.tar lf.crlf >out &&
	test_cmp lf.crlf out
'

test_expect_success 'ident' '
	attr_repo_init ident &&
	cd ident &&
	mkdir sub &&
	cat >.gitattributes <<-\EOF &&
	*.id ident
	*.both ident text eol=crlf
	*.not -ident
	EOF
	printf "\$Id\$\n" >plain.id &&
	printf "a \$Id\$ b \$Id\$\n" >twice.id &&
	printf "\$Id: old \$\n" >old.id &&
	printf "\$Id: old junk \$\n" >junk.id &&
	printf "\$Id: abc\$\n" >nospace.id &&
	printf "\$Id:\n\$\n" >newline.id &&
	printf "\$Id unterminated\n" >open.id &&
	printf "\$Id" >tail.id &&
	printf "\$Id\$\n\$Id: \$\n" >both.both &&
	printf "\$Id\$\n" >x.not &&
	printf "\$Id\$\000\n" >nul.id &&
	printf "\$Id\$\n" >sub/deep.id &&
	ln -s "\$Id\$" link.id &&
	git add . &&
	test_commit ident &&
	same_in_forms &&
	garchive HEAD >i.tar &&
	tar xOf i.tar plain.id >out &&
	echo "\$Id: $(git rev-parse HEAD:plain.id) \$" >expect &&
	test_cmp expect out
'

test_expect_success ICONV 'working-tree-encoding' '
	attr_repo_init enc &&
	cd enc &&
	for ext in le be u16 u32 latin sjis crlf utf8 utf8b empty bad; do
		for c in lf utf8 empty nul; do
			write_content $c >$c.$ext || return 1
		done
	done &&
	printf "\377\376invalid\n" >invalid.le &&
	printf "\342\202\254\n" >euro.latin &&
	printf "caf\303\251\n" >cafe.latin &&
	printf "\346\274\242\345\255\227\n" >kanji.sjis &&
	git add . &&
	cat >.gitattributes <<-\EOF &&
	*.le working-tree-encoding=UTF-16LE
	*.be working-tree-encoding=UTF-16BE
	*.u16 working-tree-encoding=UTF-16
	*.u32 working-tree-encoding=utf-32
	*.latin working-tree-encoding=ISO-8859-1
	*.sjis working-tree-encoding=SHIFT-JIS
	*.crlf text eol=crlf working-tree-encoding=UTF-16LE
	*.utf8 working-tree-encoding=UTF-8
	*.utf8b working-tree-encoding=utf8
	*.empty working-tree-encoding=
	*.bad working-tree-encoding=NO-SUCH-ENCODING
	EOF
	git add .gitattributes &&
	test_commit enc &&
	same_in_forms &&
	garchive HEAD >e.tar &&
	tar xOf e.tar lf.crlf >out &&
	printf "o\000n\000e\000\r\000\n\000t\000w\000o\000\r\000\n\000" >expect &&
	test_cmp expect out
'

test_expect_success ICONV 'working-tree-encoding with core.autocrlf' '
	cd enc &&
	same_with_config "$(config_param core.autocrlf true)"
'

test_expect_success 'working-tree-encoding set or unset without a value dies' '
	attr_repo_init encdie &&
	cd encdie &&
	echo a >a &&
	echo "a working-tree-encoding" >.gitattributes &&
	# git add and git commit would die on the attribute themselves.
	{
		printf "100644 blob %s\t.gitattributes\n" \
			$(git hash-object -w --no-filters .gitattributes) &&
		printf "100644 blob %s\ta\n" $(git hash-object -w --no-filters a)
	} >tree.lst &&
	tree=$(git mktree <tree.lst) &&
	test_tick &&
	git update-ref HEAD $(echo a | git commit-tree $tree) &&
	same_form_ HEAD &&
	echo "a -working-tree-encoding" >.gitattributes &&
	same_form_ --worktree-attributes HEAD &&
	test_must_fail garchive --format=zip HEAD >out 2>err &&
	echo "fatal: true/false are no valid working-tree-encodings" >expect &&
	test_cmp expect err
'

# git's zip writer has written the entries before the one that dies;
# garchive drops what it still holds when it dies (the conformance
# harness requires that a failing garchive leave no half archive where
# git leaves none, and compares nothing where git leaves one), so here
# only the exit status and the messages are the same.
test_expect_success 'a zip that dies: git leaves its entries, garchive none' '
	cd encdie &&
	same_failure_as_git --format=zip HEAD &&
	test -s expect.out &&
	test_must_be_empty actual.out
'

test_expect_success 'conversion attributes from info/attributes and the work tree' '
	cd repo &&
	test_when_finished "git checkout -q -- .gitattributes" &&
	test_when_finished "rm -f .git/info/attributes" &&
	echo "lf.* -text" >.git/info/attributes &&
	same_in_forms &&
	rm .git/info/attributes &&
	echo "* text eol=crlf" >.gitattributes &&
	same_in_forms
'

test_expect_success 'a bare clone' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	same_in_bare &&
	git config core.autocrlf true &&
	same_in_bare
'

test_done
