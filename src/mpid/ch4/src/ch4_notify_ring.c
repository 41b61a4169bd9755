/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * Notified Access, node-local fast path: notification rings.
 * See ch4_notify_ring.h for the protocol and who uses it, notify_ring.h for
 * the ring and its memory ordering, doc/design.md for the whole picture.
 */

#include "mpidimpl.h"
#include "ch4_notify_ring.h"
#include "ch4_notify.h"
#include "notify_copy.h"
#include "notify_iov_walk.h"
#include "mpidu_init_shm.h"

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
        Cells (64 bytes each) in each process's notification ring, which
        all its shared-memory windows share; rounded up to a power of two,
        at least 2.  A full ring makes the origin drive progress and retry.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

MPIDI_Notify_ring_consumer_t MPIDI_Notify_ring;
#define CONS MPIDI_Notify_ring  /* the consumer side, shared with the inline progress check */

/* the node's segment as this process sees it */
static struct {
    void *segment;              /* one ring per process of the node, by local rank */
    size_t ring_bytes;
    uint32_t size;
    int *local_of;              /* [MPI_COMM_WORLD rank] its ring, -1 off the node */
    uint32_t *limit;            /* [ring] this process's bound on its free positions */
    bool serial;                /* every ring has one producer (claim_cell) */
    unsigned long long dropped; /* cells for a window no longer here (erroneous program) */
    MPIDI_Notify_win_cache_t last;      /* the window of the last cell */
    struct {
        MPIR_Win *win;          /* NULL: none */
        int rank, local;
    } to;                       /* the last target's ring: a stream of accesses mostly
                                 * repeats its target (forgotten when its window is freed) */
} R;

/* what progress watches: the cell at head, while a window needs the ring */
static void watch_head(void)
{
    CONS.next = CONS.windows > 0 ? &CONS.mine->cells[CONS.head & CONS.mask].turn : NULL;
    CONS.expect = CONS.head + 1;
}

static MPIDI_Notify_ring_t *ring_of(int local)
{
    return (MPIDI_Notify_ring_t *) ((char *) R.segment + (size_t) local * R.ring_bytes);
}

/* target_rank's ring, -1 if it has none (not of MPI_COMM_WORLD: spawned) */
static int ring_lookup(MPIR_Win * win, int target_rank)
{
    int lpid = MPIDIU_rank_to_lpid(target_rank, win->comm_ptr);
    return R.segment && lpid >= 0 && lpid < MPIR_Process.size ? R.local_of[lpid] : -1;
}

/* the same for a target on the ring path, which has one */
ATTRIBUTE((always_inline))
static inline int ring_index(MPIR_Win * win, int target_rank)
{
    if (likely(R.to.win == win && R.to.rank == target_rank))
        return R.to.local;
    R.to.local = ring_lookup(win, target_rank);
    R.to.win = win;
    R.to.rank = target_rank;
    return R.to.local;
}

