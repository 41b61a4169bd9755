#!/usr/bin/env bash
# The test suite: our Notified Access tests on every transport configuration,
# then a curated subset of MPICH's own test/mpi against the patched build.
#
#   SUITE=all|unit|notify|mpich   which part (default all)
#   CONFIGS=shm,tcp,...      transport configurations for our tests
#   TESTS=REGEX              only tests whose name matches
#   NA_TIMEOUT_SCALE=N       multiply every timeout (slow machines)
#
# Prints PASS/FAIL/SKIP per run and ends with "N passed, N failed, N skipped";
# exits non-zero if anything failed.
set -uo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}
PREFIX=${PREFIX:-$TOP/_install}
SUITE=${SUITE:-all}
CONFIGS=${CONFIGS:-shm,tcp,sockets,generic}
TESTS=${TESTS:-.}
SCALE=${NA_TIMEOUT_SCALE:-1}
MPICC=$PREFIX/bin/mpicc
MPIEXEC=$PREFIX/bin/mpiexec
OUT=$BUILD/tests
mkdir -p "$OUT/bin" "$OUT/logs"

if [ ! -x "$MPICC" ] || [ ! -x "$MPIEXEC" ]; then
    echo "run-suite: no patched MPICH installed in $PREFIX (run 'make' first)" >&2
    exit 2
fi

npass=0 nfail=0 nskip=0
failed=()
pass() { npass=$((npass + 1)); printf 'PASS  %-52s %5ss\n' "$1" "$2"; }
skip() { nskip=$((nskip + 1)); printf 'SKIP  %-52s (%s)\n' "$1" "$2"; }
fail() {
    nfail=$((nfail + 1)); failed+=("$1")
    printf 'FAIL  %-52s %s\n' "$1" "$2"
    if [ -n "${3:-}" ] && [ -f "$3" ]; then tail -n 15 "$3" | sed 's/^/      | /'; fi
}

# Environment of each transport configuration.  ch4:ofi always opens a
# libfabric provider; tcp;ofi_rxm works everywhere here, on loopback.
config_env() {
    case "$1" in
        shm) echo "FI_PROVIDER=tcp;ofi_rxm" ;;
        tcp) echo "MPIR_CVAR_NOLOCAL=1 FI_PROVIDER=tcp;ofi_rxm" ;;
        sockets) echo "MPIR_CVAR_NOLOCAL=1 FI_PROVIDER=sockets" ;;
        generic) echo "FI_PROVIDER=tcp;ofi_rxm MPIR_CVAR_NOTIFY_FORCE_GENERIC=1" ;;
        generic-tcp) echo "MPIR_CVAR_NOLOCAL=1 FI_PROVIDER=tcp;ofi_rxm MPIR_CVAR_NOTIFY_FORCE_GENERIC=1" ;;
        *) return 1 ;;
    esac
}

# run_mpi NAME LOG TIMEOUT ENV NP PROGRAM ARGS...: 0 on success, 124 on timeout
run_mpi() {
    local log=$1 t=$2 envs=$3 np=$4; shift 4
    local -a envarr=()
    IFS=' ' read -r -a envarr <<<"$envs"
    # MPIEXEC_TIMEOUT lets hydra kill the ranks itself; timeout(1) backs it up
    env "${envarr[@]}" MPIEXEC_TIMEOUT="$t" \
        timeout -k 10 $((t + 15)) "$MPIEXEC" -n "$np" "$@" >"$log" 2>&1
    local rc=$?
    # hydra reports its own time-out with exit status 255 and a message
    if grep -q "APPLICATION TIMED OUT\|timeout" "$log" 2>/dev/null && [ $rc -ne 0 ]; then rc=124; fi
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && pkill -KILL -f "$OUT/bin/" 2>/dev/null
    return $rc
}

