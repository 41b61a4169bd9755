#!/usr/bin/env bash
# natrace (natrace/natrace.c, doc/man/natrace.md): the tracer of the notify
# MPI_T events, built with an installed MPICH's mpicc into the same prefix,
# so that "mpicc app.c -lnatrace" or LD_PRELOAD=PREFIX/lib/libnatrace.so
# finds it; and its plot script as PREFIX/bin/natrace-plot.
#
#   scripts/build-natrace.sh PREFIX
#
# Builds nothing of MPICH: PREFIX/bin/mpicc must exist.
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}

# install_natrace PREFIX
install_natrace() {
    local prefix=$1
    if [ ! -x "$prefix/bin/mpicc" ]; then
        echo "build-natrace: no mpicc in $prefix/bin (build MPICH first)" >&2
        return 1
    fi
    mkdir -p "$prefix/lib" "$prefix/bin"
    "$prefix/bin/mpicc" -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared \
        -Wl,-soname,libnatrace.so.0 -o "$prefix/lib/libnatrace.so.0" "$TOP/natrace/natrace.c"
    ln -sf libnatrace.so.0 "$prefix/lib/libnatrace.so"
    install -m 755 "$TOP/scripts/natrace-plot" "$prefix/bin/natrace-plot"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    if [ $# -ne 1 ]; then
        echo "usage: $0 PREFIX" >&2
        exit 2
    fi
    install_natrace "$1"
    echo "natrace installed in $1 (lib/libnatrace.so, bin/natrace-plot)"
fi
