/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * MPI_T events of Notified Access (source "notify"): what a tracer or
 * profiler sees through the standard MPI_T event interface.
 *
 *   notify_arrival         a notified access is complete at this target
 *                          (notify_order.c: MPIR_Notify_arrive)
 *   notify_match           a notification counted toward a request
 *                          (notify_queue.c: count_toward)
 *   notify_counter_update  a counter went up (notify_queue.c: deliver)
 *   notify_dropped         a counted access found no counter to count on
 *                          (its counters were detached on the way)
 *   notify_refused         an origin took back an access that failed before
 *                          its transport had it: no notification goes
 *
 * Each emission site is MPIR_NOTIFY_EVENT (notify_impl.h): one load while
 * no tool has an event registration, as MPICH's own events (hook 0016).
 * The data are the structs below; MPI_T_event_read reads them element by
 * element, MPI_T_event_copy as a whole.  Windows and requests are given by
 * their handles (int in MPICH), paths by their index in the MPI_T enum of
 * the notify_path performance variable.
 */

#include "notify_impl.h"
#include <stddef.h>

int MPIR_Notify_event_index[MPIR_NOTIFY_EVENT_COUNT];

void MPIR_Notify_events_init(void)
{
#ifdef HAVE_MPIT_EVENTS
    int source;
    MPIR_T_register_source("notify", "Notified Access: notifications at this process",
                           MPI_T_SOURCE_ORDERED, NULL, -1, -1, &source);

    MPI_Datatype arrival_types[] = { MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_AINT };
    MPI_Aint arrival_displs[] = {
        offsetof(MPIR_Notify_event_arrival_t, win), offsetof(MPIR_Notify_event_arrival_t, source),
        offsetof(MPIR_Notify_event_arrival_t, tag), offsetof(MPIR_Notify_event_arrival_t, counter),
        offsetof(MPIR_Notify_event_arrival_t, path), offsetof(MPIR_Notify_event_arrival_t, bytes)
    };
    MPIR_T_register_event(source, "notify_arrival", MPI_T_VERBOSITY_USER_BASIC, arrival_types,
                          arrival_displs, 6,
                          "A notified access is complete at this target: window handle, "
                          "origin rank in the window's group, tag (MPI_UNDEFINED for a "
                          "counter), counter index (MPI_UNDEFINED for a tag), path (index "
                          "in the notify_path enum), bytes", MPI_T_BIND_NO_OBJECT, "NOTIFY",
                          &MPIR_Notify_event_index[MPIR_NOTIFY_EVENT_ARRIVAL]);

    MPI_Datatype match_types[] = { MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_AINT };
    MPI_Aint match_displs[] = {
        offsetof(MPIR_Notify_event_match_t, win), offsetof(MPIR_Notify_event_match_t, request),
        offsetof(MPIR_Notify_event_match_t, source), offsetof(MPIR_Notify_event_match_t, tag),
        offsetof(MPIR_Notify_event_match_t, bytes)
    };
    MPIR_T_register_event(source, "notify_match", MPI_T_VERBOSITY_USER_BASIC, match_types,
                          match_displs, 5,
                          "A notification counted toward a request of MPI_Notify_init: "
                          "window handle, request handle, origin, tag, bytes",
                          MPI_T_BIND_NO_OBJECT, "NOTIFY",
                          &MPIR_Notify_event_index[MPIR_NOTIFY_EVENT_MATCH]);

    MPI_Datatype counter_types[] = { MPI_INT, MPI_INT, MPI_COUNT };
    MPI_Aint counter_displs[] = {
        offsetof(MPIR_Notify_event_counter_t, win), offsetof(MPIR_Notify_event_counter_t, counter),
        offsetof(MPIR_Notify_event_counter_t, value)
    };
    MPIR_T_register_event(source, "notify_counter_update", MPI_T_VERBOSITY_USER_BASIC,
                          counter_types, counter_displs, 3,
                          "A notification counter went up: window handle, counter index, "
                          "new value", MPI_T_BIND_NO_OBJECT, "NOTIFY",
                          &MPIR_Notify_event_index[MPIR_NOTIFY_EVENT_COUNTER]);

    MPI_Datatype dropped_types[] = { MPI_INT, MPI_INT, MPI_INT };
    MPI_Aint dropped_displs[] = {
        offsetof(MPIR_Notify_event_dropped_t, win), offsetof(MPIR_Notify_event_dropped_t, source),
        offsetof(MPIR_Notify_event_dropped_t, counter)
    };
    MPIR_T_register_event(source, "notify_dropped", MPI_T_VERBOSITY_USER_BASIC, dropped_types,
                          dropped_displs, 3,
                          "A counted notification found no counter (the window's counters "
                          "were detached while it was on the way): window handle, origin, "
                          "counter index", MPI_T_BIND_NO_OBJECT, "NOTIFY",
                          &MPIR_Notify_event_index[MPIR_NOTIFY_EVENT_DROPPED]);

    MPI_Datatype refused_types[] = { MPI_INT, MPI_INT };
    MPI_Aint refused_displs[] = {
        offsetof(MPIR_Notify_event_refused_t, win), offsetof(MPIR_Notify_event_refused_t, target)
    };
    MPIR_T_register_event(source, "notify_refused", MPI_T_VERBOSITY_USER_BASIC, refused_types,
                          refused_displs, 2,
                          "This origin took back a notified access that failed before its "
                          "transport had it (the call returned an error; nothing reaches the "
                          "target): window handle, target rank", MPI_T_BIND_NO_OBJECT,
                          "NOTIFY", &MPIR_Notify_event_index[MPIR_NOTIFY_EVENT_REFUSED]);
#endif
}

