#!/usr/bin/env bash
# `make fuzz`: a randomized checker on transport configurations of
# test/run-suite.sh, with the environment run-suite.sh gives them
# (test/harness/transports, the table both read): FUZZ=rma (default) runs the RMA
# checker test/fuzz/rma_fuzz/, FUZZ=completion the completion checker
# test/fuzz/completion_fuzz/ (`make fuzz-completion`).
#
#   SEED=1 N=300 NP=2 CONFIGS=shm,tcp FUZZ_ARGS="-max-ops 40" test/fuzz/run-fuzz.sh
#   FUZZ=completion SEED=7 N=200 FUZZ_ARGS="-max-threads 2" test/fuzz/run-fuzz.sh
#
# Exits non-zero if any configuration found a mismatch (or crashed, or hung).
set -uo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD_DIR:-$TOP/_build}
PREFIX=${PREFIX:-$TOP/_install}
SEED=${SEED:-1}
N=${N:-300}
NP=${NP:-2}
CONFIGS=${CONFIGS:-shm,tcp}
FUZZ_ARGS=${FUZZ_ARGS:-}
FUZZ=${FUZZ:-rma}
case "$FUZZ" in
    rma|completion) ;;
    *) echo "fuzz: FUZZ=$FUZZ: rma or completion" >&2; exit 2 ;;
esac

if [ ! -x "$PREFIX/bin/mpicc" ] || [ ! -x "$PREFIX/bin/mpiexec" ]; then
    echo "fuzz: no patched MPICH installed in $PREFIX (run 'make' first)" >&2
    exit 2
fi
. "$TOP/test/harness/transports.sh"

bin=$BUILD/tests/bin/test_fuzz_${FUZZ}_fuzz
mkdir -p "$(dirname "$bin")"
# a checker is the C files of its directory, compiled together
"$PREFIX/bin/mpicc" -std=gnu11 -O2 -Wall -Werror -pthread -o "$bin" \
    "$TOP/test/fuzz/${FUZZ}_fuzz"/*.c || exit 2

rc=0
IFS=',' read -r -a cfgs <<<"$CONFIGS"
for cfg in "${cfgs[@]}"; do
    if ! envs=$(transport_env "$cfg"); then
        echo "fuzz: unknown configuration $cfg" >&2
        rc=2
        continue
    fi
    IFS=' ' read -r -a envarr <<<"$envs"
    echo "== ${FUZZ}_fuzz -seed $SEED -n $N $FUZZ_ARGS on $NP ranks [$cfg: $envs] =="
    # the checker's own watchdog reports a hung program (rma_fuzz 60 s,
    # completion_fuzz 20 s); this is the backstop
    # shellcheck disable=SC2086
    env "${envarr[@]}" timeout -k 10 3600 "$PREFIX/bin/mpiexec" -n "$NP" "$bin" \
        -seed "$SEED" -n "$N" $FUZZ_ARGS || rc=1
done
exit $rc
