/*
 * The known program of natrace's test (test/tools/natrace.sh, which runs it under
 * the natrace launcher and checks the traces with test/tools/natrace_check.py).
 * It knows nothing of natrace: it only makes the notify events happen.
 * 2 ranks.
 *
 * Rank 0 does 5 MPI_Put_notify (tag 3) then 2 MPIX_Put_notify (counter 0)
 * to rank 1, flushing each and pausing 2 ms between them so that rank 1's
 * waits last long enough to be seen.  Rank 1 matches the tagged ones with
 * one persistent request (MPI_Notify_init, count 1): 5 x (MPI_Start,
 * MPI_Wait), then polls counter 0 until it reads 2.  natrace must see at
 * rank 1: 7 notify_arrival from source 0 (5 with tag 3, 2 with counter 0),
 * 5 notify_match (tag 3), 2 notify_counter_update (values 1, 2), at least
 * 5 MPI_Wait; at rank 0 no notify event.
 */
#define _POSIX_C_SOURCE 200809L
#include "na_test.h"
#include <time.h>

#define TAG 3
#define PUTS 5
#define COUNTED 2
#define BYTES 64

static void pause_ms(int ms)
{
    struct timespec t = { 0, ms * 1000000L };
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Win win;
    char *base;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "natrace_prog: run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_OK(MPI_Win_allocate(2 * BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_OK(MPIX_Win_create_notify(win, 1));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        char data[BYTES] = { 1 };
        for (int i = 0; i < PUTS; i++) {
            pause_ms(2);
            MPI_OK(MPI_Put_notify(data, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, win, TAG));
            MPI_OK(MPI_Win_flush(1, win));
        }
        for (int i = 0; i < COUNTED; i++) {
            pause_ms(2);
            MPI_OK(MPIX_Put_notify(data, BYTES, MPI_BYTE, 1, BYTES, BYTES, MPI_BYTE, 0, win));
            MPI_OK(MPI_Win_flush(1, win));
        }
    } else {
        MPI_Request r;
        MPI_Status st;
        MPI_Count count = 0;
        MPI_OK(MPI_Notify_init(win, 0, TAG, 1, &r));
        for (int i = 0; i < PUTS; i++) {
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, &st));
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == TAG, "status %d %d", st.MPI_SOURCE,
                  st.MPI_TAG);
        }
        while (count < COUNTED)
            MPI_OK(MPIX_Win_get_notify(win, 0, &count));
        MPI_OK(MPI_Request_free(&r));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPIX_Win_free_notify(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