int MPIDI_Notify_rings_init(void)
{
    int mpi_errno = MPI_SUCCESS;

    R.size = 2;
    while (R.size < (uint32_t) MPIR_CVAR_NOTIFY_SHM_RING_SIZE && R.size < (1u << 30))
        R.size <<= 1;
    CONS.mask = R.size - 1;
    R.ring_bytes = MPIDI_Notify_ring_bytes(R.size);
    if (MPIR_Process.local_size < 2)
        return MPI_SUCCESS;     /* nobody to notify through shared memory */

    R.local_of = MPL_malloc(MPIR_Process.size * sizeof(int), MPL_MEM_RMA);
    R.limit = MPL_calloc(MPIR_Process.local_size, sizeof(uint32_t), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(!R.local_of || !R.limit, mpi_errno, MPI_ERR_NO_MEM, "**nomem",
                         "**nomem %s", "notify rings");
    for (int r = 0; r < MPIR_Process.size; r++)
        R.local_of[r] = -1;
    for (int l = 0; l < MPIR_Process.local_size; l++)
        R.local_of[MPIR_Process.node_local_map[l]] = l;

    /* collective over the node; MPICH's init-time segments end with a
     * barrier, which orders the initialisation below before any producer
     * can reach the ring (the first window's creation) */
    mpi_errno = MPIDU_Init_shm_alloc(MPIR_Process.local_size * R.ring_bytes, &R.segment);
    MPIR_ERR_CHECK(mpi_errno);
    MPIDI_Notify_ring_init(ring_of(MPIR_Process.local_rank), R.size);
    CONS.mine = ring_of(MPIR_Process.local_rank);
#if MPICH_THREAD_GRANULARITY == MPICH_THREAD_GRANULARITY__GLOBAL
    /* two processes on the node: each ring's one producer is the other
     * process, whose MPI calls run one at a time under the global lock */
    R.serial = MPIR_Process.local_size == 2;
#endif
  fn_exit:
    return mpi_errno;
  fn_fail:
    MPL_free(R.local_of);
    MPL_free(R.limit);
    R.local_of = NULL;
    R.limit = NULL;
    goto fn_exit;
}

int MPIDI_Notify_rings_finalize(void)
{
    int mpi_errno = MPI_SUCCESS;
    if (R.dropped && MPIR_CVAR_NOTIFY_VERBOSE)
        fprintf(stderr, "notify: %llu ring cells named a window already freed here\n", R.dropped);
    if (R.segment)
        mpi_errno = MPIDU_Init_shm_free(R.segment);
    R.segment = NULL;
    R.serial = false;
    R.to.win = NULL;
    CONS.mine = NULL;
    CONS.next = NULL;
    MPL_free(R.local_of);
    MPL_free(R.limit);
    R.local_of = NULL;
    R.limit = NULL;
    return mpi_errno;
}

bool MPIDI_Notify_ring_reaches(MPIR_Win * win, int target_rank)
{
    return target_rank != win->comm_ptr->rank &&
        MPIDIU_win_rank_to_intra_rank(win, target_rank, MPIDI_WIN(win, winattr)) >= 0 &&
        ring_lookup(win, target_rank) >= 0;
}

int MPIDI_Notify_rings_claim_node(MPIR_Win * win, MPIR_Notify_why_t why)
{
    int mpi_errno = MPI_SUCCESS;
    MPIDI_winattr_t winattr = MPIDI_WIN(win, winattr);

    for (int r = 0; r < win->comm_ptr->local_size && mpi_errno == MPI_SUCCESS; r++) {
        if (r == win->comm_ptr->rank || MPIDIU_win_rank_to_intra_rank(win, r, winattr) < 0)
            continue;
        if (why != MPIR_NOTIFY_WHY_SHARED_MEMORY)
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_GENERIC, why);
        else if (ring_lookup(win, r) < 0)
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_GENERIC,
                                             MPIR_NOTIFY_WHY_NO_SEGMENT);
        else
            mpi_errno = MPIR_Notify_path_set(win, r, MPIR_NOTIFY_PATH_RING, why);
    }
    return mpi_errno;
}

void MPIDI_Notify_rings_win_init(MPIR_Win * win, bool *counted)
{
    MPIDI_winattr_t winattr = MPIDI_WIN(win, winattr);
    /* whatever this process chose: a peer may have chosen the ring where
     * this process did not (MPI_T can set the CVARs at one process) */
    *counted = false;
    for (int r = 0; r < win->comm_ptr->local_size && !*counted; r++)
        *counted = r != win->comm_ptr->rank && CONS.mine &&
            MPIDIU_win_rank_to_intra_rank(win, r, winattr) >= 0;
    if (*counted) {
        CONS.windows++;
        watch_head();
    }
}

