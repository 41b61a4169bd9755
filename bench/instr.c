/* Instructions one message costs, origin and target calls together, counted
 * by callgrind (issue 17's instruction budget).  Run under
 *   valgrind --tool=callgrind --collect-atstart=no
 * with 2 ranks (bench/instr-count.sh does, and prints the counts): only the
 * MPI calls of one message are collected, between CALLGRIND_TOGGLE_COLLECT
 * pairs, so the numbers repeat from run to run where times do not.
 *
 *   instr -mode put_notify|put_counter|put_draft|sendrecv|put_flush|put_flush_local|floor [-n ITERS]
 *         [-w WARMUP] [-win 0]
 *         [-idle N] [-posted 1]
 *
 * Modes (origin calls | target calls):
 *   put_notify   MPI_Put_notify + MPI_Win_flush | MPI_Start + MPI_Wait
 *   put_counter  MPIX_Put_notify + MPI_Win_flush | MPIX_Win_get_notify +
 *                MPIX_Win_set_notify
 *   put_draft    MPI_Put_notify in the MPI Forum draft's spelling (..., 0, win)
 *                + MPI_Win_flush | MPI_Win_reset_notify_value until it
 *                returns 1 (reads and zeroes: put_counter's get and set)
 *   sendrecv     MPI_Send | MPI_Recv
 *   put_flush    MPI_Put + MPI_Win_flush | nothing (what standard RMA costs)
 *   put_flush_local  MPI_Put + MPI_Win_flush_local | nothing (over the netmod,
 *                bench/instr-count.sh's put_flush_local_net: an injected
 *                write is locally complete when MPI_Put returns)
 *   floor        MPI_Put + MPI_Win_flush | MPI_Start + MPI_Wait of a persistent
 *                receive from MPI_PROC_NULL: what put_notify's calls cost
 *                in MPICH's own code, with no notification (its floor)
 * -posted 1 (put_notify, floor): the target starts its request before the
 * origin's turn, uncounted, as a ping-pong does, so that only its MPI_Wait
 * after the arrival is counted: the target's part of the critical path.
 * Every mode allocates its window first (its shared-memory rings are polled
 * by progress from then on); -win 0 leaves it out, for sendrecv: a program
 * that only passes messages.  -idle N allocates N more windows of 64 bytes
 * that are never used (what holding many windows costs: issue 32).
 *
 * Idle polling is excluded: the two processes take turns through a flag in
 * memory they share by a file mapping, outside MPI.  The target makes its
 * calls only once the origin's calls have returned (the message has left,
 * and on shared memory it is already there), and makes no MPI call while it
 * waits, so nothing is drained before its counted calls.  The origin drives
 * MPI progress uncounted while it waits for its turn, for transports that
 * need the sender's progress to deliver.  8 bytes per message.
 * Built against an MPI without Notified Access (stock MPICH: no
 * MPI_NOTIFY_TAG_UB in mpi.h), only sendrecv, put_flush(_local) and floor exist, so the
 * standard calls can be compared with the same program (bench/stock-instr.sh). */
#include <mpi.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include "bench_util.h"

enum { PUT_NOTIFY, PUT_COUNTER, SENDRECV, PUT_FLUSH, PUT_FLUSH_LOCAL, FLOOR, PUT_DRAFT, NMODES };
static const char *const mode_names[NMODES] = { "put_notify", "put_counter", "sendrecv",
    "put_flush", "put_flush_local", "floor", "put_draft"
};

enum { TAG = 3, SIZE = 8 };

#ifdef MPI_NOTIFY_TAG_UB
#define HAVE_NOTIFY 1
#else
#define HAVE_NOTIFY 0
#endif

struct turns {
    atomic_int origin_done;     /* messages the origin has sent */
    atomic_int target_done;     /* messages the target has taken */
};

