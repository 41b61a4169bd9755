/* Fault test program, driven by test/faults/kill_rank.sh: a flood of
 * notified puts that runs until a rank is killed.
 *
 *   kill_flood DIR
 *
 * Rank 0 floods every other rank with small MPI_Put_notify (tag DATA_TAG),
 * flushing after each batch of BATCH puts to that target; each other rank
 * matches them with one persistent request (MPI_Notify_init, count 1) in an
 * MPI_Start / MPI_Wait loop.  To keep the target's unexpected queue bounded
 * (the run lasts as long as the script lets it), a target answers every
 * BATCH matched notifications with a zero-byte notified put (CREDIT_TAG) back
 * to rank 0, and rank 0 runs at most CREDITS batches ahead of a target.
 *
 * Once a rank has put (rank 0: flushed) or matched its first PID_AFTER
 * notifications it writes its pid to DIR/pid.RANK (written to a temporary
 * name and renamed, so the file appears complete).  It never ends: the
 * script kills one rank with SIGKILL and checks that the job goes down. */
#include "na_test.h"
#include <unistd.h>

#define DATA_TAG 7
#define CREDIT_TAG 8
#define BATCH 256       /* puts between flushes, matches between credits */
#define CREDITS 4       /* batches rank 0 may run ahead of a target */
#define SLOTS 1024      /* ints in each window */
#define PID_AFTER 1000

static void write_pid(const char *dir, int rank)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof(path), "%s/pid.%d", dir, rank);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%ld\n", (long) getpid()) < 0 || fclose(f) != 0 ||
        rename(tmp, path) != 0) {
        fprintf(stderr, "[%d] cannot write %s\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int rank, size, *buf;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n N (N >= 2) %s PIDDIR\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_OK(MPI_Win_allocate(SLOTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &buf, &win));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        int ntargets = size - 1;
        static int vals[SLOTS]; /* a slot is reused only after the flush below */
        MPI_Request *credit = malloc(ntargets * sizeof(MPI_Request));
        long *batches = calloc(ntargets, sizeof(long));
        for (int t = 1; t < size; t++)
            MPI_OK(MPI_Notify_init(win, t, CREDIT_TAG, 1, &credit[t - 1]));
        long sent = 0;
        int pid_written = 0;
        for (int t = 1;; t = t % ntargets + 1) {
            /* at most CREDITS batches not yet matched at t */
            if (batches[t - 1] >= CREDITS) {
                MPI_OK(MPI_Start(&credit[t - 1]));
                MPI_OK(MPI_Wait(&credit[t - 1], MPI_STATUS_IGNORE));
                batches[t - 1]--;
            }
            for (int i = 0; i < BATCH; i++, sent++) {
                int slot = (int) (sent % SLOTS);
                vals[slot] = (int) sent;
                MPI_OK(MPI_Put_notify(&vals[slot], 1, MPI_INT, t, slot, 1, MPI_INT, win,
                                      DATA_TAG));
            }
            MPI_OK(MPI_Win_flush(t, win));
            batches[t - 1]++;
            if (!pid_written && sent >= PID_AFTER) {
                write_pid(argv[1], rank);
                pid_written = 1;
            }
        }
    } else {
        MPI_Request req;
        MPI_Status st;
        long matched = 0;
        int none = 0;
        MPI_OK(MPI_Notify_init(win, 0, DATA_TAG, 1, &req));
        for (;;) {
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, &st));
            CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == DATA_TAG,
                  "notification from %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
            if (na_errs)
                MPI_Abort(MPI_COMM_WORLD, 1);
            if (++matched % BATCH == 0) {
                MPI_OK(MPI_Put_notify(&none, 0, MPI_INT, 0, 0, 0, MPI_INT, win, CREDIT_TAG));
                MPI_OK(MPI_Win_flush(0, win));
            }
            if (matched == PID_AFTER)
                write_pid(argv[1], rank);
        }
    }
    /* not reached: the run ends when a rank is killed */
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 1;
}
