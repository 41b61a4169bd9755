#!/usr/bin/env bash
# natrace's test, on natrace built from this tree with PREFIX's mpicc into
# OUTDIR/prefix (scripts/build-natrace.sh PREFIX OUTDIR/prefix):
#
#   - test/tools/natrace_prog.c on 2 ranks under the launcher (mpiexec natrace
#     PROG), its traces checked by test/tools/natrace_check.py (--prog
#     natrace_prog) and drawn by natrace-plot;
#   - the launcher: a relative NATRACE_LIB made absolute, a missing one
#     refused with a message before the program runs;
#   - Fortran: test/tools/natrace_prog.F90 through "use mpi_f08", "use mpi" and
#     mpif.h, traced and checked as the C program (skipped, saying so,
#     without a Fortran MPICH);
#   - what natrace cannot see (test/tools/natrace_unseen.c: MPI started by
#     PMPI_Init, on 2 ranks; an exit without MPI_Finalize, on 1): one line
#     on standard error saying so, from rank 0 only, and no trace;
#   - natrace-plot's layout (test/tools/natrace_plot_check.py: each mark on its
#     own rank's row, 2,000 arrivals thinned, saying so);
#   - the man page: doc/man/natrace.md renders as natrace(1), with
#     natrace-plot(1) sourcing it.
#
#   test/tools/natrace.sh PREFIX OUTDIR [VAR=VALUE...]
#
# Without VAR=VALUE: the C program once per transport configuration of
# test/harness/transports (ch4:ofi: shm and tcp; ch4:ucx: shm and ucx-tcp), each with
# its path checked, traces in OUTDIR/CONFIG; then the rest.  With them: only
# the C program, in that environment, any path, traces in OUTDIR.  The plots
# are skipped, saying so, when no python3 has matplotlib.  Prints
# PASS/FAIL/SKIP lines; exits 1 if any part failed.
set -uo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 PREFIX OUTDIR [VAR=VALUE...]" >&2
    exit 2
fi
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PREFIX=$(cd "$1" && pwd) || exit 2
OUTDIR=$2
shift 2
for f in "$PREFIX/bin/mpicc" "$PREFIX/bin/mpiexec"; do
    if [ ! -e "$f" ]; then
        echo "natrace.sh: $f is missing (no MPICH in $PREFIX)" >&2
        exit 2
    fi
done
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
# shellcheck disable=SC1091 # test/harness/transports.sh, checked on its own
. "$TOP/test/harness/transports.sh"

failed=0
fail() { echo "FAIL  natrace $1: $2"; failed=1; }

NA=$OUTDIR/prefix
if ! env TOP="$TOP" bash "$TOP/scripts/build-natrace.sh" "$PREFIX" "$NA" >"$OUTDIR/build.log" 2>&1; then
    cat "$OUTDIR/build.log"
    fail build "scripts/build-natrace.sh $PREFIX $NA failed"
    exit 1
fi
NATRACE=$NA/bin/natrace
PLOT=$NA/bin/natrace-plot

PROG=$OUTDIR/natrace_prog
if ! "$PREFIX/bin/mpicc" -std=gnu11 -O2 -Wall -Werror -I"$TOP/test" -o "$PROG" \
    "$TOP/test/tools/natrace_prog.c" >"$OUTDIR/compile.log" 2>&1; then
    cat "$OUTDIR/compile.log"
    fail compile "test/tools/natrace_prog.c does not compile"
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

