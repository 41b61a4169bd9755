/* Small helpers shared by the Notified Access tests.
 * A test prints "No Errors" on rank 0 when every rank's checks passed; the
 * harness (test/run-suite.sh) requires that line and a zero exit status. */
#ifndef NA_TEST_H
#define NA_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int na_errs;
static int na_t_started;        /* na_path started MPI_T */

static inline int na_rank(void)
{
    int r = -1, init = 0;
    MPI_Initialized(&init);
    if (init)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            na_errs++;                                                          \
            fprintf(stderr, "[%d] %s:%d: check failed: %s: ", na_rank(),        \
                    __FILE__, __LINE__, #cond);                                 \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            fflush(stderr);                                                     \
        }                                                                       \
    } while (0)

/* abort on an unexpected MPI error, with its message */
#define MPI_OK(call)                                                            \
    do {                                                                        \
        int rc_ = (call);                                                       \
        if (rc_ != MPI_SUCCESS) {                                               \
            char s_[MPI_MAX_ERROR_STRING];                                      \
            int l_;                                                             \
            MPI_Error_string(rc_, s_, &l_);                                     \
            fprintf(stderr, "[%d] %s:%d: %s failed: %s\n", na_rank(),           \
                    __FILE__, __LINE__, #call, s_);                             \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

static inline int na_finish(void)
{
    int all = 0;
    MPI_Allreduce(&na_errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (na_rank() == 0) {
        if (all == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", all);
        fflush(stdout);
    }
    if (na_t_started)
        MPI_T_finalize();
    MPI_Finalize();
    return all != 0;
}

/* The path that the window's notified accesses take to target, and why, as
 * MPI_T shows them: the performance variables notify_path and
 * notify_path_reason, bound to the window (src/mpi/notify/notify_path.c).
 * path and why get the enum items' names ("cq-data", "provider-order"). */
static inline void na_pvar_item(MPI_T_pvar_session s, const char *var, MPI_Win win, int target,
                                char *out, int outlen)
{
    int idx, count, verb, bind, ro, cont, atomic, nlen = 0, dlen = 0, num, value;
    MPI_Datatype dt;
    MPI_T_enum et;
    MPI_T_pvar_handle h;
    char ename[64];
    int elen = sizeof(ename);

    snprintf(out, outlen, "?");
    MPI_OK(MPI_T_pvar_get_index(var, MPI_T_PVAR_CLASS_STATE, &idx));
    MPI_OK(MPI_T_pvar_get_info(idx, NULL, &nlen, &verb, NULL, &dt, &et, NULL, &dlen, &bind, &ro,
                               &cont, &atomic));
    MPI_OK(MPI_T_pvar_handle_alloc(s, idx, &win, &h, &count));
    int *v = calloc(count > 0 ? count : 1, sizeof(int));
    MPI_OK(MPI_T_pvar_read(s, h, v));
    MPI_OK(MPI_T_enum_get_info(et, &num, ename, &elen));
    for (int i = 0; i < num; i++) {
        char item[64];
        int ilen = sizeof(item);
        MPI_OK(MPI_T_enum_get_item(et, i, &value, item, &ilen));
        if (target < count && value == v[target])
            snprintf(out, outlen, "%s", item);
    }
    free(v);
    MPI_OK(MPI_T_pvar_handle_free(s, &h));
}

static inline void na_path(MPI_Win win, int target, char *path, char *why, int len)
{
    MPI_T_pvar_session s;
    if (!na_t_started) {
        int provided;
        MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
        na_t_started = 1;
    }
    MPI_OK(MPI_T_pvar_session_create(&s));
    na_pvar_item(s, "notify_path", win, target, path, len);
    na_pvar_item(s, "notify_path_reason", win, target, why, len);
    MPI_OK(MPI_T_pvar_session_free(&s));
}

/* Under the suite, NA_EXPECT_PATH is the path (and, after a '/', the reason)
 * that the configuration must give an allocated window's notified accesses
 * to another process (test/harness/transports): a silent fall back to another path
 * fails the test. */
static inline void na_expect_path_to(MPI_Win win, int target)
{
    const char *want = getenv("NA_EXPECT_PATH");
    char path[64], why[64], got[130];
    MPI_Group g;
    int me;
    MPI_Win_get_group(win, &g);
    MPI_Group_rank(g, &me);
    MPI_Group_free(&g);
    if (!want || !*want || target == me)
        return;
    na_path(win, target, path, why, sizeof(path));
    snprintf(got, sizeof(got), "%s/%s", path, why);
    CHECK(strncmp(got, want, strlen(want)) == 0 && (strchr(want, '/') || !strcmp(path, want)),
          "notified accesses to %d take %s, not %s", target, got, want);
}

static inline void na_expect_path(MPI_Win win)
{
    MPI_Group g;
    int n;
    MPI_Win_get_group(win, &g);
    MPI_Group_size(g, &n);
    MPI_Group_free(&g);
    for (int t = 0; t < n; t++)
        na_expect_path_to(win, t);
}

/* A window of `bytes` bytes (disp_unit 1) of the given flavour.  *disp_of
 * gets, for each rank, the displacement of its window start: 0, or the
 * absolute address for dynamic windows. */
typedef struct {
    MPI_Win win;
    char *base;
    MPI_Aint *disp_of;
    int flavor;
    MPI_Comm comm;
} na_win_t;

static inline const char *na_flavor_name(int flavor)
{
    switch (flavor) {
        case MPI_WIN_FLAVOR_ALLOCATE:
            return "allocate";
        case MPI_WIN_FLAVOR_SHARED:
            return "allocate_shared";
        case MPI_WIN_FLAVOR_CREATE:
            return "create";
        case MPI_WIN_FLAVOR_DYNAMIC:
            return "dynamic";
    }
    return "?";
}

static inline void na_win_create(int flavor, MPI_Aint bytes, MPI_Comm comm, na_win_t * w)
{
    int size;
    MPI_Comm_size(comm, &size);
    w->flavor = flavor;
    w->comm = comm;
    w->disp_of = calloc(size, sizeof(MPI_Aint));
    switch (flavor) {
        case MPI_WIN_FLAVOR_ALLOCATE:
            MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, comm, &w->base, &w->win));
            na_expect_path(w->win);
            break;
        case MPI_WIN_FLAVOR_SHARED:
            MPI_OK(MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, comm, &w->base, &w->win));
            break;
        case MPI_WIN_FLAVOR_CREATE:
            w->base = malloc(bytes ? bytes : 1);
            MPI_OK(MPI_Win_create(w->base, bytes, 1, MPI_INFO_NULL, comm, &w->win));
            break;
        case MPI_WIN_FLAVOR_DYNAMIC:{
                MPI_Aint mine;
                w->base = malloc(bytes ? bytes : 1);
                MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w->win));
                MPI_OK(MPI_Win_attach(w->win, w->base, bytes ? bytes : 1));
                MPI_Get_address(w->base, &mine);
                MPI_Allgather(&mine, 1, MPI_AINT, w->disp_of, 1, MPI_AINT, comm);
                break;
            }
    }
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
}

static inline void na_win_free(na_win_t * w)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        MPI_Win_detach(w->win, w->base);
    MPI_OK(MPI_Win_free(&w->win));
    if (w->flavor == MPI_WIN_FLAVOR_CREATE || w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        free(w->base);
    free(w->disp_of);
}

/* The window flavours every test goes through.  allocate_shared needs all
 * ranks on one node, which a run with the netmod forced does not give. */
static inline int na_shared_ok(MPI_Comm comm)
{
    MPI_Comm node;
    int size, nsize, ok;
    MPI_Comm_size(comm, &size);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    ok = (nsize == size);
    const char *nolocal = getenv("MPIR_CVAR_NOLOCAL");
    if (nolocal && atoi(nolocal))
        ok = 0;
    return ok;
}

static const int na_flavors[] = { MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_CREATE,
    MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_SHARED
};

#define NA_NFLAVORS 4

#endif /* NA_TEST_H */