run_notify_suite() {
    echo "== Notified Access tests (configs: $CONFIGS) =="
    local -a lines=()
    while IFS= read -r line; do
        case "$line" in ''|'#'*) continue ;; esac
        lines+=("$line")
    done <"$TOP/test/testlist"

    # compile each program once
    local name src bin
    declare -A built=()
    for line in "${lines[@]}"; do
        name=${line%% *}
        [[ $name =~ $TESTS ]] || continue
        [ -n "${built[$name]:-}" ] && continue
        case "$name" in
            */*) src=$TOP/$name.c ;;
            *) src=$TOP/test/$name.c ;;
        esac
        bin=$OUT/bin/${name//\//_}
        local libs
        libs=$(sed -n 's/.*libs=\([^ ]*\).*/\1/p' <<<"$line" | tr ',' ' ')
        # shellcheck disable=SC2086
        if "$MPICC" -std=gnu11 -O2 -Wall -Werror -pthread -I"$TOP/test" -o "$bin" "$src" $libs -lm \
            >"$OUT/logs/${name//\//_}.compile.log" 2>&1; then
            built[$name]=ok
        else
            built[$name]=fail
            fail "$name (compile)" "" "$OUT/logs/${name//\//_}.compile.log"
        fi
    done

    local cfg np t cfgs args envs id log start run_no=0
    IFS=',' read -r -a cfglist <<<"$CONFIGS"
    for line in "${lines[@]}"; do
        read -r name np rest <<<"$line"
        [[ $name =~ $TESTS ]] || continue
        [ "${built[$name]}" = ok ] || continue
        t=60 cfgs="" args="" extra_env=""
        while [ -n "$rest" ]; do
            case "$rest" in
                timeout=*) t=${rest#timeout=}; t=${t%% *} ;;
                configs=*) cfgs=${rest#configs=}; cfgs=${cfgs%% *} ;;
                env=*) v=${rest#env=}; extra_env="$extra_env ${v%% *}" ;;
                libs=*) ;;
                args=*) args=${rest#args=}; rest=""; continue ;;
            esac
            [[ $rest == *" "* ]] && rest=${rest#* } || rest=""
        done
        t=$((t * SCALE))
        bin=$OUT/bin/${name//\//_}
        for cfg in "${cfglist[@]}"; do
            id="$name -n $np [$cfg]${extra_env:+ }${extra_env# }"
            run_no=$((run_no + 1))
            if [ -n "$cfgs" ] && [[ ",$cfgs," != *",$cfg,"* ]]; then continue; fi
            if ! envs=$(config_env "$cfg"); then fail "$id" "unknown configuration $cfg"; continue; fi
            envs="$envs$extra_env"
            log=$OUT/logs/${name//\//_}.n$np.$cfg.$run_no.log
            start=$(date +%s)
            # shellcheck disable=SC2086
            run_mpi "$log" "$t" "$envs" "$np" "$bin" $args
            local rc=$? el=$(( $(date +%s) - start ))
            if [ $rc -eq 0 ] && grep -q '^No Errors' "$log"; then
                pass "$id" "$el"
            elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
                fail "$id" "TIMEOUT after ${t}s (hang)" "$log"
            else
                fail "$id" "exit $rc after ${el}s" "$log"
            fi
        done
    done
}

# ------------------------------------------------------------------ unit tests
# Code that can be exercised without MPI, with sanitizers on.
run_unit_suite() {
    echo "== unit tests (ThreadSanitizer) =="
    local bin=$OUT/bin/ring_stress log=$OUT/logs/ring_stress.log
    [[ ring_stress =~ $TESTS ]] || return 0
    if ! cc -std=gnu11 -O1 -g -fsanitize=thread -pthread \
        -I"$TOP/src/mpid/ch4/shm/posix" -o "$bin" "$TOP/test/unit/ring_stress.c" \
        >"$OUT/logs/ring_stress.compile.log" 2>&1; then
        fail "unit/ring_stress (compile)" "" "$OUT/logs/ring_stress.compile.log"
        return
    fi
    local args start rc
    for args in "8 20000 4" "3 20000 2" "8 20000 256"; do
        start=$(date +%s)
        # shellcheck disable=SC2086
        TSAN_OPTIONS="halt_on_error=1" timeout -k 5 $((120 * SCALE)) "$bin" $args >"$log" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q '^No Errors' "$log"; then
            pass "unit/ring_stress $args [tsan]" "$(( $(date +%s) - start ))"
        else
            fail "unit/ring_stress $args [tsan]" "exit $rc" "$log"
        fi
    done
}

# The build refuses sources it cannot trust, with a message saying why.
run_build_checks() {
    echo "== build script checks =="
    [[ build_source =~ $TESTS ]] || return 0
    local tmp=$OUT/buildcheck log=$OUT/logs/build_source.log
    rm -rf "$tmp"; mkdir -p "$tmp/notmpich"
    echo junk | xz >"$tmp/bogus.tar.xz"
    local what src want
    for what in mismatch missing notmpich; do
        case $what in
            mismatch) src=$tmp/bogus.tar.xz; want="checksum mismatch" ;;
            missing) src=$tmp/nonexistent.tar.xz; want="does not exist" ;;
            notmpich) src=$tmp/notmpich; want="not an MPICH source directory" ;;
        esac
        if TOP="$TOP" BUILD_DIR="$tmp/build" PREFIX="$tmp/install" MPICH_SOURCE="$src" \
            bash "$TOP/scripts/build-mpich.sh" >"$log" 2>&1; then
            fail "build_source $what" "build-mpich.sh accepted a bad source" "$log"
        elif grep -q "$want" "$log"; then
            pass "build_source $what" 0
        else
            fail "build_source $what" "no '$want' message" "$log"
        fi
    done
}

