# bash completion for garchive(1) and `git garchive`.
#
# `make install` puts this file in bash-completion's directory twice:
# as completions/garchive, loaded on demand for the `garchive` command,
# and as completions/git-garchive, which git's own completion loads the
# first time `git garchive <TAB>` is completed before it calls the
# _git_garchive function defined here.  Sourcing it from ~/.bashrc works
# too.
#
# It completes options (`--form` -> `--format=`), format names (from
# `garchive --list`, so configured formats appear), remote names, refs
# for the <tree-ish> (and paths after `<ref>:`), and paths of the
# <tree-ish> for the pathspecs, and the options and arguments of
# `garchive verify`.  Where it offers nothing (file names for -o,
# --add-file, the file to verify), bash's default file name completion
# takes over.

# Run git, in the repository git's completion was pointed at (-C,
# --git-dir) when it is the caller.
__garchive_git ()
{
	if [[ -n ${__garchive_in_git-} ]] && declare -F __git >/dev/null; then
		__git "$@"
	else
		git "$@" 2>/dev/null
	fi
}

# Add each candidate that extends the current word to COMPREPLY.
# Candidates carry their own end: a space for a finished word, nothing
# after "=" or "/".  bash replaces only the text after the last
# COMP_WORDBREAKS character of the word ("=" and ":" by default), while
# $cur holds the whole word, so that part is cut off the candidates.
__garchive_add ()
{
	local keep=0 i c
	for ((i = ${#cur}; i > 0; i--)); do
		if [[ $COMP_WORDBREAKS == *"${cur:i-1:1}"* ]]; then
			keep=$i
			break
		fi
	done
	for c in "$@"; do
		[[ $c == "$cur"* ]] && COMPREPLY+=("${c:keep}")
	done
}

__garchive_formats ()
{
	local formats
	if [[ -n ${__garchive_in_git-} ]]; then
		formats=$(__garchive_git garchive --list)
	fi
	if [[ -z $formats ]]; then
		formats=$(garchive --list 2>/dev/null)
	fi
	if [[ -z $formats ]]; then
		formats="tar tgz tar.gz zip"
	fi
	local f list=()
	for f in $formats; do
		list+=("$1$f ")
	done
	__garchive_add "${list[@]}"
}

__garchive_remotes ()
{
	local r list=()
	for r in $(__garchive_git remote); do
		list+=("$1$r ")
	done
	__garchive_add "${list[@]}"
}

# __garchive_ls_tree PREFIX LS-TREE-ARGS...: add to the caller's `list`
# each entry `git ls-tree -z` lists, after PREFIX: a tree with "/" (the
# word goes on), anything else with " " (the word is complete).
__garchive_ls_tree ()
{
	local prefix=$1 line name type
	shift
	while IFS= read -r -d '' line; do
		name=${line#*$'\t'}
		type=${line#* }
		type=${type%% *}
		if [[ $type == tree ]]; then
			list+=("$prefix$name/")
		else
			list+=("$prefix$name ")
		fi
	done < <(__garchive_git ls-tree -z "$@")
}

# Refs for <tree-ish>; after "<ref>:", the paths in that ref's tree.
__garchive_treeishes ()
{
	local ref path dir list=()
	case $cur in
	?*:*)
		ref=${cur%%:*}
		path=${cur#*:}
		dir=
		case $path in
		*/*) dir=${path%/*}/ ;;
		esac
		# --full-tree: list the tree itself, whatever the cwd is.
		__garchive_ls_tree "$ref:$dir" --full-tree "$ref:$dir"
		;;
	*)
		list=(HEAD)
		while IFS= read -r ref; do
			list+=("$ref")
		done < <(__garchive_git for-each-ref \
				--format='%(refname:short)' \
				refs/heads refs/tags refs/remotes)
		list=("${list[@]/%/ }")
		;;
	esac
	__garchive_add "${list[@]}"
}

# Paths of <tree-ish> for the pathspecs, relative to the current
# directory as garchive reads them.
__garchive_paths ()
{
	local treeish=$1 dir= list=()
	case $cur in
	*/*) dir=${cur%/*}/ ;;
	esac
	__garchive_ls_tree "" "$treeish" -- "${dir:-.}"
	__garchive_add "${list[@]}"
}

__garchive_options ()
{
	local opts=(--format= --list --verbose --prefix= --output=
		--add-file= --add-virtual-file= --worktree-attributes
		--mtime= --threads= --progress --recurse-submodules
		--recurse-submodules= --remote= --exec=)
	if [[ $cur == --no* ]]; then
		opts+=(--no-format --no-prefix --no-add-file
		       --no-add-virtual-file --no-verbose --no-list
		       --no-worktree-attributes --no-progress
		       --no-recurse-submodules)
	fi
	if [[ -n $1 ]]; then
		opts+=(--version --help -c --attr-source=)
	fi
	opts=("${opts[@]/%/ }")
	opts=("${opts[@]/%= /=}")
	__garchive_add "${opts[@]}"
}

# `garchive verify [<options>] <file> [<tree-ish> [<path>...]]`, whose
# arguments start at words[$1]: the file is left to bash.
__garchive_verify ()
{
	local first=$1 i w nonopt=0 treeish= prev=${words[cword - 1]}

	for ((i = first; i < cword; i++)); do
		w=${words[i]}
		case $w in
		--format|--prefix)
			((i++))
			continue
			;;
		-*)
			continue
			;;
		esac
		((nonopt++))
		[[ $nonopt == 2 ]] && treeish=$w
	done
	case $prev in
	--format)
		__garchive_formats ""
		return
		;;
	--prefix)
		return
		;;
	esac
	case $cur in
	--format=*)
		__garchive_formats --format=
		return
		;;
	--*=*)
		return
		;;
	-*)
		__garchive_add --format= --prefix= "--verbose " "--digest " \
			"--progress " "--no-progress "
		return
		;;
	esac
	case $nonopt in
	0) ;;
	1) __garchive_treeishes ;;
	*) __garchive_paths "$treeish" ;;
	esac
}

# Complete words[cword] of a garchive command line whose arguments start
# at words[$1].  $2 is set when garchive's own leading options (-c,
# --attr-source, --version, subcommands) may appear, that is, when it is not run as
# `git garchive`.
__garchive_main ()
{
	local first=$1 global=${2-} i=$1 w treeish= dashdash=
	local prev=${words[cword - 1]}

	if [[ -n $global ]]; then
		while [[ $i -lt $cword ]]; do
			case ${words[i]} in
			-c|--attr-source) ((i += 2)) ;;
			--attr-source=*) ((i++)) ;;
			*) break ;;
			esac
		done
		first=$i
		case ${words[first]} in
		verify)
			[[ $first -lt $cword ]] && __garchive_verify $((first + 1))
			[[ $first -lt $cword ]] && return
			;;
		upload-archive|get-tar-commit-id|help|gzip)
			# A directory, standard input, nothing, files: the default.
			[[ $first -lt $cword ]] && return
			;;
		esac
		if [[ $prev == --attr-source ]]; then
			__garchive_treeishes
			return
		fi
		if [[ $prev == -c ]]; then
			__garchive_add tar.umask= tar.tgz.command= \
				tar.tar.gz.command= garchive.threads= garchive.gzip= \
				core.bigFileThreshold= core.autocrlf= core.eol=
			return
		fi
	fi

	# What the words before this one say: is there a tree-ish yet?
	for ((i = first; i < cword; i++)); do
		w=${words[i]}
		if [[ -z $dashdash ]]; then
			case $w in
			--)
				dashdash=1
				continue
				;;
			-o|--output|--format|--prefix|--remote|--exec|\
			--add-file|--add-virtual-file|--mtime|--threads)
				((i++))
				continue
				;;
			-*)
				continue
				;;
			esac
		fi
		if [[ -z $treeish ]]; then
			treeish=$w
		fi
	done

	if [[ -z $dashdash && $cword -gt $first ]]; then
		case $prev in
		--format)
			__garchive_formats ""
			return
			;;
		--remote)
			__garchive_remotes ""
			return
			;;
		-o|--output|--add-file|--prefix|--exec|--add-virtual-file|\
		--mtime|--threads)
			return
			;;
		esac
	fi
	if [[ -z $dashdash ]]; then
		case $cur in
		--format=*)
			__garchive_formats --format=
			return
			;;
		--recurse-submodules=*)
			__garchive_add "--recurse-submodules=skip-missing "
			return
			;;
		--remote=*)
			__garchive_remotes --remote=
			return
			;;
		--*=*)
			return
			;;
		-*)
			__garchive_options "$([[ -n $global && $cword == "$first" ]] && echo 1)"
			return
			;;
		esac
	fi
	if [[ -z $treeish ]]; then
		if [[ -n $global && $cword == "$first" && -z $dashdash ]]; then
			__garchive_add "help " "upload-archive " "get-tar-commit-id " \
				"verify " "gzip "
		fi
		__garchive_treeishes
	else
		__garchive_paths "$treeish"
	fi
}

# Fill cur, words, cword from the command line, keeping "=" and ":"
# inside words as git's completion does.
__garchive_words ()
{
	if declare -F _get_comp_words_by_ref >/dev/null; then
		_get_comp_words_by_ref -n =: cur words cword
		return
	fi
	local line=${COMP_LINE:0:COMP_POINT}
	read -r -a words <<<"$line"
	if [[ -z $line || $line == *[[:space:]] ]]; then
		words+=("")
	fi
	cword=$((${#words[@]} - 1))
	cur=${words[cword]}
}

_garchive ()
{
	local cur words cword
	COMPREPLY=()
	__garchive_words
	__garchive_main 1 global
}

# Called by git's completion for `git garchive`, with cur, words, cword
# and __git_cmd_idx (the index of "garchive" in words) already set.
_git_garchive ()
{
	local __garchive_in_git=1 i=${__git_cmd_idx-}
	if [[ -z $i ]]; then
		for ((i = 1; i < cword; i++)); do
			[[ ${words[i]} == garchive ]] && break
		done
	fi
	__garchive_main $((i + 1))
}

complete -o bashdefault -o default -o nospace -F _garchive garchive
