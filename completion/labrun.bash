# bash completion for labrun: commands, each command's options (read from its own -h),
# run ids and issue references (read from the store with labrun sql), and files.
_labrun()
{
	local cur prev words cword cmd i
	_init_completion 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	# the command: the first word after labrun and its global options
	cmd=
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--store) ((i++)) ;;
		--store=* | -*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		if [[ $prev == --store ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--store --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(labrun --help 2>/dev/null | sed -n 's/^  \([a-z]\+\) .*/\1/p')" -- "$cur"))
		fi
		return
	fi
	case $prev in
	--run | --reference-run | replay | show | cat | diff)
		COMPREPLY=($(compgen -W "last $(labrun sql --csv 'SELECT id FROM run ORDER BY id' 2>/dev/null | tail -n +2 | tr -d '\r')" -- "$cur"))
		return ;;
	--issue)
		COMPREPLY=($(compgen -W "$(labrun sql --csv 'SELECT DISTINCT issue_ref FROM run_issue ORDER BY 1' 2>/dev/null | tail -n +2 | tr -d '\r"')" -- "$cur"))
		return ;;
	--experiment)
		COMPREPLY=($(compgen -W "$(labrun sql --csv 'SELECT name FROM experiment ORDER BY 1' 2>/dev/null | tail -n +2 | tr -d '\r"')" -- "$cur"))
		return ;;
	remote)
		[[ $cmd == remote ]] && { COMPREPLY=($(compgen -W "add list remove init" -- "$cur")); return; } ;;
	key)
		[[ $cmd == key ]] && { COMPREPLY=($(compgen -W "init show export trust untrust list" -- "$cur")); return; } ;;
	push | pull | remove | init)
		if [[ $cur != -* ]]; then
			COMPREPLY=($(compgen -W "$(labrun sql --csv 'SELECT name FROM remote ORDER BY 1' 2>/dev/null | tail -n +2 | tr -d '\r"')" -- "$cur"))
			return
		fi ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(labrun "$cmd" -h 2>/dev/null | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _labrun labrun
