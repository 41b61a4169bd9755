/* What a window's Notified Access did, read through MPI_T.
 *
 * Lists the performance variables of the NOTIFY category (their names,
 * classes and descriptions), then rank 1 sends rank 0 a few notified puts
 * that nobody waits for yet and a few counted ones; rank 0 prints the
 * variables bound to its window before and after it takes the queued ones
 * with a request.  Any MPI_T tool sees the same variables.
 *
 *   mpiexec -n 2 mpit_notify [NOTIFICATIONS]
 * Prints "No Errors" if the variables changed by what happened.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXVARS 16

static MPI_T_pvar_session session;
static MPI_T_pvar_handle handles[MAXVARS];
static char names[MAXVARS][64];
static int nvars;

/* every NOTIFY variable with one unsigned long long per window */
static void bind_vars(MPI_Win * win)
{
    int num;
    MPI_T_pvar_get_num(&num);
    MPI_T_pvar_session_create(&session);
    for (int i = 0; i < num && nvars < MAXVARS; i++) {
        char name[64], desc[256];
        int name_len = sizeof(name), desc_len = sizeof(desc), verb, cls, bind, ro, cont, atomic;
        MPI_Datatype type;
        MPI_T_enum etype;
        MPI_T_pvar_get_info(i, name, &name_len, &verb, &cls, &type, &etype, desc, &desc_len,
                            &bind, &ro, &cont, &atomic);
        if (strncmp(name, "notify_", 7) || bind != MPI_T_BIND_MPI_WIN ||
            type != MPI_UNSIGNED_LONG_LONG)
            continue;   /* notify_path and notify_path_reason: one value per process */
        printf("  %-24s %-7s %s\n", name, cls == MPI_T_PVAR_CLASS_COUNTER ? "counter" : "level",
               desc);
        int count;
        MPI_T_pvar_handle_alloc(session, i, win, &handles[nvars], &count);
        strcpy(names[nvars++], name);
    }
}

static void print_vars(const char *when)
{
    printf("%s:\n", when);
    for (int v = 0; v < nvars; v++) {
        unsigned long long x;
        MPI_T_pvar_read(session, handles[v], &x);
        printf("  %-24s %llu\n", names[v], x);
    }
}

static unsigned long long value(const char *name)
{
    unsigned long long x = ~0ull;
    for (int v = 0; v < nvars; v++)
        if (!strcmp(names[v], name))
            MPI_T_pvar_read(session, handles[v], &x);
    return x;
}

int main(int argc, char **argv)
{
    int rank, provided, errors = 0, n = argc > 1 ? atoi(argv[1]) : 8;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *buf;
    MPI_Win win;
    MPI_Win_allocate(n * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                     &win);
    MPIX_Win_create_notify(win, 1);
    if (rank == 0) {
        MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
        printf("Notified Access performance variables bound to a window:\n");
        bind_vars(&win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        double x = 1.0;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        for (int i = 0; i < n; i++)
            MPI_Put_notify(&x, 1, MPI_DOUBLE, 0, i, 1, MPI_DOUBLE, win, 7);
        for (int i = 0; i < n / 2; i++)
            MPIX_Put_notify(&x, 1, MPI_DOUBLE, 0, i, 1, MPI_DOUBLE, 0, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Count c = 0;
        while (c < n / 2)       /* counted after the tagged ones: they are in too */
            MPIX_Win_get_notify(win, 0, &c);
        print_vars("after the puts, none waited for");
        MPI_Request req;
        MPI_Notify_init(win, 1, 7, n, &req);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Request_free(&req);
        print_vars("after a request took them");
        /* counters count from the handle's allocation */
        errors = (value("notify_from_queue") != (unsigned) n) + (value("notify_queued") != 0)
            + (value("notify_counted") != (unsigned) n / 2);
        printf(errors ? "Found %d errors\n" : "No Errors\n", errors);
        for (int v = 0; v < nvars; v++)
            MPI_T_pvar_handle_free(session, &handles[v]);
        MPI_T_pvar_session_free(&session);
        MPI_T_finalize();
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return errors != 0;
}
