#!/bin/sh
test_description='configuration reaches garchive from every place git reads it'
. "$(dirname "$0")/lib.sh"

# Each source sets tar.umask to a different value, so the archive's
# modes show which source won; git is the reference for each setup.
test_expect_success 'setup' '
	git init -q repo &&
	(
		cd repo &&
		echo a >a &&
		printf "#!/bin/sh\n" >x &&
		chmod +x x &&
		git add . &&
		test_tick &&
		git commit -q -m one
	)
'

test_expect_success 'repository config' '
	cd repo &&
	git config tar.umask 027 &&
	test_when_finished "git config --unset tar.umask" &&
	test_same_as_git HEAD
'

test_expect_success 'global, XDG and GIT_CONFIG_GLOBAL' '
	cd repo &&
	git config --global tar.umask 077 &&
	test_when_finished "git config --global --unset tar.umask" &&
	test_same_as_git HEAD &&
	mkdir -p "$HOME/.config/git" &&
	printf "[tar]\n\tumask = 0\n" >"$HOME/.config/git/config" &&
	test_when_finished "rm -f \"$HOME/.config/git/config\"" &&
	test_same_as_git HEAD &&
	printf "[tar]\n\tumask = 070\n" >"$HOME/other.cfg" &&
	GIT_CONFIG_GLOBAL="$HOME/other.cfg" test_same_as_git HEAD
'

test_expect_success 'system config: GIT_CONFIG_SYSTEM and GIT_CONFIG_NOSYSTEM' '
	cd repo &&
	printf "[tar]\n\tumask = 066\n" >"$HOME/system.cfg" &&
	(
		GIT_CONFIG_SYSTEM="$HOME/system.cfg" &&
		export GIT_CONFIG_SYSTEM &&
		GIT_CONFIG_NOSYSTEM=0 test_same_as_git HEAD &&
		GIT_CONFIG_NOSYSTEM=1 test_same_as_git HEAD
	)
'

test_expect_success 'include.path and includeIf' '
	cd repo &&
	printf "[tar]\n\tumask = 007\n" >"$HOME/inc.cfg" &&
	git config include.path "$HOME/inc.cfg" &&
	test_same_as_git HEAD &&
	git config --unset include.path &&
	git config "includeIf.gitdir:$TRASH_DIRECTORY/repo/.git.path" "$HOME/inc.cfg" &&
	test_same_as_git HEAD &&
	git config --unset "includeIf.gitdir:$TRASH_DIRECTORY/repo/.git.path" &&
	git config includeIf.onbranch:main.path "$HOME/inc.cfg" &&
	test_same_as_git HEAD &&
	git config --unset includeIf.onbranch:main.path
'

test_expect_success 'config.worktree' '
	cd repo &&
	git config extensions.worktreeConfig true &&
	git config --worktree tar.umask 033 &&
	test_same_as_git HEAD &&
	git config --worktree --unset tar.umask &&
	git config --unset extensions.worktreeConfig
'

test_expect_success 'GIT_CONFIG_PARAMETERS as git -c exports it' '
	cd repo &&
	git config tar.umask 022 &&
	test_when_finished "git config --unset tar.umask" &&
	git -c tar.umask=002 archive HEAD >expect &&
	git -c tar.umask=002 -c "x.y=has space" -c alias.ga="!garchive" \
		ga HEAD >actual &&
	test_cmp expect actual
'

test_expect_success 'GIT_CONFIG_COUNT and -c; -c wins' '
	cd repo &&
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=tar.umask GIT_CONFIG_VALUE_0=077 \
		git archive HEAD >expect &&
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=tar.umask GIT_CONFIG_VALUE_0=077 \
		garchive HEAD >actual &&
	test_cmp expect actual &&
	git -c tar.umask=0 archive HEAD >expect0 &&
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=tar.umask GIT_CONFIG_VALUE_0=077 \
		garchive -c tar.umask=0 HEAD >actual0 &&
	test_cmp expect0 actual0
'

test_expect_success 'malformed command-line configuration fails as in git' '
	cd repo &&
	GIT_CONFIG_PARAMETERS="bogus" test_same_as_git HEAD &&
	GIT_CONFIG_COUNT=1 test_same_as_git HEAD &&
	GIT_CONFIG_COUNT=x test_same_as_git HEAD
'

test_expect_success 'a broken config file fails as in git' '
	cd repo &&
	cp .git/config config.bak &&
	test_when_finished "cp config.bak .git/config" &&
	printf "[tar\n" >>.git/config &&
	test_same_as_git HEAD
'

test_done
