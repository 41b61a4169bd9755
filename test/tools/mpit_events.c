/*
 * The MPI_T events of Notified Access (src/mpi/notify/notify_events.c),
 * seen as any tool sees them: MPI_T_event_get_index, a registration handle
 * and a callback per event, MPI_T_event_read of each element.  2 ranks.
 *
 * Rank 0 first makes an MPI_Put_notify outside an epoch (MPI_ERR_RMA_SYNC):
 *   notify_refused         at rank 0 where the path numbers the access
 *                          before the epoch check (generic: MPIDIG's put
 *                          checks it) and takes the number back: window,
 *                          target 1; elsewhere the access is refused before
 *                          it has a number, and no event comes.  Either
 *                          way no number is lost: the tagged puts below
 *                          still arrive in order.
 * Rank 0 then puts plainly, then 3 MPI_Put_notify (tag 5, 16 bytes), an
 * MPIX_Put_notify and a draft-spelled MPI_Put_notify on counter 0 to rank
 * 1, flushing each.  Rank 1 listens:
 *   notify_arrival         5: window, source 0, tag 5 / counter 0 (the other
 *                          one MPI_UNDEFINED), bytes, a path of notify_path
 *   notify_match           3: window, its notification request, source 0,
 *                          tag 5, 16 bytes
 *   notify_counter_update  2: window, counter 0, values 1 then 2
 * Rank 0 listens too and sees none of these.
 * Then a counted access to a counter its target does not have: the
 * counters are attached anew with 4 at rank 0 and 1 at rank 1, and rank 0
 * notifies counter 3 (refused at the origin with MPI_ERR_RMA_NOTIFICATION,
 * which knows every target's count), then counter 0:
 *   notify_refused         none (the access never took a number);
 *   notify_dropped         none at either process (a counted access drops
 *                          only if it is still in flight while its target
 *                          attaches counters anew: a race, not tested);
 *   notify_counter_update  1 at rank 1, counter 0
 * Then a refusal in every configuration: a dynamic window's path is generic
 * everywhere (rings need allocated window memory, cq-data and ucx-am serve
 * no dynamic window), and rank 0 makes an MPI_Put_notify and an
 * MPI_Get_notify to it outside an epoch:
 *   notify_refused         2 at rank 0: the dynamic window, target 1; none
 *                          at rank 1, and a tagged put that follows arrives
 *                          (no number lost)
 * After MPI_T_event_handle_free the callbacks are not called again.
 */
#include "na_test.h"
#include <stdint.h>

#define TAG 5
#define BYTES 16

enum { ARRIVAL, MATCH, COUNTER, REFUSED, DROPPED, NEVENTS };
static const char *names[NEVENTS] = { "notify_arrival", "notify_match", "notify_counter_update",
    "notify_refused", "notify_dropped"
};

static struct {
    int calls;
    int win[8], source[8], tag[8], counter[8], path[8], request[8], target[8];
    MPI_Aint bytes[8];
    MPI_Count value[8];
} seen[NEVENTS];

static void on_event(MPI_T_event_instance ev, MPI_T_event_registration reg,
                     MPI_T_cb_safety safety, void *user_data)
{
    (void) reg;
    (void) safety;
    int which = (int) (intptr_t) user_data;
    int n = seen[which].calls++;
    if (n >= 8)
        return;
    switch (which) {
        case ARRIVAL:
            MPI_T_event_read(ev, 0, &seen[which].win[n]);
            MPI_T_event_read(ev, 1, &seen[which].source[n]);
            MPI_T_event_read(ev, 2, &seen[which].tag[n]);
            MPI_T_event_read(ev, 3, &seen[which].counter[n]);
            MPI_T_event_read(ev, 4, &seen[which].path[n]);
            MPI_T_event_read(ev, 5, &seen[which].bytes[n]);
            break;
        case MATCH:
            MPI_T_event_read(ev, 0, &seen[which].win[n]);
            MPI_T_event_read(ev, 1, &seen[which].request[n]);
            MPI_T_event_read(ev, 2, &seen[which].source[n]);
            MPI_T_event_read(ev, 3, &seen[which].tag[n]);
            MPI_T_event_read(ev, 4, &seen[which].bytes[n]);
            break;
        case COUNTER:
            MPI_T_event_read(ev, 0, &seen[which].win[n]);
            MPI_T_event_read(ev, 1, &seen[which].counter[n]);
            MPI_T_event_read(ev, 2, &seen[which].value[n]);
            break;
        case REFUSED:
            MPI_T_event_read(ev, 0, &seen[which].win[n]);
            MPI_T_event_read(ev, 1, &seen[which].target[n]);
            break;
        case DROPPED:
            MPI_T_event_read(ev, 0, &seen[which].win[n]);
            MPI_T_event_read(ev, 1, &seen[which].source[n]);
            MPI_T_event_read(ev, 2, &seen[which].counter[n]);
            break;
    }
}

