/*
 * MPIX_Win_get_notify and the progress it makes (doc/guide.md, counters):
 * a read that finds a value it has not returned yet returns it at once, and
 * the next read, which finds the same value, makes progress again, so that
 * a loop of reads alone still sees every notification.
 *
 *   rank 1: counted put #1; MPI_Send(A) | rank 0: MPI_Recv(A); read until 1
 *   rank 1: MPI_Recv(B)                 | rank 0: MPI_Send(B)
 *   rank 1: counted put #2; MPI_Send(C); counted put #3
 *                                       | rank 0: MPI_Recv(C), which takes in
 *                                       |   #2 (sent before C, on a transport
 *                                       |   that keeps their order); 50 ms
 *                                       |   without MPI calls, so that #3 waits
 *                                       |   at this process; one read: 2, not
 *                                       |   3 (no round of progress took #3
 *                                       |   in); reads until 3
 * Where the window's path is polled (the rings) a read takes in what waits
 * on it without a round, so the first read there may see 3.  The same
 * cells also take a plain MPI_Put and MPI_Get after the counted puts.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "na_test.h"

static void spin_ms(int ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000.0 + (b.tv_nsec - a.tv_nsec) / 1e6 < ms);
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
    MPI_OK(MPIX_Win_create_notify(win, 1));
    char path[64], why[64];
    na_path(win, 1 - rank, path, why, sizeof(path));
    int polled = !strcmp(path, "ring");
    MPI_OK(MPI_Win_lock_all(0, win));

    if (rank == 1) {
        for (int k = 1; k <= 3; k++) {
            v = k;
            if (k == 2)
                MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 'B', MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, k, 1, MPI_INT64_T, 0, win));
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
        spin_ms(50);
        MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        if (polled)
            CHECK(c == 2 || c == 3, "ring path: first read %lld, want 2 or 3", (long long) c);
        else
            CHECK(c == 2, "path %s: the first read after MPI_Recv took in put #2 returned %lld: "
                  "it must return the new value 2 without a round of progress (which takes "
                  "in #3)", path, (long long) c);
        do
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        while (c < 3);
        CHECK(c == 3, "counter %lld after three counted puts", (long long) c);
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
