/* MPI_THREAD_MULTIPLE: concurrent calls on distinct requests and windows
 * (2 ranks, NTHREADS threads each).  Thread t of rank 0 sends NITER notified
 * puts through window t; thread t of rank 1 matches them with its own
 * request, restarted each time, and checks order and data. */
#include "na_test.h"
#include <pthread.h>

#define NTHREADS 2
#define NITER 2000

static MPI_Win wins[NTHREADS];
static int *bufs[NTHREADS];
static int rank, errs[NTHREADS];

static void *worker(void *arg)
{
    int t = (int) (long) arg;
    if (rank == 0) {
        for (int i = 0; i < NITER; i++) {
            int v = i * NTHREADS + t;
            if (MPI_Put_notify(&v, 1, MPI_INT, 1, i % 64, 1, MPI_INT, wins[t], i % 1000) !=
                MPI_SUCCESS || MPI_Win_flush(1, wins[t]) != MPI_SUCCESS)
                errs[t]++;
            /* stay at most 32 puts ahead: slots are reused every 64 */
            if (i % 32 == 31)
                MPI_Recv(NULL, 0, MPI_BYTE, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Request req;
        MPI_Status st;
        MPI_Notify_init(wins[t], 0, MPI_ANY_TAG, 1, &req);
        for (int i = 0; i < NITER; i++) {
            MPI_Start(&req);
            MPI_Wait(&req, &st);
            if (st.MPI_TAG != i % 1000 || bufs[t][i % 64] != i * NTHREADS + t)
                errs[t]++;
            if (i % 32 == 31)
                MPI_Send(NULL, 0, MPI_BYTE, 0, t, MPI_COMM_WORLD);
        }
        MPI_Request_free(&req);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    pthread_t th[NTHREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("MPI_THREAD_MULTIPLE not provided\nNo Errors\n");
        MPI_Finalize();
        return 0;
    }
    for (int t = 0; t < NTHREADS; t++) {
        MPI_OK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                &bufs[t], &wins[t]));
        na_expect_path(wins[t]);
        MPI_OK(MPI_Win_lock_all(0, wins[t]));
    }
    for (long t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *) t);
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK(errs[t] == 0, "thread %d: %d errors", t, errs[t]);
    }
    for (int t = 0; t < NTHREADS; t++) {
        MPI_OK(MPI_Win_unlock_all(wins[t]));
        MPI_OK(MPI_Win_free(&wins[t]));
    }
    return na_finish();
}