# run_one NAME DIR EXPECTED-PATH PROGRAM ENV...: PROGRAM on 2 ranks under
# the launcher, its traces checked and drawn
run_one() {
    local name=$1 dir=$2 path=$3 prog=$4; shift 4
    local log=$dir/run.log
    mkdir -p "$dir"
    rm -f "$dir"/natrace.*.json "$dir/natrace.png"   # nothing left from an earlier run
    if ! env "$@" MPIEXEC_TIMEOUT=60 timeout 75 \
        "$PREFIX/bin/mpiexec" -n 2 "$NATRACE" -d "$dir" "$prog" >"$log" 2>&1; then
        tail -n 20 "$log"
        fail "$name" "$(basename "$prog") failed (exit status above, log $log)"
        return
    fi
    if ! grep -q "No Errors" "$log"; then
        tail -n 20 "$log"
        fail "$name" "$(basename "$prog") did not print 'No Errors'"
        return
    fi
    if ! python3 "$TOP/test/tools/natrace_check.py" --prog natrace_prog ${path:+--path "$path"} \
        "$dir" >"$dir/check.log" 2>&1; then
        cat "$dir/check.log"
        fail "$name" "the traces are not as expected"
        return
    fi
    echo "PASS  natrace $name: $(cat "$dir/check.log")"
    [[ $name = fortran-use-mpi || $name = fortran-mpif-h ]] && return   # one Fortran plot is enough
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
    run_one "$*" "$OUTDIR" "" "$PROG" "$@"
    exit $failed
fi

device=$("$PREFIX/bin/mpichversion" 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
case "$device" in
    ch4:ucx*) configs="shm ucx-tcp" ;;
    *) configs="shm tcp" ;;
esac
for c in $configs; do
    envs=$(transport_env "$c") || { fail "$c" "not in test/harness/transports"; continue; }
    path=$(transport_path "$c")
    # shellcheck disable=SC2086 # the table's VAR=VALUE words
    run_one "$c" "$OUTDIR/$c" "${path%%/*}" "$PROG" $envs
done

# ---- the launcher: ld.so ignores a preload it cannot open, natrace must not
lc=$OUTDIR/launcher
mkdir -p "$lc"
# shellcheck disable=SC2016 # the launched shell's $LD_PRELOAD
if got=$(cd "$NA" && NATRACE_LIB=lib/libnatrace.so.0 "$NATRACE" sh -c 'echo "$LD_PRELOAD"' 2>&1) &&
    [ "$got" = "$NA/lib/libnatrace.so.0" ]; then
    echo "PASS  natrace launcher relative NATRACE_LIB: preloads $got"
else
    fail "launcher relative NATRACE_LIB" "LD_PRELOAD=$got, expected $NA/lib/libnatrace.so.0"
fi
(cd "$lc" && NATRACE_LIB=lib/libnatrace.so "$PREFIX/bin/mpiexec" -n 2 "$NATRACE" "$PROG") \
    >"$lc/missing.out" 2>"$lc/missing.err"
rc=$?
if [ $rc = 2 ] && grep -q "^natrace: $lc/lib/libnatrace.so (NATRACE_LIB=lib/libnatrace.so): no such readable file" \
    "$lc/missing.err" && ! grep -q "No Errors" "$lc/missing.out"; then
    echo "PASS  natrace launcher missing NATRACE_LIB: refused, exit status 2, saying so"
else
    cat "$lc/missing.out" "$lc/missing.err"
    fail "launcher missing NATRACE_LIB" "exit status $rc (expected 2, a message, the program not run)"
fi

# ---- Fortran: mpi_f08 calls PMPI_* itself, "use mpi" and mpif.h the C functions
if [[ $("$PREFIX/bin/mpichversion") == *--disable-fortran* ]] || [ ! -x "$PREFIX/bin/mpifort" ]; then
    echo "SKIP  natrace fortran: MPICH in $PREFIX has no Fortran (configured --disable-fortran)"
else
    for variant in f08 use-mpi mpif-h; do
        flags=()
        [ $variant = use-mpi ] && flags=(-DUSE_MPI)
        [ $variant = mpif-h ] && flags=(-DUSE_MPIF_H)
        if ! "$PREFIX/bin/mpifort" -Wall "${flags[@]}" -o "$OUTDIR/natrace_prog_$variant" \
            "$TOP/test/tools/natrace_prog.F90" >"$OUTDIR/compile-$variant.log" 2>&1; then
            cat "$OUTDIR/compile-$variant.log"
            fail "fortran-$variant" "test/tools/natrace_prog.F90 does not compile"
            continue
        fi
        run_one "fortran-$variant" "$OUTDIR/fortran-$variant" "" "$OUTDIR/natrace_prog_$variant"
    done
