/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access statistics: what a window's notify state counted at this
 * process (struct MPIR_Notify_stats in include/mpir_notify.h, kept by
 * notify_order.c and notify_queue.c), as MPI_T performance variables bound to the window
 * (MPI_T_BIND_MPI_WIN; allocate the handle with a pointer to the MPI_Win),
 * all MPI_UNSIGNED_LONG_LONG, read-only, continuous:
 *
 *   notify_arrived_<path>    COUNTER  notifications (tagged and counter)
 *                                     that arrived here, by the path that
 *                                     carried them (MPIR_NOTIFY_PATHS: generic,
 *                                     and the device's)
 *   notify_counted           COUNTER  counter updates (MPIX_Put_notify ...)
 *   notify_from_queue        COUNTER  taken from the unexpected queue by MPI_Start
 *   notify_queued            LEVEL    notifications in the unexpected queue now
 *   notify_queued_max        LEVEL    the most there have been
 *   notify_answers_sent      COUNTER  answers (a target's word that an
 *                                     origin's puts are done, which its
 *                                     flush waits for) sent as messages of
 *                                     their own, not riding on another
 *   notify_answers_asked     COUNTER  messages that asked a target for its
 *                                     answers (FLUSH)
 * The last two count on the paths whose flush needs the target's word:
 * the libfabric eager path and UCX (0 elsewhere).
 *
 * A COUNTER reads as what happened since its handle was allocated (MPI_T's
 * rule for continuous counters).  The high-water mark is a LEVEL: MPICH's
 * HIGHWATERMARK class takes no per-object callback.  MPIR_CVAR_NOTIFY_STATS
 * prints the absolute values of each window when it is freed.
 */

#include "mpiimpl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_STATS
      category    : NOTIFY
      type        : boolean
      default     : false
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Print each window's Notified Access statistics (the MPI_T variables
        notify_arrived_*, notify_counted, notify_from_queue, notify_queued,
        notify_queued_max) to standard error when the window is freed, one
        line per process.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

typedef struct {
    const char *name;
    int pvar_class;
    size_t offset;              /* in struct MPIR_Notify_stats */
    const char *desc;
} stats_var_t;

/* not const: MPI_T keeps a plain pointer to each entry (read only here) */
static stats_var_t vars[] = {
#define ARRIVED_VAR(id_, var_, name_, polled_, how_)                     \
    {"notify_arrived_" #var_, MPI_T_PVAR_CLASS_COUNTER,                       \
     offsetof(struct MPIR_Notify_stats, arrived[MPIR_NOTIFY_PATH_##id_]),     \
     "Notifications of the window that arrived at this process " how_},
    /* *INDENT-OFF* */
    MPIR_NOTIFY_PATHS(ARRIVED_VAR)
    {"notify_counted", MPI_T_PVAR_CLASS_COUNTER,
     offsetof(struct MPIR_Notify_stats, counted),
     "Counter updates (MPIX_Put_notify, MPIX_Get_notify) applied at this process"},
    /* *INDENT-ON* */
    {"notify_from_queue", MPI_T_PVAR_CLASS_COUNTER,
     offsetof(struct MPIR_Notify_stats, from_queue),
     "Notifications MPI_Start took from the window's unexpected queue"},
    {"notify_queued", MPI_T_PVAR_CLASS_LEVEL,
     offsetof(struct MPIR_Notify_stats, queued),
     "Notifications in the window's unexpected queue"},
    {"notify_queued_max", MPI_T_PVAR_CLASS_LEVEL,
     offsetof(struct MPIR_Notify_stats, queued_max),
     "The most notifications the window's unexpected queue has held (high-water mark)"},
    {"notify_answers_sent", MPI_T_PVAR_CLASS_COUNTER,
     offsetof(struct MPIR_Notify_stats, answers_sent),
     "Answers (the word that an origin's notified puts are done, which its flush waits for) "
     "this process sent as messages of their own"},
    {"notify_answers_asked", MPI_T_PVAR_CLASS_COUNTER,
     offsetof(struct MPIR_Notify_stats, answers_asked),
     "Messages this process sent to ask a target for the answers to its notified puts"},
};

static const struct MPIR_Notify_stats *stats_of(MPIR_Win * win)
{
    static const struct MPIR_Notify_stats none;
    return win && win->notify ? &((const MPIR_Notify_win_head_t *) win->notify)->stats : &none;
}

static void pvar_count(void *addr, void *obj_handle, int *count)
{
    *count = MPIR_Notify_pvar_win(obj_handle) ? 1 : 0;
}

/* addr points at the variable's entry of vars[] */
static void pvar_value(void *addr, void *obj_handle, int count, void *buf)
{
    const char *st = (const char *) stats_of(MPIR_Notify_pvar_win(obj_handle));
    if (count > 0)
        memcpy(buf, st + ((const stats_var_t *) addr)->offset, sizeof(unsigned long long));
}

void MPIR_Notify_stats_pvars_init(void)
{
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        MPIR_T_PVAR_REGISTER_impl(vars[i].pvar_class, MPI_UNSIGNED_LONG_LONG, vars[i].name,
                                  &vars[i], 0, MPI_T_ENUM_NULL,
                                  MPI_T_VERBOSITY_USER_BASIC, MPI_T_BIND_MPI_WIN,
                                  MPIR_T_PVAR_FLAG_READONLY | MPIR_T_PVAR_FLAG_CONTINUOUS,
                                  pvar_value, pvar_count, "NOTIFY", vars[i].desc);
}

void MPIR_Notify_stats_report(MPIR_Win * win)
{
    const struct MPIR_Notify_stats *st = stats_of(win);
    char arrived[256];
    size_t at = 0;
#define ARRIVED_TEXT(id_, var_, name_, polled_, how_)                         \
    at += snprintf(arrived + at, at < sizeof(arrived) ? sizeof(arrived) - at : 0, \
                   "%s" name_ " %llu", at ? " " : "", st->arrived[MPIR_NOTIFY_PATH_##id_]);
    /* *INDENT-OFF* */
    MPIR_NOTIFY_PATHS(ARRIVED_TEXT)
#undef ARRIVED_TEXT
    fprintf(stderr, "notify stats: rank %d window 0x%x: arrived %s, counted %llu, from queue %llu, "
            "queued %llu (max %llu), answers sent %llu, asked %llu\n", win->comm_ptr->rank,
            win->handle, arrived, st->counted, st->from_queue, st->queued, st->queued_max,
            st->answers_sent, st->answers_asked);
    /* *INDENT-ON* */
}