/* a page both ranks map: rank 0 creates the file, rank 1 opens it */
static struct turns *share_turns(int rank)
{
    long id = (long) getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    char path[64];
    snprintf(path, sizeof path, "/dev/shm/na_instr.%ld", id);
    int fd = -1;
    if (rank == 0) {
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ftruncate(fd, 4096) != 0) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && (fd = open(path, O_RDWR)) < 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    struct turns *t = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (t == MAP_FAILED) {
        perror("mmap");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    return t;
}

int main(int argc, char **argv)
{
    int iters = 200, warmup = 50, rank, nranks, mode = -1, usewin = 1, nidle = 0, posted = 0;
    const char *mode_s = NULL;
    const bu_opt_t opts[] = {
        {"-mode", BU_STRING, &mode_s, "put_notify, put_counter, put_draft, sendrecv, put_flush, put_flush_local or floor"},
        {"-n", BU_INT, &iters, "counted messages (200)"},
        {"-w", BU_INT, &warmup, "messages before counting (50)"},
        {"-win", BU_INT, &usewin, "0: allocate no window (sendrecv only; 1)"},
        {"-idle", BU_INT, &nidle, "windows allocated and never used (0)"},
        {"-posted", BU_INT, &posted, "1: the target starts its request uncounted (put_notify, floor; 0)"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "instr -mode MODE [-n ITERS] [-w WARMUP]", &rank, &nranks);
    for (int m = 0; !rc && mode_s && m < NMODES; m++)
        if (strcmp(mode_s, mode_names[m]) == 0 &&
            (HAVE_NOTIFY || m == SENDRECV || m == PUT_FLUSH || m == PUT_FLUSH_LOCAL ||
             m == FLOOR))
            mode = m;
    if (!rc && (mode < 0 || iters < 1 || warmup < 0 || nranks != 2 || nidle < 0 ||
                (!usewin && mode != SENDRECV) || (posted && mode != PUT_NOTIFY && mode != FLOOR))) {
        if (rank == 0)
            fprintf(stderr, "instr: need -mode %s, ITERS >= 1, WARMUP >= 0 and 2 processes\n",
                    HAVE_NOTIFY ? "put_notify|put_counter|put_draft|sendrecv|put_flush|put_flush_local|floor" :
                    "sendrecv|put_flush|put_flush_local|floor (this MPI has no Notified Access); "
                    "-win 0 with sendrecv only, -posted 1 with put_notify and floor only");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }

    MPI_Win *idle = malloc((nidle + 1) * sizeof(MPI_Win));
    for (int i = 0; i < nidle; i++) {
        void *base;
        MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &idle[i]);
    }
    char *wbuf = NULL;
    MPI_Win win = MPI_WIN_NULL;
    if (usewin)
        MPI_Win_allocate(SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    MPI_Request nreq = MPI_REQUEST_NULL;
#if HAVE_NOTIFY
    if (usewin) {
        MPIX_Win_create_notify(win, 1);
        if (rank == 1)
            MPI_Notify_init(win, 0, TAG, 1, &nreq);
    }
#endif
    char dst[SIZE];
    MPI_Request preq = MPI_REQUEST_NULL;
    if (mode == FLOOR && rank == 1)
        MPI_Recv_init(dst, SIZE, MPI_BYTE, MPI_PROC_NULL, TAG, MPI_COMM_WORLD, &preq);
    struct turns *t = share_turns(rank);
    char src[SIZE];
    memset(src, 7, SIZE);
    if (usewin)
        MPI_Win_lock_all(0, win);
    MPI_Request *tstart = mode == FLOOR ? &preq : &nreq;
    if (posted && rank == 1)
        MPI_Start(tstart);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int i = 0; i < warmup + iters; i++) {
        int counted = i >= warmup;
        if (rank == 0) {
            while (atomic_load(&t->target_done) != i) {
                int flag;      /* uncounted progress for the message in flight */
                MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
            src[0] = (char) i;
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            switch (mode) {
#if HAVE_NOTIFY
                case PUT_NOTIFY:
                    MPI_Put_notify(src, SIZE, MPI_BYTE, 1, 0, SIZE, MPI_BYTE, win, TAG);
                    MPI_Win_flush(1, win);
                    break;
                case PUT_COUNTER:
                    MPIX_Put_notify(src, SIZE, MPI_BYTE, 1, 0, SIZE, MPI_BYTE, 0, win);
                    MPI_Win_flush(1, win);
                    break;
                case PUT_DRAFT:
                    MPI_Put_notify(src, SIZE, MPI_BYTE, 1, 0, SIZE, MPI_BYTE, 0, win);
                    MPI_Win_flush(1, win);
                    break;
#endif
                case SENDRECV:
                    MPI_Send(src, SIZE, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
                    break;
                case PUT_FLUSH:
                case FLOOR:
                    MPI_Put(src, SIZE, MPI_BYTE, 1, 0, SIZE, MPI_BYTE, win);
                    MPI_Win_flush(1, win);
                    break;
                case PUT_FLUSH_LOCAL:
                    MPI_Put(src, SIZE, MPI_BYTE, 1, 0, SIZE, MPI_BYTE, win);
                    MPI_Win_flush_local(1, win);
                    break;
            }
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            atomic_store(&t->origin_done, i + 1);
        } else {
            while (atomic_load(&t->origin_done) != i + 1);      /* no MPI: nothing drained */
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            switch (mode) {
#if HAVE_NOTIFY
                case PUT_NOTIFY:
                    if (!posted)
                        MPI_Start(&nreq);
                    MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                    break;
                case PUT_COUNTER:{
                        MPI_Count v = 0;
                        do
                            MPIX_Win_get_notify(win, 0, &v);
                        while (v < 1);
                        MPIX_Win_set_notify(win, 0, 0);
                        break;
                    }
                case PUT_DRAFT:{
                        MPI_Count v = 0;
                        do
                            MPI_Win_reset_notify_value(win, 0, &v);
                        while (v < 1);
                        break;
                    }
#endif
                case SENDRECV:
                    MPI_Recv(dst, SIZE, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    break;
                case PUT_FLUSH:
                case PUT_FLUSH_LOCAL:
                    break;
                case FLOOR:
                    if (!posted)
                        MPI_Start(&preq);
                    MPI_Wait(&preq, MPI_STATUS_IGNORE);
                    break;
            }
            if (counted)
                CALLGRIND_TOGGLE_COLLECT;
            /* the data arrived (put_flush has no notification, so its byte is
             * only checked after the loop) */
            if (mode != PUT_FLUSH && mode != PUT_FLUSH_LOCAL && mode != FLOOR &&
                (mode == SENDRECV ? dst[0] : wbuf[0]) != (char) i) {
                fprintf(stderr, "instr: message %d not there\n", i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (posted && i + 1 < warmup + iters)
                MPI_Start(tstart);
            atomic_store(&t->target_done, i + 1);
        }
    }
    if (usewin)
        MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && mode != SENDRECV && wbuf[0] != (char) (warmup + iters - 1)) {
        fprintf(stderr, "instr: the last put did not arrive (%d, not %d)\n", wbuf[0],
                (char) (warmup + iters - 1));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("instr: %s, %d counted messages after %d\n", mode_names[mode], iters, warmup);
    if (nreq != MPI_REQUEST_NULL)
        MPI_Request_free(&nreq);
    if (preq != MPI_REQUEST_NULL)
        MPI_Request_free(&preq);
    munmap(t, 4096);
    if (usewin)
        MPI_Win_free(&win);
    for (int i = nidle - 1; i >= 0; i--)
        MPI_Win_free(&idle[i]);
    free(idle);
    MPI_Finalize();
    return 0;
}