fi

# ---- what natrace cannot see: one line from rank 0, no trace
UNSEEN=$OUTDIR/natrace_unseen
if ! "$PREFIX/bin/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$UNSEEN" "$TOP/test/tools/natrace_unseen.c" \
    >"$OUTDIR/compile-unseen.log" 2>&1; then
    cat "$OUTDIR/compile-unseen.log"
    fail unseen "test/tools/natrace_unseen.c does not compile"
else
    # pmpi on 2 ranks: one line, rank 0's; nofinalize on 1, since hydra may
    # end the other ranks of a job one of whose processes exits without
    # MPI_Finalize, rank 0 among them (its exit status is then hydra's too)
    for mode in pmpi nofinalize; do
        case $mode in
            pmpi) np=2 want="natrace: this program initialized MPI without MPI_Init or MPI_Init_thread" ;;
            nofinalize) np=1 want="natrace: rank 0 exited without MPI_Finalize: no trace written" ;;
        esac
        d=$OUTDIR/unseen-$mode
        rm -rf "$d"
        MPIEXEC_TIMEOUT=60 timeout 75 "$PREFIX/bin/mpiexec" -n "$np" "$NATRACE" -d "$d" "$UNSEEN" "$mode" \
            >"$OUTDIR/unseen-$mode.out" 2>"$OUTDIR/unseen-$mode.err"
        rc=$?
        [ $mode = nofinalize ] && [ $rc != 124 ] && rc=0
        n=$(grep -c "^natrace: " "$OUTDIR/unseen-$mode.err")
        if [ $rc = 0 ] && grep -q "No Errors" "$OUTDIR/unseen-$mode.out" && [ "$n" = 1 ] &&
            grep -q "^$want" "$OUTDIR/unseen-$mode.err" && ! compgen -G "$d/natrace.*.json" >/dev/null; then
            echo "PASS  natrace unseen $mode: no trace, one line: $(cat "$OUTDIR/unseen-$mode.err")"
        else
            cat "$OUTDIR/unseen-$mode.out" "$OUTDIR/unseen-$mode.err"
            fail "unseen $mode" "exit status $rc, $n natrace lines (expected 0, 1: '$want...'), no trace"
        fi
    done
fi

# ---- natrace-plot's layout (drawn too where matplotlib is)
if out=$(${PY:-python3} "$TOP/test/tools/natrace_plot_check.py" "$PLOT" "$OUTDIR/shm" \
    ${PY:+"$OUTDIR/plot-check"} 2>&1); then
    echo "PASS  natrace plot layout: $out"
else
    echo "$out"
    fail "plot layout" "natrace-plot does not put things where they belong"
fi

# ---- the man page: a command's, in section 1
man=$OUTDIR/man
rm -rf "$man"
if ! python3 "$TOP/scripts/md2man.py" "$man" "$TOP/doc/man/natrace.md" >"$OUTDIR/man.log" 2>&1; then
    cat "$OUTDIR/man.log"
    fail man "scripts/md2man.py doc/man/natrace.md failed"
elif [ ! -f "$man/man1/natrace.1" ] || [ "$(cat "$man/man1/natrace-plot.1" 2>/dev/null)" != ".so man1/natrace.1" ] ||
    ! head -n 1 "$man/man1/natrace.1" | grep -q '^\.TH natrace 1 '; then
    ls -R "$man"
    fail man "no man1/natrace.1 (.TH natrace 1) with man1/natrace-plot.1 sourcing it"
else
    echo "PASS  natrace man: man1/natrace.1, man1/natrace-plot.1 (.so man1/natrace.1)"
fi
exit $failed
