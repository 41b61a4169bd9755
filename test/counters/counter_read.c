/*
 * MPIX_Win_get_notify and the progress it makes (doc/guide.md, counters):
 * a read that finds a value it has not returned yet returns it at once,
 * without a round of progress, and the next read, which finds the same
 * value, makes progress again, so that a loop of reads alone still sees
 * every notification.
 *
 * Whether a read ran a round is seen through a counter watch
 * (MPIX_Win_notify_on_update) on rank 0's counter 1, due from its
 * registration on (the counter is at its threshold already), which runs at
 * the next round of progress and at no other time.  Nothing in the verdict
 * depends on timing: put #3 is issued only after rank 0's reads of 2.
 *
 *   rank 1: counted put #1; MPI_Send(A) | rank 0: MPI_Recv(A); read until 1
 *   rank 1: MPI_Recv(B)                 | rank 0: MPI_Send(B)
 *   rank 1: counted put #2; MPI_Win_flush; MPI_Send(C)
 *                                       | rank 0: MPI_Recv(C), which takes in
 *                                       |   #2 (remotely complete before C
 *                                       |   was sent, and delivered ahead of
 *                                       |   it: a ring is read by the read
 *                                       |   itself); the watch made due;
 *                                       |   one read: 2, the watch has not
 *                                       |   run; the next read: 2, the watch
 *                                       |   has run (where rounds are paced,
 *                                       |   the rings: the reads until it has)
 *   rank 1: MPI_Recv(D); counted put #3 | rank 0: MPI_Send(D); reads alone
 *                                       |   until 3
 * The same cells also take a plain MPI_Put and MPI_Get after the counted
 * puts.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include "na_test.h"

static int watch_calls;
static MPI_Count watch_value = -1;

static void on_update(MPI_Win win, int idx, MPI_Count value, void *arg)
{
    (void) win;
    (void) idx;
    (void) arg;
    watch_calls++;
    watch_value = value;
}

int main(int argc, char **argv)
{
    int rank, size;
    int64_t *base, v = 0, got = 0;
    MPI_Win win;
    MPI_Count c = -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "counter_read: needs 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_OK(MPI_Win_allocate(4 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    memset(base, 0, 4 * sizeof(int64_t));
    MPI_OK(MPIX_Win_create_notify(win, 2));
    char path[64], why[64];
    na_path(win, 1 - rank, path, why, sizeof(path));
    /* a window with a polled path runs a round only when one is due */
    int paced = !strcmp(path, "ring");
    MPI_OK(MPI_Win_lock_all(0, win));

    if (rank == 1) {
        for (int k = 1; k <= 3; k++) {
            v = k;
            if (k == 2)
                MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 'B', MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (k == 3)
                MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 'D', MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, k, 1, MPI_INT64_T, 0, win));
            if (k == 2)
                MPI_OK(MPI_Win_flush(0, win));
            else
                MPI_OK(MPI_Win_flush_local(0, win));
            if (k == 1)
                MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 'A', MPI_COMM_WORLD));
            if (k == 2)
                MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 'C', MPI_COMM_WORLD));
        }
    } else {
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 'A', MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        do
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        while (c < 1);
        CHECK(c == 1, "counter %lld after one counted put", (long long) c);
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 'B', MPI_COMM_WORLD));
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 'C', MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* the probe: due now, it runs at the next round of progress */
        MPI_OK(MPIX_Win_set_notify(win, 1, 1));
        MPI_OK(MPIX_Win_notify_on_update(win, 1, 1, on_update, NULL));
        MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        CHECK(c == 2 && watch_calls == 0, "path %s: the first read after MPI_Recv took in put #2 "
              "returned %lld and ran %d rounds of progress (the watch's calls): it must return "
              "the new value 2 at once", path, (long long) c, watch_calls);
        MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        if (paced) {
            while (watch_calls == 0 && c == 2)
                MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        }
        CHECK(c == 2 && watch_calls == 1, "path %s: the reads of the value 2 they had returned "
              "already returned %lld and ran %d rounds of progress (the watch's calls), "
              "want 2 and 1", path, (long long) c, watch_calls);
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 'D', MPI_COMM_WORLD));
        /* nothing but the reads makes progress here */
        do
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        while (c < 3);
        CHECK(c == 3, "counter %lld after three counted puts", (long long) c);
        CHECK(watch_calls == 1 && watch_value == 1, "the watch ran %d times, value %lld",
              watch_calls, (long long) watch_value);
        MPI_OK(MPI_Win_sync(win));
        for (int k = 1; k <= 3; k++)
            CHECK(base[k] == k, "cell %d holds %lld once counted", k, (long long) base[k]);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* ordinary RMA on the counted cells */
    if (rank == 1) {
        v = -7;
        MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, 2, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(&got, 1, MPI_INT64_T, 0, 2, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
        CHECK(got == -7, "MPI_Get after MPI_Put on a counted cell: %lld", (long long) got);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPIX_Win_free_notify(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
