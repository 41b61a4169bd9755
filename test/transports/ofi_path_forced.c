/* MPIR_CVAR_NOTIFY_OFI_PATH=native (set by the test list).  A window the
 * libfabric path cannot serve (dynamic: memory registered per attach) is
 * still created, but a notified access that would cross the netmod to a
 * remote target fails with MPI_ERR_OTHER and a message naming the CVAR and
 * the reason; node-local targets keep their own path.  An allocated window
 * carries notifications. */
#include "na_test.h"

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *nolocal = getenv("MPIR_CVAR_NOLOCAL");
    int remote = nolocal && atoi(nolocal);      /* the netmod is forced */

    na_win_t d;
    na_win_create(MPI_WIN_FLAVOR_DYNAMIC, sizeof(int), MPI_COMM_WORLD, &d);
    if (remote) {
        char path[64], why[64];
        na_path(d.win, 1 - rank, path, why, sizeof(path));
        CHECK(!strcmp(path, "refused") && !strcmp(why, "dynamic"), "MPI_T: %s/%s", path, why);
    }
    MPI_OK(MPI_Win_lock_all(0, d.win));
    if (rank == 1) {
        int v = 7, cls, len;
        char msg[MPI_MAX_ERROR_STRING] = "";
        int rc = MPI_Put_notify(&v, 1, MPI_INT, 0, d.disp_of[0], 1, MPI_INT, d.win, 3);
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, msg, &len);
        if (remote) {
            CHECK(cls == MPI_ERR_OTHER, "dynamic window, path forced: class %d (%s)", cls, msg);
            CHECK(strstr(msg, "MPIR_CVAR_NOTIFY_OFI_PATH=native") && strstr(msg, "dynamic"),
                  "message does not name the CVAR and the reason: %s", msg);
        } else
            CHECK(rc == MPI_SUCCESS, "node-local target: %s", msg);
        /* tell rank 0 whether a notification is coming */
        MPI_Send(&rc, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
        int rc;
        MPI_Recv(&rc, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS) {
            MPI_Request req;
            MPI_OK(MPI_Notify_init(d.win, 1, 3, 1, &req));
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            MPI_Request_free(&req);
        }
    }
    MPI_OK(MPI_Win_unlock_all(d.win));
    MPI_Barrier(MPI_COMM_WORLD);
    na_win_free(&d);

    int *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    na_expect_path(win);
    *base = -1;
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int v = 42;
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win, 5));
        MPI_OK(MPI_Win_flush(0, win));
    } else if (rank == 0) {
        MPI_Request req;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, 1, 5, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, &st));
        CHECK(*base == 42 && st.MPI_TAG == 5, "got %d with tag %d", *base, st.MPI_TAG);
        MPI_Request_free(&req);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
