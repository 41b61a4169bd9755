/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access in ch4: MPID entry points.
 *
 * Produced here (origin) and handed, like MPI_Put and MPI_Get in ch4_rma.h,
 * to the shm module for node-local targets and to the netmod for the others
 * (ch4_api.txt: mpi_put_notify, mpi_get_notify, mpi_accumulate_notify,
 * notify_poll).  Each carries it over its own path where it can, else over
 * the generic one:
 *   - shm/posix/posix_notify.c: the shared-memory rings, for targets in a
 *     shared-memory window;
 *   - netmod/ofi/ofi_notify.c: one libfabric RMA write with remote CQ data,
 *     where the provider can;
 *   - netmod/ucx/ucx_notify.c: one UCX active message per put (a request
 *     answered with the data per get);
 *   - src/mpidig_notify.h: the generic MPIDIG active-message RMA protocol
 *     (mpidig_rma.h: notify_tag and notify_seq in the put/get headers),
 *     for everything else.
 * Each (window, target) pair keeps one path table entry for the window's
 * lifetime, but not every access to that target takes the entry's path
 * (the generic one serves what a fast path does not); the sequence numbers
 * per (window, origin, target) keep issue order across paths.
 * Either way the target hands it to MPIR_Notify_arrive() once the access is
 * complete there (put: data written; get: data read); matching is in
 * src/mpi/notify/ (notify_impl.h says which file does what).
 */

#include "mpidimpl.h"
#include "ch4_notify_ring.h"
#include "mpidig_notify.h"
#include "ch4_notify.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

categories :
    - name        : NOTIFY
      description : Notified Access (MPI_Put_notify, MPI_Get_notify, MPI_Notify_init)

cvars:
    - name        : MPIR_CVAR_NOTIFY_FORCE_GENERIC
      category    : NOTIFY
      type        : boolean
      default     : false
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Carry every notified access over the generic active-message path
        (MPIDIG), even where a transport-specific fast path exists.  The
        generic path works for every transport and window flavour.

    - name        : MPIR_CVAR_NOTIFY_VERBOSE
      category    : NOTIFY
      type        : boolean
      default     : false
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Print, per window, which transport paths carry its notified
        accesses, and why (to standard error, by the first process of the
        window's group).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* Checks every path relies on, made before any path numbers the access, so
 * that a refused access leaves no gap in its origin's sequence.  They run
 * even with MPIR_CVAR_ERROR_CHECKING off: a tag outside 24 bits would spill
 * into other fields of the libfabric CQ word, -1 is the generic path's
 * "no notification", and the rank indexes per-target arrays. */
ATTRIBUTE((always_inline))
static inline int check_access(MPIR_Win * win, MPI_Aint src_count,
                               MPI_Datatype src_type, MPI_Aint dst_count,
                               MPI_Datatype dst_type, int target_rank,
                               int tag, const char *src_name)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint src_bytes, dst_bytes;

    /* a tag, or MPIR_NOTIFY_COUNTER | the index of a counter (which
     * MPIX_Put_notify and MPIX_Get_notify check against the window's) */
    if (unlikely((unsigned) (tag & ~MPIR_NOTIFY_COUNTER) > MPIR_NOTIFY_TAG_MAX))
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_TAG, "**notifytag", "**notifytag %d %d",
                             tag, MPIR_NOTIFY_TAG_MAX);
    if (unlikely((unsigned) target_rank >= (unsigned) win->comm_ptr->local_size))
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_RANK, "**notifytarget", "**notifytarget %d %d",
                             target_rank, win->comm_ptr->local_size);
    /* the MPIDIG RMA path takes int counts */
    if (src_count > INT_MAX || dst_count > INT_MAX)
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_COUNT, "**too_big_for_input",
                             "**too_big_for_input %s", "origin_count or target_count");
    /* the data must fit where it goes (fewer bytes are accepted, as MPI_Put
     * and MPI_Get do in MPICH) */
    MPIDI_Datatype_check_size(src_type, src_count, src_bytes);
    MPIDI_Datatype_check_size(dst_type, dst_count, dst_bytes);
    if (unlikely(src_bytes > dst_bytes))
        MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_TRUNCATE, "**notifytrunc",
                             "**notifytrunc %s %d %d", src_name, (int) MPL_MIN(src_bytes, INT_MAX),
                             (int) MPL_MIN(dst_bytes, INT_MAX));
  fn_fail:
    return mpi_errno;
}

