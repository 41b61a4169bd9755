/*
 * Notified Access, node-local fast path: notification rings.
 * See ch4_notify_ring.h for the protocol and who uses it, notify_ring.h for
 * the ring and its memory ordering, doc/design.md for the whole picture.
 */

#include "mpidimpl.h"
#include "ch4_notify_ring.h"
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

struct MPIDI_Notify_rings {
    MPIR_Win *win;
    void *segment;              /* one ring per process of the node, by intra-node rank */
    notify_ring_t *mine;
    size_t ring_bytes;
    uint32_t size, mask;
    uint32_t head;              /* consumer position: only the owner touches it */
    struct MPIDI_Notify_rings *next, *prev;
};

struct MPIDI_Notify_rings *MPIDI_Notify_rings_active = NULL;

static notify_ring_t *ring_of(struct MPIDI_Notify_rings *r, int intra_rank)
{
    return (notify_ring_t *) ((char *) r->segment + (size_t) intra_rank * r->ring_bytes);
}

int MPIDI_Notify_rings_create(MPIR_Win * win, MPIR_Comm * node_comm,
                              struct MPIDI_Notify_rings **rings)
{
    int mpi_errno = MPI_SUCCESS;
    bool mapfail = false;
    struct MPIDI_Notify_rings *r;

    *rings = NULL;
    r = MPL_calloc(1, sizeof(*r), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!r, mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "notify rings");

    r->size = 2;
    while (r->size < (uint32_t) MPIR_CVAR_NOTIFY_SHM_RING_SIZE && r->size < (1u << 30))
        r->size <<= 1;
    r->mask = r->size - 1;
    r->ring_bytes = notify_ring_bytes(r->size);
    r->win = win;

    mpi_errno = MPIDU_shm_alloc(node_comm, node_comm->local_size * r->ring_bytes, &r->segment,
                                &mapfail);
    MPIR_ERR_CHECK(mpi_errno);
    if (mapfail) {
        MPL_free(r);
        goto fn_exit;
    }

    /* Initialise my own ring; the barrier that ends window creation (ch4
     * win_init) orders this before any producer touches it. */
    r->mine = ring_of(r, node_comm->rank);
    notify_ring_init(r->mine, r->size);
    DL_PREPEND(MPIDI_Notify_rings_active, r);
    *rings = r;
  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(r);
    goto fn_exit;
}

int MPIDI_Notify_rings_free(struct MPIDI_Notify_rings **rings)
{
    struct MPIDI_Notify_rings *r = *rings;
    int mpi_errno;

    if (!r)
        return MPI_SUCCESS;
    /* cells still queued belong to notifications nobody asked for: they go
     * with the window, as the window's unexpected queue does */
    DL_DELETE(MPIDI_Notify_rings_active, r);
    mpi_errno = MPIDU_shm_free(r->segment);
    MPL_free(r);
    *rings = NULL;
    return mpi_errno;
}

int MPIDI_Notify_rings_claim_node(MPIR_Win * win, MPIR_Notify_why_t why)
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

/* ------------------------------------------------------------- consumer */

MPL_STATIC_INLINE_PREFIX int drain(struct MPIDI_Notify_rings *r)
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

int MPIDI_Notify_rings_poll(struct MPIDI_Notify_rings *r)
{
    return r ? drain(r) : MPI_SUCCESS;
}