int main(int argc, char **argv)
{
    int rank, provided, num_paths = 0;
    MPI_T_event_registration reg[NEVENTS];
    MPI_Win win;
    char *base;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    {
        /* the paths' enum, through the notify_path performance variable */
        int idx, verb, cls, bind, ro, cont, atomic, nlen = 0, dlen = 0;
        MPI_Datatype dt;
        MPI_T_enum et;
        char n[64];
        int elen = sizeof(n);
        MPI_OK(MPI_T_pvar_get_index("notify_path", MPI_T_PVAR_CLASS_STATE, &idx));
        MPI_OK(MPI_T_pvar_get_info(idx, NULL, &nlen, &verb, &cls, &dt, &et, NULL, &dlen, &bind,
                                   &ro, &cont, &atomic));
        MPI_OK(MPI_T_enum_get_info(et, &num_paths, n, &elen));
    }
    for (int i = 0; i < NEVENTS; i++) {
        int idx;
        MPI_OK(MPI_T_event_get_index(names[i], &idx));
        MPI_OK(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg[i]));
        MPI_OK(MPI_T_event_register_callback(reg[i], MPI_T_CB_REQUIRE_MPI_RESTRICTED,
                                             MPI_INFO_NULL, (void *) (intptr_t) i, on_event));
    }

    MPI_OK(MPI_Win_allocate(4 * BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_OK(MPIX_Win_create_notify(win, 1));
    int win_handle = (int) MPI_Win_c2f(win);
    if (rank == 0) {
        char path[64], why[64];
        int v = 0;
        na_path(win, 1, path, why, sizeof(path));
        MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        int rc = MPI_Put_notify(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win, TAG), cls = MPI_SUCCESS;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RMA_SYNC, "put_notify outside an epoch: class %d", cls);
        MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
        if (strcmp(path, "generic") == 0)
            CHECK(seen[REFUSED].calls == 1 && seen[REFUSED].win[0] == win_handle &&
                  seen[REFUSED].target[0] == 1, "generic path: %d refusals (win %d/%d, "
                  "target %d)", seen[REFUSED].calls, seen[REFUSED].win[0], win_handle,
                  seen[REFUSED].target[0]);
        else
            CHECK(seen[REFUSED].calls == 0, "%s path: %d refusals", path, seen[REFUSED].calls);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        char data[BYTES] = { 1 };
        MPI_OK(MPI_Put(data, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(1, win));
        for (int i = 0; i < 3; i++) {
            MPI_OK(MPI_Put_notify(data, BYTES, MPI_BYTE, 1, BYTES, BYTES, MPI_BYTE, win, TAG));
            MPI_OK(MPI_Win_flush(1, win));
        }
        /* Intel's spelling, then the MPI Forum draft's: one counter */
        MPI_OK(MPIX_Put_notify(data, BYTES, MPI_BYTE, 1, 2 * BYTES, BYTES, MPI_BYTE, 0, win));
        MPI_OK(MPI_Win_flush(1, win));
        MPI_OK(MPI_Put_notify(data, BYTES, MPI_BYTE, 1, 2 * BYTES, BYTES, MPI_BYTE, 0, win));
        MPI_OK(MPI_Win_flush(1, win));
    } else {
        MPI_Request r;
        MPI_Count count = 0;
        MPI_OK(MPI_Notify_init(win, 0, TAG, 1, &r));
        int req_handle = (int) MPI_Request_c2f(r);
        for (int i = 0; i < 3; i++) {
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
        while (count < 2)
            MPI_OK(MPIX_Win_get_notify(win, 0, &count));
        MPI_OK(MPI_Request_free(&r));

        CHECK(seen[ARRIVAL].calls == 5, "%d arrivals", seen[ARRIVAL].calls);
        int tagged = 0, counted = 0;
        for (int i = 0; i < seen[ARRIVAL].calls && i < 8; i++) {
            CHECK(seen[ARRIVAL].win[i] == win_handle && seen[ARRIVAL].source[i] == 0 &&
                  seen[ARRIVAL].bytes[i] == BYTES && seen[ARRIVAL].path[i] >= 0 &&
                  seen[ARRIVAL].path[i] < num_paths, "arrival %d: win %d source %d bytes %ld "
                  "path %d of %d", i, seen[ARRIVAL].win[i], seen[ARRIVAL].source[i],
                  (long) seen[ARRIVAL].bytes[i], seen[ARRIVAL].path[i], num_paths);
            if (seen[ARRIVAL].tag[i] == TAG && seen[ARRIVAL].counter[i] == MPI_UNDEFINED)
                tagged++;
            if (seen[ARRIVAL].tag[i] == MPI_UNDEFINED && seen[ARRIVAL].counter[i] == 0)
                counted++;
        }
        CHECK(tagged == 3 && counted == 2, "arrivals: %d tagged, %d counted", tagged, counted);
        CHECK(seen[MATCH].calls == 3, "%d matches", seen[MATCH].calls);
        for (int i = 0; i < seen[MATCH].calls && i < 8; i++)
            CHECK(seen[MATCH].win[i] == win_handle && seen[MATCH].request[i] == req_handle &&
                  seen[MATCH].source[i] == 0 && seen[MATCH].tag[i] == TAG &&
                  seen[MATCH].bytes[i] == BYTES, "match %d: win %d request %x/%x source %d "
                  "tag %d bytes %ld", i, seen[MATCH].win[i], seen[MATCH].request[i],
                  req_handle, seen[MATCH].source[i], seen[MATCH].tag[i],
                  (long) seen[MATCH].bytes[i]);
        CHECK(seen[COUNTER].calls == 2 && seen[COUNTER].value[0] == 1 &&
              seen[COUNTER].value[1] == 2 && seen[COUNTER].counter[0] == 0 &&
              seen[COUNTER].win[1] == win_handle, "counter updates %d: values %lld %lld",
              seen[COUNTER].calls, (long long) seen[COUNTER].value[0],
              (long long) seen[COUNTER].value[1]);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        CHECK(seen[ARRIVAL].calls == 0 && seen[MATCH].calls == 0 && seen[COUNTER].calls == 0,
              "the origin saw %d %d %d", seen[ARRIVAL].calls, seen[MATCH].calls,
              seen[COUNTER].calls);
    else
        CHECK(seen[REFUSED].calls == 0, "the target saw %d refusals", seen[REFUSED].calls);

    /* a counted access to a counter its target does not have (see the top) */
    int updates = seen[COUNTER].calls, refusals = seen[REFUSED].calls;
    MPI_OK(MPIX_Win_create_notify(win, rank == 0 ? 4 : 1));
    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        char data[BYTES] = { 3 };
        MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        int rc = MPIX_Put_notify(data, BYTES, MPI_BYTE, 1, 3 * BYTES, BYTES, MPI_BYTE, 3, win),
            cls = MPI_SUCCESS;
        MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ARE_FATAL));
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_RMA_NOTIFICATION, "counter 3 of a target with 1: class %d", cls);
        CHECK(seen[REFUSED].calls == refusals, "%d refusals for an access never numbered",
              seen[REFUSED].calls - refusals);
        MPI_OK(MPIX_Put_notify(data, BYTES, MPI_BYTE, 1, 3 * BYTES, BYTES, MPI_BYTE, 0, win));
        MPI_OK(MPI_Win_flush(1, win));
    } else {
        MPI_Count count = 0;
        while (count < 1)
            MPI_OK(MPIX_Win_get_notify(win, 0, &count));
        CHECK(seen[DROPPED].calls == 0, "%d dropped", seen[DROPPED].calls);
        CHECK(count == 1 && seen[COUNTER].calls == updates + 1 &&
              seen[COUNTER].counter[updates] == 0 && seen[COUNTER].value[updates] == 1,
              "counter 0 is %lld, %d counter updates (%d before)",
              (long long) count, seen[COUNTER].calls, updates);
    }
    if (rank == 0)
        CHECK(seen[DROPPED].calls == 0, "the origin saw %d drops", seen[DROPPED].calls);
    MPI_OK(MPI_Win_unlock_all(win));
    /* rank 1 has looked before rank 0 notifies counter 0 below */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* refusals on the generic path of a dynamic window (see the top) */
    {
        MPI_Win dyn;
        int dbuf = 0, refused = seen[REFUSED].calls;
        MPI_Aint daddr;
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
        MPI_OK(MPI_Win_attach(dyn, &dbuf, sizeof(dbuf)));
        MPI_OK(MPI_Get_address(&dbuf, &daddr));
        MPI_OK(MPI_Bcast(&daddr, 1, MPI_AINT, 1, MPI_COMM_WORLD));
        int dyn_handle = (int) MPI_Win_c2f(dyn);
        if (rank == 0) {
            char path[64], why[64];
            int v = 0, rc, cls;
            na_path(dyn, 1, path, why, sizeof(path));
            CHECK(strcmp(path, "generic") == 0, "dynamic window: path %s/%s", path, why);
            MPI_OK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
            rc = MPI_Put_notify(&v, 1, MPI_INT, 1, daddr, 1, MPI_INT, dyn, TAG);
            cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_RMA_SYNC, "dynamic put_notify outside an epoch: class %d", cls);
            rc = MPI_Get_notify(&v, 1, MPI_INT, 1, daddr, 1, MPI_INT, dyn, TAG);
            cls = MPI_SUCCESS;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_RMA_SYNC, "dynamic get_notify outside an epoch: class %d", cls);
            MPI_OK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_ARE_FATAL));
            CHECK(seen[REFUSED].calls == refused + 2, "dynamic window: %d refusals, not 2",
                  seen[REFUSED].calls - refused);
            for (int i = refused; i < seen[REFUSED].calls && i < 8; i++)
                CHECK(seen[REFUSED].win[i] == dyn_handle && seen[REFUSED].target[i] == 1,
                      "refusal %d: win %d/%d, target %d", i, seen[REFUSED].win[i], dyn_handle,
                      seen[REFUSED].target[i]);
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Win_lock_all(0, dyn));
        if (rank == 0) {
            int v = 7;
            MPI_OK(MPI_Put_notify(&v, 1, MPI_INT, 1, daddr, 1, MPI_INT, dyn, TAG));
            MPI_OK(MPI_Win_flush(1, dyn));
        } else {
            /* a number lost to a refusal would hold this one back forever */
            MPI_Request r;
            MPI_OK(MPI_Notify_init(dyn, 0, TAG, 1, &r));
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Request_free(&r));
            CHECK(dbuf == 7, "dynamic window: %d after the notified put", dbuf);
            CHECK(seen[REFUSED].calls == refused, "the target saw %d refusals",
                  seen[REFUSED].calls - refused);
        }
        MPI_OK(MPI_Win_unlock_all(dyn));
        MPI_OK(MPI_Win_detach(dyn, &dbuf));
        MPI_OK(MPI_Win_free(&dyn));
    }

    /* without registrations: no more calls */
    for (int i = 0; i < NEVENTS; i++)
        MPI_OK(MPI_T_event_handle_free(reg[i], NULL, NULL));
    int before = seen[ARRIVAL].calls;
    MPI_OK(MPI_Win_lock_all(0, win));
    if (rank == 0) {
        char data[BYTES] = { 2 };
        MPI_OK(MPIX_Put_notify(data, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, 0, win));
        MPI_OK(MPI_Win_flush(1, win));
    } else {
        /* rank 1's counter attached anew has counted one since (above) */
        MPI_Count count = 0;
        while (count < 2)
            MPI_OK(MPIX_Win_get_notify(win, 0, &count));
        CHECK(seen[ARRIVAL].calls == before, "called after the handles were freed");
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPIX_Win_free_notify(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_T_finalize());
    return na_finish();
}
