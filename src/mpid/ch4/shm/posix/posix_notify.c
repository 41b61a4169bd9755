/*
 * Notified Access, shared-memory fast path: notification rings.
 * See posix_notify.h for the protocol and doc/design.md for the whole picture.
 *
 * Ring: a bounded MPSC queue after D. Vyukov's bounded MPMC queue.  Every cell
 * has a `turn`: position p of the ring may be written by the producer that
 * claimed p once turn == p, and read by the consumer once turn == p + 1; the
 * consumer hands the cell to the producer of position p + size by storing
 * turn = p + size.  Producers claim positions with a CAS on the ring's tail.
 * Positions are 32-bit and compared by signed difference, so they wrap.
 */

#include "mpidimpl.h"
#include "posix_notify.h"
#include <stdatomic.h>

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

    - name        : MPIR_CVAR_NOTIFY_SHM_INLINE_MAX
      category    : NOTIFY
      type        : int
      default     : 32
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Largest notified put (bytes, at most 32) whose payload travels inside
        the ring cell; larger puts are copied straight into target memory.
        0 disables inline payloads.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define CELL_INLINE_CAP 32
#define CELL_FLAG_INLINE (1u << 31)
#define CELL_TAG_MASK ((1u << MPIR_NOTIFY_TAG_BITS) - 1)

typedef struct {
    _Atomic uint32_t turn;
    uint32_t nseq;              /* issue order, for MPIR_Notify_arrive */
    int32_t src;                /* origin rank in the window's group */
    uint32_t tag_flags;         /* tag | CELL_FLAG_INLINE */
    uint64_t bytes;             /* bytes accessed */
    uint64_t offset;            /* inline put: byte offset in the target's window */
    char payload[CELL_INLINE_CAP];
} notify_cell_t;

_Static_assert(sizeof(notify_cell_t) == 64, "a notification cell is one cache line");

typedef struct {
    _Atomic uint32_t tail;      /* next position to claim (producers only) */
    char pad[MPL_CACHELINE_SIZE - sizeof(uint32_t)];
    notify_cell_t cells[];
} notify_ring_t;

struct MPIDI_POSIX_notify_rings {
    MPIR_Win *win;
    void *segment;              /* one ring per process of the node, by intra-node rank */
    notify_ring_t *mine;
    size_t ring_bytes;
    uint32_t size, mask;
    uint32_t head;              /* consumer position: only the owner touches it */
    int inline_max;
    struct MPIDI_POSIX_notify_rings *next, *prev;
};

struct MPIDI_POSIX_notify_rings *MPIDI_POSIX_notify_active = NULL;

static notify_ring_t *ring_of(struct MPIDI_POSIX_notify_rings *r, int intra_rank)
{
    return (notify_ring_t *) ((char *) r->segment + (size_t) intra_rank * r->ring_bytes);
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
    r->ring_bytes = sizeof(notify_ring_t) + r->size * sizeof(notify_cell_t);
    r->inline_max = MPL_MIN(MPL_MAX(MPIR_CVAR_NOTIFY_SHM_INLINE_MAX, 0), CELL_INLINE_CAP);
    r->win = win;

    /* collective over the processes that share the window memory */
    mpi_errno = MPIDU_shm_alloc(shm_comm, shm_comm->local_size * r->ring_bytes, &r->segment,
                                &mapfail);
    MPIR_ERR_CHECK(mpi_errno);
    if (mapfail) {
        /* no rings: every notified access takes the generic path */
        MPL_free(r);
        goto fn_exit;
    }

    /* Initialise my own ring; the barrier that ends window creation (ch4
     * win_init) orders this before any producer touches it. */
    r->mine = ring_of(r, shm_comm->rank);
    atomic_init(&r->mine->tail, 0);
    for (uint32_t i = 0; i < r->size; i++)
        atomic_init(&r->mine->cells[i].turn, i);

    r->prev = NULL;
    r->next = MPIDI_POSIX_notify_active;
    if (r->next)
        r->next->prev = r;
    MPIDI_POSIX_notify_active = r;
    win->dev.shm.posix.notify_rings = r;
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
    if (r->prev)
        r->prev->next = r->next;
    else
        MPIDI_POSIX_notify_active = r->next;
    if (r->next)
        r->next->prev = r->prev;
    mpi_errno = MPIDU_shm_free(r->segment);
    MPL_free(r);
    win->dev.shm.posix.notify_rings = NULL;
    return mpi_errno;
}

