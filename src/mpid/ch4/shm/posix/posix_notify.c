/*
 * Notified Access, shared-memory fast path: notification rings.
 * See posix_notify.h for the protocol, notify_ring.h for the ring and its
 * memory ordering, doc/design.md for the whole picture.
 */

#include "mpidimpl.h"
#include "posix_notify.h"
#include "mpidig_notify.h"
#include "notify_ring.h"
#include "notify_copy.h"
#include "utlist.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_NOTIFY_SHM_RING_SIZE
      category    : NOTIFY
      type        : int
      default     : 256
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Cells (64 bytes each) in each process's notification ring of a
        shared-memory window; rounded up to a power of two, at least 2.  A
        full ring makes the origin drive progress and retry.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/


struct MPIDI_POSIX_notify_rings {
    MPIR_Win *win;
    void *segment;              /* one ring per process of the node, by intra-node rank */
    notify_ring_t *mine;
    size_t ring_bytes;
    uint32_t size, mask;
    uint32_t head;              /* consumer position: only the owner touches it */
    struct MPIDI_POSIX_notify_rings *next, *prev;
};

struct MPIDI_POSIX_notify_rings *MPIDI_POSIX_notify_active = NULL;

static notify_ring_t *ring_of(struct MPIDI_POSIX_notify_rings *r, int intra_rank)
{
    return (notify_ring_t *) ((char *) r->segment + (size_t) intra_rank * r->ring_bytes);
}

/* The path to every other process of the node: the window memory is in a
 * node-shared segment, so the rings serve them unless why says otherwise. */
static int claim_node(MPIR_Win * win, MPIR_Notify_why_t why)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_winattr_t winattr = MPIDI_WIN(win, winattr);
    MPIR_Notify_path_t path = why == MPIR_NOTIFY_WHY_SHARED_MEMORY ?
        MPIR_NOTIFY_PATH_RING : MPIR_NOTIFY_PATH_GENERIC;

    for (int r = 0; r < win->comm_ptr->local_size && mpi_errno == MPI_SUCCESS; r++)
        if (r != win->comm_ptr->rank && MPIDIU_win_rank_to_intra_rank(win, r, winattr) >= 0)
            mpi_errno = MPIR_Notify_path_set(win, r, path, why);
    return mpi_errno;
}

