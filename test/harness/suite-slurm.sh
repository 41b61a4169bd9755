# shellcheck shell=bash
# The Slurm suite (SUITE=slurm, all): jobs started by a real batch system.
# Sourced by test/run-suite.sh after test/harness/lib.sh and suite-netns.sh
# (NETNS_TESTS: the cross-host part of the notify suite).
#
# test/slurm/cluster.sh makes a two-node cluster (Debian's slurmctld, a
# slurmd per namespace host, munge) and takes it down again.  From the login
# node na-h1 every program runs twice: started by srun (Slurm's PMI-2
# plugin, which MPICH's PMI client speaks) and by mpiexec inside an salloc
# allocation (hydra takes the nodes from Slurm and starts its proxies with
# srun).  Then the guide's Slurm commands run as written
# (test/slurm/guide.sh).
SLURM_CLUSTER=$TOP/test/slurm/cluster.sh    # global: the EXIT trap runs after the function

run_slurm_suite() {
    echo "== Slurm: a two-node cluster on the namespace hosts (test/slurm/) =="
    local -a sel=()
    local entry name args
    for entry in "${NETNS_TESTS[@]}" "bench/cholesky -nt 8 -b 32 -reps 1 -modes na,mp,os"; do
        read -r name args <<<"$entry"
        [[ slurm/$name =~ $TESTS ]] && sel+=("$entry")
    done
    local guide=0
    [[ slurm/guide =~ $TESTS ]] && guide=1
    [ ${#sel[@]} -gt 0 ] || [ $guide = 1 ] || return 0
    if [ "$DEVICE" != ch4:ofi ]; then
        skip "slurm" "$DEVICE build: the cluster tests check the libfabric path"
        return 0
    fi

    local clog=$OUT/logs/slurm-cluster.log rc=0
    "$SLURM_CLUSTER" up >"$clog" 2>&1 || rc=$?
    if [ $rc -eq 77 ]; then
        skip "slurm" "$(tail -n 1 "$clog")"
        return 0
    elif [ $rc -ne 0 ]; then
        fail "slurm cluster up" "exit $rc" "$clog"
        "$SLURM_CLUSTER" down >>"$clog" 2>&1
        return 0
    fi
    pass "slurm cluster up (slurmctld, 2 slurmd, munge)" 0
    trap '"$SLURM_CLUSTER" down >/dev/null 2>&1' EXIT
    trap 'exit 130' INT TERM

    local bin t=$((120 * SCALE)) launcher envs id log start el re
    # shellcheck disable=SC2034
    local MPIEXEC_CMD=$TOP/test/slurm/run.sh    # seen by run_mpi (dynamic scope)
    for entry in "${sel[@]}"; do
        read -r name args <<<"$entry"
        bin=$OUT/bin/${name//\//_}
        if [ "$name" = bench/cholesky ]; then
            "$MPICC" -O2 -o "$bin" "$TOP/bench/cholesky.c" -llapack -lblas -lm \
                >"$OUT/logs/bench_cholesky.compile.log" 2>&1
        elif ! { [ "$bin" -nt "$(test_src "$name")" ] && [ "$bin" -nt "$TOP/test/na_test.h" ] &&
            [ "$bin" -nt "$PREFIX/lib/libmpi.so" ]; }; then
            compile_prog "$name"
        fi || { fail "slurm/$name (compile)" "" "$OUT/logs/${name//\//_}.compile.log"; continue; }
        for launcher in srun mpiexec; do
            envs="$(config_env netns) NA_EXPECT_PATH=$(config_path netns) NA_SLURM_LAUNCHER=$launcher"
            id="slurm/$name -n 2 [$launcher]"
            log=$OUT/logs/slurm.${name//\//_}.$launcher.log
            start=$(date +%s)
            # shellcheck disable=SC2086
            (cd "$OUT" && run_mpi "$log" "$t" "$envs" 2 "$bin" $args)
            rc=$? el=$(( $(date +%s) - start ))
            # where: rank 1 of one job (not two singletons) on na-h2
            re=
            [ "$name" = test/netns/where ] && re='^rank 1: host na-h2,'
            verdict "$id" "$log" $rc "$el" "$t" "$re" "rank 1 is not on na-h2"
        done
    done
    if [ $guide = 1 ]; then
        run_checker slurm/guide "$OUT/logs/slurm.guide.log" \
            bash "$TOP/test/slurm/guide.sh" "$MPICC" "$OUT/slurm-guide" "$PREFIX"
    fi
    "$SLURM_CLUSTER" down >>"$clog" 2>&1 || fail "slurm cluster down" "" "$clog"
    trap - EXIT INT TERM
}
