/* MPI_Win_flush_local{,_all} after a mix of small and large accesses: the
 * origin buffers may be reused at once, and a get's data is in place.  Over
 * libfabric a put up to the inject size is locally complete when its call
 * returns, so flush_local reads no completion counter after such puts only
 * (patches/fixes/0010); every other access issued since must still be waited
 * for: a large put (sent from the user buffer), a get, an accumulate.  Each
 * round issues them in a changing order between injected puts and notified
 * puts, flushes locally, overwrites every origin buffer, then flushes and
 * lets the target check that it received the values from before the
 * overwrite.  Each round starts with a 1 MiB accumulate (an active message
 * on ch4:ucx), a get and MPI_Win_flush_all: the get's data must be there
 * (patches/fixes/0012).  2 ranks. */
#include "na_test.h"

#define BIG (1 << 20)           /* above every inject size and eager range */
#define ROUNDS 12
#define TAG 5
/* target window: [0, BIG) big put, then 8 B small puts, then the get source,
 * then the accumulate's int */
#define OFF_SMALL BIG
#define OFF_GET (BIG + 64)
#define OFF_ACC (BIG + 128)
#define WIN_BYTES (BIG + 192)

static void fill(char *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char) (v + i % 251);
}

static int differs(const char *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (char) (v + i % 251))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int rank;
    char *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, WIN_BYTES);
    fill(base + OFF_GET, 64, 99);       /* what the origin's gets read */
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        char *big = malloc(BIG), small[8], small2[8], got[64];
        int one = 1;
        for (int r = 0; r < ROUNDS; r++) {
            fill(big, BIG, r);
            fill(small, 8, r + 1);
            fill(small2, 8, r + 2);
            memset(got, 0, sizeof(got));
            MPI_OK(MPI_Accumulate(big, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, MPI_REPLACE, win));
            MPI_OK(MPI_Get(got, 64, MPI_BYTE, 1, OFF_GET, 64, MPI_BYTE, win));
            MPI_OK(MPI_Win_flush_all(win));
            CHECK(!differs(got, 64, 99), "round %d: the get's data is not there after "
                  "a large accumulate and MPI_Win_flush_all", r);
            memset(got, 0, sizeof(got));
            /* an injected put first, a put that needs waiting (changing
             * with the round), an accumulate, an injected notified put, and
             * the get (last, or followed by an injected put that must not
             * hide it): nothing after it runs progress for it */
            MPI_OK(MPI_Put(small, 8, MPI_BYTE, 1, OFF_SMALL, 8, MPI_BYTE, win));
            switch (r % 3) {
                case 0:
                    MPI_OK(MPI_Put(big, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win));
                    break;
                case 1:
                    MPI_OK(MPI_Put_notify(big, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win, TAG));
                    break;
                case 2:
                    MPI_OK(MPI_Put(big, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win));
                    MPI_OK(MPI_Win_flush(1, win));      /* the counter read: cmpl_seen moves */
                    MPI_OK(MPI_Put(small2, 8, MPI_BYTE, 1, OFF_SMALL + 8, 8, MPI_BYTE, win));
                    break;
            }
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 1, OFF_ACC, 1, MPI_INT, MPI_SUM, win));
            MPI_OK(MPI_Put_notify(small2, 8, MPI_BYTE, 1, OFF_SMALL + 16, 8, MPI_BYTE, win,
                                  TAG));
            MPI_OK(MPI_Get(got, 64, MPI_BYTE, 1, OFF_GET, 64, MPI_BYTE, win));
            if (r % 2)
                MPI_OK(MPI_Put(small, 8, MPI_BYTE, 1, OFF_SMALL + 24, 8, MPI_BYTE, win));
            if (r % 2)
                MPI_OK(MPI_Win_flush_local(1, win));
            else
                MPI_OK(MPI_Win_flush_local_all(win));
            CHECK(!differs(got, 64, 99), "round %d: the get's data is not there after "
                  "flush_local", r);
            /* the buffers are ours again: what the target sees must not change */
            memset(big, 0x5a, BIG);
            memset(small, 0x5a, 8);
            memset(small2, 0x5a, 8);
            one = 1000;
            MPI_OK(MPI_Win_flush(1, win));
            one = 1;
            MPI_OK(MPI_Send(&r, 1, MPI_INT, 1, 0, MPI_COMM_WORLD));
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        free(big);
    } else {
        MPI_Request req;
        MPI_OK(MPI_Notify_init(win, 0, TAG, 1, &req));
        for (int r = 0; r < ROUNDS; r++) {
            int rr;
            /* one notification per round (the small notified put), two in
             * the rounds where the big put is notified */
            for (int n = 0; n < 1 + (r % 3 == 1); n++) {
                MPI_OK(MPI_Start(&req));
                MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            }
            MPI_OK(MPI_Recv(&rr, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Win_sync(win));
            CHECK(!differs(base, BIG, r), "round %d: the big put's data changed after the "
                  "origin's flush_local", r);
            CHECK(!differs(base + OFF_SMALL, 8, r + 1), "round %d: small put", r);
            if (r % 3 == 2)
                CHECK(!differs(base + OFF_SMALL + 8, 8, r + 2), "round %d: small put after "
                      "a flush", r);
            CHECK(!differs(base + OFF_SMALL + 16, 8, r + 2), "round %d: notified small put", r);
            if (r % 2)
                CHECK(!differs(base + OFF_SMALL + 24, 8, r + 1), "round %d: small put after "
                      "the get", r);
            int acc;
            memcpy(&acc, base + OFF_ACC, sizeof(acc));
            CHECK(acc == r + 1, "round %d: accumulate total %d, expected %d", r, acc, r + 1);
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD));
        }
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
