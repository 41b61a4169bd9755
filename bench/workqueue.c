/* A shared work queue, or counting semaphore: producers (ranks 1..P-1) post
 * items by adding 1 to a shared index in the consumer's window (rank 0) and
 * learn their item's ticket from the fetched value; the consumer takes the
 * items one by one.  What is compared is how the consumer learns that an
 * item was posted (spec section 6, issue 16):
 *
 *   workqueue [-n ITEMS] [-rounds R] [-modes a,b,...] [-csv FILE]
 *
 * Modes (the producer's post is timed; all modes flush it to read the ticket):
 *   fop_notify   MPI_Fetch_and_op_notify(+1) + flush; the consumer takes each
 *                item with MPI_Start + MPI_Wait on one MPI_ANY_SOURCE request
 *   fop_counter  MPIX_Get_accumulate_notify(+1, counter 0) + flush; the
 *                consumer polls counter 0 with MPIX_Win_get_notify
 *   fop_poll     the pure one-sided version: MPI_Fetch_and_op(+1) + flush;
 *                the consumer polls the index with MPI_Fetch_and_op(MPI_NO_OP)
 *                + flush on itself
 *   fop_send     MPI_Fetch_and_op(+1) + flush + zero-byte MPI_Send; the
 *                consumer takes each item with MPI_Recv(MPI_ANY_SOURCE)
 *
 * Every producer posts ITEMS items per mode, split into R rounds; the modes
 * take turns round by round, so a machine that changes speed shifts them
 * alike.  Checked after every round (outside the timing): the tickets are
 * exactly 0..T-1 once each (sum and sum of squares), the index ends at T, and
 * in fop_notify each producer's items were taken once each.
 * Output, one line per mode: the consumer's time per item (median over the
 * rounds of round time / items), items per second, the producer's post
 * (median, p10, p90 over all posts) and the consumer's time per item
 * against fop_notify; then "No Errors" for the test suite. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"

enum { FOP_NOTIFY, FOP_COUNTER, FOP_POLL, FOP_SEND, NMODES };
static const char *const mode_names[NMODES] = { "fop_notify", "fop_counter", "fop_poll",
    "fop_send"
};

enum { TAG = 5 };
static int rank, nranks;
static MPI_Win win;
static int64_t *index_p;        /* the consumer's window: one int64, the shared index */
static MPI_Request nreq;        /* consumer: MPI_ANY_SOURCE, TAG, one notification */

/* a producer posts one item; returns its ticket */
static int64_t post(int mode)
{
    const int64_t one = 1;
    int64_t ticket = -1;
    switch (mode) {
        case FOP_NOTIFY:
            MPI_Fetch_and_op_notify(&one, &ticket, MPI_INT64_T, 0, 0, MPI_SUM, win, TAG);
            MPI_Win_flush(0, win);
            break;
        case FOP_COUNTER:
            MPIX_Get_accumulate_notify(&one, 1, MPI_INT64_T, &ticket, 1, MPI_INT64_T, 0, 0, 1,
                                       MPI_INT64_T, MPI_SUM, 0, win);
            MPI_Win_flush(0, win);
            break;
        case FOP_POLL:
            MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, 0, 0, MPI_SUM, win);
            MPI_Win_flush(0, win);
            break;
        case FOP_SEND:
            MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, 0, 0, MPI_SUM, win);
            MPI_Win_flush(0, win);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
            break;
    }
    return ticket;
}

/* the index as the consumer's window holds it, read through MPI */
static int64_t read_index(void)
{
    int64_t v;
    MPI_Fetch_and_op(NULL, &v, MPI_INT64_T, 0, 0, MPI_NO_OP, win);
    MPI_Win_flush(0, win);
    return v;
}

/* the consumer takes total items; per_src[s] counts those known to come
 * from rank s (fop_notify, fop_send), 0 when the mode cannot tell */
