/* The path table through MPI_T (performance variables notify_path and
 * notify_path_reason, bound to a window), for every window flavour, on
 * the configuration the suite names in NA_EXPECT_PATH (the path an
 * allocated window's notified accesses take to another process):
 *   - the calling process is always generic/self;
 *   - allocate (and allocate_shared where all ranks share a node) take the
 *     configuration's path;
 *   - create: registered memory takes the libfabric path, any memory the
 *     UCX active messages (the target writes it), but the rings need memory
 *     in a node-shared segment: on ch4:ofi generic/no-fast-path, on ch4:ucx
 *     (whose netmod hosts the rings) ucx-am (forced: the reason depends on
 *     whether a transport had a path to offer);
 *   - dynamic: the libfabric path needs memory registered at creation
 *     (generic/dynamic), and so does the UCX path (a displacement there is
 *     an address, which the target does not check), the rings shared memory
 *     (generic/no-fast-path);
 *   - a handle bound to no window has no values.
 * Then one notified put per target shows the path carries data. */
#include "na_test.h"

static void expect(MPI_Win win, int target, const char *want, const char *flavor)
{
    char path[64], why[64], got[130];
    na_path(win, target, path, why, sizeof(path));
    snprintf(got, sizeof(got), "%s/%s", path, why);
    CHECK(strncmp(got, want, strlen(want)) == 0, "%s window, target %d: %s, expected %s",
          flavor, target, got, want);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *env = getenv("NA_EXPECT_PATH");
    if (!env || !*env) {
        if (rank == 0)
            printf("NA_EXPECT_PATH not set: run by test/run-suite.sh\n");
        MPI_Finalize();
        return 1;
    }
    int ring = strncmp(env, "ring", 4) == 0, cq = strncmp(env, "cq-data", 7) == 0;
    int ucx = strncmp(env, "ucx-am", 6) == 0;
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_OK(MPI_Get_library_version(version, &len));
    int ucx_build = strstr(version, "ch4:ucx") != NULL;
    if (ring && ucx_build)      /* the rings on ch4:ucx: UCX messages without them */
        ucx = 1, ring = 0;

    for (int f = 0; f < NA_NFLAVORS; f++) {
        int flavor = na_flavors[f];
        if (flavor == MPI_WIN_FLAVOR_SHARED && !na_shared_ok(MPI_COMM_WORLD))
            continue;
        const char *name = na_flavor_name(flavor), *want = env;
        if (flavor == MPI_WIN_FLAVOR_CREATE)
            want = ring ? "generic/no-fast-path" : cq ? env : ucx ? "ucx-am/ucx-active-message" :
                "generic";
        if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
            want = cq || ucx ? "generic/dynamic" : ring ? "generic/no-fast-path" : "generic";
        na_win_t w;
        na_win_create(flavor, 64, MPI_COMM_WORLD, &w);
        for (int t = 0; t < size; t++)
            expect(w.win, t, t == rank ? "generic/self" : want, name);

        /* the path carries data: one notified put to the next rank */
        int to = (rank + 1) % size, from = (rank + size - 1) % size, v = 100 + rank;
        MPI_Request req;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(w.win, from, f, 1, &req));
        MPI_OK(MPI_Start(&req));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Win_lock_all(0, w.win));
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, to, w.disp_of[to], 1, MPI_INT, w.win, f));
        MPI_OK(MPI_Win_flush(to, w.win));
        MPI_OK(MPI_Wait(&req, &st));
        CHECK(*(int *) w.base == 100 + from && st.MPI_SOURCE == from,
              "%s window: %d from %d", name, *(int *) w.base, st.MPI_SOURCE);
        MPI_OK(MPI_Win_unlock_all(w.win));
        MPI_OK(MPI_Request_free(&req));
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            char path[64], why[64];
            na_path(w.win, to, path, why, sizeof(path));
            printf("%-16s to rank %d: %s (%s)\n", name, to, path, why);
        }
        na_win_free(&w);
    }

    /* bound to no window: no values, no crash */
    {
        MPI_T_pvar_session s;
        MPI_T_pvar_handle h;
        int idx, count = -1;
        MPI_Win none = MPI_WIN_NULL;
        MPI_OK(MPI_T_pvar_session_create(&s));
        MPI_OK(MPI_T_pvar_get_index("notify_path", MPI_T_PVAR_CLASS_STATE, &idx));
        MPI_OK(MPI_T_pvar_handle_alloc(s, idx, &none, &h, &count));
        CHECK(count == 0, "MPI_WIN_NULL: count %d", count);
        MPI_OK(MPI_T_pvar_handle_free(s, &h));
        MPI_OK(MPI_T_pvar_session_free(&s));
    }
    return na_finish();
}
