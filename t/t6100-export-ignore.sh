#!/bin/sh
test_description='export-ignore on files, directories, links and gitlinks'
. "$(dirname "$0")/lib.sh"
test_uses_git_2_39_record
. "$TEST_DIRECTORY/lib-attr.sh"

test_expect_success 'setup' '
	attr_repo_init repo &&
	cd repo &&
	mkdir -p sub/keep sub/gone alldir/in starstar/deep \
		emptyafter/only nested/a/b dirslash minus value &&
	cat >.gitattributes <<-\EOF &&
	.gitattributes export-ignore
	ignored.txt export-ignore
	sub/gone export-ignore
	alldir/* export-ignore
	starstar/** export-ignore
	emptyafter/only export-ignore
	nested/a/b/ export-ignore
	dirslash/ export-ignore
	link export-ignore
	mod export-ignore
	mod2/ export-ignore
	minus/f -export-ignore
	value/f export-ignore=yes
	unset/f !export-ignore
	EOF
	cat >sub/.gitattributes <<-\EOF &&
	keep/x export-ignore
	EOF
	for f in top.txt ignored.txt sub/ignored.txt sub/keep/x sub/keep/y \
		sub/gone/f sub/gone/g alldir/f alldir/in/f starstar/f \
		starstar/deep/f emptyafter/only/f nested/a/f nested/a/b/f \
		dirslash/f minus/f value/f unset/f
	do
		mkdir -p "$(dirname "$f")" &&
		echo "$f" >"$f" || return 1
	done &&
	ln -s top.txt link &&
	ln -s top.txt sub/link &&
	git add . &&
	git update-index --add --cacheinfo \
		160000,$(test_oid_hex 1),mod &&
	git update-index --add --cacheinfo \
		160000,$(test_oid_hex 2),mod2 &&
	git update-index --add --cacheinfo \
		160000,$(test_oid_hex 3),sub/mod &&
	test_tick &&
	git commit -q -m base
'

test_expect_success 'every form' '
	cd repo &&
	same_in_forms
'

test_expect_success 'what is left out and which directories stay' '
	cd repo &&
	git archive HEAD >git.tar &&
	garchive HEAD >ga.tar &&
	test_cmp git.tar ga.tar &&
	archive_list ga.tar >list &&
	cat >expect <<-\EOF &&
	alldir/
	minus/
	minus/f
	nested/
	nested/a/
	nested/a/f
	starstar/
	sub/
	sub/keep/
	sub/keep/y
	top.txt
	unset/
	unset/f
	value/
	value/f
	EOF
	sort list >sorted &&
	test_cmp expect sorted
'

test_expect_success 'the same from the work tree attributes' '
	cd repo &&
	test_when_finished "git checkout -q -- .gitattributes sub/.gitattributes" &&
	cat >.gitattributes <<-\EOF &&
	top.txt export-ignore
	sub/ export-ignore
	EOF
	echo "* export-ignore" >sub/.gitattributes &&
	same_in_forms
'

test_expect_success 'a directory whose files are all ignored, one by one' '
	attr_repo_init files &&
	cd files &&
	mkdir -p d/e empty-after &&
	echo a >d/a &&
	echo b >d/e/b &&
	echo c >c &&
	printf "a export-ignore\nb export-ignore\n" >.gitattributes &&
	git add . &&
	test_commit files &&
	same_in_forms
'

test_expect_success '* export-ignore leaves an empty archive' '
	attr_repo_init all &&
	cd all &&
	mkdir sub &&
	echo a >sub/a &&
	echo "* export-ignore" >.gitattributes &&
	git add . &&
	test_commit all &&
	same_in_forms &&
	same_form_ --prefix=p/ HEAD
'

test_expect_success 'a deeper -export-ignore cannot rescue an ignored directory' '
	attr_repo_init rescue &&
	cd rescue &&
	mkdir -p d/e &&
	echo f >d/e/f &&
	echo "d export-ignore" >.gitattributes &&
	echo "* -export-ignore" >d/.gitattributes &&
	git add . &&
	test_commit rescue &&
	same_in_forms
'

test_expect_success 'export-ignore in info/attributes and the global file' '
	cd repo &&
	test_when_finished "git config --unset core.attributesFile" &&
	test_when_finished "rm -f .git/info/attributes" &&
	echo "top.txt export-ignore" >.git/info/attributes &&
	echo "sub export-ignore" >"$HOME/global-attrs" &&
	git config core.attributesFile "$HOME/global-attrs" &&
	same_in_forms
'

test_expect_success 'pathspecs and export-ignore' '
	cd repo &&
	same_form_ HEAD ignored.txt &&
	same_form_ HEAD sub/gone &&
	same_form_ HEAD sub/gone/f top.txt &&
	same_form_ --format=zip HEAD sub/gone/f top.txt &&
	same_form_ HEAD mod &&
	same_form_ HEAD starstar &&
	same_form_ HEAD "*.txt" &&
	(cd sub && same_form_ HEAD gone keep)
'

test_expect_success '--prefix and extra files are not ignored' '
	cd repo &&
	echo extra >ignored.txt.extra &&
	same_form_ --prefix=p/ HEAD &&
	same_form_ --prefix=p/ --add-file=ignored.txt.extra HEAD &&
	same_form_ --format=zip --prefix=p/ \
		--add-virtual-file=ignored.txt:x HEAD
'

test_expect_success 'a bare clone' '
	git clone -q --bare repo bare.git &&
	cd bare.git &&
	same_in_bare
'

test_done