/* ------------------------------------------------------------- consumer */

static int drain(struct MPIDI_POSIX_notify_rings *r)
{
    int mpi_errno = MPI_SUCCESS;
    notify_ring_t *ring = r->mine;

    for (;;) {
        notify_cell_t *c = &ring->cells[r->head & r->mask];
        /* acquire: pairs with the producer's release store of turn, so the
         * cell's fields and, for non-inline puts, the data the producer
         * copied into our window are visible from here on */
        if (atomic_load_explicit(&c->turn, memory_order_acquire) != r->head + 1)
            break;
        int src = c->src;
        int tag = (int) (c->tag_flags & CELL_TAG_MASK);
        uint32_t nseq = c->nseq;
        MPI_Aint bytes = (MPI_Aint) c->bytes;
        if (c->tag_flags & CELL_FLAG_INLINE)
            memcpy((char *) r->win->base + c->offset, c->payload, bytes);
        /* release: our reads of the cell (and the payload copy) happen
         * before the producer of position head + size may overwrite it */
        atomic_store_explicit(&c->turn, r->head + r->size, memory_order_release);
        r->head++;
        mpi_errno = MPIR_Notify_arrive(r->win, src, tag, bytes, nseq);
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
 * (our own ring included, so two processes filling each other's rings
 * cannot deadlock) and try again.  Nothing is overwritten or dropped. */
static int claim(notify_ring_t * ring, struct MPIDI_POSIX_notify_rings *r, notify_cell_t ** cell,
                 uint32_t * pos_out)
{
    int mpi_errno = MPI_SUCCESS;
    uint32_t pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    for (;;) {
        notify_cell_t *c = &ring->cells[pos & r->mask];
        /* acquire: the consumer's release of this cell (its reads are done) */
        uint32_t turn = atomic_load_explicit(&c->turn, memory_order_acquire);
        int32_t diff = (int32_t) (turn - pos);
        if (diff == 0) {
            /* relaxed CAS: the cell itself is handed over through turn */
            if (atomic_compare_exchange_weak_explicit(&ring->tail, &pos, pos + 1,
                                                      memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *cell = c;
                *pos_out = pos;
                return MPI_SUCCESS;
            }
            /* pos now holds the current tail: retry there */
        } else if (diff < 0) {
            /* full: the consumer has not freed this cell yet */
            mpi_errno = MPID_Progress_test(NULL);
            MPIR_ERR_CHECK(mpi_errno);
            pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
        } else {
            /* another producer took pos */
            pos = atomic_load_explicit(&ring->tail, memory_order_relaxed);
        }
    }
  fn_fail:
    return mpi_errno;
}

static void publish(notify_cell_t * c, uint32_t pos)
{
    /* release: every write before it (cell fields, inline payload, and for a
     * non-inline put the copy into target memory; for a get, our reads of
     * target memory) happens before the consumer's acquire of turn */
    atomic_store_explicit(&c->turn, pos + 1, memory_order_release);
}

/* common checks and addressing: 0 = not for the fast path */
static int fast_target(MPIR_Win * win, int target_rank, struct MPIDI_POSIX_notify_rings **r_out,
                       int *intra, void **base, int *disp_unit)
{
    struct MPIDI_POSIX_notify_rings *r = win->dev.shm.posix.notify_rings;
    MPIDI_winattr_t winattr = MPIDI_WIN(win, winattr);
    if (!r || MPIR_CVAR_NOTIFY_FORCE_GENERIC || target_rank == MPIDIU_win_comm_rank(win, winattr))
        return 0;
    int t = MPIDIU_win_rank_to_intra_rank(win, target_rank, winattr);
    if (t < 0)
        return 0;       /* not on this node */
    *r_out = r;
    *intra = t;
    *base = MPIDIG_WIN(win, shared_table)[t].shm_base_addr;
    *disp_unit = MPIDIG_WIN(win, shared_table)[t].disp_unit;
    return 1;
}

int MPIDI_POSIX_notify_put(const void *origin_addr, int origin_count,
                           MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                           int target_count, MPI_Datatype target_datatype, MPIR_Win * win,
                           int tag, bool * done)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIDI_POSIX_notify_rings *r;
    int intra, disp_unit;
    void *base;
    notify_cell_t *c;
    uint32_t pos, nseq;
    MPI_Aint bytes, true_lb;
    int contig;

    *done = false;
    if (!fast_target(win, target_rank, &r, &intra, &base, &disp_unit))
        goto fn_exit;
    *done = true;

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    MPIDI_Datatype_check_size(origin_datatype, origin_count, bytes);
    mpi_errno = MPIR_Notify_next_seq(win, target_rank, &nseq);
    MPIR_ERR_CHECK(mpi_errno);

    MPI_Aint offset = disp_unit * target_disp;
    MPIR_Datatype_is_contig(target_datatype, &contig);
    bool inline_ok = bytes <= r->inline_max && contig;
    if (!inline_ok && bytes > 0) {
        /* straight into target memory; published by the release in publish() */
        mpi_errno = MPIR_Localcopy(origin_addr, origin_count, origin_datatype,
                                   (char *) base + offset, target_count, target_datatype);
        MPIR_ERR_CHECK(mpi_errno);
    }

    notify_ring_t *ring = ring_of(r, intra);
    mpi_errno = claim(ring, r, &c, &pos);
    MPIR_ERR_CHECK(mpi_errno);
    c->nseq = nseq;
    c->src = win->comm_ptr->rank;
    c->tag_flags = (uint32_t) tag;
    c->bytes = (uint64_t) bytes;
    if (inline_ok) {
        MPIR_Datatype_get_true_lb(target_datatype, &true_lb);
        c->tag_flags |= CELL_FLAG_INLINE;
        c->offset = (uint64_t) (offset + true_lb);
        if (bytes > 0) {
            MPI_Aint packed;
            mpi_errno = MPIR_Typerep_pack(origin_addr, origin_count, origin_datatype, 0,
                                          c->payload, bytes, &packed);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    publish(c, pos);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPIDI_POSIX_notify_get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                           int target_rank, MPI_Aint target_disp, int target_count,
                           MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool * done)
{
    int mpi_errno = MPI_SUCCESS;
    struct MPIDI_POSIX_notify_rings *r;
    int intra, disp_unit;
    void *base;
    notify_cell_t *c;
    uint32_t pos, nseq;
    MPI_Aint bytes;

    *done = false;
    if (!fast_target(win, target_rank, &r, &intra, &base, &disp_unit))
        goto fn_exit;
    *done = true;

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    MPIDI_Datatype_check_size(target_datatype, target_count, bytes);
    mpi_errno = MPIR_Notify_next_seq(win, target_rank, &nseq);
    MPIR_ERR_CHECK(mpi_errno);
    if (bytes > 0) {
        mpi_errno = MPIR_Localcopy((char *) base + disp_unit * target_disp, target_count,
                                   target_datatype, origin_addr, origin_count, origin_datatype);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = claim(ring_of(r, intra), r, &c, &pos);
    MPIR_ERR_CHECK(mpi_errno);
    c->nseq = nseq;
    c->src = win->comm_ptr->rank;
    c->tag_flags = (uint32_t) tag;
    c->bytes = (uint64_t) bytes;
    publish(c, pos);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