/* the out-of-line half of MPIDI_Notify_range_check (ch4_notify.h): derived
 * datatypes, and the error */
int MPIDI_Notify_range_check_slow(int target_rank, MPI_Aint first, MPI_Aint target_count,
                                  MPI_Datatype target_datatype, MPI_Aint size)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint end;
    if (HANDLE_IS_BUILTIN(target_datatype)) {
        end = first + target_count * MPIR_Datatype_get_basic_size(target_datatype);
    } else {
        MPI_Aint extent;
        MPIR_Datatype *dt;
        if (target_count == 0)
            return MPI_SUCCESS;
        MPIR_Datatype_get_extent_macro(target_datatype, extent);
        MPIR_Datatype_get_ptr(target_datatype, dt);
        first += dt->true_lb;
        end = first + (target_count - 1) * extent + (dt->true_ub - dt->true_lb);
        if (first >= 0 && end <= size)
            return MPI_SUCCESS;
    }
    MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_RMA_RANGE, "**notifyrange", "**notifyrange %d %L %L",
                         target_rank, (long long) end, (long long) size);
  fn_fail:
    return mpi_errno;
}

/* The range check where this process knows the target's window size: its
 * own window, or a node-local target's segment of a shared-memory window.
 * Not called for targets on the ring path: the ring access checks with the
 * segment it looks up anyway. */
MPL_STATIC_INLINE_PREFIX int check_range(MPIR_Win * win, int target_rank, MPI_Aint target_disp,
                                         MPI_Aint target_count, MPI_Datatype target_datatype)
{
    const MPIDIG_win_shared_info_t *t;
    const int *local;

    if (target_rank == win->comm_ptr->rank)
        return win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_SUCCESS :
            MPIDI_Notify_range_check(target_rank, target_disp, target_count, target_datatype,
                                     win->size, win->disp_unit);
    if ((t = MPIDIG_WIN(win, shared_table)) && (local = win->comm_ptr->intranode_table) &&
        local[target_rank] >= 0)
        return MPIDI_Notify_range_check(target_rank, target_disp, target_count, target_datatype,
                                        t[local[target_rank]].size,
                                        t[local[target_rank]].disp_unit);
    return MPI_SUCCESS;
}

/* Every path but the node's rings, out of line: the generic path
 * (mpidig_notify.h), else the transport's own, through the shm module if
 * the target is node-local, else the netmod, as MPID_Put and MPID_Get
 * dispatch (ch4_rma.h).  req: NULL, or the request of MPI_Rput_notify /
 * MPI_Rget_notify. */
static int ATTRIBUTE((noinline)) dispatch_other(MPIR_Notify_path_t path, void *origin_addr,
                                                int origin_count, MPI_Datatype origin_datatype,
                                                int target_rank, MPI_Aint target_disp,
                                                int target_count, MPI_Datatype target_datatype,
                                                MPIR_Win * win, int tag, bool is_put,
                                                MPIR_Request ** req)
{
    if (path == MPIR_NOTIFY_PATH_GENERIC)
        return MPIDIG_notify_access(origin_addr, origin_count, origin_datatype, target_rank,
                                    target_disp, target_count, target_datatype, win, tag,
                                    is_put, req);
    MPIDI_winattr_t winattr = MPIDI_WIN(win, winattr);
    MPIDI_av_entry_t *av = MPIDIU_win_rank_to_av(win, target_rank, winattr);
#ifndef MPIDI_CH4_DIRECT_NETMOD
    if (MPIDI_av_is_local(av))
        return is_put ?
            MPIDI_SHM_mpi_put_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                     target_disp, target_count, target_datatype, win, winattr,
                                     tag, req) :
            MPIDI_SHM_mpi_get_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                     target_disp, target_count, target_datatype, win, winattr,
                                     tag, req);
#endif
    return is_put ?
        MPIDI_NM_mpi_put_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, av, winattr,
                                tag, req) :
        MPIDI_NM_mpi_get_notify(origin_addr, origin_count, origin_datatype, target_rank,
                                target_disp, target_count, target_datatype, win, av, winattr,
                                tag, req);
}

/* Checked, then dispatched.  Forced inline into each entry below, so that
 * a notified put to a node-local target is one call deep here (the ring
 * access, a tail call) and the plain calls' copies have no request code
 * (req is a constant NULL there); the other paths are a call further. */
