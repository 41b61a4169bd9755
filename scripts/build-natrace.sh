#!/usr/bin/env bash
# natrace (natrace/natrace.c, doc/man/natrace.md): the tracer of the notify
# MPI_T events, built with an installed MPICH's mpicc, and installed with
# its launcher and its plot script:
#
#   DEST/lib/libnatrace.so.0 (and the libnatrace.so link, for -lnatrace)
#   DEST/bin/natrace         (scripts/natrace: preloads DEST/lib/libnatrace.so.0)
#   DEST/bin/natrace-plot    (scripts/natrace-plot)
#
#   scripts/build-natrace.sh PREFIX [DEST]
#
# PREFIX is MPICH's (PREFIX/bin/mpicc must exist: this builds nothing of
# MPICH); DEST defaults to PREFIX.  The man page is installed with the
# others (scripts/md2man.py, scripts/build-mpich.sh).
set -euo pipefail

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}

# install_natrace PREFIX [DEST]
install_natrace() {
    local prefix=$1 dest=${2:-$1}
    if [ ! -x "$prefix/bin/mpicc" ]; then
        echo "build-natrace: no mpicc in $prefix/bin (build MPICH first)" >&2
        return 1
    fi
    mkdir -p "$dest/lib" "$dest/bin"
    dest=$(cd "$dest" && pwd)   # the launcher names the library by an absolute path
    "$prefix/bin/mpicc" -std=c11 -O2 -g -Wall -Wextra -Werror -fPIC -shared \
        -Wl,-soname,libnatrace.so.0 -o "$dest/lib/libnatrace.so.0" "$TOP/natrace/natrace.c"
    ln -sf libnatrace.so.0 "$dest/lib/libnatrace.so"
    sed "s|@NATRACE_LIB@|$dest/lib/libnatrace.so.0|" "$TOP/scripts/natrace" >"$dest/bin/natrace.tmp"
    chmod 755 "$dest/bin/natrace.tmp"
    mv "$dest/bin/natrace.tmp" "$dest/bin/natrace"
    install -m 755 "$TOP/scripts/natrace-plot" "$dest/bin/natrace-plot"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    if [ $# -lt 1 ] || [ $# -gt 2 ]; then
        echo "usage: $0 PREFIX [DEST]" >&2
        exit 2
    fi
    install_natrace "$@"
    echo "natrace installed in ${2:-$1} (lib/libnatrace.so, bin/natrace, bin/natrace-plot)"
fi
