/* Ping-pong latency of Notified Access against the other ways MPI can move a
 * message and tell the receiver (spec section 6).  2 ranks; every mode runs in
 * the same process, sizes interleaved mode by mode, so ratios come from one run.
 *
 *   pingpong [-n ITERS] [-w WARMUP] [-rounds R] [-min BYTES] [-max BYTES]
 *            [-modes a,b,...] [-csv FILE]
 *
 * The iterations of each size are split into R rounds (default 10, at most ITERS) and every
 * round runs all modes in turn, so a machine that speeds up or slows down
 * during the run shifts every mode alike instead of only the later ones.
 *
 * Modes:
 *   sendrecv    MPI_Send / MPI_Recv
 *   put_notify  MPI_Put_notify + MPI_Win_flush; target MPI_Start + MPI_Wait
 *   get_notify  the receiver of each half trip reads with MPI_Get_notify; the
 *               owner of the data learns it was read
 *   pscw        MPI_Win_start/MPI_Put/MPI_Win_complete, MPI_Win_post/MPI_Win_wait
 *   fence       MPI_Put between two MPI_Win_fence
 *   put_flush_send  MPI_Put + MPI_Win_flush + zero-byte MPI_Send / MPI_Recv
 *   bound       MPI_Put + MPI_Win_flush; the target spins on the last byte
 *               with MPI_Win_sync only (not a correct MPI program: the
 *               lower bound of what notification costs where the origin
 *               writes target memory itself; only where a put needs no
 *               progress at the target, probed at start, else left out
 *               with a message)
 *   floor       bound, and the target also runs MPI_Start + MPI_Wait of a
 *               persistent receive from MPI_PROC_NULL around its spin: the
 *               least put_notify's calls cost in MPICH's own code, in time
 *               (bench/instr.c's floor counts its instructions)
 *   bound_progress  the same, the target driving progress in its spin loop
 *               with MPI_Iprobe: the bound for paths whose puts need the
 *               target's progress (the netmods)
 *   flag_sync   the protocol a user writes by hand: MPI_Put + flush + MPI_Put
 *               of a flag + flush; the target spins on the flag with
 *               MPI_Win_sync (like bound, only where puts need no target
 *               progress)
 *   psendrecv   persistent send/recv: MPI_Send_init / MPI_Recv_init once
 *               per size, MPI_Start + MPI_Wait per message
 *   partitioned MPI-4 partitioned send/recv, one partition: MPI_Psend_init /
 *               MPI_Precv_init once per size; the sender MPI_Start +
 *               MPI_Pready + MPI_Wait, the receiver MPI_Start + MPI_Wait
 *   put_notify_early  put_notify's calls, with each rank starting its
 *               request for the next notification between its put and its
 *               flush (as a receive is posted before the reply can come):
 *               where the flush waits for an answer that rides on the
 *               peer's next message (the eager messages of ch4:ucx and
 *               libfabric's sockets), put_notify's MPI_Start and MPI_Wait
 *               come after that message has arrived; here only MPI_Wait
 *   get_flag_sync  get_notify by hand: the receiver of each half trip reads
 *               with MPI_Get + flush, then tells the owner with MPI_Put of a
 *               flag + flush; the owner spins on it with MPI_Win_sync (the
 *               bound for get_notify; like flag_sync, only where puts need
 *               no target progress)
 *   get_flag_progress  the same, the owner driving progress in its spin
 *               with MPI_Iprobe (the bound for paths whose puts need the
 *               target's progress, as bound_progress is for put_notify)
 *   put_counter MPIX_Put_notify (counter 0) + MPI_Win_flush; target polls the
 *               counter with MPIX_Win_get_notify until it shows one more
 *   get_counter the receiver reads with MPIX_Get_notify; the owner polls
 *   put_acc     what a counter costs without Notified Access: MPI_Put +
 *               flush + MPI_Accumulate(+1) on a counter in the window +
 *               flush; target polls it with MPI_Fetch_and_op(MPI_NO_OP)
 *   put_flag    MPI_Put + flush + MPI_Put of a flag + flush; target polls
 *               the flag with MPI_Get + flush
 *   acc_notify  MPI_Accumulate_notify (MPI_SUM of int64s) + MPI_Win_flush;
 *               target MPI_Start + MPI_Wait
 *   acc_flush_send  MPI_Accumulate + flush + zero-byte MPI_Send / MPI_Recv
 *   fop_notify  MPI_Fetch_and_op_notify (+1 on an int64) + flush; target
 *               MPI_Start + MPI_Wait (one element whatever the size)
 *   fop_poll    the one-sided idiom: MPI_Fetch_and_op (+1) on the peer's
 *               counter + flush; the peer polls it with
 *               MPI_Fetch_and_op(MPI_NO_OP) (one element whatever the size)
 *   cacheline   no MPI: the two processes hand a token back and forth
 *               through one cache line of shared memory (the floor any
 *               notification between them costs; whatever the size; only
 *               when both share a node, else left out with a message)
 * -block B: the modes that put or get (put_notify, get_notify, the bounds,
 * flag protocols and counters) move a vector of B-byte blocks at a stride
 * of 2B on both sides instead of contiguous bytes (the datatype path).
 * Output: one line per (mode, size) with the median half round trip, the 10th
 * and 90th percentiles (us), and the ratio of the median to put_notify. */
