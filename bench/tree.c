/* Reduction along a k-ary tree (paper section VI-B): every rank adds its
 * vector to its children's partial sums and passes the result to its parent.
 *   na      children MPI_Put_notify into their slot at the parent, then
 *           MPI_Win_flush; the parent waits for all of them with ONE counting
 *           request
 *   na_local the same with MPI_Win_flush_local: what MPI_Send gives mp (the
 *           child's buffer free); the notification tells the parent, and the
 *           barrier before the next reduction orders the slots' reuse, so the
 *           child needs no word from the parent (which na's flush waits for
 *           where a put's remote completion takes the target's answer)
 *   mp      MPI_Send / MPI_Recv(MPI_ANY_SOURCE)
 *   pscw    MPI_Win_post/wait at the parent, start/put/complete at each child
 *   reduce  MPI_Reduce (MPICH's own algorithm, not a tree of our choosing)
 * Every reduction is checked at the root (sum of (rank + 1) * (j + 1 + iter)).
 * Reported: median time per reduction at the root over ITERS reductions, each
 * started after a barrier.  The ITERS reductions of each mode are split into R
 * rounds (default 10, at most ITERS) and every round runs all modes in turn, so a machine
 * that speeds up or slows down during the run shifts every mode alike.
 *
 *   tree [-k ARITY] [-count DOUBLES] [-iters N] [-rounds R]
 *        [-modes na,na_local,mp,pscw,reduce]
 *        [-csv FILE]
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { NA, NA_LOCAL, MP, PSCW, REDUCE, NMODES };
static const char *const mode_names[NMODES] = { "na", "na_local", "mp", "pscw", "reduce" };

int main(int argc, char **argv)
{
    int k = 16, count = 1, iters = 1000, rounds = -1, use[NMODES];
    const char *csv = NULL, *modes = NULL;
    const bu_opt_t opts[] = {
        {"-k", BU_INT, &k, "arity of the tree (16)"},
        {"-count", BU_INT, &count, "doubles per rank (1)"},
        {"-iters", BU_INT, &iters, "reductions per mode, the median is reported (1000)"},
        {"-rounds", BU_INT, &rounds, "rounds the modes are interleaved in (10, at most N)"},
        {"-modes", BU_STRING, &modes,
         "comma-separated subset of na,na_local,mp,pscw,reduce (all)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rank, np;
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "tree [-k ARITY] [-count DOUBLES] "
                     "[-iters N] [-rounds R] [-modes na,na_local,mp,pscw,reduce] [-csv FILE]",
                     &rank, &np);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    if (rounds == -1)           /* default: 10, fewer for a short run */
        rounds = iters < 10 ? iters : 10;
    if (!rc && (k < 1 || count < 1 || iters < 1 || rounds < 1 || rounds > iters)) {
        if (rank == 0)
            fprintf(stderr, "tree: need ARITY >= 1, DOUBLES >= 1, 1 <= rounds <= iters\n");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    int parent = rank > 0 ? (rank - 1) / k : MPI_PROC_NULL;
    int first_child = rank * k + 1;
    int nchildren = first_child >= np ? 0 : (np - first_child < k ? np - first_child : k);
    int slot_at_parent = rank > 0 ? rank - (parent * k + 1) : 0;

    double *slots;              /* window: k slots of count doubles, one per child */
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) k * count * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &slots, &win);
    double *mine = malloc(count * sizeof(double)), *partial = malloc(count * sizeof(double));
    double *tmp = malloc(count * sizeof(double));
    double *t = malloc((size_t) NMODES * iters * sizeof(double));      /* t[mode * iters + it] */
    MPI_Group world, children_group, parent_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int range[1][3] = { {first_child, first_child + nchildren - 1, 1} };
    if (nchildren > 0)
        MPI_Group_range_incl(world, 1, range, &children_group);
    else
        children_group = MPI_GROUP_EMPTY;
    MPI_Group_incl(world, parent != MPI_PROC_NULL, &parent, &parent_group);
    MPI_Request children_done;  /* one counting request for all children */
    if (nchildren > 0)
        MPI_Notify_init(win, MPI_ANY_SOURCE, 0, nchildren, &children_done);

    FILE *out = NULL;
    if (rank == 0) {
        printf("# tree: %d ranks, %d-ary tree, %d doubles, median of %d reductions, "
               "modes interleaved in %d rounds\n", np, k, count, iters, rounds);
        printf("%-9s %10s %8s\n", "mode", "median_us", "vs_na");
        fflush(stdout);
        out = bu_csv_open(csv, "mode,ranks,arity,count,median_us,ratio_to_na");
    }
    int errors = 0;
    for (int r = 0; r < rounds; r++) {
        /* iterations [first, last) of every mode: the same on all ranks, so
         * they agree on each reduction's expected value */
        int first = (int) ((long) iters * r / rounds);
        int last = (int) ((long) iters * (r + 1) / rounds);
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            /* per chunk, not around the whole run: pscw on the same window
             * may not run inside a lock_all epoch */
            if (mode == NA || mode == NA_LOCAL)
                MPI_Win_lock_all(0, win);
            MPI_Pcontrol(1);    /* a chunk of reductions, for a tracer (sim/natitrace.c) */
            for (int it = first; it < last; it++) {
                for (int j = 0; j < count; j++)
                    mine[j] = (double) (rank + 1) * (j + 1 + it);
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                memcpy(partial, mine, count * sizeof(double));
                switch (mode) {
                    case NA:
                    case NA_LOCAL:
                        if (nchildren > 0) {
                            MPI_Start(&children_done);
                            MPI_Wait(&children_done, MPI_STATUS_IGNORE);
                            for (int c = 0; c < nchildren; c++)
                                for (int j = 0; j < count; j++)
                                    partial[j] += slots[c * count + j];
                        }
                        if (parent != MPI_PROC_NULL) {
                            MPI_Put_notify(partial, count, MPI_DOUBLE, parent,
                                           (MPI_Aint) slot_at_parent * count, count, MPI_DOUBLE,
                                           win, 0);
                            if (mode == NA)
                                MPI_Win_flush(parent, win);
                            else
                                MPI_Win_flush_local(parent, win);
                        }
                        break;
                    case MP:
                        for (int c = 0; c < nchildren; c++) {
                            MPI_Recv(tmp, count, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE);
                            for (int j = 0; j < count; j++)
                                partial[j] += tmp[j];
                        }
                        if (parent != MPI_PROC_NULL)
                            MPI_Send(partial, count, MPI_DOUBLE, parent, 0, MPI_COMM_WORLD);
                        break;
                    case PSCW:
                        if (nchildren > 0) {
                            MPI_Win_post(children_group, 0, win);
                            MPI_Win_wait(win);
                            for (int c = 0; c < nchildren; c++)
                                for (int j = 0; j < count; j++)
                                    partial[j] += slots[c * count + j];
                        }
                        if (parent != MPI_PROC_NULL) {
                            MPI_Win_start(parent_group, 0, win);
                            MPI_Put(partial, count, MPI_DOUBLE, parent,
                                    (MPI_Aint) slot_at_parent * count, count, MPI_DOUBLE, win);
                            MPI_Win_complete(win);
                        }
                        break;
                    case REDUCE:
                        MPI_Reduce(mine, partial, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
                        break;
                }
                t[mode * iters + it] = (MPI_Wtime() - t0) * 1e6;
                if (rank == 0) {
                    double ranks_sum = (double) np * (np + 1) / 2, want;
                    for (int j = 0; j < count; j++) {
                        want = ranks_sum * (j + 1 + it);
                        if (fabs(partial[j] - want) > 1e-9 * want)
                            errors++;
                    }
                }
            }
            MPI_Pcontrol(0);
            if (mode == NA || mode == NA_LOCAL)
                MPI_Win_unlock_all(win);
        }
    }
    if (rank == 0) {
        double med[NMODES];
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            bu_stats(t + mode * iters, iters, &med[mode], NULL, NULL);
        }
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            double ratio = use[NA] ? med[mode] / med[NA] : 0;
            printf("%-9s %10.2f %8.2f\n", mode_names[mode], med[mode], ratio);
            if (out)
                fprintf(out, "%s,%d,%d,%d,%.3f,%.3f\n", mode_names[mode], np, k, count, med[mode],
                        ratio);
        }
        fflush(stdout);
    }
    if (out)
        fclose(out);
    if (nchildren > 0) {
        MPI_Request_free(&children_done);
        MPI_Group_free(&children_group);
    }
    MPI_Group_free(&parent_group);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    free(mine);
    free(partial);
    free(tmp);
    free(t);
    MPI_Bcast(&errors, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(errors ? "Found %d errors\n" : "No Errors\n", errors);
    MPI_Finalize();
    return errors != 0;
}
