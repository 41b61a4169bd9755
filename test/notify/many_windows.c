/* Many windows at once (issue 32): no limit of Notified Access's own on
 * windows (the libfabric path's 256 window slots only decide which windows
 * it serves), and every one of them usable for plain and notified access,
 * in both dialects.  MPICH 4.0.2 itself stops at 2,045 windows per process:
 * each window duplicates its communicator, and context ids run out.
 *
 *   many_windows [N]      (default 2000)
 *   many_windows -limit   windows until MPICH has no context id left: the
 *                         creation that fails returns an error (fix 0006;
 *                         it aborted), the process goes on, and a window
 *                         made after freeing the others works
 *
 * Allocates N windows of 16 bytes (MPI_Win_allocate; every 10th one
 * MPI_Win_create over user memory), then, on the first, a middle and the
 * last one (and on every 997th), each rank
 *   - puts a word into its right neighbour's window with MPI_Put + flush,
 *     then overwrites the next word with MPI_Put_notify (matching dialect),
 *   - accumulates into the first word after that flush,
 *   - adds one to counter 0 with MPIX_Put_notify (counter dialect),
 * and the neighbour checks the notification's status, the bytes and the
 * counter.  Windows are then freed in an order different from creation.
 * The ch4:ofi builds have 20-bit context ids (scripts/build-mpich.sh):
 * about 32,000 windows; ch4:ucx keeps 16 bits (UCX's tag has 16): 2,045.
 * The ring of a process serves all its windows: the checks on late windows
 * also cover cells naming one window among thousands.
 */
#include "na_test.h"

#define TAG 5

static void exercise(MPI_Win win, int *mem, int w, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int plain = 1000 * w + rank, notified = -plain, one = 1;
    MPI_Request req;
    MPI_Status st;
    MPI_Count count = 0;

    MPI_OK(MPIX_Win_create_notify(win, 1));
    MPI_OK(MPI_Notify_init(win, left, TAG, 1, &req));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Put(&plain, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(right, win));
    MPI_OK(MPI_Put_notify(&notified, 1, MPI_INT, right, 1, 1, MPI_INT, win, TAG));
    MPI_OK(MPI_Win_flush(right, win));
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, right, 0, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(right, win));
    MPI_OK(MPIX_Put_notify(&one, 1, MPI_INT, right, 2, 1, MPI_INT, 0, win));
    MPI_OK(MPI_Win_flush(right, win));

    MPI_OK(MPI_Wait(&req, &st));
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == TAG, "window %d: status %d/%d", w,
          st.MPI_SOURCE, st.MPI_TAG);
    do
        MPI_OK(MPIX_Win_get_notify(win, 0, &count));
    while (count < 1);
    CHECK(count == 1, "window %d: counter %lld", w, (long long) count);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_sync(win));
    int want0 = 1000 * w + left + 1, want1 = -(1000 * w + left);
    CHECK(mem[0] == want0 && mem[1] == want1 && mem[2] == 1,
          "window %d: words %d %d %d, want %d %d 1", w, mem[0], mem[1], mem[2], want0, want1);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Request_free(&req));
    MPI_OK(MPIX_Win_free_notify(win));
}

/* Windows until creation fails; returns how many there were */
static int to_the_limit(int rank, int size)
{
    int cap = 1 << 16, n = 0, rc = MPI_SUCCESS, cls = -1;
    MPI_Win *win = malloc(cap * sizeof(MPI_Win));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    while (n < cap) {
        int *mem;
        rc = MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                              &win[n]);
        if (rc != MPI_SUCCESS)
            break;
        n++;
    }
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_OTHER, "after %d windows: rc %d, class %d", n, rc,
          cls);
    for (int w = 0; w < n; w++)
        MPI_OK(MPI_Win_free(&win[w]));
    free(win);
    /* the library is whole: a new window works in both dialects */
    int *mem;
    MPI_Win one;
    MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                            &one));
    memset(mem, 0, 4 * sizeof(int));
    exercise(one, mem, 0, rank, size);
    MPI_OK(MPI_Win_free(&one));
    return n;
}

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "-limit") == 0) {
        n = to_the_limit(rank, size);
        if (rank == 0)
            printf("many_windows: window creation failed cleanly after %d windows\n", n);
        return na_finish();
    }
    if (n < 3) {
        if (rank == 0)
            fprintf(stderr, "many_windows: N must be at least 3\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win *win = malloc(n * sizeof(MPI_Win));
    int **mem = malloc(n * sizeof(int *));
    int *user = calloc((size_t) n, 4 * sizeof(int));
    for (int w = 0; w < n; w++) {
        if (w % 10 == 9) {
            mem[w] = user + 4 * w;
            MPI_OK(MPI_Win_create(mem[w], 4 * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &win[w]));
        } else {
            MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                    &mem[w], &win[w]));
            memset(mem[w], 0, 4 * sizeof(int));
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int used = 0;
    for (int w = 0; w < n; w++)
        if (w == 0 || w == n / 2 || w == n - 1 || w % 997 == 0 || w == 9) {
            exercise(win[w], mem[w], w, rank, size);
            used++;
        }
    /* free the odd ones first, then the rest from the end */
    for (int w = 1; w < n; w += 2)
        MPI_OK(MPI_Win_free(&win[w]));
    for (int w = n - 1 - (n - 1) % 2; w >= 0; w -= 2)
        MPI_OK(MPI_Win_free(&win[w]));
    if (rank == 0)
        printf("many_windows: %d windows open at once, %d exercised\n", n, used);
    free(user);
    free(mem);
    free(win);
    return na_finish();
}