int MPIDI_POSIX_notify_win_init(MPIR_Win * win, MPIR_Comm * shm_comm)
{
    int mpi_errno = MPI_SUCCESS;
    bool mapfail = false;
    struct MPIDI_POSIX_notify_rings *r;

    win->dev.shm.posix.notify_rings = NULL;
    r = MPL_calloc(1, sizeof(*r), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!r, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify rings");

    r->size = 2;
    while (r->size < (uint32_t) MPIR_CVAR_NOTIFY_SHM_RING_SIZE && r->size < (1u << 30))
        r->size <<= 1;
    r->mask = r->size - 1;
    r->ring_bytes = notify_ring_bytes(r->size);
    r->win = win;

    /* collective over the processes that share the window memory, also
     * where this one forces the generic path (the others may not) */
    mpi_errno = MPIDU_shm_alloc(shm_comm, shm_comm->local_size * r->ring_bytes, &r->segment,
                                &mapfail);
    MPIR_ERR_CHECK(mpi_errno);
    if (mapfail) {
        MPL_free(r);
        mpi_errno = claim_node(win, MPIR_NOTIFY_WHY_NO_SEGMENT);
        goto report;
    }

    /* Initialise my own ring; the barrier that ends window creation (ch4
     * win_init) orders this before any producer touches it. */
    r->mine = ring_of(r, shm_comm->rank);
    notify_ring_init(r->mine, r->size);
    DL_PREPEND(MPIDI_POSIX_notify_active, r);
    win->dev.shm.posix.notify_rings = r;
    mpi_errno = claim_node(win, MPIR_CVAR_NOTIFY_FORCE_GENERIC ? MPIR_NOTIFY_WHY_FORCED :
                           MPIR_NOTIFY_WHY_SHARED_MEMORY);

  report:
    if (MPIR_CVAR_NOTIFY_VERBOSE && shm_comm->rank == 0)
        fprintf(stderr, "notify: window %x: shared-memory rings for %d of %d targets%s\n",
                win->handle, MPIR_Notify_path_count(win, MPIR_NOTIFY_PATH_RING),
                win->comm_ptr->local_size, mapfail ? " (no shared segment for rings)" :
                MPIR_CVAR_NOTIFY_FORCE_GENERIC ? " (generic path forced)" : "");
  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(r);
    goto fn_exit;
}

int MPIDI_POSIX_notify_win_free(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIDI_POSIX_notify_rings *r = win->dev.shm.posix.notify_rings;

    if (!r)
        return MPI_SUCCESS;
    /* cells still queued belong to notifications nobody asked for: they go
     * with the window, as the window's unexpected queue does */
    DL_DELETE(MPIDI_POSIX_notify_active, r);
    mpi_errno = MPIDU_shm_free(r->segment);
    MPL_free(r);
    win->dev.shm.posix.notify_rings = NULL;
    return mpi_errno;
}

/* ------------------------------------------------------------- consumer */

MPL_STATIC_INLINE_PREFIX int drain(struct MPIDI_POSIX_notify_rings *r)
{
    int mpi_errno = MPI_SUCCESS;
    notify_cell_t *c;

    while ((c = notify_ring_peek(r->mine, r->mask, r->head))) {
        int src = c->src;
        int tag = c->tag;
        uint32_t nseq = c->nseq;
        MPI_Aint bytes = (MPI_Aint) c->bytes;
        notify_ring_release(c, r->head, r->size);
        r->head++;
        mpi_errno = MPIR_Notify_arrive(r->win, MPIR_NOTIFY_PATH_RING, src, tag, bytes, nseq);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

int MPIDI_POSIX_notify_poll_win(MPIR_Win * win)
{
    struct MPIDI_POSIX_notify_rings *r = win->dev.shm.posix.notify_rings;
    return r ? drain(r) : MPI_SUCCESS;
}

/* drain the rings of the windows served by this shm progress stream */
int MPIDI_POSIX_notify_progress(int vsi)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIDI_POSIX_notify_rings *r, *next;
    for (r = MPIDI_POSIX_notify_active; r; r = next) {
        next = r->next;
        if (MPIDI_WIN(r->win, am_vci) != vsi)   /* posix keeps am_vci < num_vsis */
            continue;
        mpi_errno = drain(r);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* ------------------------------------------------------------- producer */

/* Claim a cell of the target's ring; a full ring makes us drive progress
 * (our own rings included, so two processes filling each other's rings
 * cannot deadlock) and try again.  Nothing is overwritten or dropped. */
static int claim(notify_ring_t * ring, uint32_t mask, notify_cell_t ** cell, uint32_t * pos)
{
    int mpi_errno = MPI_SUCCESS;
    while (!(*cell = notify_ring_claim(ring, mask, pos))) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* claim a cell of the target's ring and fill in what every cell carries */
MPL_STATIC_INLINE_PREFIX int claim_cell(struct MPIDI_POSIX_notify_rings *r, int intra, MPIR_Win * win, int tag,
                      MPI_Aint bytes, uint32_t nseq, notify_cell_t ** c, uint32_t * pos)
{
    int mpi_errno = claim(ring_of(r, intra), r->mask, c, pos);
    if (mpi_errno == MPI_SUCCESS) {
        (*c)->nseq = nseq;
        (*c)->src = win->comm_ptr->rank;
        (*c)->tag = tag;
        (*c)->bytes = (uint64_t) bytes;
    }
    return mpi_errno;
}


/* the ring path's addressing of target, if the path table says ring */
MPL_STATIC_INLINE_PREFIX int fast_target(MPIR_Win * win, int target_rank, struct MPIDI_POSIX_notify_rings **r_out,
                       int *intra, void **base, int *disp_unit)
{
    if (MPIR_Notify_path(win, target_rank) != MPIR_NOTIFY_PATH_RING)
        return 0;
    int t = MPIDIU_win_rank_to_intra_rank(win, target_rank, MPIDI_WIN(win, winattr));
    *r_out = win->dev.shm.posix.notify_rings;
    *intra = t;
    *base = MPIDIG_WIN(win, shared_table)[t].shm_base_addr;
    *disp_unit = MPIDIG_WIN(win, shared_table)[t].disp_unit;
    return 1;
}

/* Number and publish a cell that carries no data of its own (the access
 * is already complete in target memory). */
MPL_STATIC_INLINE_PREFIX int publish(struct MPIDI_POSIX_notify_rings *r, int intra, MPIR_Win * win,
                   int target_rank, int tag, MPI_Aint bytes)
{
    notify_cell_t *c;
    uint32_t pos, nseq = MPIR_Notify_take_seq(win->notify, target_rank);  /* ring: state exists */
    int mpi_errno = claim_cell(r, intra, win, tag, bytes, nseq, &c, &pos);
    MPIR_ERR_CHECK(mpi_errno);
    notify_ring_publish(c, pos);
  fn_fail:
    return mpi_errno;
}

/* The request of an access complete when the call returns (MPI_Rput_notify
 * and friends on the ring path), as posix makes MPI_Rput's */
static int complete_request(MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS;
    if (req) {
        *req = MPIR_Request_create_complete(MPIR_REQUEST_KIND__RMA);
        MPIR_ERR_CHKANDJUMP(*req == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    }
  fn_fail:
    return mpi_errno;
}

/* A notified put or get on the ring path: the copy, then the numbered
 * cell.  The data moves now, before the cell is published: like MPI_Put's
 * and MPI_Get's, it must be in place when the origin's flush returns, not
 * when the target next drains its ring.  Contiguous copies skip the
 * datatype engine. */
static int ring_access(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool is_put,
                       MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIDI_POSIX_notify_rings *r;
    int intra, disp_unit;
    void *base;
    MPI_Aint bytes;

    if (!fast_target(win, target_rank, &r, &intra, &base, &disp_unit))
        return MPIDIG_notify_access(origin_addr, origin_count, origin_datatype, target_rank,
                                    target_disp, target_count, target_datatype, win, tag,
                                    is_put, req);

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    /* what is written (check_access made sure it fits) */
    if (is_put)
        MPIDI_Datatype_check_size(origin_datatype, origin_count, bytes);
    else
        MPIDI_Datatype_check_size(target_datatype, target_count, bytes);
    if (bytes > 0) {
        char *tbuf = (char *) base + disp_unit * target_disp;
        int ocontig, tcontig;
        MPIR_Datatype_is_contig(origin_datatype, &ocontig);
        MPIR_Datatype_is_contig(target_datatype, &tcontig);
        if (ocontig && tcontig) {
            MPI_Aint olb, tlb;
            MPIR_Datatype_get_true_lb(origin_datatype, &olb);
            MPIR_Datatype_get_true_lb(target_datatype, &tlb);
            if (is_put)
                memcpy(tbuf + tlb, (char *) origin_addr + olb, bytes);
            else
                MPIDI_Notify_copy_shared((char *) origin_addr + olb, tbuf + tlb, bytes);
        } else if (is_put) {
            mpi_errno = MPIR_Localcopy(origin_addr, origin_count, origin_datatype,
                                       tbuf, target_count, target_datatype);
        } else {
            mpi_errno = MPIR_Localcopy(tbuf, target_count, target_datatype,
                                       origin_addr, origin_count, origin_datatype);
        }
        MPIR_ERR_CHECK(mpi_errno);
    }

    /* numbered only once nothing can fail before the cell is published */
    mpi_errno = complete_request(req);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = publish(r, intra, win, target_rank, tag, bytes);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_POSIX_mpi_put_notify(const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPIR_Win * win, int tag,
                               MPIR_Request ** req)
{
    return ring_access((void *) origin_addr, origin_count, origin_datatype, target_rank,
                       target_disp, target_count, target_datatype, win, tag, true, req);
}

int MPIDI_POSIX_mpi_get_notify(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                               int target_rank, MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPIR_Win * win, int tag,
                               MPIR_Request ** req)
{
    return ring_access(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                       target_count, target_datatype, win, tag, false, req);
}

/* The accumulate family: MPICH's own shared-memory accumulate,
 * get-accumulate or compare-and-swap (posix_rma.h), applied now under the
 * window's shm mutex exactly as the plain call is, then the notification:
 * a ring cell, or (no ring to this target: itself, or the generic path
 * forced) a notification alone over the generic path, which keeps the
 * origin's order.  Sending the op itself as an active message would let a
 * later plain accumulate, applied at once, overtake it.  Targets whose
 * plain accumulates are active messages too (no shared segment) take the
 * generic path's notified accumulate. */
int MPIDI_POSIX_mpi_accumulate_notify(const MPIR_Notify_acc_t * a, MPIR_Win * win,
                                      MPIDI_winattr_t winattr, int tag)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIDI_POSIX_notify_rings *r;
    int intra, disp_unit;
    void *base;
    bool ring = fast_target(win, a->target_rank, &r, &intra, &base, &disp_unit);

    if (!ring && !(winattr & MPIDI_WINATTR_SHM_ALLOCATED) &&
        a->target_rank != MPIDIU_win_comm_rank(win, winattr))
        return MPIDIG_notify_accumulate(a, win, tag);

    switch (a->kind) {
        case MPIR_NOTIFY_ACC:
            mpi_errno = MPIDI_POSIX_do_accumulate(a->origin_addr, a->origin_count,
                                                  a->origin_datatype, a->target_rank,
                                                  a->target_disp, a->target_count,
                                                  a->target_datatype, a->op, win, winattr);
            break;
        case MPIR_NOTIFY_GET_ACC:
            mpi_errno = MPIDI_POSIX_do_get_accumulate(a->origin_addr, a->origin_count,
                                                      a->origin_datatype, a->result_addr,
                                                      a->result_count, a->result_datatype,
                                                      a->target_rank, a->target_disp,
                                                      a->target_count, a->target_datatype,
                                                      a->op, win, winattr);
            break;
        case MPIR_NOTIFY_CAS:
            mpi_errno = MPIDI_POSIX_mpi_compare_and_swap(a->origin_addr, a->compare_addr,
                                                         a->result_addr, a->origin_datatype,
                                                         a->target_rank, a->target_disp, win,
                                                         winattr);
            break;
    }
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = complete_request(a->request);
    MPIR_ERR_CHECK(mpi_errno);
    if (ring)
        mpi_errno = publish(r, intra, win, a->target_rank, tag, a->bytes);
    else
        mpi_errno = MPIDIG_notify_only(win, a->target_rank, tag, a->bytes);
  fn_fail:
    return mpi_errno;
}