ATTRIBUTE((always_inline))
static inline int put_get(void *origin_addr, MPI_Aint origin_count,
                          MPI_Datatype origin_datatype,
                          int target_rank, MPI_Aint target_disp,
                          MPI_Aint target_count,
                          MPI_Datatype target_datatype, MPIR_Win * win,
                          int tag, bool is_put, MPIR_Request ** req)
{
    int mpi_errno = is_put ?
        check_access(win, origin_count, origin_datatype, target_count, target_datatype,
                     target_rank, tag, "put origin") :
        check_access(win, target_count, target_datatype, origin_count, origin_datatype,
                     target_rank, tag, "get target");
    if (unlikely(mpi_errno != MPI_SUCCESS))
        return mpi_errno;
    MPIR_Notify_path_t path = MPIR_Notify_path(win, target_rank);
    if (likely(path == MPIR_NOTIFY_PATH_RING))  /* checks the range itself */
        return MPIDI_Notify_ring_access(origin_addr, (int) origin_count, origin_datatype,
                                        target_rank, target_disp, (int) target_count,
                                        target_datatype, win, tag, is_put, req);
    mpi_errno = check_range(win, target_rank, target_disp, target_count, target_datatype);
    if (unlikely(mpi_errno != MPI_SUCCESS))
        return mpi_errno;
    return dispatch_other(path, origin_addr, (int) origin_count, origin_datatype, target_rank,
                          target_disp, (int) target_count, target_datatype, win, tag, is_put, req);
}

int MPID_Put_notify(const void *origin_addr, MPI_Aint origin_count,
                    MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                    MPI_Aint target_count, MPI_Datatype target_datatype, MPIR_Win * win, int tag)
{
    return put_get((void *) origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, tag, true, NULL);
}

int MPID_Get_notify(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                    MPI_Datatype target_datatype, MPIR_Win * win, int tag)
{
    return put_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, tag, false, NULL);
}

/* MPI_Rput_notify / MPI_Rget_notify: *req completes as MPI_Rput's and
 * MPI_Rget's do (origin buffer reusable / filled) */
int MPID_Rput_notify(const void *origin_addr, MPI_Aint origin_count,
                     MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                     MPI_Aint target_count, MPI_Datatype target_datatype, MPIR_Win * win, int tag,
                     MPIR_Request ** req)
{
    return put_get((void *) origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, tag, true, req);
}

int MPID_Rget_notify(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                     MPI_Datatype target_datatype, MPIR_Win * win, int tag, MPIR_Request ** req)
{
    return put_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                   target_count, target_datatype, win, tag, false, req);
}

/* The accumulate family.  Dispatched exactly as ch4_rma.h dispatches
 * MPI_Accumulate (the shm module only for node-local targets of windows
 * whose accumulates go through shared memory), so a notified accumulate
 * takes the same mechanism, locks and atomics as a plain one to the same
 * target, and MPI's atomicity and ordering rules hold between them. */
int MPID_Accumulate_notify(const MPIR_Notify_acc_t * acc, MPIR_Win * win, int tag)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Notify_acc_t a = *acc;
    MPI_Aint origin_bytes, result_bytes;

    MPIR_FUNC_ENTER;
    /* tag and rank as for a put; the op's data must fit the target */
    if (a.kind == MPIR_NOTIFY_CAS) {
        a.target_count = 1;
        a.target_datatype = a.origin_datatype;
    }
    bool sends = a.kind != MPIR_NOTIFY_GET_ACC || a.op != MPI_NO_OP;
    mpi_errno = check_access(win, sends ? a.origin_count : 0, a.origin_datatype,
                             a.target_count, a.target_datatype, a.target_rank, tag,
                             "accumulate origin");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = check_range(win, a.target_rank, a.target_disp, a.target_count, a.target_datatype);
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_Datatype_check_size(a.target_datatype, a.target_count, a.bytes);
    origin_bytes = 0;
    if (sends)
        MPIDI_Datatype_check_size(a.origin_datatype, a.origin_count, origin_bytes);
    if (a.kind == MPIR_NOTIFY_GET_ACC) {
        /* the result buffer receives exactly the target's data (MPICH's
         * active-message get-accumulate asserts that) */
        mpi_errno = check_access(win, a.target_count, a.target_datatype, a.result_count,
                                 a.result_datatype, a.target_rank, tag, "get-accumulate target");
        MPIR_ERR_CHECK(mpi_errno);
        MPIDI_Datatype_check_size(a.result_datatype, a.result_count, result_bytes);
        if (result_bytes > a.bytes)
            MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_COUNT, "**notifyresult",
                                 "**notifyresult %d %d", (int) MPL_MIN(result_bytes, INT_MAX),
                                 (int) MPL_MIN(a.bytes, INT_MAX));
    }

    if (a.bytes == 0 || (sends && origin_bytes == 0)) {
        /* nothing to apply (MPICH completes such an accumulate without a
         * message): the notification alone, as a zero-byte put carries it */
        mpi_errno = MPID_Rput_notify(NULL, 0, MPI_BYTE, a.target_rank, a.target_disp, 0,
                                     MPI_BYTE, win, tag, a.request);
        goto fn_exit;
    }

    MPIDI_winattr_t winattr = MPIDI_WIN(win, winattr);
    MPIDI_av_entry_t *av = MPIDIU_win_rank_to_av(win, a.target_rank, winattr);
