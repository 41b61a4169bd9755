/* A producer/consumer pipeline (2 ranks): rank 1 computes an item for WORK
 * microseconds and hands it to rank 0, which computes on it for as long.
 * With the hand-off complete when the producer's call returns, the two
 * computations overlap and an item takes about WORK; a producer held until
 * the consumer's next MPI call runs them in turn (2 x WORK).
 *
 *   na        MPI_Put_notify into slot i % SLOTS + MPI_Win_flush | MPI_Start +
 *             MPI_Wait of a request for the producer's notifications, then
 *             the work
 *   na_local  the same with MPI_Win_flush_local: the producer only needs its
 *             buffer back (the credits below keep the slots safe), as
 *             MPI_Send gives it
 *   mp        MPI_Send | MPI_Recv into slot i % SLOTS, then the work
 *
 * Each item is checked at the consumer.  Every SLOTS/2 items the consumer
 * returns a zero-byte credit (MPI_Send), in both modes, so that the
 * producer is never more than SLOTS items ahead: a flushed put is in place,
 * not yet read.  Reported: time per item at the consumer (median over the
 * rounds, in which the modes take turns), and its ratio to na.
 *
 *   pipeline [-n ITEMS] [-work US,US,...] [-size BYTES] [-rounds R] [-csv FILE]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { NA, NA_LOCAL, MP, NMODES };
static const char *const mode_names[NMODES] = { "na", "na_local", "mp" };
enum { SLOTS = 64, CREDIT_TAG = 99, ITEM_TAG = 1, MAX_WORKS = 16 };

static void compute(double us)
{
    double t0 = MPI_Wtime();
    while ((MPI_Wtime() - t0) * 1e6 < us);
}

int main(int argc, char **argv)
{
    int items = 1000, size = 1024, rounds = 5, rank, nranks, works[MAX_WORKS], nworks;
    const char *work_list = "0,20,100", *csv = NULL;
    const bu_opt_t opts[] = {
        {"-n", BU_INT, &items, "items per mode, work and round (1000)"},
        {"-work", BU_STRING, &work_list, "microseconds of work per item on each side (0,20,100)"},
        {"-size", BU_INT, &size, "bytes per item, at least 8 (1024)"},
        {"-rounds", BU_INT, &rounds, "rounds the modes take turns in (5)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "pipeline [-n ITEMS] [-work US,US,...] [-size BYTES] [-rounds R] "
                     "[-csv FILE]", &rank, &nranks);
    if (!rc && (nworks = bu_parse_int_list(work_list, works, MAX_WORKS, 0, "-work")) < 1)
        rc = 1;
    if (!rc && (items < SLOTS || size < 8 || rounds < 1 || nranks != 2)) {
        if (rank == 0)
            fprintf(stderr, "pipeline: need 2 processes, ITEMS >= %d, BYTES >= 8, R >= 1\n",
                    SLOTS);
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    const int producer = 1, consumer = 0;
    char *slots, *item = calloc(size, 1);
    double *t = malloc(sizeof(double) * NMODES * nworks * rounds);
    MPI_Win win;
    MPI_Request nreq;
    MPI_Win_allocate((MPI_Aint) SLOTS * size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &slots, &win);
    memset(slots, 0, (size_t) SLOTS * size);
    MPI_Notify_init(win, producer, ITEM_TAG, 1, &nreq);
    MPI_Win_lock_all(0, win);
    long errors = 0;

    for (int r = 0; r < rounds; r++)
        for (int w = 0; w < nworks; w++)
            for (int mode = 0; mode < NMODES; mode++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int i = 0; i < items; i++) {
                    /* unique per item, mode and round */
                    int64_t stamp = ((int64_t) r * NMODES + mode) * items + i + 1;
                    MPI_Aint at = (MPI_Aint) (i % SLOTS) * size;
                    if (rank == producer) {
                        if (i >= SLOTS && i % (SLOTS / 2) == 0)
                            MPI_Recv(NULL, 0, MPI_BYTE, consumer, CREDIT_TAG, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE);
                        compute(works[w]);
                        memcpy(item, &stamp, sizeof(stamp));
                        if (mode == NA || mode == NA_LOCAL) {
                            MPI_Put_notify(item, size, MPI_BYTE, consumer, at, size, MPI_BYTE,
                                           win, ITEM_TAG);
                            if (mode == NA)
                                MPI_Win_flush(consumer, win);
                            else
                                MPI_Win_flush_local(consumer, win);
                        } else {
                            MPI_Send(item, size, MPI_BYTE, consumer, ITEM_TAG, MPI_COMM_WORLD);
                        }
                    } else {
                        if (mode != MP) {
                            MPI_Start(&nreq);
                            MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                        } else {
                            MPI_Recv(slots + at, size, MPI_BYTE, producer, ITEM_TAG,
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        }
                        int64_t got;
                        memcpy(&got, slots + at, sizeof(got));
                        errors += got != stamp;
                        compute(works[w]);
                        /* after items 31, 63, ...: the credits items 64, 96, ... wait for */
                        if ((i + 1) % (SLOTS / 2) == 0 && i + 1 + SLOTS / 2 < items)
                            MPI_Send(NULL, 0, MPI_BYTE, producer, CREDIT_TAG, MPI_COMM_WORLD);
                    }
                }
                t[(mode * nworks + w) * rounds + r] = (MPI_Wtime() - t0) * 1e6 / items;
            }
    MPI_Win_unlock_all(win);

    long all_errors;
    MPI_Reduce(&errors, &all_errors, 1, MPI_LONG, MPI_SUM, consumer, MPI_COMM_WORLD);
    if (rank == consumer) {
        FILE *out = bu_csv_open(csv, "mode,work_us,bytes,us_per_item,ratio_to_na");
        printf("# pipeline: %d items of %d bytes per mode and work, median over %d rounds; "
               "time per item at the consumer\n", items, size, rounds);
        printf("%-8s %8s %8s %12s %8s\n", "mode", "work_us", "bytes", "us_per_item", "vs_na");
        for (int w = 0; w < nworks; w++) {
            double med[NMODES];
            for (int mode = 0; mode < NMODES; mode++) {
                double *tm = &t[(mode * nworks + w) * rounds];
                bu_sort(tm, rounds);
                med[mode] = tm[rounds / 2];
            }
            for (int mode = 0; mode < NMODES; mode++) {
                printf("%-8s %8d %8d %12.2f %8.2f\n", mode_names[mode], works[w], size,
                       med[mode], med[mode] / med[NA]);
                if (out)
                    fprintf(out, "%s,%d,%d,%.3f,%.4f\n", mode_names[mode], works[w], size,
                            med[mode], med[mode] / med[NA]);
            }
        }
        if (out)
            fclose(out);
        printf(all_errors ? "Found %ld errors\n" : "No Errors\n", all_errors);
    }
    MPI_Request_free(&nreq);
    MPI_Win_free(&win);
    free(item);
    free(t);
    MPI_Finalize();
    return 0;
}
