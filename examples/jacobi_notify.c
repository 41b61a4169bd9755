/* A 1-D Jacobi solver for the steady heat equation (u'' = 0 on [0, 1],
 * u(0) = 1, u(1) = 0), the domain split in blocks over the processes, with
 * the halo exchange done three ways:
 *   counter   MPIX_Put_notify of each boundary value into the neighbour's
 *             halo cell, counted on the neighbour's counter; a process waits
 *             with MPIX_Win_get_notify until both halos of an iteration are in
 *   notify    MPI_Put_notify with persistent MPI_Notify_init requests
 *   sendrecv  MPI_Isend / MPI_Irecv / MPI_Waitall
 * The one-sided variants are double-buffered (halo cells per iteration
 * parity, a counter or request per parity) inside one MPI_Win_lock_all
 * epoch, so no synchronisation but the notifications themselves (and
 * MPI_Win_flush_local_all before the boundary values change).  Every 10
 * iterations the largest change is reduced (MPI_Allreduce), as a solver
 * checking convergence would.  At the end rank 0 gathers the solution and
 * compares it bit for bit with the same iterations done serially.
 *
 *   jacobi_notify [-n POINTS_PER_PROCESS] [-iters N] [-mode counter|notify|sendrecv|all]
 *                 [-reps R] [-csv FILE]
 * Prints the time per iteration (median and mean at rank 0) and "No Errors"
 * if every solution matches.  -mode all runs the three variants in turn, R
 * rounds (default 1), so that `make bench` compares them in one run; -csv
 * appends one line per variant and round.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMODES 3
static const char *mode_name[NMODES] = { "counter", "notify", "sendrecv" };

enum { COUNTER, NOTIFY, SENDRECV };     /* index of mode_name */

static int rank, size, n;
static double *u, *unew;        /* n + 2 points: u[0] and u[n + 1] are the halos */
static MPI_Win win;
static double *halo;            /* window: halo[parity * 2 + side], side 0 = left */
static MPI_Request nreq[2];     /* notify: one request per parity, both neighbours */
static MPI_Count want[2];       /* counter: arrivals expected so far per parity */

static int neighbours(void)
{
    return (rank > 0) + (rank < size - 1);
}

/* Send my boundary values of iteration it to the neighbours' halos. */
static void send_halo(int mode, int it, MPI_Request * sreq)
{
    int p = it % 2, nr = 0;
    for (int side = 0; side < 2; side++) {
        int nb = side == 0 ? rank - 1 : rank + 1;
        if (nb < 0 || nb >= size)
            continue;
        double *val = side == 0 ? &u[1] : &u[n];
        /* my left boundary is the left neighbour's right halo */
        MPI_Aint disp = p * 2 + (1 - side);
        if (mode == COUNTER)
            MPIX_Put_notify(val, 1, MPI_DOUBLE, nb, disp, 1, MPI_DOUBLE, p, win);
        else if (mode == NOTIFY)
            MPI_Put_notify(val, 1, MPI_DOUBLE, nb, disp, 1, MPI_DOUBLE, win, p);
        else
            MPI_Isend(val, 1, MPI_DOUBLE, nb, p, MPI_COMM_WORLD, &sreq[nr++]);
    }
    /* Local completion, as MPI_Waitall on the sends gives the sendrecv
     * variant: the values may change once the puts are done with them.
     * Nothing more is needed before the next put into the same halo (two
     * iterations on): the neighbour copied it out before it sent the halo
     * this process waits for in between, and the notification, not a
     * flush, tells the neighbour that the data is there. */
    if (mode != SENDRECV)
        MPI_Win_flush_local_all(win);
}

/* Wait for the neighbours' boundary values of iteration it. */
static void recv_halo(int mode, int it, MPI_Request * sreq)
{
    int p = it % 2, nr = 0;
    MPI_Request rreq[2];
    if (mode == SENDRECV) {
        for (int side = 0; side < 2; side++) {
            int nb = side == 0 ? rank - 1 : rank + 1;
            if (nb >= 0 && nb < size)
                MPI_Irecv(&halo[p * 2 + side], 1, MPI_DOUBLE, nb, p, MPI_COMM_WORLD,
                          &rreq[nr++]);
        }
        MPI_Status st[2];       /* not MPI_STATUSES_IGNORE: gcc 12 warns on it */
        MPI_Waitall(nr, rreq, st);
        MPI_Waitall(nr, sreq, st);
    } else if (mode == NOTIFY && neighbours() > 0) {
        MPI_Wait(&nreq[p], MPI_STATUS_IGNORE);
        MPI_Start(&nreq[p]);    /* ready for iteration it + 2 */
    } else if (mode == COUNTER) {
        MPI_Count v;
        want[p] += neighbours();
        do
            MPIX_Win_get_notify(win, p, &v);
        while (v < want[p]);
    }
    if (rank > 0)
        u[0] = halo[p * 2 + 0];
    if (rank < size - 1)
        u[n + 1] = halo[p * 2 + 1];
}

