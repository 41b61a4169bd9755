/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access in ch4, for ch4's own files: what the device does around
 * its transports (ch4_notify.c).
 */
#ifndef CH4_NOTIFY_H_INCLUDED
#define CH4_NOTIFY_H_INCLUDED

/* MPIR_CVAR_NOTIFY_VERBOSE: the window's line, printed by the first
 * process of its group once every transport's window hook has run
 * (mpidig_win.c): the path table, then what the netmod adds about its own
 * path (MPIDI_NM_notify_win_describe). */
void MPIDI_Notify_win_report(MPIR_Win * win);

/* A target range outside a window of size bytes is MPI_ERR_RMA_RANGE where
 * this process knows that size: its own window, or a node-local target's
 * segment of a shared-memory window (the ring path copies straight into
 * it).  Inline for predefined datatypes, which every notified put pays
 * for; derived datatypes and the error out of line (ch4_notify.c). */
int MPIDI_Notify_range_check_slow(int target_rank, MPI_Aint first, MPI_Aint target_count,
                                  MPI_Datatype target_datatype, MPI_Aint size);
MPL_STATIC_INLINE_PREFIX int MPIDI_Notify_range_check(int target_rank, MPI_Aint target_disp,
                                                      MPI_Aint target_count,
                                                      MPI_Datatype target_datatype,
                                                      MPI_Aint size, int disp_unit)
{
    MPI_Aint first = target_disp * disp_unit;
    if (likely(HANDLE_IS_BUILTIN(target_datatype))) {
        MPI_Aint end = first + target_count * MPIR_Datatype_get_basic_size(target_datatype);
        if (likely((end <= size && first >= 0) || target_count == 0))
            return MPI_SUCCESS;
    }
    return MPIDI_Notify_range_check_slow(target_rank, first, target_count, target_datatype, size);
}

/* Answers on demand (the libfabric eager path, UCX), per target: a flush
 * that found at most MPIDI_NOTIFY_ASK_BURST puts since the previous one
 * predicts a put + flush exchange or a short burst, and the puts after it,
 * up to as many again, ask for their answers themselves (it rides on the
 * reply); other puts leave the asking to the flush, so that a stream that
 * MPI_Win_flush_local completes costs no answers.  A flush that found no
 * puts (after gets, say) leaves the prediction as it was. */
#define MPIDI_NOTIFY_ASK_BURST 8

MPL_STATIC_INLINE_PREFIX void MPIDI_Notify_predict_ask(uint64_t issued, uint64_t * at_flush,
                                                       bool *ask)
{
    if (issued != *at_flush)
        *ask = issued - *at_flush <= MPIDI_NOTIFY_ASK_BURST;
    *at_flush = issued;
}

/* issued counts the put that asks or not */
MPL_STATIC_INLINE_PREFIX bool MPIDI_Notify_put_asks(bool ask, uint64_t issued, uint64_t at_flush)
{
    return ask && issued - at_flush <= MPIDI_NOTIFY_ASK_BURST;
}

/* A window by MPICH's id, for the transports whose messages name their
 * window by it (the node's rings, eager messages): a stream of
 * notifications mostly repeats the last window, and a lookup in MPICH's
 * window map (a hash) costs far more than this compare.  Its owner forgets
 * a window when the window is freed: the id may come back with a new
 * window (context ids are reused). */
typedef struct {
    uint64_t id;
    MPIR_Win *win;              /* NULL: none */
} MPIDI_Notify_win_cache_t;

MPL_STATIC_INLINE_PREFIX MPIR_Win *MPIDI_Notify_window_of(MPIDI_Notify_win_cache_t * c, uint64_t id)
{
    if (likely(c->win && c->id == id))
        return c->win;
    MPIR_Win *win = MPIDIU_map_lookup(MPIDI_global.win_map, id);
    if (win == MPIDIU_MAP_NOT_FOUND)
        return NULL;
    c->id = id;
    c->win = win;
    return win;
}

MPL_STATIC_INLINE_PREFIX void MPIDI_Notify_window_forget(MPIDI_Notify_win_cache_t * c,
                                                         MPIR_Win * win)
{
    if (c->win == win)
        c->win = NULL;
}

#endif /* CH4_NOTIFY_H_INCLUDED */
