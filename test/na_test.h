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
    MPI_Finalize();
    return all != 0;
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
