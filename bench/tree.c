/* Reduction along a k-ary tree (paper section VI-B): every rank adds its
 * vector to its children's partial sums and passes the result to its parent.
 *   na      children MPI_Put_notify into their slot at the parent; the parent
 *           waits for all of them with ONE counting request
 *   mp      MPI_Send / MPI_Recv(MPI_ANY_SOURCE)
 *   pscw    MPI_Win_post/wait at the parent, start/put/complete at each child
 *   reduce  MPI_Reduce (MPICH's own algorithm, not a tree of our choosing)
 * Every reduction is checked at the root (sum of (rank + 1) * (j + 1 + iter)).
 * Reported: median time per reduction at the root over ITERS reductions, each
 * started after a barrier.
 *
 *   tree [-k ARITY] [-count DOUBLES] [-iters N] [-modes na,mp,pscw,reduce] [-csv FILE]
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NA, MP, PSCW, REDUCE, NMODES };
static const char *mode_names[NMODES] = { "na", "mp", "pscw", "reduce" };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int k = 16, count = 1, iters = 1000, use[NMODES] = { 1, 1, 1, 1 };
    const char *csv = NULL;
    MPI_Init(&argc, &argv);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-k") && a + 1 < argc)
            k = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-count") && a + 1 < argc)
            count = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-iters") && a + 1 < argc)
            iters = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-csv") && a + 1 < argc)
            csv = argv[++a];
        else if (!strcmp(argv[a], "-modes") && a + 1 < argc) {
            const char *list = argv[++a];
            for (int i = 0; i < NMODES; i++)
                use[i] = strstr(list, mode_names[i]) != NULL;
        }
    }
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int parent = rank > 0 ? (rank - 1) / k : MPI_PROC_NULL;
    int first_child = rank * k + 1;
    int nchildren = first_child >= np ? 0 : (np - first_child < k ? np - first_child : k);
    int slot_at_parent = rank > 0 ? rank - (parent * k + 1) : 0;

    double *slots;              /* window: k slots of count doubles, one per child */
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) k * count * sizeof(double), sizeof(double), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &slots, &win);
    double *mine = malloc(count * sizeof(double)), *partial = malloc(count * sizeof(double));
    double *tmp = malloc(count * sizeof(double)), *t = malloc(iters * sizeof(double));
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
        printf("# tree: %d ranks, %d-ary tree, %d doubles, median of %d reductions\n", np, k,
               count, iters);
        printf("%-7s %10s %8s\n", "mode", "median_us", "vs_na");
        if (csv && (out = fopen(csv, "w")))
            fprintf(out, "mode,ranks,arity,count,median_us,ratio_to_na\n");
    }
    double med_na = 0;
    int errors = 0;
    for (int mode = 0; mode < NMODES; mode++) {
        if (!use[mode])
            continue;
        if (mode == NA)
            MPI_Win_lock_all(0, win);
        for (int it = 0; it < iters; it++) {
            for (int j = 0; j < count; j++)
                mine[j] = (double) (rank + 1) * (j + 1 + it);
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            memcpy(partial, mine, count * sizeof(double));
            switch (mode) {
                case NA:
                    if (nchildren > 0) {
                        MPI_Start(&children_done);
                        MPI_Wait(&children_done, MPI_STATUS_IGNORE);
                        for (int c = 0; c < nchildren; c++)
                            for (int j = 0; j < count; j++)
                                partial[j] += slots[c * count + j];
                    }
                    if (parent != MPI_PROC_NULL) {
                        MPI_Put_notify(partial, count, MPI_DOUBLE, parent,
                                       (MPI_Aint) slot_at_parent * count, count, MPI_DOUBLE, win,
                                       0);
                        MPI_Win_flush(parent, win);
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
            t[it] = (MPI_Wtime() - t0) * 1e6;
            if (rank == 0) {
                double ranks_sum = (double) np * (np + 1) / 2;
                for (int j = 0; j < count; j++)
                    if (fabs(partial[j] - ranks_sum * (j + 1 + it)) > 1e-9 * ranks_sum * (j + 1 + it))
                        errors++;
            }
        }
        if (mode == NA)
            MPI_Win_unlock_all(win);
        if (rank == 0) {
            qsort(t, iters, sizeof(double), cmp_double);
            double med = t[iters / 2];
            if (mode == NA)
                med_na = med;
            printf("%-7s %10.2f %8.2f\n", mode_names[mode], med, med_na > 0 ? med / med_na : 0);
            if (out)
                fprintf(out, "%s,%d,%d,%d,%.3f,%.3f\n", mode_names[mode], np, k, count, med,
                        med_na > 0 ? med / med_na : 0);
            fflush(stdout);
        }
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
