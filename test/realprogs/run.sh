#!/usr/bin/env bash
# Real MPICH programs, unchanged (issue 63): programs Debian builds against
# its libmpich12 (stock MPICH 4.0.2) run on Debian's library ("stock") and on
# ours ("ours": the project's lib/ under Debian's library names, first on
# LD_LIBRARY_PATH), on shm and tcp,
# at 2 and 4 ranks, launched by the project's mpiexec; their own checks
# decide, and their answers must be the same on both libraries.
#   a) ScaLAPACK's testers (scalapack-mpi-test, the MPICH builds): LU, LLt,
#      QR, inversion, least squares and the BLACS tester at 2 ranks; LU, QR
#      and the BLACS tester at 4; small inputs
#   b) NetPIPE (netpipe-mpich2): its integrity check up to 768 KiB, then
#      latency and bandwidth up to 1 MiB
#   c) parallel HDF5 through ROMIO: test/realprogs/h5_rw.c built with
#      Debian's h5pcc (libhdf5-mpich-dev), a collective write, reopen, read
#      back and check
#   and test/realprogs/startup.c (MPI_Init, an allreduce, MPI_Finalize), so
#   that the table tells a job's start-up from the programs' own work
#
#   test/realprogs/run.sh           (root to install the packages; after make)
#
# Settings: PREFIX (default _install), OUT (default _build/realprogs),
# REALPROGS_CONFIGS (default shm,tcp), REALPROGS_NPS (default "2 4"),
# REALPROGS_REPEAT=N (runs of each program on each library, alternating, for
# the timing table; default 1), REALPROGS_NO_INSTALL=1 (never apt-get),
# NA_TIMEOUT_SCALE.
#
# Prints "PASS  ID  SECONDSs", "FAIL  ID: REASON" (and the log's tail) or
# "SKIP  ID: REASON" per run, then a table stock vs ours.  Exit 0 if all
# passed, 1 if anything failed, 77 if nothing could run (the reason in a
# SKIP line).  Timing is reported, never judged.
set -uo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
PREFIX=${PREFIX:-$TOP/_install}
OUT=${OUT:-$TOP/_build/realprogs}
CONFIGS=${REALPROGS_CONFIGS:-shm,tcp}
NPS=${REALPROGS_NPS:-2 4}
REPEAT=${REALPROGS_REPEAT:-1}
SCALE=${NA_TIMEOUT_SCALE:-1}
MPIEXEC=$PREFIX/bin/mpiexec
MULTIARCH=/usr/lib/x86_64-linux-gnu
STOCK_LIB=$MULTIARCH/libmpich.so.12
SCALAPACK=$MULTIARCH/scalapack/mpich-tests
PKGS=(scalapack-mpi-test netpipe-mpich2 libhdf5-mpich-dev hdf5-tools)

nfail=0
pass() { printf 'PASS  %s  %ss\n' "$1" "$2"; }
fail() {
    nfail=$((nfail + 1))
    printf 'FAIL  %s: %s\n' "$1" "$2"
    if [ -n "${3:-}" ] && [ -f "$3" ]; then tail -n 12 "$3" | sed 's/^/      | /'; fi
}
skip() { printf 'SKIP  %s: %s\n' "$1" "$2"; }
skip_all() { skip realprogs "$1"; exit 77; }

[ -x "$MPIEXEC" ] && [ -e "$PREFIX/lib/libmpi.so.12" ] ||
    skip_all "no MPICH installed in $PREFIX (run make)"
. "$TOP/test/harness/transports.sh"

# ------------------------------------------------------------ packages
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for p in "${PKGS[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    [ "${REALPROGS_NO_INSTALL:-0}" = 1 ] && skip_all "not installed: ${missing[*]} (REALPROGS_NO_INSTALL=1)"
    [ "$(id -u)" = 0 ] || skip_all "not installed: ${missing[*]}, and apt-get needs root"
    command -v apt-get >/dev/null || skip_all "not installed: ${missing[*]}, and no apt-get"
    mkdir -p "$OUT"
    export DEBIAN_FRONTEND=noninteractive
    echo "realprogs: apt-get install ${missing[*]}"
    # timeout: a stuck mirror must not hang the suite
    if ! timeout 600 apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$OUT/apt.log" 2>&1; then
        timeout 300 apt-get update -qq >>"$OUT/apt.log" 2>&1
        timeout 600 apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$OUT/apt.log" 2>&1 ||
            skip_all "apt-get could not install ${missing[*]} (${OUT#$TOP/}/apt.log)"
    fi