int MPIDI_Notify_rings_progress(int vci)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIDI_Notify_rings *r, *next;
    for (r = MPIDI_Notify_rings_active; r; r = next) {
        next = r->next;
        /* posix and ucx both keep am_vci below their number of streams */
        if (MPIDI_WIN(r->win, am_vci) != vci)
            continue;
        mpi_errno = drain(r);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* ------------------------------------------------------------- producer */

/* A full ring: drive progress (our own rings included, so two processes
 * filling each other's rings cannot deadlock) and try again.  Nothing is
 * overwritten or dropped. */
static int claim_full(notify_ring_t * ring, uint32_t mask, notify_cell_t ** cell, uint32_t * pos)
{
    int mpi_errno = MPI_SUCCESS;
    while (!(*cell = notify_ring_claim(ring, mask, pos))) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* Claim a cell of the target's ring */
MPL_STATIC_INLINE_PREFIX int claim(notify_ring_t * ring, uint32_t mask, notify_cell_t ** cell,
                                   uint32_t * pos)
{
    if (likely((*cell = notify_ring_claim(ring, mask, pos)) != NULL))
        return MPI_SUCCESS;
    return claim_full(ring, mask, cell, pos);
}

/* Number and publish a cell that carries no data of its own (the access
 * is already complete in target memory). */
MPL_STATIC_INLINE_PREFIX int publish(struct MPIDI_Notify_rings *r, int intra, MPIR_Win * win,
                                     int target_rank, int tag, MPI_Aint bytes)
{
    notify_cell_t *c;
    uint32_t pos;
    int mpi_errno = claim(ring_of(r, intra), r->mask, &c, &pos);
    MPIR_ERR_CHECK(mpi_errno);
    /* numbered once nothing can fail before the cell is published */
    c->nseq = MPIR_Notify_take_seq(win->notify, target_rank);   /* ring: state exists */
    c->src = win->comm_ptr->rank;
    c->tag = tag;
    c->bytes = (uint64_t) bytes;
    notify_ring_publish(c, pos);
  fn_fail:
    return mpi_errno;
}

int MPIDI_Notify_ring_publish(struct MPIDI_Notify_rings *r, MPIR_Win * win, int target_rank,
                              int tag, MPI_Aint bytes)
{
    return publish(r, MPIDIU_win_rank_to_intra_rank(win, target_rank, MPIDI_WIN(win, winattr)),
                   win, target_rank, tag, bytes);
}

int MPIDI_Notify_complete_request(MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS;
    if (req) {
        *req = MPIR_Request_create_complete(MPIR_REQUEST_KIND__RMA);
        MPIR_ERR_CHKANDJUMP(*req == NULL, mpi_errno, MPIX_ERR_NOREQ, "**nomemreq");
    }
  fn_fail:
    return mpi_errno;
}

/* The data moves now, before the cell is published: like MPI_Put's and
 * MPI_Get's, it must be in place when the origin's flush returns, not when
 * the target next drains its ring.  Contiguous copies skip the datatype
 * engine. */
int MPIDI_Notify_ring_access(struct MPIDI_Notify_rings *r, void *origin_addr, int origin_count,
                             MPI_Datatype origin_datatype, int target_rank,
                             MPI_Aint target_disp, int target_count,
                             MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool is_put,
                             MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS;
    int intra = MPIDIU_win_rank_to_intra_rank(win, target_rank, MPIDI_WIN(win, winattr));
    MPIDIG_win_shared_info_t *t = &MPIDIG_WIN(win, shared_table)[intra];
    MPI_Aint bytes;

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    /* what is written (check_access made sure it fits) */
    if (is_put)
        MPIDI_Datatype_check_size(origin_datatype, origin_count, bytes);
    else
        MPIDI_Datatype_check_size(target_datatype, target_count, bytes);
    if (bytes > 0) {
        char *tbuf = (char *) t->shm_base_addr + t->disp_unit * target_disp;
        int ocontig, tcontig;
        MPIR_Datatype_is_contig(origin_datatype, &ocontig);
        MPIR_Datatype_is_contig(target_datatype, &tcontig);
        if (ocontig && tcontig) {
            MPI_Aint olb, tlb;
            MPIR_Datatype_get_true_lb(origin_datatype, &olb);
            MPIR_Datatype_get_true_lb(target_datatype, &tlb);
            if (is_put)
                MPIDI_Notify_copy_shared(tbuf + tlb, (char *) origin_addr + olb, bytes);
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

    mpi_errno = MPIDI_Notify_complete_request(req);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = publish(r, intra, win, target_rank, tag, bytes);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
