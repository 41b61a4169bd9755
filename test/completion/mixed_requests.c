/* Notification requests mixed with ordinary requests in the standard
 * completion calls: Waitany, Testany, Waitsome, Testall, Startall with a
 * persistent receive, Request_get_status (2 ranks; rank 1 is the target). */
#include "na_test.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *buf;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                            &win));
    na_expect_path(win);
    MPI_OK(MPI_Win_lock_all(0, win));
    int v = 77, rb[4] = { 0 };

    for (int round = 0; round < 3; round++) {
        if (rank == 1) {
            MPI_Request r[4];
            MPI_Status st[4];
            int done[4] = { 0 }, idx, flag, outcount, indices[4];
            MPI_OK(MPI_Notify_init(win, 0, 1, 1, &r[0]));
            MPI_OK(MPI_Irecv(&rb[1], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r[1]));
            MPI_OK(MPI_Notify_init(win, 0, 3, 2, &r[2]));
            MPI_OK(MPI_Irecv(&rb[3], 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &r[3]));
            MPI_OK(MPI_Start(&r[0]));
            MPI_OK(MPI_Start(&r[2]));
            MPI_Barrier(MPI_COMM_WORLD);
            int ndone = 0;
            while (ndone < 4) {
                if (round == 0) {
                    MPI_OK(MPI_Waitany(4, r, &idx, &st[0]));
                    CHECK(idx != MPI_UNDEFINED && !done[idx], "waitany index %d", idx);
                    if (idx == MPI_UNDEFINED)
                        break;
                    int want_tag = idx + 1;
                    CHECK(st[0].MPI_TAG == want_tag, "waitany: index %d has tag %d", idx,
                          st[0].MPI_TAG);
                    done[idx] = 1;
                    ndone++;
                } else if (round == 1) {
                    MPI_OK(MPI_Testany(4, r, &idx, &flag, &st[0]));
                    if (flag && idx != MPI_UNDEFINED) {
                        CHECK(!done[idx] && st[0].MPI_TAG == idx + 1, "testany index %d tag %d",
                              idx, st[0].MPI_TAG);
                        done[idx] = 1;
                        ndone++;
                    }
                } else {
                    MPI_OK(MPI_Waitsome(4, r, &outcount, indices, st));
                    CHECK(outcount != MPI_UNDEFINED, "waitsome found nothing active");
                    if (outcount == MPI_UNDEFINED)
                        break;
                    for (int k = 0; k < outcount; k++) {
                        CHECK(!done[indices[k]] && st[k].MPI_TAG == indices[k] + 1,
                              "waitsome index %d tag %d", indices[k], st[k].MPI_TAG);
                        done[indices[k]] = 1;
                        ndone++;
                    }
                }
            }
            /* receives are freed and set to MPI_REQUEST_NULL, notify requests stay */
            CHECK(r[1] == MPI_REQUEST_NULL && r[3] == MPI_REQUEST_NULL, "receives not freed");
            CHECK(r[0] != MPI_REQUEST_NULL && r[2] != MPI_REQUEST_NULL,
                  "persistent notify request was freed");
            /* everything inactive now: waitany reports MPI_UNDEFINED */
            MPI_OK(MPI_Waitany(4, r, &idx, &st[0]));
            CHECK(idx == MPI_UNDEFINED, "waitany on inactive requests gave %d", idx);
            CHECK(rb[1] == 77 && rb[3] == 77, "receive data");
            MPI_OK(MPI_Request_free(&r[0]));
            MPI_OK(MPI_Request_free(&r[2]));
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win, 3));
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD));
            MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win, 1));
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
            MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win, 3));
            MPI_OK(MPI_Win_flush(1, win));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* Startall over a persistent receive and a notify request, Testall */
    if (rank == 1) {
        MPI_Request r[2];
        MPI_Status sts2[2];
        int flag = 0;
        MPI_OK(MPI_Recv_init(&rb[0], 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &r[0]));
        MPI_OK(MPI_Notify_init(win, 0, 9, 1, &r[1]));
        MPI_OK(MPI_Startall(2, r));
        /* get_status does not complete or free */
        MPI_Status st;
        MPI_OK(MPI_Request_get_status(r[1], &flag, &st));
        CHECK(!flag, "get_status before any notification says complete");
        MPI_Barrier(MPI_COMM_WORLD);
        while (!flag)
            MPI_OK(MPI_Request_get_status(r[1], &flag, &st));
        CHECK(st.MPI_TAG == 9 && st.MPI_SOURCE == 0, "get_status status tag %d", st.MPI_TAG);
        flag = 0;
        while (!flag)
            MPI_OK(MPI_Testall(2, r, &flag, sts2));
        /* inactive now: status empty, returns at once */
        MPI_OK(MPI_Wait(&r[1], &st));
        CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
              "wait on inactive request: src %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        MPI_OK(MPI_Request_get_status(r[1], &flag, &st));
        CHECK(flag && st.MPI_TAG == MPI_ANY_TAG, "get_status of inactive request");
        MPI_OK(MPI_Request_free(&r[0]));
        MPI_OK(MPI_Request_free(&r[1]));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win, 9));
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