int MPIDI_Notify_rings_win_free(MPIR_Win * win, bool *counted)
{
    int mpi_errno = MPI_SUCCESS;
    if (R.to.win == win)
        R.to.win = NULL;
    if (!*counted) {
        MPIDI_Notify_window_forget(&R.last, win);
        return MPI_SUCCESS;
    }
    /* the window's last cells reach it; cells of other windows reach theirs */
    mpi_errno = MPIDI_Notify_rings_drain();
    MPIDI_Notify_window_forget(&R.last, win);
    CONS.windows--;
    watch_head();
    *counted = false;
    return mpi_errno;
}

/* ------------------------------------------------------------- consumer */

int MPIDI_Notify_rings_drain(void)
{
    int mpi_errno = MPI_SUCCESS;

    if (!CONS.mine)
        return MPI_SUCCESS;
    for (;;) {
        MPIDI_Notify_cell_t *c = MPIDI_Notify_ring_cell_at(CONS.mine, CONS.mask, CONS.head);
        if (!MPIDI_Notify_ring_cell_full(c, CONS.head)) {
            /* progress watches this cell next (watch_head's result) */
            CONS.next = CONS.windows > 0 ? &c->turn : NULL;
            CONS.expect = CONS.head + 1;
            break;
        }
        uint64_t win_id = c->win_id;
        int src = c->src;
        int tag = c->tag;
        uint32_t nseq = c->nseq;
        MPI_Aint bytes = (MPI_Aint) c->bytes;
        CONS.head++;
        MPIR_Win *win = MPIDI_Notify_window_of(&R.last, win_id);
        if (unlikely(win == NULL)) {
            R.dropped++;
            continue;
        }
        mpi_errno = MPIR_Notify_arrive(win, MPIR_NOTIFY_PATH_RING, src, tag, bytes, nseq);
        if (unlikely(mpi_errno != MPI_SUCCESS)) {
            watch_head();
            MPIR_ERR_POP(mpi_errno);
        }
    }
  fn_fail:
    /* the cells read go back once, on a line only producers short of
     * cells read; a delivery that made progress and drained again gave
     * back as far as it read */
    MPIDI_Notify_ring_release(CONS.mine, CONS.head);
    return mpi_errno;
}

/* ------------------------------------------------------------- producer */

/* The next cell of the ring of local rank local, NULL if it is full: with a
 * compare-and-swap where other producers may claim at the same time */
ATTRIBUTE((always_inline))
static inline MPIDI_Notify_cell_t *claim_cell(int local, uint32_t * pos)
{
    MPIDI_Notify_ring_t *ring = ring_of(local);
    if (R.serial)
        return MPIDI_Notify_ring_claim_cell_serial(ring, CONS.mask, &R.limit[local], pos);
    return MPIDI_Notify_ring_claim_cell(ring, CONS.mask, &R.limit[local], pos);
}

/* A full ring: drive progress (our own rings included, so two processes
 * filling each other's rings cannot deadlock) and try again.  Nothing is
 * overwritten or dropped. */
static int claim_full(int local, MPIDI_Notify_cell_t ** cell, uint32_t * pos)
{
    int mpi_errno = MPI_SUCCESS;
    while (!(*cell = claim_cell(local, pos))) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
  fn_fail:
    return mpi_errno;
}

/* Claim a cell of the target's ring */
ATTRIBUTE((always_inline))
static inline int claim(int local, MPIDI_Notify_cell_t ** cell, uint32_t * pos)
{
    *cell = claim_cell(local, pos);
    if (likely(*cell != NULL))
        return MPI_SUCCESS;
    return claim_full(local, cell, pos);
}

/* Number, fill and publish a claimed cell: the access is complete in
 * target memory.  Forced inline (MPL_STATIC_INLINE_PREFIX only forces it in
 * builds configured with --enable-fast=alwaysinline): the notified put's
 * own path. */
ATTRIBUTE((always_inline))
static inline void fill(MPIDI_Notify_cell_t * c, uint32_t pos,
                        MPIR_Win * win, int target_rank, int tag, MPI_Aint bytes)
{
    c->nseq = MPIR_Notify_take_seq(win->notify, target_rank);   /* ring: state exists */
    c->win_id = MPIDIG_WIN(win, win_id);
    c->src = win->comm_ptr->rank;
    c->tag = tag;
    c->bytes = (uint64_t) bytes;
    MPIDI_Notify_ring_publish_cell(c, pos);
}