#ifdef HAVE_MPIT_EVENTS
static void emit(int which, void *data)
{
    MPIR_T_event_instance(MPIR_Notify_event_index[which], MPI_T_CB_REQUIRE_MPI_RESTRICTED, data);
}

void MPIR_Notify_event_arrival(MPIR_Win * win, int src, int tag, MPI_Aint bytes, int path)
{
    MPIR_Notify_event_arrival_t e = {
        .win = win->handle,.source = src,.path = path,.bytes = bytes,
        .tag = (tag & MPIR_NOTIFY_COUNTER) ? MPI_UNDEFINED : tag,
        .counter = (tag & MPIR_NOTIFY_COUNTER) ? (tag & MPIR_NOTIFY_TAG_MAX) : MPI_UNDEFINED
    };
    emit(MPIR_NOTIFY_EVENT_ARRIVAL, &e);
}

void MPIR_Notify_event_match(MPIR_Win * win, MPIR_Request * req, int src, int tag, MPI_Aint bytes)
{
    MPIR_Notify_event_match_t e = {
        .win = win->handle,.request = req->handle,.source = src,.tag = tag,.bytes = bytes
    };
    emit(MPIR_NOTIFY_EVENT_MATCH, &e);
}

void MPIR_Notify_event_counter(MPIR_Win * win, int idx, MPI_Count value)
{
    MPIR_Notify_event_counter_t e = {.win = win->handle,.counter = idx,.value = value };
    emit(MPIR_NOTIFY_EVENT_COUNTER, &e);
}

void MPIR_Notify_event_dropped(MPIR_Win * win, int src, int idx)
{
    MPIR_Notify_event_dropped_t e = {.win = win->handle,.source = src,.counter = idx };
    emit(MPIR_NOTIFY_EVENT_DROPPED, &e);
}

void MPIR_Notify_event_refused(MPIR_Win * win, int target)
{
    MPIR_Notify_event_refused_t e = {.win = win->handle,.target = target };
    emit(MPIR_NOTIFY_EVENT_REFUSED, &e);
}
#endif
