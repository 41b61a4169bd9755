#!/usr/bin/env bash
# `make fuzz`: the randomized RMA checker (test/fuzz/rma_fuzz.c) on transport
# configurations of test/run-suite.sh, with the environment run-suite.sh gives
# them (test/transports, the table both read).
#
#   SEED=1 N=300 NP=2 CONFIGS=shm,tcp FUZZ_ARGS="-max-ops 40" test/fuzz/run-fuzz.sh
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

if [ ! -x "$PREFIX/bin/mpicc" ] || [ ! -x "$PREFIX/bin/mpiexec" ]; then
    echo "fuzz: no patched MPICH installed in $PREFIX (run 'make' first)" >&2
    exit 2
fi
. "$TOP/test/transports.sh"

bin=$BUILD/tests/bin/test_fuzz_rma_fuzz
mkdir -p "$(dirname "$bin")"
"$PREFIX/bin/mpicc" -std=gnu11 -O2 -Wall -Werror -o "$bin" "$TOP/test/fuzz/rma_fuzz.c" || exit 2

rc=0
IFS=',' read -r -a cfgs <<<"$CONFIGS"
for cfg in "${cfgs[@]}"; do
    if ! envs=$(transport_env "$cfg"); then
        echo "fuzz: unknown configuration $cfg" >&2
        rc=2
        continue
    fi
    IFS=' ' read -r -a envarr <<<"$envs"
    echo "== rma_fuzz -seed $SEED -n $N $FUZZ_ARGS on $NP ranks [$cfg: $envs] =="
    # rma_fuzz's own watchdog reports a hung program (60 s); this is the backstop
    # shellcheck disable=SC2086
    env "${envarr[@]}" timeout -k 10 3600 "$PREFIX/bin/mpiexec" -n "$NP" "$bin" \
        -seed "$SEED" -n "$N" $FUZZ_ARGS || rc=1
done
exit $rc
