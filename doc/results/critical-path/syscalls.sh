#!/bin/bash
# System calls per round trip of bench/pingpong, one mode at a time, by
# difference of two runs (-n 300 and -n 1300), per rank.  Run from a
# directory holding the pingpong binary; PREFIX is the install.
#   syscalls.sh MODE SIZE [extra env for mpiexec, e.g. UCX_TLS=tcp,self]
mode=$1 size=$2; shift 2
for n in 300 1300; do
    cat > st.sh <<EOS
#!/bin/bash
exec strace -f -o $PWD/sc.\$PMI_RANK.$n "\$@"
EOS
    chmod +x st.sh
    env MPIR_CVAR_NOLOCAL=1 "$@" timeout 300 "$PREFIX/bin/mpiexec" -n 2 ./st.sh ./pingpong -n $n \
        -min "$size" -max "$size" -modes "$mode" >/dev/null 2>&1
done
for r in 0 1; do
    echo "rank $r:"
    join -a2 <(awk '{print $2}' sc.$r.300 | cut -d'(' -f1 | sort | uniq -c | awk '{print $2, $1}' | sort) \
             <(awk '{print $2}' sc.$r.1300 | cut -d'(' -f1 | sort | uniq -c | awk '{print $2, $1}' | sort) |
        awk '{d = ($3 - $2) / 1000; if (d > 0.05) printf "  %s %.2f\n", $1, d}'
done