/* The same iterations over the whole domain, for the check. */
static double *serial(int total, int iters)
{
    double *a = calloc(total + 2, sizeof(double)), *b = calloc(total + 2, sizeof(double));
    a[0] = b[0] = 1.0;
    for (int it = 0; it < iters; it++) {
        for (int i = 1; i <= total; i++)
            b[i] = 0.5 * (a[i - 1] + a[i + 1]);
        double *t = a;
        a = b;
        b = t;
    }
    free(b);
    return a;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Solve with one halo exchange; at rank 0 the median and mean time per
 * iteration.  Returns the number of points that differ from the serial
 * solution (at rank 0; 0 elsewhere). */
static int solve(int mode, int iters, double *median, double *mean, double *change)
{
    int errors = 0;
    double *dt = malloc(iters * sizeof(double));
    u = calloc(n + 2, sizeof(double));
    unew = calloc(n + 2, sizeof(double));
    if (rank == 0)
        u[0] = unew[0] = 1.0;   /* the boundary conditions stay in the outer halos */
    MPI_Win_allocate(4 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &halo,
                     &win);
    memset(halo, 0, 4 * sizeof(double));
    want[0] = want[1] = 0;
    if (mode == COUNTER)
        MPIX_Win_create_notify(win, 2);
    for (int p = 0; mode == NOTIFY && p < 2 && neighbours() > 0; p++) {
        MPI_Notify_init(win, MPI_ANY_SOURCE, p, neighbours(), &nreq[p]);
        MPI_Start(&nreq[p]);
    }
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    double t0 = MPI_Wtime(), t = t0;
    MPI_Request sreq[2];        /* sendrecv: the sends of the last iteration */
    *change = 0;
    for (int it = 0; it < iters; it++) {
        /* the halos of u (iteration it's input) come from iteration it - 1 */
        if (it > 0)
            recv_halo(mode, it - 1, sreq);
        double local = 0;
        for (int i = 1; i <= n; i++) {
            unew[i] = 0.5 * (u[i - 1] + u[i + 1]);
            double d = unew[i] > u[i] ? unew[i] - u[i] : u[i] - unew[i];
            local = d > local ? d : local;
        }
        memcpy(&u[1], &unew[1], n * sizeof(double));
        send_halo(mode, it, sreq);
        if (it % 10 == 9)
            MPI_Allreduce(&local, change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double now = MPI_Wtime();
        dt[it] = now - t;
        t = now;
    }
    recv_halo(mode, iters - 1, sreq);   /* the last halos: every access completes */
    *mean = (MPI_Wtime() - t0) / iters;
    qsort(dt, iters, sizeof(double), cmp_double);
    *median = dt[iters / 2];
    MPI_Win_unlock_all(win);

    double *all = rank == 0 ? malloc((size_t) n * size * sizeof(double)) : NULL;
    MPI_Gather(&u[1], n, MPI_DOUBLE, all, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *ref = serial(n * size, iters);
        for (int i = 0; i < n * size; i++)
            if (all[i] != ref[i + 1] && errors++ < 5)
                fprintf(stderr, "%s: point %d: %.17g, serial %.17g\n", mode_name[mode], i,
                        all[i], ref[i + 1]);
        free(ref);
        free(all);
    }
    for (int p = 0; mode == NOTIFY && p < 2 && neighbours() > 0; p++) {
        MPI_Cancel(&nreq[p]);
        MPI_Wait(&nreq[p], MPI_STATUS_IGNORE);
        MPI_Request_free(&nreq[p]);
    }
    MPI_Win_free(&win);
    free(u);
    free(unew);
    free(dt);
    return errors;
}

int main(int argc, char **argv)
{
    int iters = 1000, mode = COUNTER, reps = 1, errors = 0, bad = (argc - 1) % 2;
    const char *csv = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = 1000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-iters"))
            iters = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-csv"))
            csv = argv[i + 1];
        else if (!strcmp(argv[i], "-mode")) {
            for (mode = 0; mode < NMODES && strcmp(argv[i + 1], mode_name[mode]); mode++);
            bad |= mode == NMODES && strcmp(argv[i + 1], "all");
        } else
            bad = 1;
    }
    if (n < 1 || iters < 1 || reps < 1 || bad) {
        if (rank == 0)
            fprintf(stderr, "usage: jacobi_notify [-n POINTS] [-iters N] "
                    "[-mode counter|notify|sendrecv|all] [-reps R] [-csv FILE]\n");
        MPI_Finalize();
        return 1;
    }

    FILE *out = rank == 0 && csv ? fopen(csv, "w") : NULL;
    if (out)
        fprintf(out, "mode,processes,points,iterations,round,median_us,mean_us,errors\n");
    for (int r = 0; r < reps; r++) {
        for (int m = 0; m < NMODES; m++) {
            if (mode != NMODES && m != mode)
                continue;
            double median, mean, change;
            int e = solve(m, iters, &median, &mean, &change);
            errors += e;
            if (rank == 0)
                printf("jacobi %s: %d processes x %d points, %d iterations, %.3f us/iteration "
                       "(median; mean %.3f), last change %.3g\n", mode_name[m], size, n, iters,
                       median * 1e6, mean * 1e6, change);
            if (out)
                fprintf(out, "%s,%d,%d,%d,%d,%.4f,%.4f,%d\n", mode_name[m], size, n, iters, r,
                        median * 1e6, mean * 1e6, e);
        }
    }
    if (out)
        fclose(out);
    if (rank == 0)
        printf(errors ? "Found %d errors\n" : "No Errors\n", errors);
    MPI_Finalize();
    return errors != 0;
}
