# shellcheck shell=bash
# The notify suite (SUITE=notify, all): every line of test/harness/testlist
# on every configuration.
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

run_notify_suite() {
    echo "== Notified Access tests (configs: $CONFIGS) =="
    local -a lines=()
    while IFS= read -r line; do
        case "$line" in ''|'#'*) continue ;; esac
        lines+=("$line")
    done <"$TOP/test/harness/testlist"

    # compile each program once, as many at a time as there are cores
    local name bin jobs=0
    declare -A built=()
    local -a names=()
    for line in "${lines[@]}"; do
        name=${line%% *}
        [[ $name =~ $TESTS ]] || continue
        [ -n "${built[$name]:-}" ] && continue
        built[$name]=fail
        names+=("$name")
        local libs
        libs=$(sed -n 's/.*libs=\([^ ]*\).*/\1/p' <<<"$line" | tr ',' ' ')
        rm -f "$OUT/bin/${name//\//_}.ok"
        # shellcheck disable=SC2086
        { compile_prog "$name" $libs && : >"$OUT/bin/${name//\//_}.ok"; } &
        if [ $((++jobs)) -ge "$(nproc)" ]; then wait -n || true; jobs=$((jobs - 1)); fi
    done
    wait
    for name in "${names[@]}"; do
        if [ -f "$OUT/bin/${name//\//_}.ok" ]; then
            built[$name]=ok
        else
            fail "$name (compile)" "" "$OUT/logs/${name//\//_}.compile.log"
        fi
    done

    local cfg np t cfgs args envs id log start run_no=0
    IFS=',' read -r -a cfglist <<<"$CONFIGS"
    for line in "${lines[@]}"; do
        read -r name np rest <<<"$line"
        [[ $name =~ $TESTS ]] || continue
        [ "${built[$name]}" = ok ] || continue
        t=60 cfgs="" args="" extra_env="" path="" line_path="" logre="" devs="" novar=""
        while [ -n "$rest" ]; do
            case "$rest" in
                timeout=*) t=${rest#timeout=}; t=${t%% *} ;;
                devices=*) devs=${rest#devices=}; devs=${devs%% *} ;;
                skip-variants=*) novar=${rest#skip-variants=}; novar=${novar%% *} ;;
                configs=*) cfgs=${rest#configs=}; cfgs=${cfgs%% *} ;;
                env=*) v=${rest#env=}; extra_env="$extra_env ${v%% *}" ;;
                path=*) line_path=${rest#path=}; line_path=${line_path%% *} ;;
                log=*) logre=${rest#log=}; logre=${logre%% *} ;;
                libs=*) ;;
                args=*) args=${rest#args=}; rest=""; continue ;;
            esac
            [[ $rest == *" "* ]] && rest=${rest#* } || rest=""
        done
        if [ -n "$devs" ] && [[ ",$devs," != *",$DEVICE,"* ]]; then continue; fi
        if [ -n "$VARIANT" ] && [[ ",$novar," == *",$VARIANT,"* ]]; then continue; fi
        t=$((t * SCALE))
        bin=$OUT/bin/${name//\//_}
        for cfg in "${cfglist[@]}"; do
            id="$name -n $np [$cfg]${extra_env:+ }${extra_env# }"
            run_no=$((run_no + 1))
            if [ -n "$cfgs" ] && [[ ",$cfgs," != *",$cfg,"* ]]; then continue; fi
            if ! envs=$(config_env "$cfg"); then fail "$id" "unknown configuration $cfg"; continue; fi
            envs="$envs$extra_env"
            path=${line_path:-$(config_path "$cfg")}
            [ -n "$path" ] && envs="$envs NA_EXPECT_PATH=$path"
            [ -n "$logre" ] && envs="$envs MPIR_CVAR_NOTIFY_VERBOSE=1"
            log=$OUT/logs/${name//\//_}.n$np.$cfg.$run_no.log
            start=$(date +%s)
            # shellcheck disable=SC2086
            run_mpi "$log" "$t" "$envs" "$np" "$bin" $args
            local rc=$? el=$(( $(date +%s) - start ))
            verdict "$id" "$log" $rc "$el" "$t" "$logre" "no '$logre' in the verbose output"
        done
    done
}
