#!/usr/bin/env bash
# natrace's test: test/natrace_prog.c run on 2 ranks under
# LD_PRELOAD=PREFIX/lib/libnatrace.so, its traces checked by
# test/natrace_check.py (--prog natrace_prog) and drawn by natrace-plot.
#
#   test/natrace.sh PREFIX OUTDIR [VAR=VALUE...]
#
# Without VAR=VALUE: once per transport configuration of test/transports
# (ch4:ofi: shm and tcp; ch4:ucx: shm and ucx-tcp), each with its path
# checked, traces in OUTDIR/CONFIG, then natrace-plot's layout checked by
# test/natrace_plot_check.py (each mark on its own rank's row, 2,000
# arrivals thinned, saying so).  With them: one run in that environment,
# any path, traces in OUTDIR.  PREFIX holds MPICH and natrace
# (scripts/build-natrace.sh PREFIX).  The plots are skipped, saying so, when
# no python3 has matplotlib.  Prints PASS/FAIL/SKIP lines; exits 1 if any
# part failed.
set -uo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 PREFIX OUTDIR [VAR=VALUE...]" >&2
    exit 2
fi
TOP=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=$(cd "$1" && pwd) || exit 2
OUTDIR=$2
shift 2
LIB=$PREFIX/lib/libnatrace.so
PLOT=$PREFIX/bin/natrace-plot
for f in "$PREFIX/bin/mpicc" "$PREFIX/bin/mpiexec" "$LIB" "$PLOT"; do
    if [ ! -e "$f" ]; then
        echo "natrace.sh: $f is missing (scripts/build-natrace.sh $PREFIX)" >&2
        exit 2
    fi
done
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
# shellcheck disable=SC1091 # test/transports.sh, checked on its own
. "$TOP/test/transports.sh"

failed=0
fail() { echo "FAIL  natrace $1: $2"; failed=1; }

PROG=$OUTDIR/natrace_prog
if ! "$PREFIX/bin/mpicc" -std=gnu11 -O2 -Wall -Werror -I"$TOP/test" -o "$PROG" \
    "$TOP/test/natrace_prog.c" >"$OUTDIR/compile.log" 2>&1; then
    cat "$OUTDIR/compile.log"
    fail compile "test/natrace_prog.c does not compile"
    exit 1
fi

# the plot needs matplotlib in some python3 (natrace-plot falls back to the
# system's /usr/bin/python3 when the first python3 lacks it)
PY=
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null && "$py" -c 'import matplotlib' 2>/dev/null; then
        PY=$py
        break
    fi
done

# run_one NAME DIR EXPECTED-PATH ENV...
run_one() {
    local name=$1 dir=$2 path=$3; shift 3
    local log=$dir/run.log
    mkdir -p "$dir"
    rm -f "$dir"/natrace.*.json "$dir/natrace.png"   # nothing left from an earlier run
    if ! env "$@" NATRACE_DIR="$dir" MPIEXEC_TIMEOUT=60 timeout 75 \
        "$PREFIX/bin/mpiexec" -n 2 env LD_PRELOAD="$LIB" "$PROG" >"$log" 2>&1; then
        tail -n 20 "$log"
        fail "$name" "natrace_prog failed (exit status above, log $log)"
        return
    fi
    if ! grep -q "No Errors" "$log"; then
        tail -n 20 "$log"
        fail "$name" "natrace_prog did not print 'No Errors'"
        return
    fi
    if ! python3 "$TOP/test/natrace_check.py" --prog natrace_prog ${path:+--path "$path"} \
        "$dir" >"$dir/check.log" 2>&1; then
        cat "$dir/check.log"
        fail "$name" "the traces are not as expected"
        return
    fi
    echo "PASS  natrace $name: $(cat "$dir/check.log")"
    if [ -z "$PY" ]; then
        echo "SKIP  natrace $name plot: no python3 with matplotlib (python3-matplotlib)"
        return
    fi
    if ! "$PLOT" -o "$dir/natrace.png" "$dir"/natrace.*.json >"$dir/plot.log" 2>&1; then
        cat "$dir/plot.log"
        fail "$name plot" "natrace-plot failed"
    elif [ ! -s "$dir/natrace.png" ]; then
        fail "$name plot" "$dir/natrace.png is missing or empty"
    else
        echo "PASS  natrace $name plot: $dir/natrace.png, $(wc -c <"$dir/natrace.png") bytes"
    fi
}

if [ $# -gt 0 ]; then
    run_one "$*" "$OUTDIR" "" "$@"
else
    device=$("$PREFIX/bin/mpichversion" 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
    case "$device" in
        ch4:ucx*) configs="shm ucx-tcp" ;;
        *) configs="shm tcp" ;;
    esac
    for c in $configs; do
        envs=$(transport_env "$c") || { fail "$c" "not in test/transports"; continue; }
        path=$(transport_path "$c")
        # shellcheck disable=SC2086 # the table's VAR=VALUE words
        run_one "$c" "$OUTDIR/$c" "${path%%/*}" $envs
    done
    # natrace-plot's layout (drawn too where matplotlib is)
    if out=$(${PY:-python3} "$TOP/test/natrace_plot_check.py" "$TOP/scripts/natrace-plot" "$OUTDIR/shm" \
        ${PY:+"$OUTDIR/plot-check"} 2>&1); then
        echo "PASS  natrace plot layout: $out"
    else
        echo "$out"
        fail "plot layout" "natrace-plot does not put things where they belong"
    fi
fi
exit $failed
