# ccplan.bash - bash completion for ccplan (docs/cli.md).
#
# Installed as share/bash-completion/completions/ccplan; to try it from a
# checkout: source completions/ccplan.bash.  It completes the commands,
# each command's options (both from the program's table of commands,
# `ccplan --list-commands`), the values of the options that take one of a
# few words (--emit, --unit, presets, algorithms), cache keys, help
# topics, and file names: .yaml inputs, .ccp plans, .c sources, .csv
# data, .conf topologies.  Commands, options, algorithm, preset and cache-key names come
# from the ccplan being completed (`ccplan --list-commands`, `ccplan help
# algorithms`, `ccplan help presets`, `ccplan cache ls`), so they are
# never out of date.  Plain bash: it does not need the bash-completion
# package's helpers.

# The names of a `ccplan help TOPIC` list: its rows "  name   text".
_ccplan_names()
{
	"$1" help "$2" 2>/dev/null | awk '/^  [a-z0-9]/ { print $1 }'
}

# From the table of commands of ccplan $1 (`ccplan --list-commands`: a
# line per command, its name then its options; a line per subcommand,
# COMMAND:SUB then the options that are its own): the commands; with $2
# (COMMAND or COMMAND:SUB) its options; with $2 and $3 = subs, the
# subcommands of command $2.
_ccplan_table()
{
	"$1" --list-commands 2>/dev/null | awk -v c="$2" -v subs="$3" '
		c == "" && $1 !~ /:/ { print $1 }
		subs != "" && index($1, c ":") == 1 { print substr($1, length(c) + 2) }
		subs == "" && c != "" && $1 == c { for (i = 2; i <= NF; i++) print $i }'
}

# COMPREPLY: directories and the files whose names end in one of the
# extensions given (yaml ccp ...), matching the current word.
_ccplan_files()
{
	local IFS=$'\n' ext f
	local -a out
	mapfile -t out < <(compgen -d -- "$cur")
	for ext in "$@"; do
		for f in $(compgen -f -- "$cur"); do
			[[ $f == *."$ext" && ! -d $f ]] && out+=("$f")
		done
	done
	COMPREPLY=("${out[@]}")
	compopt -o filenames 2>/dev/null
}

