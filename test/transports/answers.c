/* Remote completion when the flush's answer is deferred (2 ranks).  On
 * paths whose flush needs an answer from the target (UCX active messages:
 * the answer a put asks for rides on the target's next message, else goes
 * alone at its next progress) every flushed notified put must complete:
 *   1. put + flush, the target waits for the notification and then only
 *      enters MPI_Barrier (no message of its own to carry the answer);
 *   2. ping-pong: each side answers with a notified put of its own;
 *   3. both sides put and flush towards each other at the same time.
 * After each flush the origin reads the bytes back with MPI_Get (ordinary
 * RMA after flush) and must see its value.  A lost or late answer hangs
 * (fails by timeout); an early one shows as old data. */
#include "na_test.h"

enum { ROUNDS = 150 };

static MPI_Win win;
static int64_t *base;
static int rank, peer;
static MPI_Request req;

/* notified put of v into peer's slot me, flushed, then read back */
static void put_flush_check(int64_t v, const char *phase, int round)
{
    int64_t got = -1;
    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT64_T, peer, rank, 1, MPI_INT64_T, win, 7));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPI_Get(&got, 1, MPI_INT64_T, peer, rank, 1, MPI_INT64_T, win));
    MPI_OK(MPI_Win_flush(peer, win));
    CHECK(got == v, "%s round %d: read back %lld, put %lld", phase, round, (long long) got,
          (long long) v);
}

/* the peer's notification; its value is want, or (phase 3, where the peer
 * may already have put the next one) a later one */
static void wait_note(int64_t want, int later_ok, const char *phase, int round)
{
    MPI_Status st;
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_OK(MPI_Win_sync(win));
    int64_t v = base[peer];
    CHECK(st.MPI_SOURCE == peer && (v == want || (later_ok && v > want)),
          "%s round %d: source %d value %lld, expected %lld", phase, round, st.MPI_SOURCE,
          (long long) v, (long long) want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_OK(MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    na_expect_path(win);
    base[0] = base[1] = 0;
    MPI_OK(MPI_Notify_init(win, peer, 7, 1, &req));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock_all(0, win));

    /* 1. the target sends nothing before the barrier */
    for (int i = 1; i <= ROUNDS; i++) {
        if (rank == 0)
            put_flush_check(i, "barrier", i);
        else
            wait_note(i, 0, "barrier", i);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* 2. ping-pong */
    for (int i = 1; i <= ROUNDS; i++) {
        int64_t v = 1000 + i;
        if (rank == 0) {
            put_flush_check(v, "ping-pong", i);
            wait_note(v, 0, "ping-pong", i);
        } else {
            wait_note(v, 0, "ping-pong", i);
            put_flush_check(v, "ping-pong", i);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);        /* round 150's value read before phase 3 overwrites it */

    /* 3. towards each other at once */
    for (int i = 1; i <= ROUNDS; i++) {
        int64_t v = 5000 + i;
        put_flush_check(v, "both", i);
        wait_note(v, 1, "both", i);
    }

    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Request_free(&req));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
