# bash completion for labrun: commands and subcommands, each command's options and
# their choices (read from its own -h), and from the store the line names (--store
# DIR, else LABRUN_STORE, else the one labrun finds): run ids, a run's logs and
# artifacts, issue references, experiments, routes and remotes; then files.

# labrun with the line's --store, so every word offered comes from that store
_labrun_store()
{
	labrun ${_labrun_dir:+--store "$_labrun_dir"} "$@" 2>/dev/null
}

# one column of a query, a word a line
_labrun_sql()
{
	_labrun_store sql --csv "$1" | tail -n +2 | tr -d '\r"'
}

# the id of run reference $1 ('7', 'last', 'last~1', a uuid prefix), or nothing
_labrun_run_id()
{
	case $1 in
	*[!0-9]* | '') _labrun_store show --json --tail 0 "$1" | sed -n 's/^  "id": \([0-9]*\),$/\1/p' | head -n 1 ;;
	*) echo "$1" ;;
	esac
}

_labrun()
{
	local cur prev words cword cmd help i n operands=() valued _labrun_dir=
	_init_completion -n = 2>/dev/null || {
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	}
	# the command: the first word after labrun and its global options
	cmd=
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--store) ((i++)); _labrun_dir=${words[i]} ;;
		--store=*) _labrun_dir=${words[i]#--store=} ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done
	[[ $_labrun_dir == "~"/* ]] && _labrun_dir=$HOME/${_labrun_dir#"~"/}
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
	help=$(labrun "$cmd" -h 2>/dev/null)
	# the options that take a value: a metavariable (--run ID) or choices (--format md|csv) after them
	valued=" $(grep -o -- '--[a-z][a-z0-9-]* \(\[\?[A-Z][A-Z0-9_.]*\|[a-z0-9-]*|[a-z0-9|-]*\)' <<<"$help" |
		sed 's/ .*//' | sort -u | tr '\n' ' ') $(grep -o -- '-[a-zA-Z], --[a-z][a-z0-9-]* [A-Z]' <<<"$help" |
		cut -c1-2 | tr '\n' ' ')"
	# the operands so far, option values skipped
	for ((i = i + 1; i < cword; i++)); do
		case ${words[i]} in
		--) ;;
		--*=*) ;;
		-*) [[ $valued == *" ${words[i]} "* ]] && ((i++)) ;;
		*) operands+=("${words[i]}") ;;
		esac
	done
	n=${#operands[@]}

	# an option's value
	case $prev in
	--run | --reference-run)
		COMPREPLY=($(compgen -W "last last~1 $(_labrun_sql 'SELECT id FROM run ORDER BY id')" -- "$cur"))
		return ;;
	--issue)
		COMPREPLY=($(compgen -W "$(_labrun_sql 'SELECT DISTINCT issue_ref FROM run_issue ORDER BY 1')" -- "$cur"))
		return ;;
	--experiment)
		COMPREPLY=($(compgen -W "$(_labrun_sql 'SELECT name FROM experiment ORDER BY 1')" -- "$cur"))
		return ;;
	--route | --reference | --candidate)
		COMPREPLY=($(compgen -W "$(_labrun_sql 'SELECT DISTINCT route FROM response_set ORDER BY 1')" -- "$cur"))
		return ;;
	--unset)
		[[ $cmd == config ]] && { COMPREPLY=($(compgen -W "$(sed -n '/^Keys:/,$s/^  \([a-z.]\+\) .*/\1/p' <<<"$help")" -- "$cur")); return; } ;;
	--store)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--*)
		# choices the help gives ('--format md|csv|json|html'), else a file
		local choices
		choices=$(grep -o -- "$prev [a-z0-9-]*|[a-z0-9|-]*" <<<"$help" | head -n 1 | sed 's/^[^ ]* //; s/|/ /g')
		if [[ -n $choices ]]; then
			COMPREPLY=($(compgen -W "$choices" -- "$cur"))
			return
		fi
		[[ $valued == *" $prev "* ]] && { COMPREPLY=($(compgen -f -- "$cur")); return; } ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u)" -- "$cur"))
		return
	fi

	# an operand
	case $cmd:$n in
	remote:0) COMPREPLY=($(compgen -W "add list remove init" -- "$cur")); return ;;
	key:0) COMPREPLY=($(compgen -W "init show export trust untrust list" -- "$cur")); return ;;
	ingest:0) COMPREPLY=($(compgen -W "responses" -- "$cur")); return ;;
	config:0) COMPREPLY=($(compgen -W "$(sed -n '/^Keys:/,$s/^  \([a-z.]\+\) .*/\1/p' <<<"$help")" -- "$cur")); return ;;
	show:0 | replay:0 | cat:0 | diff:0 | diff:1)
		COMPREPLY=($(compgen -W "last last~1 $(_labrun_sql 'SELECT id FROM run ORDER BY id')" -- "$cur"))
		return ;;
	cat:1)
		local id
		id=$(_labrun_run_id "${operands[0]}")
		[[ $id =~ ^[0-9]+$ ]] || id=0
		COMPREPLY=($(compgen -W "stdout stderr $(_labrun_sql "SELECT name FROM artifact WHERE run_id = $id AND role NOT IN ('stdout', 'stderr')
			UNION SELECT role || ':' || name FROM artifact WHERE run_id = $id AND role NOT IN ('stdout', 'stderr') ORDER BY 1")" -- "$cur"))
		return ;;
	push:0 | pull:0 | remote:1)
		if [[ $cmd != remote || ${operands[0]} == remove || ${operands[0]} == init ]]; then
			COMPREPLY=($(compgen -W "$(_labrun_sql 'SELECT name FROM remote ORDER BY 1')" -- "$cur"))
			return
		fi ;;
	esac
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _labrun labrun