fi
# libscalapack-mpich2.2 depends on mpi-default-bin, that is Open MPI's
# mpirun, whose alternatives outrank MPICH's: /usr/bin/mpicc and mpiexec would
# become Open MPI's, which test/packaging/deb-install.sh (make deb) does not expect.
# Left on automatic choice, point them back at MPICH.
for alt in mpi:mpicc.mpich mpirun:mpirun.mpich; do
    name=${alt%%:*} want=/usr/bin/${alt#*:}
    q=$(update-alternatives --query "$name" 2>/dev/null) || continue
    if grep -q '^Status: auto' <<<"$q" && grep -q '^Value: .*openmpi' <<<"$q" &&
        grep -qx "Alternative: $want" <<<"$q" && [ "$(id -u)" = 0 ]; then
        update-alternatives --set "$name" "$want" >/dev/null 2>&1 &&
            echo "realprogs: /usr/bin alternative '$name' set back to $want (Open MPI came with ScaLAPACK)"
    fi
done

# The stock side must be Debian's own library: the project's .debs (make deb)
# install a libmpich12 of their own there, with Notified Access in it.
v=$(dpkg-query -W -f='${Version}' libmpich12 2>/dev/null)
[ -e "$STOCK_LIB" ] || skip_all "no $STOCK_LIB (Debian's libmpich12)"
case "$v" in *+na*) skip_all "libmpich12 $v is the project's own package (make deb), not Debian's: nothing stock to compare with" ;; esac

