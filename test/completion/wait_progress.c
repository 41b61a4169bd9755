/* A process waiting for a notification still drives MPI's progress (issue
 * 17's lean completion: MPI_Wait and MPI_Test on a notification request, and
 * MPIX_Win_get_notify, poll the window's rings and run a full round of
 * progress only when one is due, paced by time: doc/design.md, "Waiting for
 * a notification").
 *
 * Rank 1 notifies rank 0 only after a message to rank 0 completes that
 * cannot complete without rank 0's progress: a large MPI_Send (bigger than
 * any eager buffer) into an MPI_Irecv that rank 0 posted and does not wait
 * for.  Rank 0 meanwhile only waits for the notification, three ways:
 *   1. MPI_Start + MPI_Wait on a request for rank 1's tag;
 *   2. MPI_Start + an MPI_Test loop on an MPI_ANY_SOURCE request;
 *   3. MPIX_Win_get_notify polling a counter.
 * Without the full rounds, each of them would wait forever (the harness's
 * timeout fails the test).  Every round also mixes ordinary RMA on the same
 * bytes: rank 1 puts with MPI_Put, flushes, then notifies with a put of the
 * next value, and rank 0 checks the notified value, the received message,
 * and an MPI_Accumulate of rank 1 that follows.
 * Argument: the message size in bytes (default 16 MiB). */
#include <stdint.h>
#include "na_test.h"

enum { TAG = 5, ROUNDS = 3 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long big = argc > 1 ? atol(argv[1]) : 16L << 20;
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "wait_progress: needs 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int64_t *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(2 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    na_expect_path(win);
    base[0] = base[1] = 0;
    MPI_OK(MPIX_Win_create_notify(win, 1));
    char *msg = malloc(big);
    MPI_Request nreq = MPI_REQUEST_NULL;
    MPI_OK(MPI_Win_lock_all(0, win));

    for (int round = 0; round < ROUNDS; round++) {
        char mark = (char) ('a' + round);
        int64_t v = 100 * (round + 1);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            memset(msg, mark, big);
            int64_t old = v - 1;
            /* an ordinary put first, then the notified value on the same bytes */
            MPI_OK(MPI_Put(&old, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win));
            MPI_OK(MPI_Win_flush(0, win));
            /* needs rank 0's progress to complete */
            MPI_OK(MPI_Send(msg, (int) big, MPI_BYTE, 0, 9, MPI_COMM_WORLD));
            if (round == 2)
                MPI_OK(MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, 0, win));
            else
                MPI_OK(MPI_Put_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win, TAG));
            MPI_OK(MPI_Win_flush(0, win));
            int64_t one = 1;
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win));
            MPI_OK(MPI_Win_flush(0, win));
        } else {
            MPI_Request rreq;
            memset(msg, 0, big);
            MPI_OK(MPI_Irecv(msg, (int) big, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &rreq));
            if (round == 0) {
                MPI_OK(MPI_Notify_init(win, 1, TAG, 1, &nreq));
                MPI_OK(MPI_Start(&nreq));
                MPI_OK(MPI_Wait(&nreq, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Request_free(&nreq));
            } else if (round == 1) {
                int flag = 0;
                MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, TAG, 1, &nreq));
                MPI_OK(MPI_Start(&nreq));
                while (!flag)
                    MPI_OK(MPI_Test(&nreq, &flag, MPI_STATUS_IGNORE));
                MPI_OK(MPI_Request_free(&nreq));
            } else {
                MPI_Count c = 0;
                while (c < 1)
                    MPI_OK(MPIX_Win_get_notify(win, 0, &c));
                MPI_OK(MPIX_Win_set_notify(win, 0, 0));
            }
            /* the notification says the send completed before it */
            int done = 0;
            MPI_OK(MPI_Test(&rreq, &done, MPI_STATUS_IGNORE));
            if (!done)
                MPI_OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Win_sync(win));
            CHECK(base[0] == v, "round %d: notified value %lld, not %lld", round,
                  (long long) base[0], (long long) v);
            CHECK(msg[0] == mark && msg[big - 1] == mark, "round %d: message not received",
                  round);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_OK(MPI_Win_sync(win));
            CHECK(base[1] == round + 1, "round %d: accumulate %lld, not %d", round,
                  (long long) base[1], round + 1);
        }
    }
    MPI_OK(MPI_Win_unlock_all(win));
    free(msg);
    MPI_OK(MPIX_Win_free_notify(win));
    MPI_Win_free(&win);
    return na_finish();
}
