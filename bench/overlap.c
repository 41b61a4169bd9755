/* Communication/computation overlap at the sender (paper Fig. 4a): the share
 * of a transfer's time that computation placed between starting and
 * completing it can hide.  2 ranks; rank 0 sends, rank 1 receives.
 *   na     MPI_Put_notify ... compute ... MPI_Win_flush
 *   mp     MPI_Isend ... compute ... MPI_Wait          (receiver MPI_Recv)
 *   pscw   MPI_Win_start + MPI_Put ... compute ... MPI_Win_complete
 *   pfs    MPI_Put ... compute ... MPI_Win_flush + zero-byte MPI_Send
 * For each scheme and size: T0 = median time of start+complete with no
 * computation; then the computation is sized to take T0 and T is measured
 * again; overlap = (T0 + C - T) / T0, clipped to [0, 1].
 *
 *   overlap [-n ITERS] [-sizes 8,1024,65536,1048576] [-csv FILE]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"

enum { NA, MP, PSCW, PFS, NMODES };
static const char *const mode_names[NMODES] = { "na", "mp", "pscw", "pfs" };

static int rank, peer;
static MPI_Win win;
static char *wbuf, *lbuf;
static MPI_Group peer_group;
static MPI_Request nreq;
static volatile double sink;

static void compute(double usec)
{
    double t0 = MPI_Wtime(), x = 1.0;
    while ((MPI_Wtime() - t0) * 1e6 < usec)
        for (int i = 0; i < 100; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* one transfer with `work` us of computation inside; returns the sender's time */
static double transfer(int mode, int size, double work)
{
    double t = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request r;
        double t0 = MPI_Wtime();
        switch (mode) {
            case NA:
                MPI_Put_notify(lbuf, size, MPI_BYTE, peer, 0, size, MPI_BYTE, win, 1);
                compute(work);
                MPI_Win_flush(peer, win);
                break;
            case MP:
                MPI_Isend(lbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r);
                compute(work);
                MPI_Wait(&r, MPI_STATUS_IGNORE);
                break;
            case PSCW:
                MPI_Win_start(peer_group, 0, win);
                MPI_Put(lbuf, size, MPI_BYTE, peer, 0, size, MPI_BYTE, win);
                compute(work);
                MPI_Win_complete(win);
                break;
            case PFS:
                MPI_Put(lbuf, size, MPI_BYTE, peer, 0, size, MPI_BYTE, win);
                compute(work);
                MPI_Win_flush(peer, win);
                MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
                break;
        }
        t = MPI_Wtime() - t0;
    } else {
        switch (mode) {
            case NA:
                MPI_Start(&nreq);
                MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                break;
            case MP:
                MPI_Recv(wbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                break;
            case PSCW:
                MPI_Win_post(peer_group, 0, win);
                MPI_Win_wait(win);
                break;
            case PFS:
                MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                break;
        }
    }
    return t * 1e6;
}

static double median_time(int mode, int size, double work, int iters, double *t)
{
    for (int i = 0; i < iters; i++)
        t[i] = transfer(mode, size, work);
    double med;
    bu_stats(t, iters, &med, NULL, NULL);
    MPI_Bcast(&med, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return med;
}

int main(int argc, char **argv)
{
    int iters = 200, sizes[16], nsizes;
    const char *list = "8,1024,65536,1048576", *csv = NULL;
    const bu_opt_t opts[] = {
        {"-n", BU_INT, &iters, "transfers per measurement, the median is used (200)"},
        {"-sizes", BU_STRING, &list, "comma-separated message sizes in bytes, at most 16 "
         "(8,1024,65536,1048576)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int np;
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "overlap [-n ITERS] [-sizes 8,1024,65536,1048576] [-csv FILE]", &rank, &np);
    if (!rc && (nsizes = bu_parse_int_list(list, sizes, BU_NELEMS(sizes), 0, "-sizes")) < 0)
        rc = 1;
    if (!rc && iters < 1) {
        if (rank == 0)
            fprintf(stderr, "overlap: need ITERS >= 1\n");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    int max = 1;
    for (int s = 0; s < nsizes; s++)
        max = sizes[s] > max ? sizes[s] : max;
    if (np != 2) {
        if (rank == 0)
            fprintf(stderr, "overlap: run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    peer = 1 - rank;
    MPI_Win_allocate(max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    lbuf = calloc(max, 1);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &peer_group);
    MPI_Notify_init(win, peer, 1, 1, &nreq);
    double *t = malloc(iters * sizeof(double));
    FILE *out = NULL;
    if (rank == 0) {
        printf("# overlap at the sender: median of %d transfers\n%-5s %9s %10s %10s %9s\n",
               iters, "mode", "bytes", "T0_us", "T_us", "overlap");
        out = bu_csv_open(csv, "mode,bytes,t0_us,t_us,overlap");
    }
    for (int s = 0; s < nsizes; s++) {
        for (int mode = 0; mode < NMODES; mode++) {
            int locked = (mode == NA || mode == PFS);
            if (locked)
                MPI_Win_lock_all(0, win);
            double t0 = median_time(mode, sizes[s], 0, iters, t);
            double tc = median_time(mode, sizes[s], t0, iters, t);
            if (locked)
                MPI_Win_unlock_all(win);
            double ov = (t0 + t0 - tc) / t0;
            ov = ov < 0 ? 0 : ov > 1 ? 1 : ov;
            if (rank == 0) {
                printf("%-5s %9d %10.2f %10.2f %8.0f%%\n", mode_names[mode], sizes[s], t0, tc,
                       100 * ov);
                if (out)
                    fprintf(out, "%s,%d,%.3f,%.3f,%.3f\n", mode_names[mode], sizes[s], t0, tc, ov);
            }
        }
    }
    if (out)
        fclose(out);
    MPI_Request_free(&nreq);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    free(lbuf);
    free(t);
    MPI_Finalize();
    return 0;
}
