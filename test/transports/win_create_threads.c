/* MPI_THREAD_MULTIPLE: windows created and freed concurrently by NTHREADS
 * threads per rank, each on its own communicator (2 ranks).  Every window
 * is numbered at creation (the libfabric path's slot, agreed collectively);
 * two windows alive at once with the same number would hand one window's
 * notifications to the other.  Each round, thread t of each rank puts a
 * value naming (round, thread) into the peer's window with tag t, and
 * matches the peer's put on its own window: wrong data, a wrong tag or a
 * hang shows a shared number.  An ordinary put and get on the same bytes
 * after the flush must see the notified value replaced. */
#include "na_test.h"
#include <pthread.h>

#define NTHREADS 3
#define ROUNDS 200

static MPI_Comm comms[NTHREADS];
static int rank, errs[NTHREADS];

static void *worker(void *arg)
{
    int t = (int) (long) arg, peer = 1 - rank;
    MPI_Comm comm = comms[t];

    for (int r = 0; r < ROUNDS; r++) {
        MPI_Win win;
        int *buf;
        MPI_Request req;
        MPI_Status st;
        int v = (r * NTHREADS + t) * 2 + rank, got = -1, back = -1;

        MPI_OK(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &buf, &win));
        buf[0] = buf[1] = -1;
        MPI_OK(MPI_Notify_init(win, peer, t, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Barrier(comm));      /* buffers initialised everywhere */
        MPI_OK(MPI_Win_lock_all(0, win));
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, t));
        MPI_OK(MPI_Win_flush(peer, win));
        MPI_OK(MPI_Wait(&req, &st));
        int want = (r * NTHREADS + t) * 2 + peer;
        if (st.MPI_SOURCE != peer || st.MPI_TAG != t || buf[0] != want) {
            if (errs[t]++ < 5)
                fprintf(stderr, "[%d] thread %d round %d: source %d tag %d value %d, "
                        "expected %d %d %d\n", rank, t, r, st.MPI_SOURCE, st.MPI_TAG, buf[0],
                        peer, t, want);
        }
        /* ordinary RMA on the notified bytes, once both have checked them */
        MPI_OK(MPI_Barrier(comm));
        int w = -v;
        MPI_OK(MPI_Put(&w, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(peer, win));
        MPI_OK(MPI_Get(&got, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(peer, win));
        if (got != w && errs[t]++ < 5)
            fprintf(stderr, "[%d] thread %d round %d: get after put read %d, expected %d\n",
                    rank, t, r, got, w);
        MPI_OK(MPI_Win_unlock_all(win));
        MPI_OK(MPI_Barrier(comm));
        back = buf[0];
        if (back != -want && errs[t]++ < 5)
            fprintf(stderr, "[%d] thread %d round %d: window holds %d, expected %d\n", rank, t,
                    r, back, -want);
        MPI_OK(MPI_Request_free(&req));
        MPI_OK(MPI_Win_free(&win));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    pthread_t th[NTHREADS];

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("needs 2 ranks and MPI_THREAD_MULTIPLE (got %d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *) (long) t);
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
        na_errs += errs[t];
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_OK(MPI_Comm_free(&comms[t]));
    return na_finish();
}