# COMPREPLY: the words of $1 that match the current word.
_ccplan_words()
{
	local IFS=$' \t\n'
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

_ccplan()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=
	local prog=${COMP_WORDS[0]} cmd='' sub='' i w
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# a ccplan that cannot be run (not in PATH) completes no names
	command -v "$prog" >/dev/null 2>&1 || prog=ccplan
	local commands
	commands=$(_ccplan_table "$prog")

	# the command, and for cache, tau and import the subcommand
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $cmd ]]; then
			[[ $w == -* ]] || cmd=$w
		elif [[ $cmd == cache && -z $sub ]]; then
			if [[ $w == --cache ]]; then
				((i++))
			elif [[ $w != -* ]]; then
				sub=$w
			fi
		elif [[ ($cmd == tau || $cmd == import) && -z $sub && $w != -* ]]; then
			sub=$w
		fi
	done

	if [[ -z $cmd ]]; then
		_ccplan_words "$commands --help --version"
		return
	fi

	# options whose value is a file or a word
	case $prev in
	--html) _ccplan_files html; return ;;
	-o)
		case $cmd in
		export) _ccplan_files json ;;
		show) _ccplan_files svg txt ;;
		scan) _ccplan_files c ;;
		tau) _ccplan_files svg ;;
		cache) _ccplan_files ccp ;;
		import) _ccplan_files yaml yml ;;
		place) _ccplan_files txt yaml yml ;;
		*) _ccplan_files ccp c ;;
		esac
		return
		;;
	--cache) _ccplan_files db; return ;;
	--emit)
		_ccplan_words "ccp c"
		return
		;;
	--points) _ccplan_files csv; return ;;
	--format)
		_ccplan_words "perm rankfile slurm yaml"
		return
		;;
	--placement) _ccplan_files place txt; return ;;
	--hostfile | --depfile)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null
		return
		;;
	--yaml-dir)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
		;;
	--unit)
		_ccplan_words "us ns ms s"
		return
		;;
	--against | --params | --machines)
		_ccplan_words "$(_ccplan_names "$prog" presets) table5.1"
		return
		;;
	--algorithms)
		_ccplan_words "$(_ccplan_names "$prog" algorithms) rd sc ft"
		return
		;;
	--name | --symbol | --rank | --phase | -n | --timeout | --max-size | --max-memory | \
		--older-than | --columns | --seed | --mesh | --root | --alpha | --beta | \
		--hop | --gamma | --sweep | --point | --title)
		COMPREPLY=()
		return
		;;
	esac

	case $cmd in
	compile)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files yaml yml
		fi
		;;
	explain)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files ccp yaml yml
		fi
		;;
	verify)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files ccp
		fi
		;;
	export)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files ccp yaml yml
		fi
		;;
	show)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files ccp yaml yml
		fi
		;;
	place)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files yaml yml
		fi
		;;
	compare)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files yaml yml
		fi
		;;
	simulate)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		else
			_ccplan_files ccp yaml yml
		fi
		;;
	cache)
		if [[ -z $sub ]]; then
			if [[ $cur == -* ]]; then
				_ccplan_words "$(_ccplan_table "$prog" $cmd)"
			else
				_ccplan_words "$(_ccplan_table "$prog" cache subs)"
			fi
		elif [[ $cur == -* || $sub == gc ]]; then
			_ccplan_words "$(_ccplan_table "$prog" "cache:$sub")"
		elif [[ $sub == show || $sub == rm || $sub == export ]]; then
			# the keys of the cache the line names, if any
			local -a at=()
			for ((i = 1; i < COMP_CWORD; i++)); do
				[[ ${COMP_WORDS[i]} == --cache ]] &&
					at=(--cache "${COMP_WORDS[i + 1]}")
			done
			_ccplan_words "$("$prog" cache "${at[@]}" ls 2>/dev/null |
				awk 'NR > 1 { print $1 }')"
		fi
		;;
	scan)
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd) --"
		else
			_ccplan_files c h
		fi
		;;
	tau)
		if [[ -z $sub ]]; then
			_ccplan_words "$(_ccplan_table "$prog" tau subs) --help"
		elif [[ $sub == fit ]]; then
			if [[ $cur == -* ]]; then
				_ccplan_words "$(_ccplan_table "$prog" tau:fit) --help"
			else
				_ccplan_files csv
			fi
		else
			_ccplan_words "$(_ccplan_table "$prog" tau:plot) --help"
		fi
		;;
	import)
		if [[ -z $sub ]]; then
			_ccplan_words "$(_ccplan_table "$prog" import subs) --help"
		elif [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" import:$sub)"
		else
			_ccplan_files conf yaml yml
		fi
		;;
	run)
		# after PROGRAM, its own arguments: files
		for ((i = 2; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			case $w in
			-n | -np | --hostfile | --timeout) ((i++)) ;;
			-*) ;;
			*)
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
				compopt -o filenames 2>/dev/null
				return
				;;
			esac
		done
		if [[ $cur == -* ]]; then
			_ccplan_words "$(_ccplan_table "$prog" $cmd)"
		elif [[ $cur == */* ]]; then
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			compopt -o filenames 2>/dev/null
		else
			mapfile -t COMPREPLY < <(compgen -c -- "$cur")
		fi
		;;
	help)
		if ((COMP_CWORD == 2)); then
			_ccplan_words "input-format plan-format algorithms presets
				environment exit-status $commands
				$(_ccplan_names "$prog" algorithms)"
		fi
		;;
	esac
}

complete -F _ccplan ccplan