/* A cell for an access already complete in target memory */
ATTRIBUTE((always_inline))
static inline int publish(MPIR_Win * win, int target_rank, int tag, MPI_Aint bytes)
{
    MPIDI_Notify_cell_t *c;
    uint32_t pos;
    int mpi_errno = claim(ring_index(win, target_rank), &c, &pos);
    if (likely(mpi_errno == MPI_SUCCESS))
        fill(c, pos, win, target_rank, tag, bytes);
    return mpi_errno;
}

int MPIDI_Notify_ring_publish(MPIR_Win * win, int target_rank, int tag, MPI_Aint bytes)
{
    return publish(win, target_rank, tag, bytes);
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

/* Copies of at most this many contiguous bytes claim their cell first (the
 * claim's atomic then does not wait for the copy's stores to leave the
 * core, a large part of a shared-memory ping-pong); longer or datatype
 * copies claim it after, so that the consumer, which takes cells in order,
 * never waits behind a long copy for the cells of other origins.  Claiming
 * first stops paying where glibc's memcpy turns to `rep movsb`
 * (doc/benchmarks.md, "The node at every size"). */
#define CLAIM_FIRST_MAX 2048

/* Both sides non-contiguous with pieces of at least this many bytes on
 * average: copied piece by piece (MPIR_Localcopy would pack them into a
 * buffer and unpack that, moving every byte twice); smaller pieces are
 * packed, as a call per piece costs more than their second move. */
#define PIECES_MIN_DENSITY 512

/* The bytes of (src, dst) pairs of pieces of two datatypes */
static int copy_pieces(const void *src, int src_count, MPI_Datatype src_dt, void *dst,
                       int dst_count, MPI_Datatype dst_dt, MPI_Aint bytes)
{
    MPIDI_Notify_iov_walk_t s = MPIDI_NOTIFY_IOV_WALK(src, src_count, src_dt, bytes);
    MPIDI_Notify_iov_walk_t d = MPIDI_NOTIFY_IOV_WALK(dst, dst_count, dst_dt, bytes);
    for (MPI_Aint done = 0; done < bytes;) {
        struct iovec *a = MPIDI_Notify_iov_next(&s), *b = MPIDI_Notify_iov_next(&d);
        if (unlikely(!a || !b))
            return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                        MPI_ERR_INTERN, "**intern", "**intern %s",
                                        "notified access: datatype shorter than its size");
        size_t len = MPL_MIN(a->iov_len, b->iov_len);
        MPIDI_Notify_copy_shared(b->iov_base, a->iov_base, len);
        MPIDI_Notify_iov_advance(a, len);
        MPIDI_Notify_iov_advance(b, len);
        done += len;
    }
    return MPI_SUCCESS;
}

/* Whether both datatypes are non-contiguous (where one is contiguous,
 * MPIR_Localcopy packs or unpacks straight between them) with large pieces */
static bool by_pieces(MPI_Datatype a, MPI_Datatype b)
{
    MPI_Aint da, db;
    int ca, cb;
    MPIR_Datatype_is_contig(a, &ca);
    MPIR_Datatype_is_contig(b, &cb);
    if (ca || cb)
        return false;
    MPIR_Datatype_get_density(a, da);
    MPIR_Datatype_get_density(b, db);
    return da >= PIECES_MIN_DENSITY && db >= PIECES_MIN_DENSITY;
}

/* The access's bytes between origin memory and tbuf in the target's
 * segment: contiguous ones without the datatype engine, non-contiguous
 * ones without a pack in between where their pieces are large */