# ------------------------------------------------------------------ MPICH tests
run_mpich_suite() {
    local tdir=$BUILD/mpich-obj/test/mpi srcdir=$BUILD/mpich-src/test/mpi
    echo "== MPICH regression subset (test/mpich-regression.txt) =="
    if [ ! -f "$tdir/Makefile" ]; then
        fail "mpich-regression" "MPICH's test/mpi is not configured in $tdir"
        return
    fi
    if ! make -C "$tdir/util" >"$OUT/logs/mpich-util.log" 2>&1; then
        fail "mpich-regression (libmtest)" "" "$OUT/logs/mpich-util.log"
        return
    fi
    local dirs
    dirs=$(awk '!/^#/ && NF {print $1}' "$TOP/test/mpich-regression.txt" | sort -u)
    for d in $dirs; do
        # runtests takes a testlist file per directory: write ours there
        awk -v d="$d" '!/^#/ && NF && $1 == d { $1 = ""; sub(/^ /, ""); print }' \
            "$TOP/test/mpich-regression.txt" | grep -E "$TESTS" >"$tdir/$d/testlist.na" || true
        [ -s "$tdir/$d/testlist.na" ] || continue
        local tap=$OUT/logs/mpich-$d.tap
        rm -f "$tap"
        (cd "$tdir" && env "FI_PROVIDER=tcp;ofi_rxm" MPITEST_TIMEOUT=$((60 * SCALE)) \
            ./runtests -srcdir="$srcdir" -tests=testlist.na -testdirs="$d" -maxnp=4 \
            -tapfile="$tap" -mpiexec="$MPIEXEC" >"$OUT/logs/mpich-$d.log" 2>&1)
        if [ ! -s "$tap" ]; then
            fail "mpich/$d" "runtests produced no results" "$OUT/logs/mpich-$d.log"
            continue
        fi
        # TAP lines: "ok N - ./DIR/NAME NP [args] # time=SECONDS"
        local status rest name secs
        while IFS= read -r l; do
            case "$l" in
                "not ok "*) status=fail; rest=${l#not ok } ;;
                "ok "*) status=pass; rest=${l#ok } ;;
                *) continue ;;
            esac
            rest=${rest#* - ./}
            name=${rest%% # *}
            secs=$(sed -n 's/.*# time=\([0-9]*\).*/\1/p' <<<"$rest")
            case "$l" in *"# SKIP"*) status=skip ;; esac
            case $status in
                pass) pass "mpich/$name" "${secs:--}" ;;
                skip) skip "mpich/$name" "runtests skip" ;;
                fail) fail "mpich/$name" "(output in ${OUT#$TOP/}/logs/mpich-$d.log)" ;;
            esac
        done <"$tap"
    done
}

start_all=$(date +%s)
case "$SUITE" in
    all) run_unit_suite; run_build_checks; run_notify_suite; run_mpich_suite ;;
    unit) run_unit_suite; run_build_checks ;;
    notify) run_notify_suite ;;
    mpich) run_mpich_suite ;;
    *) echo "run-suite: SUITE must be all, unit, notify or mpich" >&2; exit 2 ;;
esac

echo
if [ $nfail -gt 0 ]; then
    echo "Failed:"
    printf '  %s\n' "${failed[@]}"
fi
echo "suite time: $(( $(date +%s) - start_all ))s; logs in ${OUT#$TOP/}/logs"
echo "$npass passed, $nfail failed, $nskip skipped"
[ $nfail -eq 0 ]
