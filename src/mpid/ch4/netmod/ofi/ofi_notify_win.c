/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access over libfabric: window set-up.
 *
 * At window creation (the OFI window hooks, collective) the members agree
 * whether the window can carry notifications as remote CQ data, on a window
 * slot (the window's number in the CQ data word, ofi_notify_word.h) and on
 * how notifications stay in order (ofi_notify.c).  The result goes into the
 * window's path table (include/mpir_notify.h) for every remote target:
 * cq-data, or generic with the reason (refused if MPIR_CVAR_NOTIFY_OFI_PATH
 * is native).  Every member decides the same, whatever it sees locally.
 */

#include "mpidimpl.h"
#include "ofi_impl.h"
#include "ofi_notify_impl.h"
#include "ch4_notify_eager.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_OFI_PATH
      category    : NOTIFY
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        How notified accesses reach targets through the OFI netmod.
        auto    - one RMA write with remote CQ data when the provider offers
                  RMA and 8 bytes of CQ data; otherwise the generic
                  active-message path
        native  - the remote CQ data path; where a window cannot use it,
                  notified accesses to its remote targets fail with an
                  error naming the missing capability
        generic - always the generic active-message path

    - name        : MPIR_CVAR_NOTIFY_OFI_ORDERING
      category    : NOTIFY
      type        : enum
      default     : auto
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : |-
        How the libfabric path keeps notifications from one origin to one
        target in issue order.
        auto       - the provider's write ordering (FI_ORDER_WAW) when it
                     has it, otherwise completion
        completion - a notification is written only after its data and the
                     previous notification to that target are delivery-
                     complete (one in flight per target)

    - name        : MPIR_CVAR_NOTIFY_OFI_EAGER_MIN
      category    : NOTIFY
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        The smallest contiguous notified put, in bytes, that the libfabric
        path sends as one eager active message carrying data and
        notification instead of a write with remote CQ data.  -1: one byte
        above the provider's inject size, where a write starts to need the
        provider's acknowledgement (doc/design.md); 0 on sockets where the
        tagged carrier is on, as sockets acknowledges every write.

    - name        : MPIR_CVAR_NOTIFY_OFI_EAGER_MAX
      category    : NOTIFY
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        The largest put sent as an eager active message (see
        MPIR_CVAR_NOTIFY_OFI_EAGER_MIN).  -1: the provider's measured
        default, where the write overtakes the message (bench/eager-table.sh,
        doc/benchmarks.md): where eager puts are writes
        (MPIR_CVAR_NOTIFY_OFI_EAGER_WRITES) the largest their word holds
        (2 MiB - 1 in a window of 2 processes), the largest eager message
        where the tagged carrier is on (MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS),
        else 8192, and 0 on sockets;
        0: never (every put is a write); a value above the largest eager
        message of the netmod means that largest.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define NSLOTS MPIDI_OFI_NW_SLOTS
#define PATH_ON (-1)    /* off_reason of a window the path can serve */

/* Where the eager message leads the write, per provider, from
 * bench/eager-table.sh and the ping-pong (doc/benchmarks.md): on tcp, which
 * answers every write that is not injected, the active message leads from
 * above the inject size to about 8 KiB, and the tagged carrier up to the
 * largest eager message.  Sockets answers every write, injected or not, and
 * every send that asks for more than inject completion: the tagged carrier,
 * which asks for no more (its answer is the eager path's own), leads at
 * every size, and active messages (MPICH's sends) at none.  Providers not
 * measured get tcp's range.  Eager writes (tcp's default, ofi_notify_wire.c)
 * lead at every size their word holds: a write asked for inject completion
 * only is not acknowledged, and lands without the message's copy at the
 * target. */
static void default_eager_range(MPI_Aint * lo, MPI_Aint * hi)
{
    const char *prov = MPIDI_OFI_global.prov_use[0]->fabric_attr->prov_name;
    bool sockets = strncmp(prov, "sockets", 7) == 0;
    bool tagged = MPIDI_OFI_notify_tagged_on(), writes = MPIDI_OFI_notify_writes_on();

    *lo = sockets && tagged ? 0 : (MPI_Aint) MPIDI_OFI_global.max_buffered_write + 1;
    *hi = tagged || writes ? MPIDI_Notify_eager_max() : sockets ? 0 : 8192;
}

/* Why the provider cannot carry the path, or PATH_ON.  For the shm
 * provider see doc/design.md (no attribute shows what excludes it). */
static int provider_off_reason(void)
{
    struct fi_info *prov = MPIDI_OFI_global.prov_use[0];
    if (!(prov->caps & FI_RMA))
        return MPIR_NOTIFY_WHY_PROV_NO_RMA;
    if (prov->domain_attr->cq_data_size < sizeof(uint64_t))
        return MPIR_NOTIFY_WHY_PROV_CQ_DATA;
    if (prov->mode & FI_RX_CQ_DATA)
        return MPIR_NOTIFY_WHY_PROV_RX_CQ_DATA;
    if (strcmp(prov->fabric_attr->prov_name, "shm") == 0)
        return MPIR_NOTIFY_WHY_PROV_SHM;
    return PATH_ON;
}

/* Provider ordering needs FI_ORDER_WAW at every member; see ofi_notify.c. */
static bool provider_orders_writes(void)
{
    return MPIR_CVAR_NOTIFY_OFI_ORDERING != MPIR_CVAR_NOTIFY_OFI_ORDERING_completion &&
        (MPIDI_OFI_global.prov_use[0]->tx_attr->msg_order & FI_ORDER_WAW);
}

/* What this member sees of the window and its provider. */
static int local_off_reason(MPIR_Win * win)
{
    int ctx_idx = MPIDI_OFI_get_ctx_index(NULL, MPIDI_OFI_WIN(win).vni, 0);
    if (MPIR_CVAR_NOTIFY_FORCE_GENERIC || MPIR_CVAR_NOTIFY_OFI_PATH ==
        MPIR_CVAR_NOTIFY_OFI_PATH_generic)
        return MPIR_NOTIFY_WHY_FORCED;
    if (!MPIDI_OFI_ENABLE_RMA)
        return MPIR_NOTIFY_WHY_RMA_DISABLED;
    if (win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return MPIR_NOTIFY_WHY_DYNAMIC;
    if (!(MPIDI_WIN(win, winattr) & MPIDI_WINATTR_NM_REACHABLE))
        return MPIR_NOTIFY_WHY_UNREGISTERED;
    if (MPIDI_OFI_WIN(win).ep != MPIDI_OFI_global.ctx[ctx_idx].tx)
        return MPIR_NOTIFY_WHY_OWN_ENDPOINT;
    if (win->comm_ptr->local_size >= (1 << MPIDI_OFI_NW_RANK_BITS))
        return MPIR_NOTIFY_WHY_TOO_MANY;
    return provider_off_reason();
}

/* What each member contributes at window creation. */
typedef struct {
    uint64_t free_slots[NSLOTS / 64];
    int off_reason;
    int has_memory;
    int waw_ordered;
} member_info_t;

/* The agreement of the window being created, from MPIDI_OFI_notify_allgather
 * to MPIDI_OFI_notify_win_init in the same window hook (no collective
 * between them, so the global lock is held throughout) */
static struct {
    MPIR_Win *win;
    int off, slot;
    member_info_t *all;
} agreed;

/* Every member takes the lowest slot free at all members.  The slots a
 * member offers stay free until the exchange has ended: while one window
 * creation at this process is exchanging (the collective releases the
 * global lock, so another thread may create a window meanwhile), another
 * offers none and takes the generic path (no-window-slot). */
static void offer(MPIR_Win * win, member_info_t * mine, bool *offered)
{
    MPIDI_OFI_notify_global_t *g = &MPIDI_OFI_global.notify;
    memset(mine, 0, sizeof(*mine));
    mine->off_reason = local_off_reason(win);
    *offered = !g->offering;
    for (int s = 0; *offered && s < NSLOTS; s++)
        if (!g->slots[s])
            mine->free_slots[s / 64] |= 1ULL << (s % 64);
    g->offering |= *offered;
    mine->has_memory = (MPIDI_OFI_WIN(win).mr != NULL);
    mine->waw_ordered = provider_orders_writes();
}

static void choose(MPIR_Comm * comm, const member_info_t * all, int *off_out, int *slot_out)
{
    int off = PATH_ON, slot = -1;
    uint64_t common[NSLOTS / 64];
    memset(common, 0xff, sizeof(common));
    for (int r = 0; r < comm->local_size; r++) {
        if (off == PATH_ON)
            off = all[r].off_reason;
        for (int i = 0; i < NSLOTS / 64; i++)
            common[i] &= all[r].free_slots[i];
    }
    for (int s = 0; s < NSLOTS && slot < 0; s++)
        if (common[s / 64] & (1ULL << (s % 64)))
            slot = s;
    if (off == PATH_ON && slot < 0)
        off = MPIR_NOTIFY_WHY_NO_SLOT;
    *off_out = off;
    *slot_out = off == PATH_ON ? slot : -1;
}

/* ofi_win.c's exchange of the members' window information (memory keys,
 * bases, displacement units), with each member's part of the agreement
 * appended to its record: one MPIR_Allgather, as in stock MPICH */
int MPIDI_OFI_notify_allgather(MPIR_Win * win, void *winfo, size_t winfo_size,
                               MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm = win->comm_ptr;
    int n = comm->local_size, me = comm->rank;
    size_t rec = MPL_ROUND_UP_ALIGN(winfo_size, 8) + sizeof(member_info_t);
    char *buf = MPL_malloc(n * rec, MPL_MEM_RMA);
    member_info_t *all = MPL_malloc(n * sizeof(*all), MPL_MEM_RMA);
    bool offered = false;

    MPIR_ERR_CHKANDJUMP1(!buf || !all, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                         "window information");
    if (agreed.win) {
        /* a creation that failed between its exchange and its hook's end */
        if (agreed.slot >= 0 && MPIDI_OFI_global.notify.slots[agreed.slot] == agreed.win)
            MPIDI_OFI_global.notify.slots[agreed.slot] = NULL;
        MPL_free(agreed.all);
        agreed.win = NULL;
        agreed.all = NULL;
    }
    memcpy(buf + me * rec, (char *) winfo + me * winfo_size, winfo_size);
    offer(win, (member_info_t *) (buf + me * rec + rec - sizeof(member_info_t)), &offered);
    mpi_errno = MPIR_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, rec, MPI_BYTE, comm,
                               errflag);
    if (offered)
        MPIDI_OFI_global.notify.offering = false;
    MPIR_ERR_CHECK(mpi_errno);
    for (int r = 0; r < n; r++) {
        memcpy((char *) winfo + r * winfo_size, buf + r * rec, winfo_size);
        memcpy(&all[r], buf + r * rec + rec - sizeof(member_info_t), sizeof(member_info_t));
    }
    agreed.win = win;
    agreed.all = all;
    all = NULL;
    choose(comm, agreed.all, &agreed.off, &agreed.slot);
    if (agreed.off == PATH_ON)
        MPIDI_OFI_global.notify.slots[agreed.slot] = win;
  fn_exit:
    MPL_free(buf);
    MPL_free(all);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int new_state(MPIR_Win * win, int slot, const member_info_t * all)
{
    int mpi_errno = MPI_SUCCESS;
    int n = win->comm_ptr->local_size;
    MPIDI_OFI_notify_win_t *nw = MPL_calloc(1, sizeof(*nw), MPL_MEM_RMA);

    MPIR_ERR_CHKANDJUMP1(!nw, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify window");
    MPIDI_OFI_WIN(win).notify = nw;
    nw->slot = slot;
    nw->len_in = MPL_calloc(n, sizeof(uint64_t), MPL_MEM_RMA);
    nw->qhead = MPL_calloc(n, sizeof(MPIDI_OFI_notify_pending_t *), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!nw->len_in || !nw->qhead, mpi_errno, MPI_ERR_NO_MEM, "**nomem",
                         "**nomem %s", "notify window");
    nw->waw_ordered = true;
    for (int r = 0; r < n; r++)
        nw->waw_ordered = nw->waw_ordered && all[r].waw_ordered;
    nw->war_ordered = (MPIDI_OFI_global.prov_use[0]->tx_attr->msg_order & FI_ORDER_WAR) != 0;
    /* the eager path's answers go from MPIDI_OFI_notify_progress */
    MPIDI_Notify_eager_set_waker(&MPIDI_OFI_global.notify.nwaiting);
    if (!MPIDI_OFI_notify_writes_init())
        MPIDI_OFI_notify_tagged_init();
    /* this process's choice alone: the target takes either */
    MPI_Aint emax = MPIDI_Notify_eager_max(), lo, hi;
    if (MPIDI_OFI_notify_writes_on()) {
        /* what the word holds at this window's rank width */
        int bb = MPIDI_OFI_ew_bytes_bits(MPIDI_OFI_notify_rank_bits(win));
        emax = bb < 1 ? 0 : MPL_MIN(emax, (MPI_Aint) MPIDI_OFI_NW_MASK(bb));
    }
    default_eager_range(&lo, &hi);
    nw->eager_lo = MPIR_CVAR_NOTIFY_OFI_EAGER_MIN >= 0 ? MPIR_CVAR_NOTIFY_OFI_EAGER_MIN : lo;
    nw->eager_hi = MPL_MIN(MPIR_CVAR_NOTIFY_OFI_EAGER_MAX >= 0 ?
                           MPIR_CVAR_NOTIFY_OFI_EAGER_MAX : hi, emax);
  fn_fail:
    return mpi_errno;
}

/* the verbose report's words on this path (ch4's MPIDI_Notify_win_report;
 * the path table says which targets have it and why) */
void MPIDI_OFI_notify_win_describe(MPIR_Win * win, char *text, size_t text_sz)
{
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;
    char eager[128] = "no eager messages";

    if (!nw)
        return;
    if (nw->eager_lo <= nw->eager_hi) {
        const char *how = "active messages";
        if (MPIDI_OFI_notify_writes_on())
            how = "unacknowledged writes";
        else if (MPIDI_OFI_notify_tagged_on())
            how = "tagged once the target receives on the carrier";
        snprintf(eager, sizeof(eager), "eager messages for puts of %ld to %ld bytes (%s)",
                 (long) nw->eager_lo, (long) nw->eager_hi, how);
    }
    snprintf(text, text_sz, "libfabric remote CQ data via %s, slot %d, inject up to %zu bytes, "
             "ordered by %s, get notified %s; %s",
             MPIDI_OFI_global.prov_use[0]->fabric_attr->prov_name, nw->slot,
             (size_t) MPIDI_OFI_global.max_buffered_write,
             nw->waw_ordered ? "the provider (FI_ORDER_WAW)" :
             "completion (one notification in flight per target)",
             nw->waw_ordered && nw->war_ordered ?
             "right after the read (FI_ORDER_WAR)" : "when the read completes", eager);
}

int MPIDI_OFI_notify_win_init(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm = win->comm_ptr;
    member_info_t *all = NULL;
    int off, slot = -1;

    MPIDI_OFI_WIN(win).notify = NULL;
    if (agreed.win == win) {
        all = agreed.all;
        off = agreed.off;
        slot = agreed.slot;
        agreed.win = NULL;
        agreed.all = NULL;
    } else {
        /* no exchange: every member knows why (RMA off, memory not
         * registered everywhere, dynamic), or the window has one member */
        off = local_off_reason(win);
        if (off == PATH_ON)
            off = MPIR_NOTIFY_WHY_UNREGISTERED;
    }
    if (off == PATH_ON) {
        mpi_errno = new_state(win, slot, all);
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* Forced on a window that cannot use it: the window is still created
     * (MPICH does not unwind a failed window hook), but notified accesses
     * that would cross the netmod fail with the reason. */
    MPIR_Notify_path_t off_path = (MPIR_CVAR_NOTIFY_OFI_PATH == MPIR_CVAR_NOTIFY_OFI_PATH_native &&
                                   !MPIR_CVAR_NOTIFY_FORCE_GENERIC) ?
        MPIR_NOTIFY_PATH_REFUSED : MPIR_NOTIFY_PATH_GENERIC;
    MPIR_Notify_why_t order = MPIDI_OFI_WIN(win).notify &&
        MPIDI_OFI_WIN(win).notify->waw_ordered ? MPIR_NOTIFY_WHY_PROVIDER_ORDER :
        MPIR_NOTIFY_WHY_COMPLETION_ORDER;
    for (int r = 0; r < comm->local_size; r++) {
        /* self and node-local targets are the shm module's */
        bool local = (r == comm->rank);
#ifndef MPIDI_CH4_DIRECT_NETMOD
        local = local || MPIDI_rank_is_local(r, comm);
#endif
        if (local)
            continue;
        if (off != PATH_ON)
            mpi_errno = MPIR_Notify_path_set(win, r, off_path, off);
        else if (!all[r].has_memory)    /* only zero-byte accesses reach it */
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_GENERIC,
                                             MPIR_NOTIFY_WHY_NO_MEMORY);
        else
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_CQ_DATA, order);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    MPL_free(all);
    return mpi_errno;
  fn_fail:
    if (slot >= 0 && MPIDI_OFI_global.notify.slots[slot] == win && !MPIDI_OFI_WIN(win).notify)
        MPIDI_OFI_global.notify.slots[slot] = NULL;
    MPIDI_OFI_notify_win_free(win);
    goto fn_exit;
}

int MPIDI_OFI_notify_win_free(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_OFI_notify_win_t *nw = MPIDI_OFI_WIN(win).notify;
    MPIDI_Notify_eager_win_free(win);
    if (!nw)
        return MPI_SUCCESS;

    /* Synchronisation completed every get, but their notifications may still
     * be queued if no progress ran since: send them before the slot goes. */
    for (int r = 0; nw->qhead && r < win->comm_ptr->local_size; r++)
        while (nw->qhead[r] && mpi_errno == MPI_SUCCESS)
            mpi_errno = MPID_Progress_test(NULL);
    if (MPIDI_OFI_global.notify.slots[nw->slot] == win)
        MPIDI_OFI_global.notify.slots[nw->slot] = NULL;
    MPL_free(nw->len_in);
    MPL_free(nw->qhead);
    MPL_free(nw);
    MPIDI_OFI_WIN(win).notify = NULL;
    return mpi_errno;
}