static void consume(int mode, int64_t total, int64_t *per_src)
{
    MPI_Status st;
    int64_t taken = 0;
    while (taken < total) {
        switch (mode) {
            case FOP_NOTIFY:{
                    int bytes;
                    MPI_Start(&nreq);
                    MPI_Wait(&nreq, &st);
                    MPI_Get_count(&st, MPI_BYTE, &bytes);
                    if (st.MPI_TAG != TAG || bytes != 8 || st.MPI_SOURCE < 1 ||
                        st.MPI_SOURCE >= nranks) {
                        fprintf(stderr, "workqueue: notification from %d tag %d with %d bytes\n",
                                st.MPI_SOURCE, st.MPI_TAG, bytes);
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                    per_src[st.MPI_SOURCE]++;
                    taken++;
                    break;
                }
            case FOP_COUNTER:{
                    MPI_Count v;
                    MPIX_Win_get_notify(win, 0, &v);
                    taken = v;
                    break;
                }
            case FOP_POLL:
                taken = read_index();
                break;
            case FOP_SEND:
                MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st);
                per_src[st.MPI_SOURCE]++;
                taken++;
                break;
        }
    }
    if (taken != total) {       /* a counter or index past the total: an item counted twice */
        fprintf(stderr, "workqueue: %s: %lld items seen, %lld posted\n", mode_names[mode],
                (long long) taken, (long long) total);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* after a round: tickets 0..total-1 once each, index == total, every
 * producer's items taken once; then the index and counter back to 0 */
static void check_round(int mode, int64_t total, int64_t per_producer, const double *sums,
                        const int64_t *per_src)
{
    double all[2] = { 0, 0 };
    MPI_Reduce(sums, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    double t = (double) total;
    int bad = all[0] != t * (t - 1) / 2 || all[1] != (t - 1) * t * (2 * t - 1) / 6;
    int64_t idx = read_index();
    bad |= idx != total;
    for (int s = 1; s < nranks; s++)
        if (mode == FOP_NOTIFY || mode == FOP_SEND)
            bad |= per_src[s] != per_producer;
    if (bad) {
        fprintf(stderr, "workqueue: %s: wrong tickets (sum %.0f, squares %.0f) or index %lld "
                "for %lld items\n", mode_names[mode], all[0], all[1], (long long) idx,
                (long long) total);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int64_t zero = 0;
    int64_t old;
    MPI_Fetch_and_op(&zero, &old, MPI_INT64_T, 0, 0, MPI_REPLACE, win);
    MPI_Win_flush(0, win);
    if (mode == FOP_COUNTER)
        MPIX_Win_set_notify(win, 0, 0);
}

int main(int argc, char **argv)
{
    int items = 1000, rounds = 10;
    int use[NMODES];
    const char *csv = NULL, *modes = NULL;
    const bu_opt_t opts[] = {
        {"-n", BU_INT, &items, "items each producer posts per mode (1000)"},
        {"-rounds", BU_INT, &rounds, "rounds the modes take turns in (10, at most ITEMS)"},
        {"-modes", BU_STRING, &modes, "comma-separated subset of fop_notify,fop_counter,"
         "fop_poll,fop_send (all)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "workqueue [-n ITEMS] [-rounds R] [-modes a,b,...] [-csv FILE]",
                     &rank, &nranks);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    if (!rc && (items < 1 || rounds < 1 || rounds > items)) {
        if (rank == 0)
            fprintf(stderr, "workqueue: need 1 <= rounds <= items\n");
        rc = 1;
    }
    if (!rc && nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "workqueue: run with at least 2 processes\n");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    MPI_Win_allocate(rank == 0 ? sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &index_p, &win);
    if (rank == 0)
        *index_p = 0;
    MPIX_Win_create_notify(win, 1);
    if (rank == 0)
        MPI_Notify_init(win, MPI_ANY_SOURCE, TAG, 1, &nreq);
    int producers = nranks - 1;
    double *t_post[NMODES], t_item[NMODES][rounds];
    for (int m = 0; m < NMODES; m++)
        t_post[m] = malloc(items * sizeof(double));
    int64_t *per_src = calloc(nranks, sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < rounds; r++) {
        int first = (int) ((long) items * r / rounds), last = (int) ((long) items * (r + 1) / rounds);
        int64_t total = (int64_t) (last - first) * producers;
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            double sums[2] = { 0, 0 };
            for (int s = 0; s < nranks; s++)
                per_src[s] = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank == 0) {
                consume(mode, total, per_src);
                t_item[mode][r] = (MPI_Wtime() - t0) / (double) total * 1e6;
            } else {
                for (int i = first; i < last; i++) {
                    double t1 = MPI_Wtime();
                    int64_t ticket = post(mode);
                    t_post[mode][i] = (MPI_Wtime() - t1) * 1e6;
                    sums[0] += (double) ticket;
                    sums[1] += (double) ticket * (double) ticket;
                }
            }
            check_round(mode, total, last - first, sums, per_src);
            MPI_Barrier(MPI_COMM_WORLD);        /* index reset before the next mode posts */
        }
    }
    MPI_Win_unlock_all(win);

    /* producers' post times to rank 0: rank 1's, the first producer */
    double post_med[NMODES], post_p10[NMODES], post_p90[NMODES], item_med[NMODES];
    for (int mode = 0; mode < NMODES; mode++) {
        if (!use[mode])
            continue;
        if (rank == 1) {
            bu_stats(t_post[mode], items, &post_med[mode], &post_p10[mode], &post_p90[mode]);
            double v[3] = { post_med[mode], post_p10[mode], post_p90[mode] };
            MPI_Send(v, 3, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        } else if (rank == 0) {
            double v[3];
            MPI_Recv(v, 3, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            post_med[mode] = v[0];
            post_p10[mode] = v[1];
            post_p90[mode] = v[2];
            bu_stats(t_item[mode], rounds, &item_med[mode], NULL, NULL);
        }
    }
    if (rank == 0) {
        FILE *out = bu_csv_open(csv, "mode,producers,items,consumer_us_per_item,items_per_s,"
                                "post_median_us,post_p10_us,post_p90_us,ratio_to_fop_notify");
        printf("# workqueue: %d producer(s) x %d items per mode, modes interleaved in %d rounds\n",
               producers, items, rounds);
        printf("%-12s %12s %12s %11s %9s %9s %10s\n", "mode", "us_per_item", "items_per_s",
               "post_med_us", "post_p10", "post_p90", "vs_notify");
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            double ratio = use[FOP_NOTIFY] ? item_med[mode] / item_med[FOP_NOTIFY] : 0;
            printf("%-12s %12.3f %12.0f %11.3f %9.3f %9.3f %10.2f\n", mode_names[mode],
                   item_med[mode], 1e6 / item_med[mode], post_med[mode], post_p10[mode],
                   post_p90[mode], ratio);
            if (out)
                fprintf(out, "%s,%d,%d,%.4f,%.0f,%.4f,%.4f,%.4f,%.4f\n", mode_names[mode],
                        producers, items, item_med[mode], 1e6 / item_med[mode], post_med[mode],
                        post_p10[mode], post_p90[mode], ratio);
        }
        if (out)
            fclose(out);
        MPI_Request_free(&nreq);
        printf("No Errors\n");     /* every round was checked; a wrong one aborts */
    }
    MPI_Win_free(&win);
    for (int m = 0; m < NMODES; m++)
        free(t_post[m]);
    free(per_src);
    MPI_Finalize();
    return 0;
}