#include <mpi.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { SENDRECV, PUT_NOTIFY, GET_NOTIFY, PSCW, FENCE, PUT_FLUSH_SEND, BOUND, PUT_COUNTER,
    GET_COUNTER, PUT_ACC, PUT_FLAG, ACC_NOTIFY, ACC_FLUSH_SEND, FOP_NOTIFY, FOP_POLL, CACHELINE,
    BOUND_PROGRESS, FLAG_SYNC, PSENDRECV, PARTITIONED, FLOOR, PUT_NOTIFY_EARLY, GET_FLAG_SYNC,
    GET_FLAG_PROGRESS, NMODES
};
static const char *const mode_names[NMODES] = { "sendrecv", "put_notify", "get_notify", "pscw",
    "fence", "put_flush_send", "bound", "put_counter", "get_counter", "put_acc", "put_flag",
    "acc_notify", "acc_flush_send", "fop_notify", "fop_poll", "cacheline", "bound_progress",
    "flag_sync", "psendrecv", "partitioned", "floor", "put_notify_early", "get_flag_sync",
    "get_flag_progress"
};
/* 1: the mode keeps the window in a lock_all epoch */
static const int passive[NMODES] = {[PUT_NOTIFY] = 1,[GET_NOTIFY] = 1,[PUT_FLUSH_SEND] = 1,
    [BOUND] = 1,[PUT_COUNTER] = 1,[GET_COUNTER] = 1,[PUT_ACC] = 1,[PUT_FLAG] = 1,
    [ACC_NOTIFY] = 1,[ACC_FLUSH_SEND] = 1,[FOP_NOTIFY] = 1,[FOP_POLL] = 1,[BOUND_PROGRESS] = 1,
    [FLAG_SYNC] = 1,[FLOOR] = 1,[PUT_NOTIFY_EARLY] = 1,[GET_FLAG_SYNC] = 1,
    [GET_FLAG_PROGRESS] = 1
};

static int rank, peer;
static MPI_Win win;
static char *wbuf;              /* window: [0, max) inbox, then the int64 counter of
                                 * put_acc and fop_poll, the int64 flag of put_flag and
                                 * the int64 fop_notify adds to */
static MPI_Aint acc_disp, flag_disp, fop_disp;
/* what the RMA modes move: size bytes contiguous, or with -block a vector
 * of size / block blocks of block bytes at a stride of 2 * block, on both
 * sides; xlast is the offset of the last byte it writes */
static int block;
static MPI_Datatype xtype = MPI_BYTE;
static int xcount;
static MPI_Aint xlast;
static int64_t acc_seen;        /* put_acc, fop_poll: increments of my counter so far */
static char *lbuf;              /* local source/destination */
static MPI_Group peer_group;
static MPI_Request nreq;        /* notify request for the peer, tag 1 */
static _Atomic int *line;       /* cacheline: in memory both processes map */
static MPI_Request preq[2];     /* psendrecv, partitioned: send, receive */
static MPI_Request pnull;       /* floor: a persistent receive from MPI_PROC_NULL */

