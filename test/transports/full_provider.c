/* Notifications stay whole and in order when the provider is full (issue 33).
 *
 * A notification of 2,047 bytes or more travels on the libfabric path as
 * two remote-CQ-data words (a length word, then the head) when the window's
 * rank field is 19 bits wide (test/harness/testlist sets
 * MPIR_CVAR_NOTIFY_OFI_RANK_BITS=19; a window of 2 would need no length
 * word below 256 MiB).  When a send
 * meets -FI_EAGAIN, MPICH's retry runs a round of progress, and a completion
 * function (MPIX_Request_on_complete) that progress runs may itself issue a
 * notified access to the same target: no word of it may go between the two
 * words of the notification being sent, or the target decodes a wrong
 * length.  Run with MPIR_CVAR_NOTIFY_OFI_FULL_EVERY=N, which makes every
 * N-th word meet a full provider (test/harness/testlist).
 *
 * Rank 0 issues, per round, a mix to rank 1 through one window: notified
 * gets of 8 bytes (their words wait in a queue for the read), notified
 * puts of 4 KiB and 40 KB (two words each) and of 16 bytes (one word), then
 * a plain MPI_Put and an MPI_Accumulate on the same bytes after a flush.
 * Each round rank 1 also sends rank 0 a message, whose receive's completion
 * function puts 3,000 notified bytes (two words) with tag CB_TAG.  Rank 1
 * matches every notification with an MPI_ANY_TAG request and checks tag and
 * byte count: the mix in issue order, the function's wherever they fall.
 */
#include "na_test.h"

#define ROUNDS 100
#define NOPS 8
#define WIN_BYTES (64 * 1024)
#define GET_DISP 60000          /* gets read bytes no put writes */
#define CB_DISP 50000           /* the completion function's puts land here */
#define CB_BYTES 3000
#define CB_TAG NOPS
#define MSG_TAG 99

static const int op_bytes[NOPS] = { 8, 4096, 8, 40000, 16, 4096, 8, 2047 };
static const int op_is_get[NOPS] = { 1, 0, 1, 0, 0, 0, 1, 0 };

/* rank 0's completion function: a notified put from inside progress, then
 * the next receive */
static MPI_Win cb_win;
static char cb_buf[CB_BYTES];
static int cb_msg, cb_calls, cb_errs;
static void post_next(void);
static void on_message(MPI_Status *status, void *arg)
{
    (void) arg;
    (void) status;
    cb_calls++;
    if (MPI_Put_notify(cb_buf, CB_BYTES, MPI_BYTE, 1, CB_DISP, CB_BYTES, MPI_BYTE, cb_win,
                       CB_TAG) != MPI_SUCCESS)
        cb_errs++;
    if (cb_calls < ROUNDS)
        post_next();
}

static void post_next(void)
{
    MPI_Request r;
    if (MPI_Irecv(&cb_msg, 1, MPI_INT, 1, MSG_TAG, MPI_COMM_WORLD, &r) != MPI_SUCCESS ||
        MPIX_Request_on_complete(r, on_message, NULL) != MPI_SUCCESS)
        cb_errs++;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "full_provider: run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    char *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 0, WIN_BYTES);
    cb_win = win;
    char *buf = malloc(WIN_BYTES), getbuf[NOPS * 8];
    for (int i = 0; i < WIN_BYTES; i++)
        buf[i] = (char) (i * 7 + 1);
    memset(cb_buf, 3, CB_BYTES);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    if (rank == 0) {
        MPI_OK(MPI_Win_lock_all(0, win));
        post_next();
        for (int r = 0; r < ROUNDS; r++) {
            for (int k = 0; k < NOPS; k++) {
                if (op_is_get[k])
                    MPI_OK(MPI_Get_notify(getbuf + 8 * k, op_bytes[k], MPI_BYTE, 1, GET_DISP,
                                          op_bytes[k], MPI_BYTE, win, k));
                else
                    MPI_OK(MPI_Put_notify(buf, op_bytes[k], MPI_BYTE, 1, 0, op_bytes[k],
                                          MPI_BYTE, win, k));
            }
            MPI_OK(MPI_Win_flush(1, win));
            /* plain RMA on the same bytes, after the flush */
            int one = 1;
            MPI_OK(MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, MPI_SUM, win));
            MPI_OK(MPI_Win_flush(1, win));
        }
        /* every message's function has run (a flush's progress runs no
         * completion functions; a probe's full round does) */
        while (cb_calls < ROUNDS && !cb_errs) {
            int flag;
            MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        }
        MPI_OK(MPI_Win_unlock_all(win));
        CHECK(cb_errs == 0, "%d errors in the completion function", cb_errs);
    } else {
        MPI_Request req;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, 0, MPI_ANY_TAG, 1, &req));
        int bad = 0, cb_seen = 0;
        for (int r = 0; r < ROUNDS; r++) {
            MPI_OK(MPI_Send(&r, 1, MPI_INT, 0, MSG_TAG, MPI_COMM_WORLD));
            for (int k = 0; k < NOPS;) {
                int bytes = -1;
                MPI_OK(MPI_Start(&req));
                MPI_OK(MPI_Wait(&req, &st));
                MPI_OK(MPI_Get_count(&st, MPI_BYTE, &bytes));
                if (st.MPI_TAG == CB_TAG && bytes == CB_BYTES) {
                    cb_seen++;
                    continue;
                }
                if ((st.MPI_TAG != k || bytes != op_bytes[k]) && bad++ < 5)
                    CHECK(0, "round %d, access %d: tag %d, %d bytes; want tag %d, %d bytes", r,
                          k, st.MPI_TAG, bytes, k, op_bytes[k]);
                k++;
            }
        }
        while (cb_seen < ROUNDS && !bad) {
            int bytes = -1;
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, &st));
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &bytes));
            if (st.MPI_TAG == CB_TAG && bytes == CB_BYTES)
                cb_seen++;
            else if (bad++ < 5)
                CHECK(0, "after the rounds: tag %d, %d bytes; want tag %d, %d bytes",
                      st.MPI_TAG, bytes, CB_TAG, CB_BYTES);
        }
        CHECK(bad == 0, "%d notifications out of order or torn", bad);
        MPI_OK(MPI_Request_free(&req));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        int first;
        memcpy(&first, base, sizeof(int));
        CHECK(first == 2, "word 0 is %d, want 2 (put 1, then accumulate 1)", first);
        CHECK(memcmp(base + 4, buf + 4, 4096 - 4) == 0, "put bytes differ");
        CHECK(base[CB_DISP] == 3 && base[CB_DISP + CB_BYTES - 1] == 3,
              "the completion function's bytes are missing");
        MPI_OK(MPI_Win_unlock(1, win));
    }
    MPI_OK(MPI_Win_free(&win));
    free(buf);
    return na_finish();
}