#ifndef MPIDI_CH4_DIRECT_NETMOD
    if (MPIDI_av_is_local(av) && !(winattr & MPIDI_WINATTR_ACCU_NO_SHM))
        mpi_errno = MPIDI_SHM_mpi_accumulate_notify(&a, win, winattr, tag);
    else
#endif
        mpi_errno = MPIDI_NM_mpi_accumulate_notify(&a, win, av, winattr, tag);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Deliver what the window's transports have already completed at this
 * process without a full progress call (the shared-memory rings). */
void MPIDI_Notify_win_report(MPIR_Win * win)
{
    char paths[256], nm[320] = "";
    if (!MPIR_CVAR_NOTIFY_VERBOSE || win->comm_ptr->rank != 0)
        return;
    MPIR_Notify_path_describe(win, paths, sizeof(paths));
    MPIDI_NM_notify_win_describe(win, nm, sizeof(nm));
    fprintf(stderr, "notify: window %x: %d targets: %s%s%s\n", win->handle,
            win->comm_ptr->local_size, paths, nm[0] ? "; " : "", nm);
}

int MPID_Notify_poll(MPIR_Win * win)
{
    int mpi_errno = MPIDI_NM_notify_poll(win);
#ifndef MPIDI_CH4_DIRECT_NETMOD
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = MPIDI_SHM_notify_poll(win);
#endif
    return mpi_errno;
}

/* An access epoch of this process on win: a lock, lock_all, start or a
 * fence with accesses (not the "possible" epoch every fence leaves) */
bool MPID_Notify_epoch_open(MPIR_Win * win)
{
    switch (MPIDIG_WIN(win, sync).access_epoch_type) {
        case MPIDIG_EPOTYPE_LOCK:
        case MPIDIG_EPOTYPE_LOCK_ALL:
        case MPIDIG_EPOTYPE_START:
        case MPIDIG_EPOTYPE_FENCE:
            return true;
        default:
            return false;
    }
}

int MPID_Notify_init(MPIR_Win * win, int src_rank, int tag, int expected_count,
                     MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req;
    /* on the window's VCI: MPI_Wait polls the VCI of the request */
    int vci = MPIDI_WIN(win, am_vci);

    /* also with error checking off: the rank indexes per-origin state, and a
     * count below 1 would never complete */
    if (src_rank != MPI_ANY_SOURCE && src_rank != MPI_PROC_NULL &&
        (unsigned) src_rank >= (unsigned) win->comm_ptr->local_size)
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_RANK, "**notifyrank", "**notifyrank %d %d",
                             src_rank, win->comm_ptr->local_size);
    if (tag != MPI_ANY_TAG && (unsigned) tag > MPIR_NOTIFY_TAG_MAX)
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_TAG, "**notifytag", "**notifytag %d %d",
                             tag, MPIR_NOTIFY_TAG_MAX);
    if (expected_count < 1)
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_COUNT, "**notifycount", "**notifycount %d",
                             expected_count);

    MPID_THREAD_CS_ENTER(VCI, MPIDI_VCI(vci).lock);
    MPIDI_CH4_REQUEST_CREATE(req, MPIR_REQUEST_KIND__NOTIFY, vci, 1);
    if (req) {
        mpi_errno = MPIR_Notify_init_impl(win, src_rank, tag, expected_count, req);
        if (mpi_errno)
            MPIR_Request_free(req);
    }
    MPID_THREAD_CS_EXIT(VCI, MPIDI_VCI(vci).lock);
    MPIR_ERR_CHKANDJUMP(req == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    MPIR_ERR_CHECK(mpi_errno);
    *request = req;
  fn_fail:
    return mpi_errno;
}