/* wait until my counter 0 has counted one more access: counters only
 * grow, so a waiter compares with what it has seen (as flag_sync's
 * target compares with the iteration's flag) instead of resetting it */
static MPI_Count counter_seen;  /* put_counter, get_counter: since the mode began */
static void wait_counter(void)
{
    MPI_Count v;
    counter_seen++;
    do
        MPIX_Win_get_notify(win, 0, &v);
    while (v < counter_seen);
}

/* poll an int64 of my own window through MPI (a correct program) */
static int64_t read_own(MPI_Aint disp, int atomic)
{
    int64_t v;
    if (atomic)
        MPI_Fetch_and_op(NULL, &v, MPI_INT64_T, rank, disp, MPI_NO_OP, win);
    else
        MPI_Get(&v, 1, MPI_INT64_T, rank, disp, 1, MPI_INT64_T, win);
    MPI_Win_flush(rank, win);
    return v;
}

/* Whether an MPI_Put + flush lands in the peer's window while the peer
 * only spins with MPI_Win_sync: each rank in turn puts a mark to the other
 * and flushes, while the other waits up to 100 ms for it without driving
 * progress, then with it (so that a put that needs it completes either
 * way).  In turn, since two ranks in a flush at once serve each other. */
static int puts_need_no_progress(void)
{
    const char mark = 99;
    int direct = 1, all, flag;
    volatile char *mine = wbuf;
    MPI_Win_lock_all(0, win);
    for (int who = 0; who < 2; who++) {
        if (rank == who) {
            MPI_Put(&mark, 1, MPI_CHAR, peer, 0, 1, MPI_CHAR, win);
            MPI_Win_flush(peer, win);
        } else {
            double t0 = MPI_Wtime();
            while (*mine != mark && MPI_Wtime() - t0 < 0.1)
                MPI_Win_sync(win);
            direct = direct && *mine == mark;
            while (*mine != mark)
                MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_unlock_all(win);
    MPI_Allreduce(&direct, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    *mine = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    return all;
}

/* one round trip; rank 0 pings, rank 1 pongs.  iter makes payloads unique. */
static void round_trip(int mode, int size, unsigned iter)
{
    int me_first = (rank == 0);
    char mark = (char) (iter % 120 + 1);
    for (int half = 0; half < 2; half++) {
        int sending = (half == 0) == me_first;
        switch (mode) {
            case SENDRECV:
                if (sending)
                    MPI_Send(lbuf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                else
                    MPI_Recv(lbuf, size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                break;
            case PUT_NOTIFY:
                if (sending) {
                    MPI_Put_notify(lbuf, xcount, xtype, peer, 0, xcount, xtype, win, 1);
                    MPI_Win_flush(peer, win);
                } else {
                    MPI_Start(&nreq);
                    MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                }
                break;
            case PUT_NOTIFY_EARLY:
                /* begin() started the first receiver's request */
                if (sending) {
                    MPI_Put_notify(lbuf, xcount, xtype, peer, 0, xcount, xtype, win, 1);
                    MPI_Start(&nreq);
                    MPI_Win_flush(peer, win);
                } else {
                    MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                }
                break;
            case GET_NOTIFY:
                /* the "receiver" of this half trip reads from the "sender" */
                if (!sending) {
                    MPI_Get_notify(lbuf, xcount, xtype, peer, 0, xcount, xtype, win, 1);
                    MPI_Win_flush(peer, win);
                } else {
                    MPI_Start(&nreq);
                    MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                }
                break;
            case PSCW:
                if (sending) {
                    MPI_Win_start(peer_group, 0, win);
                    MPI_Put(lbuf, xcount, xtype, peer, 0, xcount, xtype, win);
                    MPI_Win_complete(win);
                } else {
                    MPI_Win_post(peer_group, 0, win);
                    MPI_Win_wait(win);
                }
                break;
            case FENCE:
                if (sending)
                    MPI_Put(lbuf, xcount, xtype, peer, 0, xcount, xtype, win);
                MPI_Win_fence(0, win);
                break;
            case PUT_FLUSH_SEND:
                if (sending) {
                    MPI_Put(lbuf, xcount, xtype, peer, 0, xcount, xtype, win);
                    MPI_Win_flush(peer, win);
                    MPI_Send(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                break;
            case PUT_COUNTER:
                if (sending) {
                    MPIX_Put_notify(lbuf, xcount, xtype, peer, 0, xcount, xtype, 0, win);
                    MPI_Win_flush(peer, win);
                } else {
                    wait_counter();
                }
                break;
            case GET_COUNTER:
                if (!sending) {
                    MPIX_Get_notify(lbuf, xcount, xtype, peer, 0, xcount, xtype, 0, win);
                    MPI_Win_flush(peer, win);
                } else {
                    wait_counter();
                }
                break;
            case PUT_ACC:
                if (sending) {
                    const int64_t one = 1;
                    MPI_Put(lbuf, xcount, xtype, peer, 0, xcount, xtype, win);
                    MPI_Win_flush(peer, win);
                    MPI_Accumulate(&one, 1, MPI_INT64_T, peer, acc_disp, 1, MPI_INT64_T, MPI_SUM,
                                   win);
                    MPI_Win_flush(peer, win);
                } else {
                    acc_seen++;
                    while (read_own(acc_disp, 1) < acc_seen);
                }
                break;
            case GET_FLAG_SYNC:
            case GET_FLAG_PROGRESS:
                if (!sending) {
                    const int64_t flag = (int64_t) iter + 1;
                    MPI_Get(lbuf, xcount, xtype, peer, 0, xcount, xtype, win);
                    MPI_Win_flush(peer, win);
                    MPI_Put(&flag, 1, MPI_INT64_T, peer, flag_disp, 1, MPI_INT64_T, win);
                    MPI_Win_flush(peer, win);
                } else {
                    volatile int64_t *flag = (volatile int64_t *) (wbuf + flag_disp);
                    int probed;
                    while (*flag != (int64_t) iter + 1)
                        if (mode == GET_FLAG_SYNC)
                            MPI_Win_sync(win);
                        else
                            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &probed,
                                       MPI_STATUS_IGNORE);
                }
                break;
            case PUT_FLAG:
            case FLAG_SYNC:
                if (sending) {
                    const int64_t flag = (int64_t) iter + 1;
                    MPI_Put(lbuf, xcount, xtype, peer, 0, xcount, xtype, win);
                    MPI_Win_flush(peer, win);
                    MPI_Put(&flag, 1, MPI_INT64_T, peer, flag_disp, 1, MPI_INT64_T, win);
                    MPI_Win_flush(peer, win);
                } else if (mode == PUT_FLAG) {  /* a correct program: reads through MPI */
                    while (read_own(flag_disp, 0) != (int64_t) iter + 1);
                } else {        /* the by-hand protocol: a load and MPI_Win_sync */
                    volatile int64_t *flag = (volatile int64_t *) (wbuf + flag_disp);
                    while (*flag != (int64_t) iter + 1)
                        MPI_Win_sync(win);
                }
                break;
            case ACC_NOTIFY:
                if (sending) {
                    MPI_Accumulate_notify(lbuf, size / 8, MPI_INT64_T, peer, 0, size / 8,
                                          MPI_INT64_T, MPI_SUM, win, 1);
                    MPI_Win_flush(peer, win);
                } else {
                    MPI_Start(&nreq);
                    MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                }
                break;
            case ACC_FLUSH_SEND:
                if (sending) {
                    MPI_Accumulate(lbuf, size / 8, MPI_INT64_T, peer, 0, size / 8, MPI_INT64_T,
                                   MPI_SUM, win);
                    MPI_Win_flush(peer, win);
                    MPI_Send(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(NULL, 0, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                break;
            case FOP_NOTIFY:
                if (sending) {
                    const int64_t one = 1;
                    int64_t old;
                    MPI_Fetch_and_op_notify(&one, &old, MPI_INT64_T, peer, fop_disp, MPI_SUM, win,
                                            1);
                    MPI_Win_flush(peer, win);
                } else {
                    MPI_Start(&nreq);
                    MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                }
                break;
            case FOP_POLL:
                if (sending) {
                    const int64_t one = 1;
                    int64_t old;
                    MPI_Fetch_and_op(&one, &old, MPI_INT64_T, peer, acc_disp, MPI_SUM, win);
                    MPI_Win_flush(peer, win);
                } else {
                    acc_seen++;
                    while (read_own(acc_disp, 1) < acc_seen);
                }
                break;
            case CACHELINE:{
                    int token = (int) ((iter * 2u + (unsigned) half) % 1000000000u) + 1;
                    if (sending)
                        atomic_store_explicit(line, token, memory_order_release);
                    else
                        while (atomic_load_explicit(line, memory_order_acquire) != token);
                    break;
                }
            case BOUND:
            case BOUND_PROGRESS:
            case FLOOR:
                if (sending) {
                    lbuf[xlast] = mark;
                    MPI_Put(lbuf, xcount, xtype, peer, 0, xcount, xtype, win);
                    MPI_Win_flush(peer, win);
                } else {
                    volatile char *last = wbuf + xlast;
                    int flag;
                    if (mode == FLOOR)
                        MPI_Start(&pnull);
                    if (mode != BOUND_PROGRESS)
                        while (*last != mark)
                            MPI_Win_sync(win);
                    else        /* Iprobe only drives progress */
                        while (*last != mark)
                            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag,
                                       MPI_STATUS_IGNORE);
                    if (mode == FLOOR)
                        MPI_Wait(&pnull, MPI_STATUS_IGNORE);
                }
                break;
            case PSENDRECV:
                MPI_Start(&preq[!sending]);
                MPI_Wait(&preq[!sending], MPI_STATUS_IGNORE);
                break;
            case PARTITIONED:
                MPI_Start(&preq[!sending]);
                if (sending)
                    MPI_Pready(0, preq[0]);
                MPI_Wait(&preq[!sending], MPI_STATUS_IGNORE);
                break;
        }
    }
}

/* epochs each mode needs around its iterations */
static void begin(int mode, int size)
{
    /* bound: the polled byte must not hold a stale mark from earlier modes,
     * or a rank could run ahead and overwrite the mark its peer waits for */
    if (mode == BOUND || mode == BOUND_PROGRESS || mode == FLOOR)
        wbuf[xlast] = 0;
    if (mode == FLOOR)
        MPI_Recv_init(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pnull);
    if (mode == CACHELINE)
        atomic_store(line, 0);
    if (mode == PUT_COUNTER || mode == GET_COUNTER) {
        MPIX_Win_set_notify(win, 0, 0);     /* the peer starts after the barrier */
        counter_seen = 0;
    }
    if (mode == PSENDRECV) {
        MPI_Send_init(lbuf, size, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &preq[0]);
        MPI_Recv_init(lbuf, size, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &preq[1]);
    } else if (mode == PARTITIONED) {
        MPI_Psend_init(lbuf, 1, size, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &preq[0]);
        MPI_Precv_init(lbuf, 1, size, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &preq[1]);
    }
    if (passive[mode])
        MPI_Win_lock_all(0, win);
    else if (mode == FENCE)
        MPI_Win_fence(0, win);
    if (mode == PUT_NOTIFY_EARLY && rank == 1)
        MPI_Start(&nreq);
}

static void end(int mode)
{
    /* rank 1 started a request after its last reply */
    if (mode == PUT_NOTIFY_EARLY && rank == 0) {
        MPI_Put_notify(lbuf, 1, MPI_BYTE, peer, 0, 1, MPI_BYTE, win, 1);
        MPI_Win_flush(peer, win);
    } else if (mode == PUT_NOTIFY_EARLY)
        MPI_Wait(&nreq, MPI_STATUS_IGNORE);
    if (mode == FLOOR)
        MPI_Request_free(&pnull);
    if (mode == PSENDRECV || mode == PARTITIONED) {
        MPI_Request_free(&preq[0]);
        MPI_Request_free(&preq[1]);
    }
    if (passive[mode])
        MPI_Win_unlock_all(win);
    else if (mode == FENCE)
        MPI_Win_fence(0, win);
}

int main(int argc, char **argv)
{
    int iters = 1000, warmup = 100, rounds = -1, min = 8, max = 1 << 20;
    int use[NMODES];
    const char *csv = NULL, *modes = NULL, *trace = NULL;
    const bu_opt_t opts[] = {
        {"-n", BU_INT, &iters, "timed round trips per size and mode (1000)"},
        {"-w", BU_INT, &warmup, "warm-up round trips (100)"},
        {"-rounds", BU_INT, &rounds, "rounds the modes are interleaved in (10, at most ITERS)"},
        {"-min", BU_INT, &min, "smallest message in bytes (8)"},
        {"-max", BU_INT, &max, "largest message in bytes, doubling from -min (1048576)"},
        {"-modes", BU_STRING, &modes, "comma-separated subset of sendrecv,put_notify,"
         "get_notify,pscw,fence,put_flush_send,bound,put_counter,get_counter,put_acc,"
         "put_flag,acc_notify,acc_flush_send,fop_notify,fop_poll,cacheline,bound_progress,"
         "flag_sync,psendrecv,partitioned,floor,put_notify_early,get_flag_sync,get_flag_progress (all)"},
        {"-block", BU_INT, &block, "move a vector of blocks of this many bytes at a stride "
         "of twice that instead of contiguous bytes (0: contiguous)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
        {"-trace", BU_STRING, &trace, "write every timed half round trip, in the order run, "
         "to this CSV file (mode,bytes,iteration,us): a median hides whether trips are "
         "slow in turn or in spells"},
    };
    int nranks;
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "pingpong [-n ITERS] [-w WARMUP] [-rounds R] "
                     "[-min BYTES] [-max BYTES] [-modes a,b,...] [-csv FILE] [-trace FILE]", &rank,
                     &nranks);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    if (!rc) {
        if (rounds == -1)       /* default: 10, fewer for a short run */
            rounds = iters < 10 ? iters : 10;
        if (iters < 1 || rounds < 1 || rounds > iters || warmup < 0 || min < 1 || max < min ||
            block < 0 || (block && min < block)) {
            if (rank == 0)
                fprintf(stderr, "pingpong: need 1 <= rounds <= iters, warmup >= 0, "
                        "1 <= min <= max, 0 <= block <= min\n");
            rc = 1;
        }
        /* the modes that move (xcount, xtype) */
        static const int typed[NMODES] = {[PUT_NOTIFY] = 1,[GET_NOTIFY] = 1,[BOUND] = 1,
            [PUT_COUNTER] = 1,[GET_COUNTER] = 1,[PUT_FLAG] = 1,[BOUND_PROGRESS] = 1,
            [FLAG_SYNC] = 1,[FLOOR] = 1,[PUT_NOTIFY_EARLY] = 1,[GET_FLAG_SYNC] = 1,
            [GET_FLAG_PROGRESS] = 1
        };
        for (int m = 0; block && !rc && m < NMODES; m++)
            if (use[m] && !typed[m]) {
                if (rank == 0)
                    fprintf(stderr, "pingpong: -block with mode %s, which moves bytes "
                            "otherwise\n", mode_names[m]);
                rc = 1;
            }
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    if (nranks != 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    peer = 1 - rank;
    int span = block ? 2 * max : max;   /* bytes a message spans */
    acc_disp = (span + 7) / 8 * 8;
    flag_disp = acc_disp + 8;
    fop_disp = flag_disp + 8;
    MPI_Win_allocate(fop_disp + 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    lbuf = malloc(span);
    memset(lbuf, 1, span);
    memset(wbuf, 0, fop_disp + 8);
    MPIX_Win_create_notify(win, 1);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &peer_group);
    MPI_Notify_init(win, peer, 1, 1, &nreq);
    /* cacheline: a line of memory both processes share, if they share a node */
    MPI_Comm node;
    MPI_Win lwin = MPI_WIN_NULL;
    int nodesize;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nodesize);
    if (use[CACHELINE] && nodesize == 2) {
        MPI_Aint lsize;
        int ldisp;
        void *mine;
        MPI_Win_allocate_shared(rank == 0 ? 64 : 0, 1, MPI_INFO_NULL, node, &mine, &lwin);
        MPI_Win_shared_query(lwin, 0, &lsize, &ldisp, &line);
        if (rank == 0)
            atomic_init(line, 0);
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (use[CACHELINE]) {
        if (rank == 0)
            printf("# cacheline left out: the two processes do not share a node\n");
        use[CACHELINE] = 0;
    }
    /* bound and flag_sync spin without progress: only where an MPI_Put
     * reaches the target without the target's progress (the origin's own
     * store into memory both map: ch4's shm module), else they would hang */
    if ((use[BOUND] || use[FLAG_SYNC] || use[FLOOR] || use[GET_FLAG_SYNC]) &&
        !puts_need_no_progress()) {
        if (rank == 0)
            printf("# bound, flag_sync, floor, get_flag_sync left out: an MPI_Put here needs "
                   "the target's progress\n");
        use[BOUND] = use[FLAG_SYNC] = use[FLOOR] = use[GET_FLAG_SYNC] = 0;
    }
    double *t[NMODES];
    for (int m = 0; m < NMODES; m++)
        t[m] = malloc(iters * sizeof(double));
    FILE *out = NULL, *tout = NULL;
    if (rank == 0) {
        tout = bu_csv_open(trace, "mode,bytes,iteration,us");
        printf("# pingpong: median half round trip over %d iterations (%d warm-up), "
               "modes interleaved in %d rounds\n", iters, warmup, rounds);
        if (block)
            printf("# RMA modes move a vector of %d-byte blocks at a stride of %d bytes\n",
                   block, 2 * block);
        printf("%-15s %9s %10s %10s %10s %9s\n", "mode", "bytes", "median_us", "p10_us",
               "p90_us", "vs_notify");
        out = bu_csv_open(csv, "mode,bytes,median_us,p10_us,p90_us,ratio_to_put_notify");
    }

    for (int size = min; size <= max; size *= 2) {
        double med[NMODES], p10[NMODES], p90[NMODES];
        unsigned trip = 0;
        xcount = size;
        xlast = size - 1;
        if (block) {
            MPI_Type_vector(size / block, block, 2 * block, MPI_BYTE, &xtype);
            MPI_Type_commit(&xtype);
            xcount = 1;
            xlast = (MPI_Aint) (size / block - 1) * 2 * block + block - 1;
        }      /* same sequence on both ranks: consecutive marks differ */
        for (int r = 0; r < rounds; r++) {
            int first = (int) ((long) iters * r / rounds), last = (int) ((long) iters * (r + 1) / rounds);
            /* full warm-up once; a few trips after each mode switch */
            int warm = r == 0 ? warmup : (warmup < 4 ? warmup : 4);
            for (int mode = 0; mode < NMODES; mode++) {
                if (!use[mode])
                    continue;
                begin(mode, size);
                MPI_Barrier(MPI_COMM_WORLD);
                for (int i = 0; i < warm; i++)
                    round_trip(mode, size, trip++);
                for (int i = first; i < last; i++) {
                    double t0 = MPI_Wtime();
                    round_trip(mode, size, trip++);
                    t[mode][i] = (MPI_Wtime() - t0) / 2 * 1e6;
                }
                end(mode);
            }
        }
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            for (int i = 0; tout && i < iters; i++)
                fprintf(tout, "%s,%d,%d,%.3f\n", mode_names[mode], size, i, t[mode][i]);
            bu_stats(t[mode], iters, &med[mode], &p10[mode], &p90[mode]);
        }
        if (block)
            MPI_Type_free(&xtype);
        if (rank != 0)
            continue;
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            double ratio = use[PUT_NOTIFY] ? med[mode] / med[PUT_NOTIFY] : 0;
            printf("%-15s %9d %10.3f %10.3f %10.3f %9.2f\n", mode_names[mode], size, med[mode],
                   p10[mode], p90[mode], ratio);
            if (out)
                fprintf(out, "%s,%d,%.3f,%.3f,%.3f,%.3f\n", mode_names[mode], size, med[mode],
                        p10[mode], p90[mode], ratio);
        }
        fflush(stdout);
    }
    if (out)
        fclose(out);
    if (tout)
        fclose(tout);
    MPI_Request_free(&nreq);
    if (lwin != MPI_WIN_NULL)
        MPI_Win_free(&lwin);
    MPI_Comm_free(&node);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    free(lbuf);
    for (int m = 0; m < NMODES; m++)
        free(t[m]);
    MPI_Finalize();
    return 0;
}
