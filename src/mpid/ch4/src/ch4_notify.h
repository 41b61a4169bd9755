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

/* A window by MPICH's id, for the transports whose messages name their
 * window by it (the node's rings, eager messages): a stream of
 * notifications mostly repeats the last window, and a lookup in MPICH's
 * window map (a hash) costs about 100 instructions where this compare
 * costs a few.  Its owner forgets a window when the window is freed: the
 * id may come back with a new window (context ids are reused). */
typedef struct {
    uint64_t id;
    MPIR_Win *win;              /* NULL: none */
} MPIDI_Notify_win_cache_t;

MPL_STATIC_INLINE_PREFIX MPIR_Win *MPIDI_Notify_window_of(MPIDI_Notify_win_cache_t * c,
                                                          uint64_t id)
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
