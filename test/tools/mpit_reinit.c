/*
 * MPI_T opened and closed while MPI is initialized (a tool or library that
 * uses MPI_T around its own work), twice: MPI goes on working, its control
 * variables intact (patches/fixes/0014; before it MPI_Comm_dup crashed on
 * ch4:ofi).  Then communicators, a window and a notified access, which
 * read control variables of their own.  Each time, the enum control
 * variables' MPI_T enums.
 */
#include "na_test.h"

/* Every enum control variable carries its MPI_T enum, named as the
 * variable, whose items a tool can read (the handles stay valid however
 * many enums there are); the notified path's has its three choices, and its
 * description keeps its line breaks ("offers\nRMA", not "offersRMA"). */
static void enums(int n)
{
    int nenum = 0, path = 0;
    for (int i = 0; i < n; i++) {
        char name[256], desc[2048], ename[256], iname[64];
        int nlen = sizeof(name), dlen = sizeof(desc), elen = sizeof(ename), verb, bind, scope,
            nitems;
        MPI_Datatype dt;
        MPI_T_enum e;
        MPI_OK(MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &e, desc, &dlen, &bind, &scope));
        if (e == MPI_T_ENUM_NULL)
            continue;
        nenum++;
        MPI_OK(MPI_T_enum_get_info(e, &nitems, ename, &elen));
        CHECK(strcmp(ename, name) == 0 && nitems > 0, "%s: enum %s of %d items", name, ename,
              nitems);
        int seen = 0, values[64];
        for (int j = 0; j < nitems && j < 64; j++) {
            int ilen = sizeof(iname);
            MPI_OK(MPI_T_enum_get_item(e, j, &values[j], iname, &ilen));
            for (int k = 0; k < j; k++)
                CHECK(values[k] != values[j], "%s: items %d and %d have value %d", name, k, j,
                      values[j]);
            if (!strcmp(iname, "auto") || !strcmp(iname, "native") || !strcmp(iname, "generic"))
                seen++;
        }
        if (!strcmp(name, "MPIR_CVAR_NOTIFY_OFI_PATH")) {       /* registered in every build */
            path++;
            CHECK(seen == 3, "%s: %d of auto, native, generic", name, seen);
            CHECK(strchr(desc, '\n') && !strstr(desc, "offersRMA") && !strstr(desc, "genericactive"),
                  "%s: description without its line breaks: %s", name, desc);
        }
    }
    CHECK(nenum > 10 && path == 1, "%d enum control variables, %d notified path's", nenum, path);
}

static int cvars(void)
{
    int provided, n = -1;
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_OK(MPI_T_cvar_get_num(&n));
    enums(n);
    MPI_OK(MPI_T_finalize());
    return n;
}

int main(int argc, char **argv)
{
    int rank, size, n1, n2;
    MPI_Comm dup;
    MPI_Win win;
    int *base, v;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n1 = cvars();
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Barrier(dup));
    n2 = cvars();
    CHECK(n1 > 0 && n1 == n2, "control variables: %d, then %d", n1, n2);

    MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, dup, &base, &win));
    *base = 0;
    MPI_OK(MPI_Barrier(dup));
    int peer = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request req;
    MPI_OK(MPI_Notify_init(win, from, 1, 1, &req));
    MPI_OK(MPI_Start(&req));
    MPI_OK(MPI_Win_lock_all(0, win));
    v = rank + 1;
    MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win, 1));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_sync(win));
    CHECK(*base == from + 1, "notified put: %d, want %d", *base, from + 1);
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Request_free(&req));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Comm_free(&dup));
    return na_finish();
}
