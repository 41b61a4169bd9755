# shellcheck shell=bash
# The two-host suite (SUITE=netns, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# ------------------------------------------------------------ two-host tests
# Rank 0 and rank 1 in different network namespaces joined by a veth pair
# (test/netns/hosts.sh), launched through test/netns/run.sh: MPICH sees two
# nodes, so every notification crosses tcp;ofi_rxm on a real (virtual) wire.
# test/netns/where checks that placement: one namespace and one node per rank.
NETNS_TESTS=("test/netns/where" "examples/pingpong_notify 4096 20" "nonovertaking"
    "ordered_mix" "put_get_complete" "eager_path" "rma_mix")
NETNS_HOSTS=$TOP/test/netns/hosts.sh    # global: the EXIT trap runs after the function

run_netns_suite() {
    echo "== two hosts: network namespaces, tcp;ofi_rxm over veth (test/netns/) =="
    local hosts=$NETNS_HOSTS hlog=$OUT/logs/netns-hosts.log
    local -a sel=()
    local entry name args
    for entry in "${NETNS_TESTS[@]}"; do
        read -r name args <<<"$entry"
        [[ $name =~ $TESTS ]] && sel+=("$entry")
    done
    [ ${#sel[@]} -gt 0 ] || return 0
    if [ "$DEVICE" != ch4:ofi ]; then
        skip "netns (${#sel[@]} tests)" "$DEVICE build: the two-host tests check the libfabric path"
        return 0
    fi

    local rc=0
    "$hosts" up >"$hlog" 2>&1 || rc=$?
    if [ $rc -eq 77 ]; then
        skip "netns (${#sel[@]} tests)" "$(tail -n 1 "$hlog")"
        return 0
    elif [ $rc -ne 0 ]; then
        fail "netns hosts up" "exit $rc" "$hlog"
        return 0
    fi
    # the namespaces must not outlive the suite, even on ^C
    trap '"$NETNS_HOSTS" down >/dev/null 2>&1' EXIT
    trap 'exit 130' INT TERM

    local bin src t=$((60 * SCALE)) variant envs id log start el
    # shellcheck disable=SC2034
    local MPIEXEC_CMD=$TOP/test/netns/run.sh    # seen by run_mpi (dynamic scope)
    for entry in "${sel[@]}"; do
        read -r name args <<<"$entry"
        bin=$OUT/bin/${name//\//_}
        src=$(test_src "$name")
        # reuse the notify part's binary unless it is older than its sources
        # or the installed library (MPICH may have been reinstalled since)
        if ! { [ "$bin" -nt "$src" ] && [ "$bin" -nt "$TOP/test/na_test.h" ] &&
            [ "$bin" -nt "$PREFIX/lib/libmpi.so" ]; }; then
            compile_prog "$name" ||
                { fail "netns/$name (compile)" "" "$OUT/logs/${name//\//_}.compile.log"; continue; }
        fi
        for variant in netns netns-am netns-cmpl; do
            envs="$(config_env $variant) NA_EXPECT_PATH=$(config_path $variant)"
            id="$name -n 2 [$variant]"
            log=$OUT/logs/${name//\//_}.n2.$variant.log
            start=$(date +%s)
            # shellcheck disable=SC2086
            run_mpi "$log" "$t" "$envs" 2 "$bin" $args
            rc=$? el=$(( $(date +%s) - start ))
            verdict "$id" "$log" $rc "$el" "$t"
        done
    done
    "$hosts" down >>"$hlog" 2>&1 || fail "netns hosts down" "" "$hlog"
    trap - EXIT INT TERM
}
