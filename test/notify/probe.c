/*
 * MPIX_Notify_iprobe / MPIX_Notify_probe: they report the queued
 * notification that a request started now would take first, and take
 * nothing.
 *
 *   - probe then start: a request started after a probe with the same
 *     (source, tag) takes exactly the probed notification (source, tag,
 *     byte count), for every kind of request (exact, MPI_ANY_SOURCE,
 *     MPI_ANY_TAG, both), until the queue is empty; probing twice reports
 *     the same one;
 *   - the probed put's data is in the window (and an accumulate and a put
 *     to the same place after a flush land after it);
 *   - notifications that went to a started request, and counter
 *     notifications, are not queued, so not reported;
 *   - MPIX_Notify_probe waits for a notification sent later, making
 *     progress itself; MPIX_Notify_iprobe alone in a loop sees it too;
 *   - MPI_PROC_NULL: flag set, source MPI_PROC_NULL, tag MPI_ANY_TAG,
 *     count 0; a bad source or tag is MPI_ERR_RANK / MPI_ERR_TAG.
 *
 * Every rank but 0 is an origin; rank 0 probes.
 */
#include <unistd.h>
#include "na_test.h"

#define PER_ORIGIN 6
#define TAG_LATE 11

static int tag_of(int origin, int i)
{
    return (origin * 7 + i) % 3 + 1;    /* tags 1..3, repeating */
}

static int bytes_of(int origin, int i)
{
    return 8 * (1 + (origin + i) % 4);
}