# ------------------------------------------------------------ the two libraries
# Debian renames MPICH's libraries (libmpich.so.12, libmpichfort.so.12,
# libmpichcxx.so.12); a program built there asks for those names, which an
# MPICH built from source does not install (it has libmpi.so.12 and
# libmpifort.so.12, the same ABI).  Ours is given under Debian's names in a
# directory of symbolic links, first on LD_LIBRARY_PATH, then PREFIX/lib.
SHIM=$OUT/lib-ours
rm -rf "$SHIM"; mkdir -p "$SHIM" "$OUT/bin" "$OUT/logs" "$OUT/answers"
for pair in libmpich.so.12:libmpi.so.12 libmpichfort.so.12:libmpifort.so.12 \
    libmpichcxx.so.12:libmpicxx.so.12; do
    deb=${pair%%:*} src=${pair#*:}
    if [ -e "$PREFIX/lib/$deb" ]; then continue; fi   # already under Debian's name
    [ -e "$PREFIX/lib/$src" ] && ln -s "$PREFIX/lib/$src" "$SHIM/$deb"
done
LD_OURS=$SHIM:$PREFIX/lib
lib_env() { [ "$1" = ours ] && echo "$LD_OURS"; }

# env_of LIB CFG NP: a configuration's environment (test/harness/transports), for
# both libraries.  Debian builds ch4:ucx (ours is ch4:ofi), which ignores
# FI_PROVIDER and has no shared-memory module of its own: over tcp its UCX
# must use tcp too (UCX_TLS=tcp,self), not UCX's shared memory.  Except at
# more than 2 ranks: there Debian's library hangs in MPI_Finalize over UCX
# tcp in most runs (the finalize order patches/fixes/0002 fixes here), so
# it keeps UCX's own transports (its "tcp" rows are then not over tcp).
env_of() {
    local envs
    envs=$(transport_env "$2") || return 1
    if [ "$2" = tcp ] && { [ "$1" = ours ] || [ "$3" -le 2 ]; }; then
        envs="$envs UCX_TLS=tcp,self"
    fi
    echo "$envs"
}

# which file each MPICH library of PROGRAM resolves to on library LIB
# (ldd: the same search the loader does at run time)
check_resolution() {    # LIB PROGRAM: prints what is wrong, if anything
    local lib=$1 prog=$2 ldp line n=0 bad=""
    ldp=$(lib_env "$lib")
    while read -r line; do
        local name=${line%% *} path
        path=$(awk '{print $3}' <<<"$line")
        path=$(readlink -f "$path" 2>/dev/null || echo "$path")
        n=$((n + 1))
        if [ "$lib" = ours ] && [ "$name" = libmpichfort.so.12 ] && [ ! -e "$PREFIX/lib/libmpifort.so.12" ]; then
            echo "lean: a lean build (no Fortran library in ${PREFIX#$TOP/}/lib)"; return
        elif [ "$lib" = ours ]; then
            [[ $path == "$(readlink -f "$PREFIX/lib")"/* ]] || bad="$bad $name=>$path"
        else
            [[ $path == "$MULTIARCH"/* ]] || bad="$bad $name=>$path"
        fi
    done < <(env LD_LIBRARY_PATH="$ldp" ldd "$prog" 2>&1 | grep -E 'libmpich(fort|cxx)?\.so\.12' | sed 's/^[[:space:]]*//')
    [ $n -gt 0 ] || bad=" no libmpich.so.12 among its libraries"
    [ -z "$bad" ] || echo "loads$bad"
}

# ------------------------------------------------------------ running
declare -A TIMES=()     # "prog|cfg|np|lib" -> "t1 t2 ..."
declare -A SAME=()      # "prog|cfg|np" -> identical, last digit, NO or -
ROWS=()                 # "prog|cfg|np" in order

# mpirun LIB CFG NP DIR LOG TIMEOUT DONE PROGRAM ARGS...: its exit status
# (124: timed out), the elapsed seconds in $ELAPSED.  DONE is a regular
# expression for the program's last output: once it is there the job has
# GRACE seconds to exit, or it is ended and $HUNG set (a hang in
# MPI_Finalize, which Debian's library has over UCX tcp: see env_of).  The
# stock side runs without LD_LIBRARY_PATH.
ELAPSED=0 HUNG=0
GRACE=$((10 * SCALE))
mpirun() {
    local lib=$1 cfg=$2 np=$3 dir=$4 log=$5 t=$(($6 * SCALE)) marker=$7; shift 7
    local envs ldp rc pid seen="" tf=$log.time
    local -a envarr=() genv=()
    envs=$(env_of "$lib" "$cfg" "$np") || { echo "unknown configuration $cfg" >"$log"; return 2; }
    IFS=' ' read -r -a envarr <<<"$envs"
    ldp=$(lib_env "$lib")
    [ -n "$ldp" ] && genv=(-genv LD_LIBRARY_PATH "$ldp")
    # an old log must not show the marker before the job has written its own
    HUNG=0; rm -f "$tf"; : >"$log"
    # MPIEXEC_TIMEOUT: hydra kills the ranks itself; timeout(1) is the
    # backstop.  The wrapper times mpiexec alone (not this loop's polling).
    env -C "$dir" -u LD_LIBRARY_PATH "${envarr[@]}" MPIEXEC_TIMEOUT="$t" bash -c \
        't0=$EPOCHREALTIME; timeout -k 5 '$((t + 15))' "$@"; rc=$?; echo "$t0 $EPOCHREALTIME" >"'"$tf"'"; exit $rc' \
        mpirun "$MPIEXEC" -n "$np" "${genv[@]}" "$@" >"$log" 2>&1 &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        if [ -z "$seen" ] && grep -qsE "$marker" "$log"; then seen=$SECONDS; fi
        if [ -n "$seen" ] && [ $((SECONDS - seen)) -ge "$GRACE" ]; then
            HUNG=1
            pkill -TERM -P "$pid" timeout    # the wrapper's timeout(1), so mpiexec
            break
        fi
        sleep 0.1
    done
    wait "$pid"; rc=$?
    ELAPSED=$(awk '{ printf "%.2f", $2 - $1 }' "$tf" 2>/dev/null)
    grep -q "APPLICATION TIMED OUT" "$log" && rc=124
    [ $HUNG = 1 ] && rc=124
    return $rc
}

# judge LIB ID KEY RC WHY LOG: the run's line.  Ours must pass.  Debian's
# library is the reference: where it fails, the comparison is skipped,
# saying why (a hang after complete output is the finalize hang above; its
# answers still count).
judge() {
    local lib=$1 id=$2 key=$3 rc=$4 why=$5 log=$6 what
    if [ "$rc" -eq 0 ] && [ -z "$why" ]; then pass "$id" "$ELAPSED"; record "$key|$lib" "$ELAPSED"; return; fi
    case "$why" in lean:*) skip "$id" "${why#lean: }"; return ;; esac
    if [ $HUNG = 1 ]; then what="hung in MPI_Finalize (its output was complete)"
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then what="TIMEOUT (hang)"
    elif [ "$rc" -ne 0 ]; then what="exit $rc after ${ELAPSED}s${why:+: $why}"
    else what=$why
    fi
    if [ "$lib" = ours ]; then fail "$id" "$what" "$log"
    else skip "$id" "Debian's library: $what"
    fi
}

# a log's suffix for repetition R (none when each program runs once)
rsfx() { [ "$REPEAT" -gt 1 ] && echo ".r$1"; }

# record ID TIME: the run's time for the table
record() { TIMES[$1]="${TIMES[$1]:-}${TIMES[$1]:+ }$2"; }

# compare the answers of stock and ours for one row: the same lines, word
# for word, except that a printed decimal number (a residual, a condition
# estimate) may differ by one in its last printed digit: the two libraries
# choose different algorithms for a collective sum (ch4:ucx's against
# ch4:ofi's shared-memory trees), which rounds differently.  Integers,
# verdicts and sizes must be equal.
compare() {     # ROW-KEY ID
    local key=$1 id=$2 s=$OUT/answers/${1//|/.}.stock o=$OUT/answers/${1//|/.}.ours r
    if [ ! -s "$s" ] || [ ! -s "$o" ]; then SAME[$key]=-; return; fi
    if cmp -s "$s" "$o"; then
        SAME[$key]=identical; pass "$id answers stock = ours ($(wc -l <"$s") lines, identical)" 0
        return
    fi
    r=$(awk '
        function unit(x,   m, e, d) {     # one in the last printed digit of x
            m = toupper(x); e = 0
            if (index(m, "E")) { e = substr(m, index(m, "E") + 1) + 0; m = substr(m, 1, index(m, "E") - 1) }
            d = index(m, ".") ? length(m) - index(m, ".") : 0
            return 10 ^ (e - d)
        }
        function dec(x) { return x ~ /^[-+]?[0-9]*\.[0-9]*([eE][-+]?[0-9]+)?$/ }
        NR == FNR { a[FNR] = $0; na = FNR; next }
        { nb = FNR
          if (!(FNR in a)) { bad = 1; exit }
          n1 = split(a[FNR], x); n2 = split($0, y)
          if (n1 != n2) { bad = 1; exit }
          for (i = 1; i <= n1; i++) {
              if (x[i] == y[i]) continue
              if (!dec(x[i]) || !dec(y[i])) { bad = 1; exit }
              dd = x[i] - y[i]; if (dd < 0) dd = -dd
              u = unit(x[i]); if (unit(y[i]) > u) u = unit(y[i])
              if (dd > u * 1.000001) { bad = 1; exit }
              digit = 1
          } }
        END { if (bad || na != nb) print "NO"; else if (digit) print "last digit"; else print "identical" }
    ' "$s" "$o")
    SAME[$key]=$r
    if [ "$r" = NO ]; then
        fail "$id answers stock = ours" "they differ" ""
        diff "$s" "$o" | head -n 8 | sed 's/^/      | /'
    else
        pass "$id answers stock = ours ($(wc -l <"$s") lines, residuals to their last digit)" 0
    fi
}

# ---- a) ScaLAPACK: each tester reads NAME.dat from its working directory
# (small inputs: process grids of 1x2 and 2x1, with 2x2 and 1x4 at 4 ranks;
# a grid larger than the job is skipped by the tester itself).
# Not the condition estimate and iterative refinement of xdlu and xdllt
# ('T' in LU.dat, LLT.dat): with it, at 2 ranks, about one run in four
# reports an illegal argument to PDGETRS and hangs, on Debian's stock library
# with Debian's mpiexec and on Open MPI's build of the same testers alike
# (a ScaLAPACK 2.2 tester problem, not MPI's).
# fields to drop from a result line (times and rates): tester:FIELD,FIELD
SCALAPACK_TESTS=("xdlu:9,10,11" "xdllt:9,10,11" "xdqr:8,9" "xdinv:6,7,8" "xdls:10,11")

write_inputs() {    # DIR NP
    local d=$1 np=$2 ps qs ng
    # every grid uses the whole job: 1x2 and 2x1 at 2 ranks, 2x2 and 1x4 at
    # 4, with fewer block sizes and factorizations there (each message waits
    # for a time slice when ranks outnumber cores)
    local nnb=2 nbs="4 16" nqr=3 qrs="'QR' 'LQ' 'QP'"
    if [ "$np" -ge 4 ]; then ps="2 1" qs="2 4" ng=2 nnb=1 nbs=16 nqr=1 qrs="'QR'"
    else ps="1 2" qs="2 1" ng=2; fi
    mkdir -p "$d"
    cat >"$d/LU.dat" <<EOF
'ScaLAPACK, LU factorization input file (test/realprogs/run.sh)'
'MPI Machine'
'LU.out'                output file name (if any)
6                       device out
2                       number of problems sizes
31 100                  values of M
31 100                  values of N
$nnb                       number of NB's
$nbs                    values of NB
1                       number of NRHS's
3                       values of NRHS
1                       Number of NBRHS's
1                       values of NBRHS
$ng                       number of process grids (ordered pairs of P & Q)
$ps                 values of P
$qs                 values of Q
1.0                     threshold
F                       (T or F) Test Cond. Est. and Iter. Ref. Routines
EOF
    cat >"$d/LLT.dat" <<EOF
'ScaLAPACK, LLt factorization input file (test/realprogs/run.sh)'
'MPI machine'
'LLT.out'               output file name (if any)
6                       device out
'U'                     define Lower or Upper
2                       number of problems sizes
31 100                  values of N
2                       number of NB's
4 8                     values of NB
1                       number of NRHS's
3                       values of NRHS
1                       number of NBRHS's
1                       values of NBRHS
$ng                       number of process grids (ordered pairs P & Q)
$ps                 values of P
$qs                 values of Q
3.0                     threshold
F                       (T or F) Test Cond. Est. and Iter. Ref. Routines
EOF
    cat >"$d/QR.dat" <<EOF
'ScaLAPACK, Orthogonal factorizations input file (test/realprogs/run.sh)'
'MPI machine'
'QR.out'                output file name (if any)
6                       device out
$nqr                       number of factorizations
$qrs          factorizations: QR, QL, LQ, RQ, QP, TZ
2                       number of problems sizes
40 100                  values of M
30 100                  values of N
1                       number of blocking sizes
8                       values of MB
8                       values of NB
$ng                       number of process grids (ordered pairs P & Q)
$ps                 values of P
$qs                 values of Q
5.0                     threshold
EOF
    cat >"$d/INV.dat" <<EOF
'ScaLAPACK, Matrix Inversion Testing input file (test/realprogs/run.sh)'
'MPI machine.'
'INV.out'               output file name (if any)
6                       device out
3                       number of matrix types (next line)
'GEN' 'UTR' 'UPD'       GEN, UTR, LTR, UPD, LPD
2                       number of problems sizes
30 100                  values of N
1                       number of NB's
8                       values of NB
$ng                       number of process grids (ordered P & Q)
$ps                 values of P
$qs                 values of Q
1.0                     threshold
EOF
    cat >"$d/LS.dat" <<EOF
'ScaLAPACK LS solve input file (test/realprogs/run.sh)'
'MPI machine'
'LS.out'                output file name (if any)
6                       device out
2                       number of problems sizes
40 60                   values of M
60 40                   values of N
1                       number of NB's
8                       values of NB
1                       number of NRHS's
3                       values of NRHS
1                       number of NBRHS's
1                       values of NBRHS
$ng                       number of process grids (ordered pairs P & Q)
$ps                 values of P
$qs                 values of Q
4.0                     threshold
EOF
    # the BLACS tester: point-to-point, broadcast and combine tests, integer
    # and double; not the auxiliary tests (they end in BLACS_ABORT by design,
    # which loses output); its grids must all fit the job
    if [ "$np" -ge 4 ]; then ps="2 1" qs="2 4"; else ps="1 2" qs="2 1"; fi
    cat >"$d/bt.dat" <<EOF
'BLACS tester, small run (test/realprogs/run.sh)'
6                               device out
'blacstest.out'                 output fname
'T'                             Run SDRV?
'T'                             Run BSBR?
'T'                             Run COMB?
'F'                             Run AUX?
2                               Number of precisions
'I' 'D'                         Values for precision
0                               Verbosity level
EOF
    cat >"$d/sdrv.dat" <<EOF
3                       Number of shapes
'G' 'U' 'L'             UPLO
'E' 'N' 'U'             DIAG
3                       Number of matrices
2 25 13                 M
2 19 32                 N
2 25 14                 LDASRC
3 25 22                 LDADEST
2                       Number of src/dest pairs
0 1                     RSRC
0 0                     CSRC
1 0                     RDEST
0 1                     CDEST
2                       Number of grids
$ps                     NPROW
$qs                     NPCOL
EOF
    cat >"$d/bsbr.dat" <<EOF
3                       Number of scopes
'R' 'C' 'A'             values for scopes
3                       Number of topologies
'I' 'S' 'T'             TOP
2                       Number of shapes
'G' 'U'                 UPLO
'E' 'N'                 DIAG
2                       Number of matrices
2 25                    M
2 19                    N
3 25                    LDASRC
2 25                    LDADEST
2                       Number of src/dest pairs
0 1                     RSRC
0 1                     CSRC
2                       Number of grids
$ps                     NPROW
$qs                     NPCOL
EOF
    cat >"$d/comb.dat" <<EOF
3                       Number of OPs
'+' '>' '<'             Combine operations to perform
3                       Number of scopes
'R' 'C' 'A'             values for scopes
2                       Repeatability flag (0=no-rep, 1=rep, 2=both)
2                       Coherence flag (0=no-coh, 1=coh, 2=both)
2                       Number of topologies
' ' 'T'                 TOP
2                       Number of matrices
3 25                    M
5 19                    N
5 25                    LDASRC
9 25                    LDADEST
4 25                    LDI
2                       Number of dests
0 -1                    RDEST
0 -1                    CDEST
2                       Number of grids
$ps                     NPROW
$qs                     NPCOL
EOF
}

# a ScaLAPACK tester's own verdict; its answers (result lines less their
# times) into ANSWERS.  Prints what is wrong, if anything.
scalapack_verdict() {   # LOG DROP ANSWERS
    local log=$1 drop=$2 ans=$3 n lines passed failed
    awk -v drop="$drop" '
        BEGIN { split(drop, d, ","); for (i in d) skip[d[i]] = 1 }
        /^(WALL|CPU) / { line = ""; for (i = 1; i <= NF; i++) if (!(i in skip)) line = line " " $i; print substr(line, 2) }
        /tests completed and (passed|failed) residual checks|skipped because of illegal/ { print }
    ' "$log" >"$ans"
    n=$(sed -n 's/^Finished *\([0-9]*\) tests.*/\1/p' "$log")
    lines=$(grep -cE '^(WALL|CPU) ' "$log")
    passed=$(sed -n 's/^ *\([0-9]*\) tests completed and passed residual checks.*/\1/p' "$log")
    failed=$(sed -n 's/^ *\([0-9]*\) tests completed and failed residual checks.*/\1/p' "$log")
    if ! grep -q 'END OF TESTS' "$log"; then echo "no END OF TESTS"
    elif [ -z "$n" ] || [ "$n" -eq 0 ]; then echo "ran no test"
    elif [ "${failed:-x}" != 0 ]; then echo "${failed:-?} of $n tests failed their residual checks"
    elif grep -qE '^(WALL|CPU) .*FAILED' "$log"; then echo "a test line says FAILED"
    elif [ "${passed:-x}" != "$n" ]; then echo "${passed:-?} of $n tests passed their residual checks"
    elif [ "$lines" -eq 0 ]; then echo "no result lines"
    fi
}

blacs_verdict() {   # LOG ANSWERS
    local log=$1 ans=$2
    grep -E 'TESTS: .*(TESTS;|PASSED ALL)' "$log" >"$ans"
    if ! grep -q 'THERE WERE NO FAILURES IN THIS TEST RUN' "$log"; then echo "no 'THERE WERE NO FAILURES'"
    elif [ "$(grep -c . "$ans")" -lt 6 ]; then echo "only $(grep -c . "$ans") test summaries"
    elif grep -E 'TESTS;' "$ans" | grep -vq ' 0 FAILED'; then echo "a test failed"
    fi
}

run_scalapack() {
    [ -x "$SCALAPACK/xdlu" ] || { fail "scalapack" "no $SCALAPACK/xdlu (scalapack-mpi-test)"; return; }
    echo "== ScaLAPACK testers (scalapack-mpi-test, MPICH builds) =="
    local np cfg entry prog drop lib dir id key log rc why r marker
    local -a progs
    for np in $NPS; do
        dir=$OUT/work/scalapack.n$np
        rm -rf "$dir"; write_inputs "$dir" "$np"
        # more ranks than cores: every message waits for a time slice, so
        # at 4 ranks only LU, QR and the BLACS tester
        if [ "$np" -le 2 ]; then progs=("${SCALAPACK_TESTS[@]}" "xFbtest:")
        else progs=("${SCALAPACK_TESTS[0]}" "${SCALAPACK_TESTS[2]}" "xFbtest:"); fi
        for cfg in ${CONFIGS//,/ }; do
            for entry in "${progs[@]}"; do
                prog=${entry%%:*} drop=${entry#*:}
                key="$prog|$cfg|$np"; ROWS+=("$key")
                if [ "$prog" = xFbtest ]; then marker='THERE WERE'; else marker='END OF TESTS'; fi
                for ((r = 0; r < REPEAT; r++)); do
                    for lib in stock ours; do
                        id="$prog -n $np [$cfg] $lib"
                        log=$OUT/logs/$prog.n$np.$cfg.$lib$(rsfx $r).log
                        why=$(check_resolution "$lib" "$SCALAPACK/$prog")
                        if [ -n "$why" ]; then judge "$lib" "$id" "$key" 0 "$why" ""; continue; fi
                        mpirun "$lib" "$cfg" "$np" "$dir" "$log" 60 "$marker" "$SCALAPACK/$prog"
                        rc=$?
                        if [ "$prog" = xFbtest ]; then
                            why=$(blacs_verdict "$log" "$OUT/answers/${key//|/.}.$lib")
                        else
                            why=$(scalapack_verdict "$log" "$drop" "$OUT/answers/${key//|/.}.$lib")
                        fi
                        judge "$lib" "$id" "$key" $rc "$why" "$log"
                    done
                done
                compare "$key" "$prog -n $np [$cfg]"
            done
        done
    done
}

# ---- b) NetPIPE: always 2 ranks
NP_MAX=1048576
run_netpipe() {
    command -v NPmpich2 >/dev/null || { fail "netpipe" "no NPmpich2 (netpipe-mpich2)"; return; }
    echo "== NetPIPE (netpipe-mpich2): integrity up to 768 KiB, then latency and bandwidth up to 1 MiB =="
    local np=2 cfg lib id key log rc dir=$OUT/work/netpipe r bin why sizes okl o
    bin=$(command -v NPmpich2)
    mkdir -p "$dir"
    for cfg in ${CONFIGS//,/ }; do
        key="NPmpich2|$cfg|$np"; ROWS+=("$key")
        for ((r = 0; r < REPEAT; r++)); do
            for lib in stock ours; do
                id="NPmpich2 -i -n 2 [$cfg] $lib"
                why=$(check_resolution "$lib" "$bin")
                if [ -n "$why" ]; then judge "$lib" "$id" "$key|i" 0 "$why" ""; continue; fi
                # the integrity check: every message, sizes perturbed by +-3
                # bytes, compared with what was sent; a fixed number of repeats
                # so that the lines are the same on both libraries.  Its last
                # sizes are above 512 KiB.
                log=$OUT/logs/netpipe-i.$cfg.$lib$(rsfx $r).log
                mpirun "$lib" "$cfg" $np "$dir" "$log" 60 ' [5-9][0-9]{5} bytes' \
                    "$bin" -i -n 5 -u $NP_MAX -o "$dir/np-i.$cfg.$lib.out"
                rc=$?
                sizes=$(grep -c ' bytes ' "$log")
                okl=$(grep -c ' bytes .*Integrity check passed' "$log")
                sed -n 's/^ *[0-9]*: *\([0-9]*\) bytes *\([0-9]*\) times --> *\(.*\)$/\1 \2 \3/p' "$log" \
                    >"$OUT/answers/${key//|/.}.$lib"
                why=""
                if [ "$sizes" -lt 20 ] || [ "$okl" -ne "$sizes" ]; then
                    why="$okl of $sizes sizes passed the integrity check"
                fi
                judge "$lib" "$id ($sizes sizes)" "$key|i" $rc "$why" "$log"
                # the measurement: 1 B to 1 MiB, powers of two, 100 repeats
                id="NPmpich2 -n 2 [$cfg] $lib"
                log=$OUT/logs/netpipe.$cfg.$lib$(rsfx $r).log
                o=$dir/np.$cfg.$lib.$r.out
                rm -f "$o"
                mpirun "$lib" "$cfg" $np "$dir" "$log" 60 " $NP_MAX bytes" "$bin" -p 0 -n 100 -u $NP_MAX -o "$o"
                rc=$?
                why=""
                [ "$(awk 'END { print $1 }' "$o" 2>/dev/null)" = $NP_MAX ] || why="did not reach $NP_MAX bytes"
                judge "$lib" "$id" "$key" $rc "$why" "$log"
                if [ $rc -eq 0 ] && [ -z "$why" ]; then
                    # latency (usec, the 1-byte one-way time) and bandwidth (Mbps at 1 MiB)
                    record "$key|$lib|lat" "$(awk '$1 == 1 { printf "%.2f", $3 * 1e6 }' "$o")"
                    record "$key|$lib|bw" "$(awk -v m=$NP_MAX '$1 == m { printf "%.0f", $2 }' "$o")"
                fi
            done
        done
        compare "$key" "NPmpich2 -i -n 2 [$cfg]"
    done
}

# ---- c) parallel HDF5 through ROMIO
run_hdf5() {
    echo "== parallel HDF5 (libhdf5-mpich, ROMIO): test/realprogs/h5_rw.c =="
    local h5pcc=/usr/bin/h5pcc.mpich bin=$OUT/bin/h5_rw clog=$OUT/logs/h5_rw.compile.log
    if [ ! -x "$h5pcc" ]; then fail "h5_rw (compile)" "no $h5pcc (libhdf5-mpich-dev)"; return; fi
    # Debian's h5pcc wraps Debian's mpicc.mpich: Debian's headers, its
    # libmpich.so.12 and libhdf5_mpich (shared, -shlib)
    if ! env -u MPICH_CC -u HDF5_CC "$h5pcc" -shlib -std=gnu11 -O2 -Wall -Werror \
        -o "$bin" "$TOP/test/realprogs/h5_rw.c" >"$clog" 2>&1; then
        fail "h5_rw (compile)" "h5pcc failed" "$clog"; return
    fi
    local tmp np cfg lib id key log rc rows=64 cols=1024 r why f cvars last want wantlast noromio=0
    "$PREFIX/bin/mpichversion" | grep -q -- --disable-romio && noromio=1
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/realprogs-h5.XXXXXX")
    for np in $NPS; do
        for cfg in ${CONFIGS//,/ }; do
            key="h5_rw|$cfg|$np"; ROWS+=("$key")
            # the checksum: the sum of (k + 0.25) for every element k
            want=$(awk -v n=$((rows * cols * np)) 'BEGIN { printf "%.17g", n * (n - 1) / 2 + n / 4 }')
            wantlast=$(awk -v n=$((rows * cols * np)) 'BEGIN { printf "%.17g", n - 1 + 0.25 }')
            for ((r = 0; r < REPEAT; r++)); do
                for lib in stock ours; do
                    id="h5_rw -n $np [$cfg] $lib"
                    log=$OUT/logs/h5_rw.n$np.$cfg.$lib$(rsfx $r).log
                    f=$tmp/slabs.$np.$cfg.$lib.h5
                    why=$(check_resolution "$lib" "$bin")
                    [ "$lib" = ours ] && [ $noromio = 1 ] && why="lean: a lean build (configured --disable-romio: no MPI-IO)"
                    if [ -n "$why" ]; then judge "$lib" "$id" "$key" 0 "$why" ""; continue; fi
                    rm -f "$f"
                    mpirun "$lib" "$cfg" "$np" "$tmp" "$log" 60 '^(No Errors|Found)' "$bin" "$f" $rows $cols
                    rc=$?
                    cvars=$(sed -n 's/^library: .*notify cvars: \([0-9-]*\)$/\1/p' "$log")
                    grep '^dataset' "$log" >"$OUT/answers/${key//|/.}.$lib"
                    # an independent reader: Debian's serial h5dump, the last element
                    last=$(h5dump -m %.17g -d /slabs -s "$((rows * np - 1)),$((cols - 1))" -c 1,1 "$f" 2>/dev/null |
                        sed -n 's/^ *([0-9]*,[0-9]*): *\([0-9.e+-]*\).*/\1/p')
                    echo "h5dump last element: $last" >>"$OUT/answers/${key//|/.}.$lib"
                    why=""
                    if ! grep -q '^No Errors' "$log"; then why="no 'No Errors'"
                    elif ! grep -q "checksum $want\$" "$log"; then why="checksum is not $want"
                    elif [ "$last" != "$wantlast" ]; then why="h5dump reads '$last' as the last element"
                    elif [ "$lib" = ours ] && ! [ "${cvars:-0}" -gt 0 ]; then
                        why="ran on a library without Notified Access (notify cvars: ${cvars:-?})"
                    elif [ "$lib" = stock ] && [ "${cvars:-x}" != 0 ]; then
                        why="the stock run has Notified Access cvars (${cvars:-?})"
                    fi
                    judge "$lib" "$id" "$key" $rc "$why" "$log"
                done
            done
            compare "$key" "h5_rw -n $np [$cfg]"
        done
    done
    rm -rf "$tmp"
}

# ---- the job itself: MPI_Init, one allreduce, MPI_Finalize, so that the
# table can tell start-up from the programs' own work
run_startup() {
    echo "== job start-up: test/realprogs/startup.c (Debian's mpicc) =="
    local cc=/usr/bin/mpicc.mpich bin=$OUT/bin/startup clog=$OUT/logs/startup.compile.log
    local np cfg lib id key log rc r why
    if ! "$cc" -O2 -Wall -Werror -o "$bin" "$TOP/test/realprogs/startup.c" >"$clog" 2>&1; then
        fail "startup (compile)" "$cc failed" "$clog"; return
    fi
    for np in $NPS; do
        for cfg in ${CONFIGS//,/ }; do
            key="startup|$cfg|$np"; ROWS+=("$key")
            for ((r = 0; r < REPEAT; r++)); do
                for lib in stock ours; do
                    id="startup -n $np [$cfg] $lib"
                    log=$OUT/logs/startup.n$np.$cfg.$lib$(rsfx $r).log
                    why=$(check_resolution "$lib" "$bin")
                    if [ -n "$why" ]; then judge "$lib" "$id" "$key" 0 "$why" ""; continue; fi
                    mpirun "$lib" "$cfg" "$np" "$OUT/work" "$log" 60 '^(No Errors|Found)' "$bin"
                    rc=$?
                    grep -E '^[0-9]+ processes' "$log" >"$OUT/answers/${key//|/.}.$lib"
                    why=""; grep -q '^No Errors' "$log" || why="no 'No Errors'"
                    judge "$lib" "$id" "$key" $rc "$why" "$log"
                done
            done
            compare "$key" "startup -n $np [$cfg]"
        done
    done
}

# ------------------------------------------------------------ the table
# min and max of a list of numbers
minmax() { tr ' ' '\n' <<<"$1" | awk 'NF { if (n++ == 0 || $1 < lo) lo = $1; if ($1 > hi || n == 1) hi = $1 }
    END { if (n == 0) print "-"; else if (lo == hi || n == 1) printf "%s", lo; else printf "%s-%s", lo, hi }'; }
table() {
    local key s o
    echo
    local dstock dours
    dstock=$(/usr/bin/mpichversion 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
    dours=$("$PREFIX/bin/mpichversion" 2>/dev/null | sed -n 's/^MPICH Device:[[:space:]]*//p')
    echo "== stock (Debian libmpich12 $v, ${dstock:-?}) vs ours (${PREFIX#$TOP/}/lib, ${dours:-?}): seconds per run, min-max of $REPEAT =="
    printf '  %-10s %-4s %2s  %11s  %11s  %6s  %10s  %s\n' program cfg np stock ours ratio ours-stock "answers same"
    for key in "${ROWS[@]}"; do
        IFS='|' read -r prog cfg np <<<"$key"
        s=$(minmax "${TIMES[$key|stock]:-}") o=$(minmax "${TIMES[$key|ours]:-}")
        local ratio diff
        ratio=$(awk -v a="${s%%-*}" -v b="${o%%-*}" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", b / a; else print "-" }')
        diff=$(awk -v a="${s%%-*}" -v b="${o%%-*}" 'BEGIN { if (a > 0 && b > 0) printf "%+.2f", b - a; else print "-" }')
        printf '  %-10s %-4s %2s  %11s  %11s  %6s  %10s  %s\n' "$prog" "$cfg" "$np" "$s" "$o" "$ratio" "$diff" "${SAME[$key]:--}"
    done
    [[ " $NPS " == *" 4 "* && ",$CONFIGS," == *,tcp,* ]] &&
        echo "  (stock at 4 ranks on tcp: UCX's own transports, not tcp; it hangs in MPI_Finalize over UCX tcp)"
    for cfg in ${CONFIGS//,/ }; do
        key="NPmpich2|$cfg|2"
        [ -n "${TIMES[$key|stock|lat]:-}${TIMES[$key|ours|lat]:-}" ] || continue
        printf '  NetPIPE [%s]: latency (1 B, usec) stock %s, ours %s; bandwidth (1 MiB, Mbps) stock %s, ours %s\n' \
            "$cfg" "$(minmax "${TIMES[$key|stock|lat]:-}")" "$(minmax "${TIMES[$key|ours|lat]:-}")" \
            "$(minmax "${TIMES[$key|stock|bw]:-}")" "$(minmax "${TIMES[$key|ours|bw]:-}")"
    done
}

T0=$(date +%s)
mkdir -p "$OUT/work"
run_startup
run_scalapack
run_netpipe
run_hdf5
table | tee "$OUT/table.txt"
echo "realprogs: $(( $(date +%s) - T0 ))s; logs in ${OUT#$TOP/}/logs"
[ $nfail -eq 0 ]
