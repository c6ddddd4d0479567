#!/bin/sh
test_description='export-subst: $Format:...$ as git archive expands it'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record
. "$TEST_DIRECTORY/lib-attr.sh"

# A representative set of placeholders; t/unit/subst.c has the matrix.
formats='%H|%h|%T|%t|%P|%p
%an|%ae|%aN|%aE|%al|%ad|%aD|%at|%ai|%aI|%as
%cn|%ce|%cN|%cE|%cd|%cD|%ct|%ci|%cI|%cs
%s|%f|%e
%b
%B|%n|%%|%x41
%d|%D|%N|%gd|%GG|%G?
%<(12)%s|%>(12)%h|%><(12,trunc)%s|%w(20,2,4)%B
%Cred|%C(auto)|%C(red)|%C(always,red)x%Creset|%m|%(trailers)
%(trailers:key=Signed-off-by,valueonly)|%Q|%|%(decorate)|%<(20000)%s
$Format:$|$Format:%H|%x00end'

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	mkdir sub &&
	cat >.gitattributes <<-\EOF &&
	*.subst export-subst
	crlf.subst text eol=crlf
	plain.txt -export-subst
	EOF
	printf "%s\n" "\$Format:$formats\$" >all.subst &&
	sed "s/^/>/" all.subst >sub/all.subst &&
	printf "\$Format:%%H\$\n" >plain.txt &&
	printf "a\n\$Format:%%n%%s%%n\$\nb\n" >crlf.subst &&
	printf "dangling \$Format:%%H and more\n" >dangling.subst &&
	printf "\$Format:%%H\$\$Format:%%h\$ \$Formatx\$ \$Format:\$\n" \
		>adjacent.subst &&
	git add . &&
	test_tick &&
	git commit -q -m "subject line" -m "body line 1
body line 2

Signed-off-by: A U Thor <author@example.com>" &&
	git tag -a -m "annotated" v1 &&
	git notes add -m "a note" HEAD
'

test_expect_success 'every form (trees get no substitution)' '
	cd repo &&
	same_in_forms
'

test_expect_success 'substitution happens at a commit only' '
	cd repo &&
	garchive HEAD >c.tar &&
	tar xOf c.tar dangling.subst >out &&
	echo "dangling \$Format:%H and more" >expect &&
	test_cmp expect out &&
	tar xOf c.tar adjacent.subst >out &&
	echo "$(git rev-parse HEAD)$(git rev-parse --short HEAD) \$Formatx\$ " \
		>expect &&
	test_cmp expect out &&
	garchive HEAD^{tree} >t.tar &&
	tar xOf t.tar adjacent.subst >out &&
	test_cmp adjacent.subst out
'

test_expect_success 'CRLF conversion comes first; %n stays LF' '
	cd repo &&
	test_same_as_git HEAD crlf.subst &&
	tar xOf actual.out crlf.subst >out &&
	printf "a\r\n\nsubject line\n\r\nb\r\n" >expect &&
	test_cmp expect out &&
	test_same_as_git --format=zip HEAD crlf.subst
'

test_expect_success 'export-subst files are not streamed' '
	cd repo &&
	(
		GIT_CONFIG_PARAMETERS="$(config_param core.bigfilethreshold 1)" &&
		export GIT_CONFIG_PARAMETERS &&
		same_form_ HEAD &&
		tar xOf actual.out crlf.subst >out &&
		same_form_ --format=zip HEAD
	) &&
	printf "a\r\n\nsubject line\n\r\nb\r\n" >expect &&
	test_cmp expect out
'

test_expect_success 'live decorations, abbreviation and notes' '
	cd repo &&
	test_when_finished "git config --unset core.abbrev" &&
	test_when_finished "git tag -d extra" &&
	git tag extra &&
	git config core.abbrev 12 &&
	same_in_forms
'

test_expect_success 'only one %(describe) per archive, in archive order' '
	attr_repo_init desc &&
	cd desc &&
	echo "* export-subst" >.gitattributes &&
	echo "1 \$Format:%(describe)\$|\$Format:%(describe:tags)\$" >a &&
	echo "2 \$Format:%(describe:abbrev=3)\$" >b &&
	mkdir c &&
	echo "3 \$Format:%(describe:match=v*,exclude=x*)\$" >c/d &&
	git add . &&
	test_commit one &&
	git tag -a -m v v1.0 &&
	echo more >>b &&
	git add b &&
	test_commit two &&
	same_in_forms &&
	same_form_ HEAD b c &&
	same_form_ HEAD c &&
	same_form_ --format=zip HEAD b c &&
	same_form_ HEAD~1 &&
	git tag -d forms-tag &&
	garchive HEAD >ga.tar &&
	tar xOf ga.tar a >out &&
	echo "1 v1.0-1-g$(git rev-parse --short=7 HEAD)|%(describe:tags)" >expect &&
	test_cmp expect out
'

test_expect_success 'a failing describe still uses up the quota' '
	attr_repo_init nodesc &&
	cd nodesc &&
	echo "* export-subst" >.gitattributes &&
	echo "[\$Format:%(describe)\$]" >a &&
	echo "[\$Format:%(describe)\$]" >b &&
	git add . &&
	test_commit one &&
	git tag -d one &&
	same_in_forms
'

test_expect_success 'a non-UTF-8 commit encoding' '
	attr_repo_init enc &&
	cd enc &&
	echo "* export-subst" >.gitattributes &&
	echo "\$Format:%s|%an|%e\$" >a &&
	git add . &&
	git config i18n.commitEncoding ISO-8859-1 &&
	test_tick &&
	printf "caf\351\n" >msg &&
	GIT_AUTHOR_NAME="$(printf "J\351r\364me")" git commit -q -F msg &&
	same_in_forms
'

test_expect_success '%aN and %aE follow .mailmap' '
	cd repo &&
	test_when_finished "rm -f .mailmap; git config --unset mailmap.file" &&
	echo "Mapped Name <mapped@example.com> <author@example.com>" >.mailmap &&
	same_in_forms &&
	rm .mailmap &&
	echo "Other Name <other@example.com> <committer@example.com>" \
		>"$HOME/mailmap" &&
	git config mailmap.file "$HOME/mailmap" &&
	same_in_forms
'

test_expect_success 'info/attributes and the work tree switch it' '
	cd repo &&
	test_when_finished "git checkout -q -- .gitattributes" &&
	test_when_finished "rm -f .git/info/attributes" &&
	echo "plain.txt export-subst" >.git/info/attributes &&
	same_in_forms &&
	rm .git/info/attributes &&
	echo "* -export-subst" >.gitattributes &&
	same_in_forms
'

test_expect_success 'a bare clone' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	same_in_bare
'

test_done
