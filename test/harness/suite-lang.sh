# shellcheck shell=bash
# The language suite (SUITE=lang, all).
# Sourced by test/run-suite.sh after test/harness/lib.sh (its settings and
# helpers: pass/skip/fail, run_mpi, compile_prog ...).

# ------------------------------------------------------------------ a whole MPICH
# The default build is a whole MPICH (scripts/build-mpich.sh): Fortran
# (mpif.h, use mpi, use mpi_f08, each with the notified calls), C++ against
# mpi.h's new prototypes, ROMIO, and a pkg-config file that builds a
# program.  A lean build (MPICH_LEAN=1, and the ucx and asan variants)
# skips them, saying so.
run_lang_suite() {
    echo "== a whole MPICH: Fortran, C++, MPI-IO, pkg-config =="
    local lean=0 log t=60 dir=$OUT/lang
    # lean on purpose: configured with --disable-fortran (MPICH_LEAN=1, the
    # lean variants of scripts/build-mpich.sh); any other build without the
    # three fails here
    [[ $("$PREFIX/bin/mpichversion") == *--disable-fortran* ]] && lean=1
    mkdir -p "$dir"
    lang_run() {    # full|any NAME COMPILE-COMMAND... -- PROGRAM ARGS...
        local need=$1 name=$2; shift 2
        local -a cc=()
        while [ "$1" != -- ]; do cc+=("$1"); shift; done
        shift
        [[ $name =~ $TESTS ]] || return 0
        log=$OUT/logs/lang_$name.log
        if [ "$need" = full ] && [ "$lean" = 1 ]; then
            skip "lang/$name" "lean build (configured --disable-fortran): no Fortran, C++ or ROMIO"
            return
        fi
        if ! "${cc[@]}" >"$log" 2>&1; then
            fail "lang/$name" "does not compile" "$log"
        elif run_mpi "$log" "$t" "" 2 "$@" && grep -q "No Errors" "$log"; then
            pass "lang/$name" 0
        else
            fail "lang/$name" "no 'No Errors'" "$log"
        fi
    }
    lang_run full fortran_f08 "$PREFIX/bin/mpifort" -o "$dir/notify_f08" "$TOP/test/fortran/notify_f08.f90" \
        -- "$dir/notify_f08"
    lang_run full fortran_use_mpi "$PREFIX/bin/mpifort" -o "$dir/notify_mpi" "$TOP/test/fortran/notify_mpi.F90" \
        -- "$dir/notify_mpi"
    lang_run full fortran_mpif_h "$PREFIX/bin/mpifort" -DUSE_MPIF_H -o "$dir/notify_mpif" \
        "$TOP/test/fortran/notify_mpi.F90" -- "$dir/notify_mpif"
    # the indices of MPI_{Wait,Test}{any,some} in each binding (fix 0018)
    lang_run full waitany_f08 "$PREFIX/bin/mpifort" -o "$dir/waitany_f08" "$TOP/test/fortran/waitany_f08.f90" \
        -- "$dir/waitany_f08"
    lang_run full waitany_use_mpi "$PREFIX/bin/mpifort" -o "$dir/waitany_mpi" "$TOP/test/fortran/waitany_mpi.F90" \
        -- "$dir/waitany_mpi"
    lang_run full waitany_mpif_h "$PREFIX/bin/mpifort" -DUSE_MPIF_H -o "$dir/waitany_mpif" \
        "$TOP/test/fortran/waitany_mpi.F90" -- "$dir/waitany_mpif"
    lang_run full cxx "$PREFIX/bin/mpicxx" -std=c++17 -Wall -Werror -o "$dir/notify_cxx" "$TOP/test/cxx/notify_cxx.cpp" \
        -- "$dir/notify_cxx"
    lang_run full mpi_io "$MPICC" -Wall -Werror -o "$dir/mpi_io_hello" "$TOP/test/packaging/mpi_io_hello.c" \
        -- "$dir/mpi_io_hello" "$dir/hello.txt"
    # pkg-config: the flags it gives build the C example with plain gcc
    lang_run any pkg_config bash -c "export PKG_CONFIG_PATH='$PREFIX/lib/pkgconfig'; \
        gcc -o '$dir/pingpong_pc' '$TOP/examples/pingpong_notify.c' \$(pkg-config --cflags --libs mpich)" \
        -- "$dir/pingpong_pc" 64 10
}
