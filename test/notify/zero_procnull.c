/* Edge cases that send no data:
 *  - zero-size put/get still notify (bytes 0), also to self;
 *  - target_rank MPI_PROC_NULL is a no-op that produces no notification;
 *  - src_rank MPI_PROC_NULL requests complete at once with the PROC_NULL status;
 *  - a put/get to oneself notifies oneself, after the copy. */
#include "na_test.h"

int main(int argc, char **argv)
{
    int rank, size, flag, bytes;
    MPI_Status st;
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    int *buf;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    na_expect_path(win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Win_lock_all(0, win));

    /* zero-size put and get to the next rank */
    MPI_OK(MPI_Notify_init(win, from, MPI_ANY_TAG, 1, &req));
    MPI_OK(MPI_Put_notify(NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, win, 1));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 1 && bytes == 0,
          "zero-size put: src %d tag %d bytes %d", st.MPI_SOURCE, st.MPI_TAG, bytes);
    MPI_OK(MPI_Get_notify(NULL, 0, MPI_INT, peer, 0, 0, MPI_INT, win, 2));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 2 && bytes == 0,
          "zero-size get: src %d tag %d bytes %d", st.MPI_SOURCE, st.MPI_TAG, bytes);
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Request_free(&req));
    MPI_Barrier(MPI_COMM_WORLD);

    /* self: zero-size and with data */
    MPI_OK(MPI_Notify_init(win, rank, 3, 2, &req));
    MPI_OK(MPI_Start(&req));
    int v = 1234 + rank, got = 0;
    MPI_OK(MPI_Put_notify(NULL, 0, MPI_INT, rank, 0, 0, MPI_INT, win, 3));
    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, rank, 5, 1, MPI_INT, win, 3));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    CHECK(buf[5] == 1234 + rank, "self put data %d", buf[5]);
    CHECK(st.MPI_SOURCE == rank && bytes == sizeof(int), "self put status src %d bytes %d",
          st.MPI_SOURCE, bytes);
    MPI_OK(MPI_Request_free(&req));
    MPI_OK(MPI_Notify_init(win, rank, 4, 1, &req));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Get_notify(&got, 1, MPI_INT, rank, 5, 1, MPI_INT, win, 4));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_OK(MPI_Win_flush(rank, win));
    CHECK(got == 1234 + rank, "self get data %d", got);
    MPI_OK(MPI_Request_free(&req));

    /* PROC_NULL target: nothing happens, nothing arrives */
    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, 5));
    MPI_OK(MPI_Get_notify(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, 5));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 5, 1, &req));
    MPI_OK(MPI_Start(&req));
    for (int i = 0; i < 100; i++) {
        MPI_OK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a PROC_NULL access produced a notification");
        if (flag)
            break;
    }
    MPI_OK(MPI_Cancel(&req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "cancel of the unmatched request did not succeed");
    MPI_OK(MPI_Request_free(&req));

    /* PROC_NULL source */
    MPI_OK(MPI_Notify_init(win, MPI_PROC_NULL, 6, 3, &req));
    for (int round = 0; round < 2; round++) {
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Test(&req, &flag, &st));
        MPI_Get_count(&st, MPI_BYTE, &bytes);
        CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && bytes == 0,
              "PROC_NULL source: flag %d src %d tag %d bytes %d", flag, st.MPI_SOURCE, st.MPI_TAG,
              bytes);
    }
    MPI_OK(MPI_Request_free(&req));

    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