/* source and tag of a request of kind k for the probed status st */
static void request_for(int k, const MPI_Status * st, int *src, int *tag)
{
    *src = (k & 1) ? MPI_ANY_SOURCE : st->MPI_SOURCE;
    *tag = (k & 2) ? MPI_ANY_TAG : st->MPI_TAG;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int slots = 64;       /* int64 slots per origin */
    int64_t *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(slots * size * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    na_expect_path(win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < slots * size; i++)
        base[i] = -1;
    MPI_OK(MPIX_Win_create_notify(win, 1));
    int flag = -1;
    MPI_Status st;

    /* tag 4: a started request takes them as they come, so never queued */
    MPI_Request early;
    if (rank == 0) {
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, 4, size - 1, &early));
        MPI_OK(MPI_Start(&early));
        MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, MPI_ANY_TAG, &flag, &st));
        CHECK(flag == 0, "iprobe before anything was sent: flag %d", flag);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank != 0) {
        int64_t vals[PER_ORIGIN][4], four = 400 + rank, one = 1;
        for (int i = 0; i < PER_ORIGIN; i++) {
            for (int j = 0; j < 4; j++)
                vals[i][j] = (int64_t) rank << 32 | (i * 4 + j);
            MPI_Aint disp = rank * slots + i * 4;
            MPI_OK(MPI_Put_notify(vals[i], bytes_of(rank, i) / 8, MPI_INT64_T, 0, disp,
                                  bytes_of(rank, i) / 8, MPI_INT64_T, win, tag_of(rank, i)));
        }
        MPI_OK(MPI_Put_notify(&four, 1, MPI_INT64_T, 0, rank * slots + 40, 1, MPI_INT64_T, win,
                              4));
        MPI_OK(MPIX_Put_notify(&one, 1, MPI_INT64_T, 0, rank * slots + 41, 1, MPI_INT64_T, 0,
                               win));
        /* ordinary RMA to a notified location, after a flush: lands after it */
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, rank * slots, 1, MPI_INT64_T, MPI_SUM,
                              win));
        MPI_OK(MPI_Put(&four, 1, MPI_INT64_T, 0, rank * slots + 1, 1, MPI_INT64_T, win));
        MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        MPI_OK(MPI_Wait(&early, &st));
        MPI_OK(MPI_Request_free(&early));
        MPI_Count c = 0;
        while (c < size - 1)
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        /* every origin's last tagged notification, by a blocking probe */
        for (int o = 1; o < size; o++) {
            int i = PER_ORIGIN - 1, cnt = -1;
            MPI_OK(MPIX_Notify_probe(win, o, tag_of(o, i), &st));
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(st.MPI_SOURCE == o && st.MPI_TAG == tag_of(o, i), "probe(%d, %d): %d, %d", o,
                  tag_of(o, i), st.MPI_SOURCE, st.MPI_TAG);
            /* the first of this tag from o: the earliest i with that tag */
            int first = 0;
            while (tag_of(o, first) != tag_of(o, i))
                first++;
            CHECK(cnt == bytes_of(o, first), "probe(%d, %d): %d bytes, expected %d", o,
                  tag_of(o, i), cnt, bytes_of(o, first));
            /* the data of each put is there, with the accumulate and put after it */
            for (int k = 0; k < PER_ORIGIN; k++)
                for (int j = 0; j < bytes_of(o, k) / 8; j++) {
                    int64_t want = (int64_t) o << 32 | (k * 4 + j);
                    want += k == 0 && j == 0;
                    if (k == 0 && j == 1)
                        want = 400 + o;
                    CHECK(base[o * slots + k * 4 + j] == want, "origin %d put %d element %d: "
                          "%lld", o, k, j, (long long) base[o * slots + k * 4 + j]);
                }
        }
        /* tag 4 went to the started request, the counter put to the counter */
        MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, 4, &flag, &st));
        CHECK(flag == 0, "a notification a started request took is not queued");
        MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, 0, &flag, &st));
        CHECK(flag == 0, "tag 0 was never sent: flag %d", flag);

        /* probe, then start: each kind of request takes the probed one.  The
         * probe asks for one origin's earliest, or the earliest of all; a
         * request of that origin (exact or MPI_ANY_TAG), or for the earliest
         * of all any kind of request, takes it. */
        for (int n = 0, left = (size - 1) * PER_ORIGIN; left > 0; n++, left--) {
            int psrc = n % 2 ? MPI_ANY_SOURCE : 1 + (n / 2) % (size - 1);
            MPI_Status st2, st3;
            MPI_OK(MPIX_Notify_iprobe(win, psrc, MPI_ANY_TAG, &flag, &st));
            if (!flag && psrc != MPI_ANY_SOURCE) {      /* none left from psrc */
                psrc = MPI_ANY_SOURCE;
                MPI_OK(MPIX_Notify_iprobe(win, psrc, MPI_ANY_TAG, &flag, &st));
            }
            CHECK(flag == 1, "%d notifications left, iprobe(%d, any) found none", left, psrc);
            if (!flag)
                break;
            int k = n / 2 % 4, src, tag, c1 = -1, c2 = -2;
            if (psrc != MPI_ANY_SOURCE)
                k &= 2;         /* MPI_ANY_SOURCE could take another origin's */
            request_for(k, &st, &src, &tag);
            /* a probe with the request's own arguments reports the same */
            MPI_OK(MPIX_Notify_iprobe(win, src, tag, &flag, &st2));
            CHECK(flag && st2.MPI_SOURCE == st.MPI_SOURCE && st2.MPI_TAG == st.MPI_TAG,
                  "iprobe(%d, %d) reports (%d, %d), iprobe(%d, any) (%d, %d)", src, tag,
                  st2.MPI_SOURCE, st2.MPI_TAG, psrc, st.MPI_SOURCE, st.MPI_TAG);
            MPI_Request req;
            MPI_OK(MPI_Notify_init(win, src, tag, 1, &req));
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, &st3));
            MPI_OK(MPI_Request_free(&req));
            MPI_Get_count(&st, MPI_BYTE, &c1);
            MPI_Get_count(&st3, MPI_BYTE, &c2);
            CHECK(st3.MPI_SOURCE == st.MPI_SOURCE && st3.MPI_TAG == st.MPI_TAG && c1 == c2,
                  "request (%d, %d) took (%d, %d, %d B), the probe said (%d, %d, %d B)", src,
                  tag, st3.MPI_SOURCE, st3.MPI_TAG, c2, st.MPI_SOURCE, st.MPI_TAG, c1);
        }
        MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, MPI_ANY_TAG, &flag, &st));
        CHECK(flag == 0, "queue empty after every probed one was taken: flag %d", flag);

        /* PROC_NULL and errors */
        st.MPI_SOURCE = st.MPI_TAG = 77;
        MPI_OK(MPIX_Notify_iprobe(win, MPI_PROC_NULL, 1, &flag, &st));
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(flag == 1 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
              cnt == 0, "iprobe(MPI_PROC_NULL): flag %d source %d tag %d count %d", flag,
              st.MPI_SOURCE, st.MPI_TAG, cnt);
        MPI_OK(MPIX_Notify_probe(win, MPI_PROC_NULL, MPI_ANY_TAG, MPI_STATUS_IGNORE));
        int cls, rc = MPIX_Notify_iprobe(win, size, 1, &flag, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RANK, "iprobe source %d: class %d", size, cls);
        rc = MPIX_Notify_probe(win, 0, -3, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TAG, "probe tag -3: class %d", cls);
        rc = MPIX_Notify_iprobe(win, 0, MPI_NOTIFY_TAG_UB + 1, &flag, &st);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TAG, "iprobe tag UB + 1: class %d", cls);
    }

    /* a notification sent after the probe started: MPIX_Notify_probe and a
     * loop of MPIX_Notify_iprobe make the progress that brings it in (the
     * sleeps make that order likely, not certain: one that arrives first is
     * found in the queue, and the checks hold either way) */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_OK(MPIX_Notify_probe(win, size - 1, TAG_LATE, &st));
        CHECK(st.MPI_SOURCE == size - 1 && st.MPI_TAG == TAG_LATE, "late probe: %d, %d",
              st.MPI_SOURCE, st.MPI_TAG);
        CHECK(base[0] == 99, "late put's data after its probe: %lld", (long long) base[0]);
        flag = 0;
        while (!flag)
            MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, TAG_LATE + 1, &flag, MPI_STATUS_IGNORE));
        MPI_Request req;
        MPI_OK(MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 2, &req));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, &st));
        MPI_OK(MPI_Request_free(&req));
    } else if (rank == size - 1) {
        int64_t v = 99;
        usleep(20000);  /* rank 0 is in its probe by now, most likely */
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win, TAG_LATE));
        MPI_OK(MPI_Win_unlock(0, win));
        usleep(20000);
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(MPI_Put_notify(&v, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, win, TAG_LATE + 1));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