ATTRIBUTE((always_inline))
static inline int copy(void *origin_addr, int origin_count,
                       MPI_Datatype origin_datatype, char *tbuf,
                       int target_count, MPI_Datatype target_datatype,
                       bool contig, bool is_put, MPI_Aint bytes)
{
    if (contig) {
        MPI_Aint olb, tlb;
        MPIR_Datatype_get_true_lb(origin_datatype, &olb);
        MPIR_Datatype_get_true_lb(target_datatype, &tlb);
        if (is_put)
            MPIDI_Notify_copy_shared(tbuf + tlb, (char *) origin_addr + olb, bytes);
        else
            MPIDI_Notify_copy_shared((char *) origin_addr + olb, tbuf + tlb, bytes);
        return MPI_SUCCESS;
    }
    if (by_pieces(origin_datatype, target_datatype))
        return is_put ?
            copy_pieces(origin_addr, origin_count, origin_datatype, tbuf, target_count,
                        target_datatype, bytes) :
            copy_pieces(tbuf, target_count, target_datatype, origin_addr, origin_count,
                        origin_datatype, bytes);
    return is_put ?
        MPIR_Localcopy(origin_addr, origin_count, origin_datatype, tbuf, target_count,
                       target_datatype) :
        MPIR_Localcopy(tbuf, target_count, target_datatype, origin_addr, origin_count,
                       origin_datatype);
}

/* The data moves now, before the cell is published: like MPI_Put's and
 * MPI_Get's, it must be in place when the origin's flush returns, not when
 * the target next drains its ring.  Contiguous copies skip the datatype
 * engine.  The range is checked here, with the segment looked up anyway
 * (MPID_Put_notify checks the other paths' targets). */
int MPIDI_Notify_ring_access(void *origin_addr, int origin_count,
                             MPI_Datatype origin_datatype, int target_rank,
                             MPI_Aint target_disp, int target_count,
                             MPI_Datatype target_datatype, MPIR_Win * win, int tag, bool is_put,
                             MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS;
    int intra = MPIDIU_win_rank_to_intra_rank(win, target_rank, MPIDI_WIN(win, winattr));
    MPIDIG_win_shared_info_t *t = &MPIDIG_WIN(win, shared_table)[intra];
    MPI_Aint bytes;
    int ocontig, tcontig;
    char *tbuf = NULL;
    MPIDI_Notify_cell_t *c;
    uint32_t pos;

    MPIDIG_RMA_OP_CHECK_SYNC(target_rank, win);
    mpi_errno = MPIDI_Notify_range_check(target_rank, target_disp, target_count, target_datatype,
                                         (MPI_Aint) t->size, (int) t->disp_unit);
    MPIR_ERR_CHECK(mpi_errno);
    /* what is written (check_access made sure it fits) */
    if (is_put)
        MPIDI_Datatype_check_size(origin_datatype, origin_count, bytes);
    else
        MPIDI_Datatype_check_size(target_datatype, target_count, bytes);
    if (bytes > 0)
        tbuf = (char *) t->shm_base_addr + t->disp_unit * target_disp;
    MPIR_Datatype_is_contig(origin_datatype, &ocontig);
    MPIR_Datatype_is_contig(target_datatype, &tcontig);
    bool contig = ocontig && tcontig;
    bool claim_first = contig && bytes <= CLAIM_FIRST_MAX;

    if (!claim_first && bytes > 0) {
        mpi_errno = copy(origin_addr, origin_count, origin_datatype, tbuf, target_count,
                         target_datatype, contig, is_put, bytes);
        MPIR_ERR_CHECK(mpi_errno);
    }
    /* the request and the cell: nothing can fail after them */
    mpi_errno = MPIDI_Notify_complete_request(req);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = claim(ring_index(win, target_rank), &c, &pos);
    if (unlikely(mpi_errno != MPI_SUCCESS)) {
        if (req)
            MPIR_Request_free(*req);
        goto fn_fail;
    }
    if (claim_first && bytes > 0)
        copy(origin_addr, origin_count, origin_datatype, tbuf, target_count, target_datatype,
             true, is_put, bytes);
    fill(c, pos, win, target_rank, tag, bytes);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
