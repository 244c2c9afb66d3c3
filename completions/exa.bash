_exa() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="exa"
                ;;
            exa,budget)
                cmd="exa__subcmd__budget"
                ;;
            exa,completions)
                cmd="exa__subcmd__completions"
                ;;
            exa,config)
                cmd="exa__subcmd__config"
                ;;
            exa,db)
                cmd="exa__subcmd__db"
                ;;
            exa,finops)
                cmd="exa__subcmd__finops"
                ;;
            exa,gpu)
                cmd="exa__subcmd__gpu"
                ;;
            exa,help)
                cmd="exa__subcmd__help"
                ;;
            exa,import)
                cmd="exa__subcmd__import"
                ;;
            exa,man)
                cmd="exa__subcmd__man"
                ;;
            exa,mcp)
                cmd="exa__subcmd__mcp"
                ;;
            exa,metrics)
                cmd="exa__subcmd__metrics"
                ;;
            exa,report)
                cmd="exa__subcmd__report"
                ;;
            exa,sync)
                cmd="exa__subcmd__sync"
                ;;
            exa,validate)
                cmd="exa__subcmd__validate"
                ;;
            exa__subcmd__budget,check)
                cmd="exa__subcmd__budget__subcmd__check"
                ;;
            exa__subcmd__budget,help)
                cmd="exa__subcmd__budget__subcmd__help"
                ;;
            exa__subcmd__budget,list)
                cmd="exa__subcmd__budget__subcmd__list"
                ;;
            exa__subcmd__budget,notify)
                cmd="exa__subcmd__budget__subcmd__notify"
                ;;
            exa__subcmd__budget,rm)
                cmd="exa__subcmd__budget__subcmd__rm"
                ;;
            exa__subcmd__budget,set)
                cmd="exa__subcmd__budget__subcmd__set"
                ;;
            exa__subcmd__budget,status)
                cmd="exa__subcmd__budget__subcmd__status"
                ;;
            exa__subcmd__budget__subcmd__help,check)
                cmd="exa__subcmd__budget__subcmd__help__subcmd__check"
                ;;
            exa__subcmd__budget__subcmd__help,help)
                cmd="exa__subcmd__budget__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__budget__subcmd__help,list)
                cmd="exa__subcmd__budget__subcmd__help__subcmd__list"
                ;;
            exa__subcmd__budget__subcmd__help,notify)
                cmd="exa__subcmd__budget__subcmd__help__subcmd__notify"
                ;;
            exa__subcmd__budget__subcmd__help,rm)
                cmd="exa__subcmd__budget__subcmd__help__subcmd__rm"
                ;;
            exa__subcmd__budget__subcmd__help,set)
                cmd="exa__subcmd__budget__subcmd__help__subcmd__set"
                ;;
            exa__subcmd__budget__subcmd__help,status)
                cmd="exa__subcmd__budget__subcmd__help__subcmd__status"
                ;;
            exa__subcmd__config,help)
                cmd="exa__subcmd__config__subcmd__help"
                ;;
            exa__subcmd__config,init)
                cmd="exa__subcmd__config__subcmd__init"
                ;;
            exa__subcmd__config,path)
                cmd="exa__subcmd__config__subcmd__path"
                ;;
            exa__subcmd__config,show)
                cmd="exa__subcmd__config__subcmd__show"
                ;;
            exa__subcmd__config__subcmd__help,help)
                cmd="exa__subcmd__config__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__config__subcmd__help,init)
                cmd="exa__subcmd__config__subcmd__help__subcmd__init"
                ;;
            exa__subcmd__config__subcmd__help,path)
                cmd="exa__subcmd__config__subcmd__help__subcmd__path"
                ;;
            exa__subcmd__config__subcmd__help,show)
                cmd="exa__subcmd__config__subcmd__help__subcmd__show"
                ;;
            exa__subcmd__db,copy)
                cmd="exa__subcmd__db__subcmd__copy"
                ;;
            exa__subcmd__db,help)
                cmd="exa__subcmd__db__subcmd__help"
                ;;
            exa__subcmd__db,migrate)
                cmd="exa__subcmd__db__subcmd__migrate"
                ;;
            exa__subcmd__db__subcmd__help,copy)
                cmd="exa__subcmd__db__subcmd__help__subcmd__copy"
                ;;
            exa__subcmd__db__subcmd__help,help)
                cmd="exa__subcmd__db__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__db__subcmd__help,migrate)
                cmd="exa__subcmd__db__subcmd__help__subcmd__migrate"
                ;;
            exa__subcmd__finops,carbon)
                cmd="exa__subcmd__finops__subcmd__carbon"
                ;;
            exa__subcmd__finops,cost)
                cmd="exa__subcmd__finops__subcmd__cost"
                ;;
            exa__subcmd__finops,help)
                cmd="exa__subcmd__finops__subcmd__help"
                ;;
            exa__subcmd__finops,measure)
                cmd="exa__subcmd__finops__subcmd__measure"
                ;;
            exa__subcmd__finops__subcmd__carbon,estimate)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__estimate"
                ;;
            exa__subcmd__finops__subcmd__carbon,hardware)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__hardware"
                ;;
            exa__subcmd__finops__subcmd__carbon,help)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help"
                ;;
            exa__subcmd__finops__subcmd__carbon,providers)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__providers"
                ;;
            exa__subcmd__finops__subcmd__carbon,record)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__record"
                ;;
            exa__subcmd__finops__subcmd__carbon,regions)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__regions"
                ;;
            exa__subcmd__finops__subcmd__carbon,show)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__show"
                ;;
            exa__subcmd__finops__subcmd__carbon,when)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__when"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,estimate)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__estimate"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,hardware)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__hardware"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,help)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,providers)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__providers"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,record)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__record"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,regions)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__regions"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,show)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__show"
                ;;
            exa__subcmd__finops__subcmd__carbon__subcmd__help,when)
                cmd="exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__when"
                ;;
            exa__subcmd__finops__subcmd__cost,estimate)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__estimate"
                ;;
            exa__subcmd__finops__subcmd__cost,help)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__help"
                ;;
            exa__subcmd__finops__subcmd__cost,providers)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__providers"
                ;;
            exa__subcmd__finops__subcmd__cost,record)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__record"
                ;;
            exa__subcmd__finops__subcmd__cost,show)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__show"
                ;;
            exa__subcmd__finops__subcmd__cost__subcmd__help,estimate)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__estimate"
                ;;
            exa__subcmd__finops__subcmd__cost__subcmd__help,help)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__finops__subcmd__cost__subcmd__help,providers)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__providers"
                ;;
            exa__subcmd__finops__subcmd__cost__subcmd__help,record)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__record"
                ;;
            exa__subcmd__finops__subcmd__cost__subcmd__help,show)
                cmd="exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__show"
                ;;
            exa__subcmd__finops__subcmd__help,carbon)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon"
                ;;
            exa__subcmd__finops__subcmd__help,cost)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__cost"
                ;;
            exa__subcmd__finops__subcmd__help,help)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__finops__subcmd__help,measure)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__measure"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__carbon,estimate)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__estimate"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__carbon,hardware)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__hardware"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__carbon,providers)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__providers"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__carbon,record)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__record"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__carbon,regions)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__regions"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__carbon,show)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__show"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__carbon,when)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__when"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__cost,estimate)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__estimate"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__cost,providers)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__providers"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__cost,record)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__record"
                ;;
            exa__subcmd__finops__subcmd__help__subcmd__cost,show)
                cmd="exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__show"
                ;;
            exa__subcmd__gpu,export)
                cmd="exa__subcmd__gpu__subcmd__export"
                ;;
            exa__subcmd__gpu,help)
                cmd="exa__subcmd__gpu__subcmd__help"
                ;;
            exa__subcmd__gpu,serve)
                cmd="exa__subcmd__gpu__subcmd__serve"
                ;;
            exa__subcmd__gpu__subcmd__help,export)
                cmd="exa__subcmd__gpu__subcmd__help__subcmd__export"
                ;;
            exa__subcmd__gpu__subcmd__help,help)
                cmd="exa__subcmd__gpu__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__gpu__subcmd__help,serve)
                cmd="exa__subcmd__gpu__subcmd__help__subcmd__serve"
                ;;
            exa__subcmd__help,budget)
                cmd="exa__subcmd__help__subcmd__budget"
                ;;
            exa__subcmd__help,completions)
                cmd="exa__subcmd__help__subcmd__completions"
                ;;
            exa__subcmd__help,config)
                cmd="exa__subcmd__help__subcmd__config"
                ;;
            exa__subcmd__help,db)
                cmd="exa__subcmd__help__subcmd__db"
                ;;
            exa__subcmd__help,finops)
                cmd="exa__subcmd__help__subcmd__finops"
                ;;
            exa__subcmd__help,gpu)
                cmd="exa__subcmd__help__subcmd__gpu"
                ;;
            exa__subcmd__help,help)
                cmd="exa__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__help,import)
                cmd="exa__subcmd__help__subcmd__import"
                ;;
            exa__subcmd__help,man)
                cmd="exa__subcmd__help__subcmd__man"
                ;;
            exa__subcmd__help,mcp)
                cmd="exa__subcmd__help__subcmd__mcp"
                ;;
            exa__subcmd__help,metrics)
                cmd="exa__subcmd__help__subcmd__metrics"
                ;;
            exa__subcmd__help,report)
                cmd="exa__subcmd__help__subcmd__report"
                ;;
            exa__subcmd__help,sync)
                cmd="exa__subcmd__help__subcmd__sync"
                ;;
            exa__subcmd__help,validate)
                cmd="exa__subcmd__help__subcmd__validate"
                ;;
            exa__subcmd__help__subcmd__budget,check)
                cmd="exa__subcmd__help__subcmd__budget__subcmd__check"
                ;;
            exa__subcmd__help__subcmd__budget,list)
                cmd="exa__subcmd__help__subcmd__budget__subcmd__list"
                ;;
            exa__subcmd__help__subcmd__budget,notify)
                cmd="exa__subcmd__help__subcmd__budget__subcmd__notify"
                ;;
            exa__subcmd__help__subcmd__budget,rm)
                cmd="exa__subcmd__help__subcmd__budget__subcmd__rm"
                ;;
            exa__subcmd__help__subcmd__budget,set)
                cmd="exa__subcmd__help__subcmd__budget__subcmd__set"
                ;;
            exa__subcmd__help__subcmd__budget,status)
                cmd="exa__subcmd__help__subcmd__budget__subcmd__status"
                ;;
            exa__subcmd__help__subcmd__config,init)
                cmd="exa__subcmd__help__subcmd__config__subcmd__init"
                ;;
            exa__subcmd__help__subcmd__config,path)
                cmd="exa__subcmd__help__subcmd__config__subcmd__path"
                ;;
            exa__subcmd__help__subcmd__config,show)
                cmd="exa__subcmd__help__subcmd__config__subcmd__show"
                ;;
            exa__subcmd__help__subcmd__db,copy)
                cmd="exa__subcmd__help__subcmd__db__subcmd__copy"
                ;;
            exa__subcmd__help__subcmd__db,migrate)
                cmd="exa__subcmd__help__subcmd__db__subcmd__migrate"
                ;;
            exa__subcmd__help__subcmd__finops,carbon)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon"
                ;;
            exa__subcmd__help__subcmd__finops,cost)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__cost"
                ;;
            exa__subcmd__help__subcmd__finops,measure)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__measure"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__carbon,estimate)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__estimate"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__carbon,hardware)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__hardware"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__carbon,providers)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__providers"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__carbon,record)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__record"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__carbon,regions)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__regions"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__carbon,show)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__show"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__carbon,when)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__when"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__cost,estimate)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__estimate"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__cost,providers)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__providers"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__cost,record)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__record"
                ;;
            exa__subcmd__help__subcmd__finops__subcmd__cost,show)
                cmd="exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__show"
                ;;
            exa__subcmd__help__subcmd__gpu,export)
                cmd="exa__subcmd__help__subcmd__gpu__subcmd__export"
                ;;
            exa__subcmd__help__subcmd__gpu,serve)
                cmd="exa__subcmd__help__subcmd__gpu__subcmd__serve"
                ;;
            exa__subcmd__help__subcmd__import,flux)
                cmd="exa__subcmd__help__subcmd__import__subcmd__flux"
                ;;
            exa__subcmd__help__subcmd__import,kubernetes)
                cmd="exa__subcmd__help__subcmd__import__subcmd__kubernetes"
                ;;
            exa__subcmd__help__subcmd__import,slurm)
                cmd="exa__subcmd__help__subcmd__import__subcmd__slurm"
                ;;
            exa__subcmd__help__subcmd__metrics,clusters)
                cmd="exa__subcmd__help__subcmd__metrics__subcmd__clusters"
                ;;
            exa__subcmd__help__subcmd__metrics,flags)
                cmd="exa__subcmd__help__subcmd__metrics__subcmd__flags"
                ;;
            exa__subcmd__help__subcmd__metrics,node)
                cmd="exa__subcmd__help__subcmd__metrics__subcmd__node"
                ;;
            exa__subcmd__help__subcmd__metrics,query)
                cmd="exa__subcmd__help__subcmd__metrics__subcmd__query"
                ;;
            exa__subcmd__help__subcmd__metrics,workload)
                cmd="exa__subcmd__help__subcmd__metrics__subcmd__workload"
                ;;
            exa__subcmd__help__subcmd__sync,mlflow)
                cmd="exa__subcmd__help__subcmd__sync__subcmd__mlflow"
                ;;
            exa__subcmd__import,flux)
                cmd="exa__subcmd__import__subcmd__flux"
                ;;
            exa__subcmd__import,help)
                cmd="exa__subcmd__import__subcmd__help"
                ;;
            exa__subcmd__import,kubernetes)
                cmd="exa__subcmd__import__subcmd__kubernetes"
                ;;
            exa__subcmd__import,slurm)
                cmd="exa__subcmd__import__subcmd__slurm"
                ;;
            exa__subcmd__import__subcmd__help,flux)
                cmd="exa__subcmd__import__subcmd__help__subcmd__flux"
                ;;
            exa__subcmd__import__subcmd__help,help)
                cmd="exa__subcmd__import__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__import__subcmd__help,kubernetes)
                cmd="exa__subcmd__import__subcmd__help__subcmd__kubernetes"
                ;;
            exa__subcmd__import__subcmd__help,slurm)
                cmd="exa__subcmd__import__subcmd__help__subcmd__slurm"
                ;;
            exa__subcmd__metrics,clusters)
                cmd="exa__subcmd__metrics__subcmd__clusters"
                ;;
            exa__subcmd__metrics,flags)
                cmd="exa__subcmd__metrics__subcmd__flags"
                ;;
            exa__subcmd__metrics,help)
                cmd="exa__subcmd__metrics__subcmd__help"
                ;;
            exa__subcmd__metrics,node)
                cmd="exa__subcmd__metrics__subcmd__node"
                ;;
            exa__subcmd__metrics,query)
                cmd="exa__subcmd__metrics__subcmd__query"
                ;;
            exa__subcmd__metrics,workload)
                cmd="exa__subcmd__metrics__subcmd__workload"
                ;;
            exa__subcmd__metrics__subcmd__help,clusters)
                cmd="exa__subcmd__metrics__subcmd__help__subcmd__clusters"
                ;;
            exa__subcmd__metrics__subcmd__help,flags)
                cmd="exa__subcmd__metrics__subcmd__help__subcmd__flags"
                ;;
            exa__subcmd__metrics__subcmd__help,help)
                cmd="exa__subcmd__metrics__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__metrics__subcmd__help,node)
                cmd="exa__subcmd__metrics__subcmd__help__subcmd__node"
                ;;
            exa__subcmd__metrics__subcmd__help,query)
                cmd="exa__subcmd__metrics__subcmd__help__subcmd__query"
                ;;
            exa__subcmd__metrics__subcmd__help,workload)
                cmd="exa__subcmd__metrics__subcmd__help__subcmd__workload"
                ;;
            exa__subcmd__sync,help)
                cmd="exa__subcmd__sync__subcmd__help"
                ;;
            exa__subcmd__sync,mlflow)
                cmd="exa__subcmd__sync__subcmd__mlflow"
                ;;
            exa__subcmd__sync__subcmd__help,help)
                cmd="exa__subcmd__sync__subcmd__help__subcmd__help"
                ;;
            exa__subcmd__sync__subcmd__help,mlflow)
                cmd="exa__subcmd__sync__subcmd__help__subcmd__mlflow"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        exa)
            opts="-o -h -V --output --json --config --db --strict --help --version finops config gpu report budget db sync import mcp metrics validate completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget)
            opts="-o -h -V --output --json --config --help --version set list rm status check notify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__check)
            opts="-o -h -V --scope --add-gpu-hours --add-cpu-hours --at --advise-only --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scope)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --add-gpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --add-cpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help)
            opts="set list rm status check notify help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help__subcmd__notify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help__subcmd__rm)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help__subcmd__set)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__help__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__list)
            opts="-o -h -V --history --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__notify)
            opts="-o -h -V --at --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__rm)
            opts="-o -h -V --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__set)
            opts="-o -h -V --scope --period --kwh --kgco2e --usd --warn --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --scope)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --period)
                    COMPREPLY=($(compgen -W "day week month quarter" -- "${cur}"))
                    return 0
                    ;;
                --kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kgco2e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --usd)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --warn)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__budget__subcmd__status)
            opts="-o -h -V --at --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --at)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__completions)
            opts="-o -h -V --output --json --config --help --version bash elvish fish powershell zsh"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config)
            opts="-o -h -V --output --json --config --help --version path show init help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__help)
            opts="path show init help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__help__subcmd__init)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__help__subcmd__path)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__init)
            opts="-o -h -V --force --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__path)
            opts="-o -h -V --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__config__subcmd__show)
            opts="-o -h -V --strict --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__db)
            opts="-o -h -V --output --json --config --help --version migrate copy help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__db__subcmd__copy)
            opts="-o -h -V --from --to --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__db__subcmd__help)
            opts="migrate copy help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__db__subcmd__help__subcmd__copy)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__db__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__db__subcmd__help__subcmd__migrate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__db__subcmd__migrate)
            opts="-o -h -V --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops)
            opts="-o -h -V --output --json --config --help --version carbon cost measure help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon)
            opts="-o -h -V --output --json --config --help --version providers estimate show record regions hardware when help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__estimate)
            opts="-o -h -V --gpu-hours --cpu-hours --provider --strict --set --pue --gpu-tdp --cpu-tdp --grid-intensity --gpu-kwh --cpu-kwh --region --gpu-model --cpu-model --cpu-cores --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-tdp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-tdp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --grid-intensity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-cores)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__hardware)
            opts="-o -h -V --sources --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help)
            opts="providers estimate show record regions hardware when help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__estimate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__hardware)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__providers)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__record)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__regions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__help__subcmd__when)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__providers)
            opts="-o -h -V --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__record)
            opts="-o -h -V --run-id --part --tokens --prompt-tokens --requests --unit --db --gpu-hours --cpu-hours --provider --strict --set --pue --gpu-tdp --cpu-tdp --grid-intensity --gpu-kwh --cpu-kwh --region --gpu-model --cpu-model --cpu-cores --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --run-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --unit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pue)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-tdp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-tdp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --grid-intensity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-cores)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__regions)
            opts="-o -h -V --sources --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__show)
            opts="-o -h -V --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__carbon__subcmd__when)
            opts="-o -h -V --duration --within --power-w --region --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --within)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --power-w)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost)
            opts="-o -h -V --output --json --config --help --version providers estimate show record help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__estimate)
            opts="-o -h -V --gpu-hours --cpu-hours --provider --strict --set --gpu-rate --cpu-rate --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__help)
            opts="providers estimate show record help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__estimate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__providers)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__record)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__providers)
            opts="-o -h -V --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__record)
            opts="-o -h -V --run-id --part --tokens --prompt-tokens --requests --unit --db --gpu-hours --cpu-hours --provider --strict --set --gpu-rate --cpu-rate --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --run-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --unit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-hours)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --set)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpu-rate)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__cost__subcmd__show)
            opts="-o -h -V --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help)
            opts="carbon cost measure help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon)
            opts="providers estimate show record regions hardware when"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__estimate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__hardware)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__providers)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__record)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__regions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__carbon__subcmd__when)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__cost)
            opts="providers estimate show record"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__estimate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__providers)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__record)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__cost__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__help__subcmd__measure)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__finops__subcmd__measure)
            opts="-o -h -V --db --strict --interval --gpu-source --cpu-source --node-source --semconv --power-cost-per-kwh --carbon-intensity --co2 --gpus --duration --trace --pid --cpus --slurm-job --report --serve --linger --idle-share --node-policy --carbon-provider --cost-provider --region --record --run-id --model-is-job-name --mlflow-experiment --part --tokens --prompt-tokens --requests --unit --tokens-from --tokens-model --job-user --job-account --job-partition --push-gateway --otlp --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-source)
                    COMPREPLY=($(compgen -W "auto nvml nvidia-smi amd-smi" -- "${cur}"))
                    return 0
                    ;;
                --cpu-source)
                    COMPREPLY=($(compgen -W "auto powercap perf none" -- "${cur}"))
                    return 0
                    ;;
                --node-source)
                    COMPREPLY=($(compgen -W "auto hwmon ipmi redfish none" -- "${cur}"))
                    return 0
                    ;;
                --semconv)
                    COMPREPLY=($(compgen -W "genai hw" -- "${cur}"))
                    return 0
                    ;;
                --power-cost-per-kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --carbon-intensity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --duration)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --trace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pid)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cpus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --slurm-job)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --report)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --serve)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --linger)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --idle-share)
                    COMPREPLY=($(compgen -W "none even by-activity" -- "${cur}"))
                    return 0
                    ;;
                --node-policy)
                    COMPREPLY=($(compgen -W "measured allocation" -- "${cur}"))
                    return 0
                    ;;
                --carbon-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cost-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --region)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --record)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --run-id)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --mlflow-experiment)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prompt-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --requests)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --unit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --job-user)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --job-account)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --job-partition)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --push-gateway)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --otlp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__gpu)
            opts="-o -h -V --wide --gpu-source --output --json --config --help --version serve export help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --gpu-source)
                    COMPREPLY=($(compgen -W "auto nvml nvidia-smi amd-smi" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__gpu__subcmd__export)
            opts="-o -h -V --otlp --interval --gpu-source --cpu-source --node-source --semconv --power-cost-per-kwh --carbon-intensity --co2 --pods --pod-idle --pod-label --pod-annotation --pod-resources --kube-api --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --otlp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-source)
                    COMPREPLY=($(compgen -W "auto nvml nvidia-smi amd-smi" -- "${cur}"))
                    return 0
                    ;;
                --cpu-source)
                    COMPREPLY=($(compgen -W "auto powercap perf none" -- "${cur}"))
                    return 0
                    ;;
                --node-source)
                    COMPREPLY=($(compgen -W "auto hwmon ipmi redfish none" -- "${cur}"))
                    return 0
                    ;;
                --semconv)
                    COMPREPLY=($(compgen -W "genai hw" -- "${cur}"))
                    return 0
                    ;;
                --power-cost-per-kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --carbon-intensity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-idle)
                    COMPREPLY=($(compgen -W "none even weighted" -- "${cur}"))
                    return 0
                    ;;
                --pod-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-annotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-resources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__gpu__subcmd__help)
            opts="serve export help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__gpu__subcmd__help__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__gpu__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__gpu__subcmd__help__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__gpu__subcmd__serve)
            opts="-o -h -V --listen --tokens-from --tokens-model --budgets --interval --gpu-source --cpu-source --node-source --semconv --power-cost-per-kwh --carbon-intensity --co2 --pods --pod-idle --pod-label --pod-annotation --pod-resources --kube-api --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens-from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --tokens-model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --interval)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gpu-source)
                    COMPREPLY=($(compgen -W "auto nvml nvidia-smi amd-smi" -- "${cur}"))
                    return 0
                    ;;
                --cpu-source)
                    COMPREPLY=($(compgen -W "auto powercap perf none" -- "${cur}"))
                    return 0
                    ;;
                --node-source)
                    COMPREPLY=($(compgen -W "auto hwmon ipmi redfish none" -- "${cur}"))
                    return 0
                    ;;
                --semconv)
                    COMPREPLY=($(compgen -W "genai hw" -- "${cur}"))
                    return 0
                    ;;
                --power-cost-per-kwh)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --carbon-intensity)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-idle)
                    COMPREPLY=($(compgen -W "none even weighted" -- "${cur}"))
                    return 0
                    ;;
                --pod-label)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-annotation)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pod-resources)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kube-api)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help)
            opts="finops config gpu report budget db sync import mcp metrics validate completions man help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__budget)
            opts="set list rm status check notify"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__budget__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__budget__subcmd__list)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__budget__subcmd__notify)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__budget__subcmd__rm)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__budget__subcmd__set)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__budget__subcmd__status)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__config)
            opts="path show init"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__config__subcmd__init)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__config__subcmd__path)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__config__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__db)
            opts="migrate copy"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__db__subcmd__copy)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__db__subcmd__migrate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops)
            opts="carbon cost measure"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon)
            opts="providers estimate show record regions hardware when"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__estimate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__hardware)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__providers)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__record)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__regions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__carbon__subcmd__when)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__cost)
            opts="providers estimate show record"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__estimate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__providers)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__record)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__cost__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 5 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__finops__subcmd__measure)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__gpu)
            opts="serve export"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__gpu__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__gpu__subcmd__serve)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__import)
            opts="slurm flux kubernetes"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__import__subcmd__flux)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__import__subcmd__kubernetes)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__import__subcmd__slurm)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__man)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__mcp)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__metrics)
            opts="clusters node workload flags query"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__metrics__subcmd__clusters)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__metrics__subcmd__flags)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__metrics__subcmd__node)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__metrics__subcmd__query)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__metrics__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__report)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__sync)
            opts="mlflow"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__sync__subcmd__mlflow)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__help__subcmd__validate)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import)
            opts="-o -h -V --output --json --config --help --version slurm flux kubernetes help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__flux)
            opts="-o -h -V --since --until --file --cluster --model --model-from --dry-run --skip-bad --grid-history --carbon-provider --cost-provider --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model-from)
                    COMPREPLY=($(compgen -W "jobname account wckey comment" -- "${cur}"))
                    return 0
                    ;;
                --carbon-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cost-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__help)
            opts="slurm flux kubernetes help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__help__subcmd__flux)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__help__subcmd__kubernetes)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__help__subcmd__slurm)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__kubernetes)
            opts="-o -h -V --cluster --prometheus --since --until --model --dry-run --grid-history --carbon-provider --cost-provider --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --prometheus)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --carbon-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cost-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__import__subcmd__slurm)
            opts="-o -h -V --since --until --file --cluster --model --model-from --dry-run --skip-bad --grid-history --carbon-provider --cost-provider --db --exclusive --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model-from)
                    COMPREPLY=($(compgen -W "jobname account wckey comment" -- "${cur}"))
                    return 0
                    ;;
                --carbon-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --cost-provider)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__man)
            opts="-o -h -V --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__mcp)
            opts="-o -h -V --listen --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --listen)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics)
            opts="-o -h -V --output --json --config --help --version clusters node workload flags query help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__clusters)
            opts="-o -h -V --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__flags)
            opts="-o -h -V --cluster --node --kind --name --namespace --range --start --end --points --detail --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --start)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --end)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --points)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --detail)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__help)
            opts="clusters node workload flags query help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__help__subcmd__clusters)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__help__subcmd__flags)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__help__subcmd__node)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__help__subcmd__query)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__help__subcmd__workload)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__node)
            opts="-o -h -V --cluster --node --range --start --end --points --detail --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --node)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --start)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --end)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --points)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --detail)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__query)
            opts="-o -h -V --cluster --instant --range --start --end --points --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --start)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --end)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --points)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__metrics__subcmd__workload)
            opts="-o -h -V --cluster --kind --name --namespace --range --start --end --points --detail --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --cluster)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --kind)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --name)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --namespace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --range)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --start)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --end)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --points)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --detail)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__report)
            opts="-o -h -V --db --by --since --until --format --per --html --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --by)
                    COMPREPLY=($(compgen -W "model run provider day user account partition namespace" -- "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "totals focus" -- "${cur}"))
                    return 0
                    ;;
                --per)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__sync)
            opts="-o -h -V --output --json --config --help --version mlflow help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__sync__subcmd__help)
            opts="mlflow help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__sync__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__sync__subcmd__help__subcmd__mlflow)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 4 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__sync__subcmd__mlflow)
            opts="-o -h -V --db --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --db)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        exa__subcmd__validate)
            opts="-o -h -V --trace --reference --offset --max-offset --window --html --output --json --config --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --trace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reference)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-offset)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --html)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -W "table json csv" -- "${cur}"))
                    return 0
                    ;;
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _exa -o nosort -o bashdefault -o default exa
else
    complete -F _exa -o bashdefault -o default exa
fi
