/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access: the path table as users and tools see it.
 *
 * The table itself (which path carries a window's notified accesses to each
 * target, and why) is filled by the transports' window hooks and kept with
 * the window's state (notify_win.c); see include/mpir_notify.h.  Here:
 * the reasons' names and texts, and two MPI_T performance variables bound
 * to a window, one value per process of the window's group:
 *   notify_path         enum notify_path: the names of MPIR_NOTIFY_PATHS, then
 *                       refused
 *   notify_path_reason  enum notify_path_reason: see MPIR_NOTIFY_REASONS
 * and the verbose report's summary of a window's table.
 * Class MPI_T_PVAR_CLASS_STATE, continuous, read-only; the handle is
 * allocated with a pointer to the MPI_Win (MPI_T_pvar_handle_alloc).
 */

#include "mpiimpl.h"

#define WHY_NAME(id_, name_, text_) [MPIR_NOTIFY_WHY_##id_] = name_,
#define WHY_TEXT(id_, name_, text_) [MPIR_NOTIFY_WHY_##id_] = text_,
static const char *const why_name[] = { MPIR_NOTIFY_REASONS(WHY_NAME) };
static const char *const why_text[] = { MPIR_NOTIFY_REASONS(WHY_TEXT) };

#define PATH_NAME(id_, var_, name_, polled_, how_) [MPIR_NOTIFY_PATH_##id_] = name_,
/* *INDENT-OFF* */
static const char *const path_name[] = {
    MPIR_NOTIFY_PATHS(PATH_NAME)
    [MPIR_NOTIFY_PATH_REFUSED] = "refused",
};
/* *INDENT-ON* */

const char *MPIR_Notify_why_text(MPIR_Notify_why_t why)
{
    return (unsigned) why < MPIR_NOTIFY_WHY_COUNT ? why_text[why] : "unknown";
}

/* "generic to 2 (self 1, forced 1)" and so on for each path: the paths
 * of the window's targets, with why (the verbose report's summary) */
void MPIR_Notify_path_describe(MPIR_Win * win, char *buf, size_t len)
{
    int n = win->comm_ptr->local_size, why_n[MPIR_NOTIFY_WHY_COUNT];
    size_t at = 0;
    buf[0] = '\0';
    for (int p = 0; p <= MPIR_NOTIFY_PATH_REFUSED; p++) {
        int count = 0, kinds = 0;
        memset(why_n, 0, sizeof(why_n));
        for (int r = 0; r < n; r++) {
            if (MPIR_Notify_path(win, r) != (MPIR_Notify_path_t) p)
                continue;
            MPIR_Notify_why_t w = MPIR_Notify_path_why(win, r);
            kinds += why_n[w]++ == 0;
            count++;
        }
        if (!count)
            continue;
        at += snprintf(buf + at, at < len ? len - at : 0, "%s%s to %d (", at ? ", " : "",
                       path_name[p], count);
        for (int w = 0, k = 0; w < MPIR_NOTIFY_WHY_COUNT; w++) {
            if (!why_n[w])
                continue;
            at += snprintf(buf + at, at < len ? len - at : 0, kinds > 1 ? "%s%s %d" : "%s%s",
                           k++ ? ", " : "", why_name[w], why_n[w]);
        }
        at += snprintf(buf + at, at < len ? len - at : 0, ")");
    }
}

/* ---------------------------------------------------------------- MPI_T */

static void pvar_count(void *addr, void *obj_handle, int *count)
{
    MPIR_Win *win = MPIR_Notify_pvar_win(obj_handle);
    *count = win ? win->comm_ptr->local_size : 0;
}

/* addr tells the two variables apart */
static int path_var, reason_var;

static void pvar_value(void *addr, void *obj_handle, int count, void *buf)
{
    MPIR_Win *win = MPIR_Notify_pvar_win(obj_handle);
    int *out = buf;
    for (int r = 0; win && r < count && r < win->comm_ptr->local_size; r++)
        out[r] = addr == &path_var ? (int) MPIR_Notify_path(win, r) :
            (int) MPIR_Notify_path_why(win, r);
}

void MPIR_Notify_path_pvars_init(void)
{
    MPI_T_enum paths, reasons;

    MPIR_T_enum_create("notify_path", &paths);
    for (int p = 0; p < (int) (sizeof(path_name) / sizeof(path_name[0])); p++)
        MPIR_T_enum_add_item(paths, path_name[p], p);
    MPIR_T_enum_create("notify_path_reason", &reasons);
    for (int w = 0; w < MPIR_NOTIFY_WHY_COUNT; w++)
        MPIR_T_enum_add_item(reasons, why_name[w], w);

    MPIR_T_PVAR_REGISTER_impl(MPI_T_PVAR_CLASS_STATE, MPI_INT, "notify_path", &path_var, 0,
                              paths, MPI_T_VERBOSITY_USER_BASIC, MPI_T_BIND_MPI_WIN,
                              MPIR_T_PVAR_FLAG_READONLY | MPIR_T_PVAR_FLAG_CONTINUOUS,
                              pvar_value, pvar_count, "NOTIFY",
                              "Path of the window's notified accesses to each process of its "
                              "group; fixed at window creation");
    MPIR_T_PVAR_REGISTER_impl(MPI_T_PVAR_CLASS_STATE, MPI_INT, "notify_path_reason",
                              &reason_var, 0, reasons, MPI_T_VERBOSITY_USER_BASIC,
                              MPI_T_BIND_MPI_WIN,
                              MPIR_T_PVAR_FLAG_READONLY | MPIR_T_PVAR_FLAG_CONTINUOUS,
                              pvar_value, pvar_count, "NOTIFY",
                              "Why notify_path is what it is, for each process of the window's "
                              "group");
    MPIR_Notify_stats_pvars_init();
    MPIR_Notify_events_init();
}
