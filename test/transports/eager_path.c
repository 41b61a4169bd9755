/* The libfabric path's eager messages (src/mpid/ch4/src/ch4_notify_eager.c):
 * puts above the provider's inject size travel as one active message with
 * their data, and the flush's answer comes late (riding on the target's next
 * put, or after a few rounds of its progress).  2 ranks.
 *
 *   A. which path carried them: MPI_T's notify_arrived_eager_am,
 *      notify_arrived_eager_tagged and notify_arrived_eager_write count the
 *      8 B, 1 KiB, 12 KiB, 16 KiB and 64 KiB puts of the window's eager
 *      range where the path table says cq-data: by default on tcp all but
 *      8 B, as writes (MPIR_CVAR_NOTIFY_OFI_EAGER_WRITES, on by default on tcp
 *      where the provider orders writes); with writes off, 1 KiB, and 12 and
 *      16 KiB where the tagged carrier is on (MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS
 *      not 0; 16 KiB, MPICH's short-send size, fits only its compact
 *      messages, the data alone); on sockets all up to 16 KiB with the carrier,
 *      none without; with MPIR_CVAR_NOTIFY_OFI_EAGER_MIN/MAX what they say
 *      (MAX=0: none).  The first eager put of the window is an active
 *      message, the rest ride the tagged carrier; none do with
 *      TAGGED_RECVS=0, or where the target's receives cannot be posted
 *      (EAGER_PATH_ARM_FAILS=1: the testlist asks for more receives than
 *      memory holds);
 *   B. issue order across the write, eager and queued-word paths: injected,
 *      eager, large and zero-byte puts, gets and accumulates to one target,
 *      matched with MPI_ANY_TAG, with and without flush_local between;
 *   C. both ranks put to each other and flush at once, each owing the
 *      other its answer while it waits for its own;
 *   D. the target sits in MPI_Barrier while the origin flushes;
 *   E. MPI_Rput_notify of 8 B and 1 KiB: the request completes, the buffer
 *      is reusable;
 *   F. the counter dialect: 1 KiB MPIX_Put_notify updates its counter;
 *   G. a new window whose puts are all 16 KiB: the first is a write, since
 *      the origin has not heard that the target receives on the carrier,
 *      and the target tells it so (no eager message would); the rest ride
 *      the carrier (with eager writes, all are those).  Plain puts and gets
 *      to the same bytes, flushed, between them;
 *   H. MPI_Win_flush_local of eager puts completes while the target
 *      computes outside MPI (flush_local_alone; not where the eager write
 *      asks for tcp's acknowledgement, which needs the target's progress,
 *      as MPI_Put's does);
 *   I. answers on demand (on_demand): a stream of eager puts completed by
 *      MPI_Win_flush_local costs the target no answer (MPI_T's
 *      notify_answers_sent) and the origin no FLUSH
 *      (notify_answers_asked); the MPI_Win_flush after it asks once, and
 *      a plain MPI_Get then reads the last put's bytes; in a put + flush
 *      exchange only the first flush asks, later puts ask themselves;
 *   J. a completion function (MPIX_Continue on a receive) issues a put
 *      from MPI's progress after a stream of unasked puts and its flush:
 *      the next flush completes it, MPI_Get reads its bytes (mid_stream). */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "na_test.h"

#define KB 1024
#define BIG 65536
#define MID (12 * KB)           /* A: above 8 KiB, within the largest eager message */
#define FULL (16 * KB)          /* A, G: MPICH's short-send size: compact messages only */
#define NA 20                   /* A: puts of each size */
#define NB 300                  /* B: accesses */
#define NC 500                  /* C: exchanges */

static MPI_T_pvar_session session;

static int env_is(const char *var, const char *value)
{
    const char *v = getenv(var);
    return v && !strcmp(v, value);
}

/* whether eager puts are writes (MPIR_CVAR_NOTIFY_OFI_EAGER_WRITES: by
 * default on tcp, where the provider orders writes; not under completion
 * ordering) */
static int eager_writes(void)
{
    const char *w = getenv("MPIR_CVAR_NOTIFY_OFI_EAGER_WRITES");
    const char *prov = getenv("FI_PROVIDER");
    if (env_is("MPIR_CVAR_NOTIFY_OFI_ORDERING", "completion"))
        return 0;
    if (w && atoi(w) >= 0)
        return atoi(w) > 0;
    return prov && !strncmp(prov, "tcp", 3);
}

/* whether an eager write of bytes may ask for tcp's acknowledgement
 * (MPIR_CVAR_NOTIFY_OFI_EAGER_WRITE_ACK_MIN; by default from 640 KiB, to a
 * target on the same host): its local completion then waits for the
 * target's progress, as MPI_Put's does */
static int write_acked(MPI_Aint bytes)
{
    const char *a = getenv("MPIR_CVAR_NOTIFY_OFI_EAGER_WRITE_ACK_MIN");
    long min = a ? atol(a) : -1;
    return eager_writes() && bytes >= (min < 0 ? 655360 : min);
}

static void wait_tag(MPI_Win win, int src, int tag, int count)
{
    MPI_Request r;
    MPI_OK(MPI_Notify_init(win, src, tag, count, &r));
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Request_free(&r));
}

/* A: arrivals by path.  MPI_T counters read what happened since the handle
 * was started, so each count is read around its own puts. */
/* The window's eager range [*lo, *hi] on the cq-data path (else none): the
 * default range is the provider's (ofi_notify_win.c): on sockets every size
 * up to the largest eager message with the tagged carrier, none without;
 * elsewhere from above the inject size (1 KiB, not 8 B) to MPICH's
 * short-send size (12 and 16 KiB too) with the tagged carrier, 8 KiB
 * without; with eager writes up to what their word holds (64 KiB too).
 * The CVARs set either end.  Returns whether the path is cq-data;
 * path and why as na_path gives them. */
static int eager_range(MPI_Win win, int target, int *lo, int *hi, char *path, char *why)
{
    na_path(win, target, path, why, 64);
    const char *prov = getenv("FI_PROVIDER");
    const char *min = getenv("MPIR_CVAR_NOTIFY_OFI_EAGER_MIN");
    const char *max = getenv("MPIR_CVAR_NOTIFY_OFI_EAGER_MAX");
    int carrier = !env_is("MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS", "0");
    int on_sockets = prov && !strncmp(prov, "sockets", 7), writes = eager_writes();
    *lo = min ? atoi(min) : on_sockets && carrier && !writes ? 0 : KB;
    *hi = max ? atoi(max) : writes ? BIG : carrier ? FULL : on_sockets ? -1 : 8 * KB;
    return !strcmp(path, "cq-data");
}

static void by_path(MPI_Win win, char *base, int rank)
{
    char path[64], why[64];
    int lo, hi;
    int cq = eager_range(win, rank ^ 1, &lo, &hi, path, why);
    int carrier = !env_is("MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS", "0"), writes = eager_writes();
    int tagged = carrier && !writes && !env_is("EAGER_PATH_ARM_FAILS", "1");
    int first = 1;              /* the window's first eager put is still to come */
    static char src[BIG];
    const int sizes[] = { 8, KB, MID, FULL, BIG };

    for (int s = 0; s < 5; s++) {
        int n = sizes[s];
        /* 16 KiB: written, or on the carrier once the target said it
         * receives there; 64 KiB: written only */
        int eager = cq && lo <= n && n <= hi &&
            (n < FULL || writes || (n == FULL && tagged && !first));
        const char *names[3] = { "notify_arrived_eager_am", "notify_arrived_eager_tagged",
            "notify_arrived_eager_write"
        };
        unsigned long long got[3] = { 0, 0, 0 }, before[3] = { 0, 0, 0 };
        MPI_T_pvar_handle h[3];
        if (rank == 1) {
            for (int c = 0; c < 3; c++) {
                int idx, count;
                MPI_OK(MPI_T_pvar_get_index(names[c], MPI_T_PVAR_CLASS_COUNTER, &idx));
                MPI_OK(MPI_T_pvar_handle_alloc(session, idx, &win, &h[c], &count));
                MPI_OK(MPI_T_pvar_read(session, h[c], &before[c]));
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            for (int i = 0; i < NA; i++) {
                memset(src, i + n, n);
                MPI_OK(MPI_Put_notify(src, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win, 1));
                MPI_OK(MPI_Win_flush(1, win));
            }
        } else {
            wait_tag(win, 0, 1, NA);
            for (int c = 0; c < 3; c++) {
                MPI_OK(MPI_T_pvar_read(session, h[c], &got[c]));
                MPI_OK(MPI_T_pvar_handle_free(session, &h[c]));
                got[c] -= before[c];
            }
            unsigned long long want = eager ? NA : 0;
            /* active messages until the target's first answer says it is armed */
            unsigned long long want_tagged = eager && tagged ? NA - first : 0;
            unsigned long long want_write = eager && writes ? NA : 0;
            CHECK(got[0] + got[1] + got[2] == want && got[1] == want_tagged &&
                  got[2] == want_write,
                  "%d-byte puts on path %s/%s: %llu eager arrivals (%llu tagged, %llu written), "
                  "want %llu (%llu tagged, %llu written)", n, path, why,
                  got[0] + got[1] + got[2], got[1], got[2], want, want_tagged, want_write);
            CHECK(base[0] == (char) (NA - 1 + n) && base[n - 1] == (char) (NA - 1 + n),
                  "%d-byte puts: data %d %d", n, base[0], base[n - 1]);
        }
        if (eager)
            first = 0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* B: the kind of access k, and its bytes */
enum { P_INJECT, P_EAGER, P_BIG, P_ZERO, G_EAGER, ACC, NKINDS };

static int kind_of(int k)
{
    /* runs of one kind, then alternation, so that both unanswered eager
     * puts and settled ones precede each other kind */
    return (k < 60) ? (k / 10) % NKINDS : (k * 7 + k / 13) % NKINDS;
}

static void issue_order(MPI_Win win, char *base, int rank)
{
    /* layout at the target: BIG bytes per kind, k's data at a slot of its kind */
    static char src[BIG];
    static char gbuf[KB];
    int one = 1;

    if (rank == 1) {            /* before the origin may accumulate into it */
        *(int *) (base + (MPI_Aint) ACC * BIG) = 0;
        MPI_OK(MPI_Win_sync(win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int k = 0; k < NB; k++) {
            int kind = kind_of(k);
            MPI_Aint at = (MPI_Aint) kind * BIG;
            int n = kind == P_INJECT ? 8 : kind == P_BIG ? BIG : kind == P_ZERO ? 0 : KB;
            memset(src, (char) k, n ? n : 1);
            if (n >= (int) sizeof(int))
                memcpy(src, &k, sizeof(int));  /* whole, for the target's check */
            switch (kind) {
                case P_INJECT:
                case P_EAGER:
                case P_BIG:
                case P_ZERO:
                    MPI_OK(MPI_Put_notify(src, n, MPI_BYTE, 1, at, n, MPI_BYTE, win, k));
                    break;
                case G_EAGER:
                    MPI_OK(MPI_Get_notify(gbuf, KB, MPI_BYTE, 1, at, KB, MPI_BYTE, win, k));
                    break;
                case ACC:
                    MPI_OK(MPI_Accumulate_notify(&one, 1, MPI_INT, 1, at, 1, MPI_INT, MPI_SUM,
                                                 win, k));
                    break;
            }
            if (k % 3 == 0 || kind == G_EAGER)
                MPI_OK(MPI_Win_flush_local(1, win));
        }
        MPI_OK(MPI_Win_flush(1, win));
    } else {
        MPI_Request r;
        MPI_Status st;
        int bad = 0, accs = 0;
        MPI_OK(MPI_Notify_init(win, 0, MPI_ANY_TAG, 1, &r));
        for (int k = 0; k < NB; k++) {
            int kind = kind_of(k);
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, &st));
            if (st.MPI_TAG != k && bad++ < 3)
                CHECK(0, "access %d (kind %d): notification %d arrived in its place", k, kind,
                      st.MPI_TAG);
            const char *at = base + (MPI_Aint) kind * BIG;
            /* a put's data is in place when its notification is (later
             * puts of the same kind may have overwritten it already) */
            int landed;
            memcpy(&landed, at, sizeof(int));
            if ((kind == P_INJECT || kind == P_EAGER || kind == P_BIG) && landed < k &&
                bad++ < 3)
                CHECK(0, "access %d: notified before its data (%d)", k, landed);
            accs += kind == ACC;
        }
        MPI_OK(MPI_Request_free(&r));
        CHECK(bad == 0, "%d accesses out of order or early", bad);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(*(int *) (base + (MPI_Aint) ACC * BIG) == accs, "accumulated %d, want %d",
              *(int *) (base + (MPI_Aint) ACC * BIG), accs);
        return;
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* C: symmetric put + flush, both at once */
static void exchange(MPI_Win win, char *base, int rank)
{
    static char src[KB];
    int peer = rank ^ 1;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NC; i++) {
        memset(src, (char) (i + rank), KB);
        MPI_OK(MPI_Put_notify(src, KB, MPI_BYTE, peer, 0, KB, MPI_BYTE, win, 3));
        MPI_OK(MPI_Win_flush(peer, win));
        wait_tag(win, peer, 3, 1);
        CHECK(base[0] == (char) (i + peer) && base[KB - 1] == (char) (i + peer),
              "exchange %d: data %d %d, want %d", i, base[0], base[KB - 1], (char) (i + peer));
        /* the peer may overwrite only after it knows this was read */
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* D: the target is in MPI_Barrier while the origin waits for its answers:
 * a large put (a write) behind unanswered eager puts, then a flush */
static void idle_target(MPI_Win win, char *base, int rank)
{
    static char src[BIG];
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        memset(src, 77, BIG);
        for (int i = 0; i < 10; i++)
            MPI_OK(MPI_Put_notify(src, KB, MPI_BYTE, 1, KB, KB, MPI_BYTE, win, 4));
        MPI_OK(MPI_Put_notify(src, BIG, MPI_BYTE, 1, 4 * BIG, BIG, MPI_BYTE, win, 5));
        MPI_OK(MPI_Win_flush(1, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Request r[2];
        MPI_Status st[2];
        MPI_OK(MPI_Notify_init(win, 0, 4, 10, &r[0]));
        MPI_OK(MPI_Notify_init(win, 0, 5, 1, &r[1]));
        MPI_OK(MPI_Startall(2, r));
        MPI_OK(MPI_Waitall(2, r, st));
        MPI_OK(MPI_Request_free(&r[0]));
        MPI_OK(MPI_Request_free(&r[1]));
        CHECK(base[KB] == 77 && base[2 * KB - 1] == 77 && base[4 * BIG] == 77 &&
              base[5 * BIG - 1] == 77, "idle target: data %d %d", base[KB], base[4 * BIG]);
    }
}

/* E: MPI_Rput_notify of 8 B (a write, or with MPIR_CVAR_NOTIFY_OFI_EAGER_
 * MIN=0 an eager message) and 1 KiB */
static void request_based(MPI_Win win, char *base, int rank)
{
    static char src[KB];
    for (int n = 8; n <= KB; n *= 128) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Request r;
            memset(src, 55 + n, n);
            MPI_OK(MPI_Rput_notify(src, n, MPI_BYTE, 1, 2 * KB, n, MPI_BYTE, win, 6, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            memset(src, 0, n);  /* reusable once the request is complete */
            MPI_OK(MPI_Win_flush(1, win));
        } else {
            wait_tag(win, 0, 6, 1);
            CHECK(base[2 * KB] == (char) (55 + n) && base[2 * KB + n - 1] == (char) (55 + n),
                  "rput_notify %d B: data %d %d", n, base[2 * KB], base[2 * KB + n - 1]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* F: a counter updated by 1 KiB puts */
static void counter(MPI_Win win, char *base, int rank)
{
    static char src[KB];
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        memset(src, 9, KB);
        for (int i = 0; i < 10; i++)
            MPI_OK(MPIX_Put_notify(src, KB, MPI_BYTE, 1, 3 * KB, KB, MPI_BYTE, 0, win));
        MPI_OK(MPI_Win_flush(1, win));
    } else {
        MPI_Count v = 0;
        while (v < 10)
            MPI_OK(MPIX_Win_get_notify(win, 0, &v));
        CHECK(v == 10 && base[3 * KB] == 9, "counter %lld, data %d", (long long) v, base[3 * KB]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* G: on a window of its own, so that no eager message came first */
static void first_full(int rank)
{
    static char src[FULL], back[FULL];
    char *base, path[64], why[64];
    MPI_Win win;
    const char *min = getenv("MPIR_CVAR_NOTIFY_OFI_EAGER_MIN");
    const char *max = getenv("MPIR_CVAR_NOTIFY_OFI_EAGER_MAX");
    const char *prov = getenv("FI_PROVIDER");
    int carrier = !env_is("MPIR_CVAR_NOTIFY_OFI_TAGGED_RECVS", "0") &&
        !env_is("EAGER_PATH_ARM_FAILS", "1");
    int on_sockets = prov && !strncmp(prov, "sockets", 7), writes = eager_writes();
    int hi = max ? atoi(max) : writes || carrier ? FULL : on_sockets ? -1 : 8 * KB;

    MPI_OK(MPI_Win_allocate(2 * FULL, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_OK(MPI_Win_lock_all(0, win));
    na_path(win, rank ^ 1, path, why, sizeof(path));
    int in_range = !strcmp(path, "cq-data") && (min ? atoi(min) : 0) <= FULL && FULL <= hi;
    int tagged = in_range && carrier && !writes;
    /* written: every put; on the carrier: all but the first */
    int want = in_range && writes ? NA : tagged ? NA - 1 : 0;
    unsigned long long got = 0, before = 0;
    MPI_T_pvar_handle h;
    if (rank == 1) {
        int idx, count;
        MPI_OK(MPI_T_pvar_get_index(writes ? "notify_arrived_eager_write" :
                                    "notify_arrived_eager_tagged", MPI_T_PVAR_CLASS_COUNTER,
                                    &idx));
        MPI_OK(MPI_T_pvar_handle_alloc(session, idx, &win, &h, &count));
        MPI_OK(MPI_T_pvar_read(session, h, &before));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NA; i++) {
        if (rank == 0) {
            memset(src, i + 1, FULL);
            MPI_OK(MPI_Put_notify(src, FULL, MPI_BYTE, 1, 0, FULL, MPI_BYTE, win, 7));
            MPI_OK(MPI_Win_flush(1, win));
            /* plain RMA to the same bytes: overwrite the last one, read all back */
            char last = (char) (100 + i);
            MPI_OK(MPI_Put(&last, 1, MPI_BYTE, 1, FULL - 1, 1, MPI_BYTE, win));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Get(back, FULL, MPI_BYTE, 1, 0, FULL, MPI_BYTE, win));
            MPI_OK(MPI_Win_flush(1, win));
            CHECK(back[0] == (char) (i + 1) && back[FULL - 2] == (char) (i + 1) &&
                  back[FULL - 1] == last, "G, put %d: read back %d %d %d", i, back[0],
                  back[FULL - 2], back[FULL - 1]);
        } else {
            wait_tag(win, 0, 7, 1);
            CHECK(base[0] == (char) (i + 1) && base[FULL - 2] == (char) (i + 1),
                  "G, put %d: data %d %d", i, base[0], base[FULL - 2]);
        }
        /* the target has checked; after the first put, the target's word
         * that it receives on the carrier is at the origin (sent before
         * the target's part of the barrier, in order) */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 1) {
        MPI_OK(MPI_T_pvar_read(session, h, &got));
        MPI_OK(MPI_T_pvar_handle_free(session, &h));
        got -= before;
        CHECK(got == (unsigned long long) want, "G: %llu of %d 16 KiB puts %s, want %d", got,
              NA, writes ? "written" : "on the carrier", want);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
}

/* H: in a lock_all epoch, MPI_Win_flush_local of eager puts completes with
 * their sends, while the target computes outside MPI: the answer, which the
 * target sends from its progress, is what MPI_Win_flush waits for, not
 * flush_local (so a producer that computes while its consumer does keeps
 * going: bench/pipeline).  The target says in a shared file that it has
 * left MPI, then waits there for the origin's word, without MPI calls (a
 * flush_local that waited for it would hang).  Where flush_local needs
 * the target (the write path, MPICH's active-message puts, eager writes on
 * sockets, which completes a write when the target answers it) this is not run;
 * on the node the rings complete a put in the call. */
#define NH 20
static void flush_local_alone(MPI_Win win, char *base, int rank)
{
    char path[64], why[64], name[64];
    int lo, hi, run;
    int cq = eager_range(win, rank ^ 1, &lo, &hi, path, why);
    const char *prov = getenv("FI_PROVIDER");
    int written_on_sockets = eager_writes() && prov && !strncmp(prov, "sockets", 7);
    run = (cq && lo <= KB && KB <= hi && !written_on_sockets && !write_acked(KB)) ||
        !strcmp(path, "ring");
    MPI_Bcast(&run, 1, MPI_INT, 0, MPI_COMM_WORLD);     /* the origin's view */
    if (!run)
        return;
    int pid = getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(name, sizeof(name), "/tmp/na_eager_path_%d", pid);
    int fd = rank == 0 ? open(name, O_RDWR | O_CREAT | O_TRUNC, 0600) : -1;
    CHECK(rank != 0 || (fd >= 0 && ftruncate(fd, 4096) == 0), "H: %s: %s", name, strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        fd = open(name, O_RDWR);
    volatile int *word = fd >= 0 ? mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        : MAP_FAILED;
    CHECK(word != MAP_FAILED, "H: mapping %s: %s", name, strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    if (word == MAP_FAILED)
        return;
    static char src[KB];
    /* no deadlines, which a busy machine could pass: a flush_local that
     * waits for the target hangs here, saying so, and the suite's timeout
     * fails the test */
    double t0 = MPI_Wtime();
    int said = 0;
    if (rank == 0) {
        /* the target has left MPI */
        while (*word != 2)
            ;
        for (int i = 0; i < NH; i++) {
            memset(src, i + 1, KB);     /* reused once flush_local returns */
            MPI_OK(MPI_Put_notify(src, KB, MPI_BYTE, 1, 0, KB, MPI_BYTE, win, 3));
            MPI_OK(MPI_Win_flush_local(1, win));
        }
        *word = 1;
        MPI_OK(MPI_Win_flush(1, win));
    } else {
        *word = 2;
        while (*word != 1) {
            if (!said && MPI_Wtime() - t0 > 20) {
                fprintf(stderr, "[1] H: the origin's MPI_Win_flush_local has waited 20 s for "
                        "this process, outside MPI (path %s/%s)\n", path, why);
                said = 1;
            }
        }
        wait_tag(win, 0, 3, NH);
        CHECK(base[0] == NH && base[KB - 1] == NH, "H: data %d %d, want %d", base[0],
              base[KB - 1], NH);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    munmap((void *) word, 4096);
    close(fd);
    if (rank == 0)
        unlink(name);
}

/* I: MPI_T counter name of this process, as a delta from its handle's start */
typedef struct {
    MPI_T_pvar_handle h;
    unsigned long long at;
} count_t;

static void count_start(count_t * c, MPI_Win * win, const char *name)
{
    int idx, n;
    MPI_OK(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx));
    MPI_OK(MPI_T_pvar_handle_alloc(session, idx, win, &c->h, &n));
    MPI_OK(MPI_T_pvar_read(session, c->h, &c->at));
}

/* what it counted since the last call (or its start) */
static unsigned long long count_since(count_t * c)
{
    unsigned long long now = 0, d;
    MPI_OK(MPI_T_pvar_read(session, c->h, &now));
    d = now - c->at;
    c->at = now;
    return d;
}

/* I, J: whether 1 KiB puts to rank 1 take the eager path, in the origin's
 * view (every rank returns it) */
static int kb_is_eager(MPI_Win win, int rank, char *path, char *why)
{
    int lo, hi;
    int run = eager_range(win, rank ^ 1, &lo, &hi, path, why) && lo <= KB && KB <= hi;
    MPI_Bcast(&run, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return run;
}

#define NI 40                   /* I: puts of the stream */
#define NE 10                   /* I: put + flush exchanges */
static void on_demand(MPI_Win win, char *base, int rank)
{
    char path[64], why[64];
    if (!kb_is_eager(win, rank, path, why))
        return;
    static char src[KB], back[KB];
    count_t c;
    count_start(&c, &win, rank == 0 ? "notify_answers_asked" : "notify_answers_sent");

    /* a stream flushed once at its end: whatever earlier parts predicted,
     * the next puts do not ask */
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            for (int i = 0; i < NI; i++) {
                memset(src, i + 1, KB);
                MPI_OK(MPI_Put_notify(src, KB, MPI_BYTE, 1, 0, KB, MPI_BYTE, win, 5));
                MPI_OK(MPI_Win_flush_local(1, win));
            }
        } else {
            wait_tag(win, 0, 5, NI);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        unsigned long long n = count_since(&c);
        CHECK(round == 0 || n == 0, "I: a stream of %d flushed-local puts: %s %llu, want 0 "
              "(path %s/%s)", NI, rank == 0 ? "FLUSH sent" : "answers sent", n, path, why);
        /* every count read before the next phase starts: rank 0 may leave
         * a barrier while rank 1's is still taking in (and answering) */
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            /* the flush asks once; then plain RMA reads the stream's last bytes */
            MPI_OK(MPI_Win_flush(1, win));
            n = count_since(&c);
            CHECK(round == 0 || n == 1, "I: the flush after the stream sent %llu FLUSH, want 1",
                  n);
            MPI_OK(MPI_Get(back, KB, MPI_BYTE, 1, 0, KB, MPI_BYTE, win));
            MPI_OK(MPI_Win_flush(1, win));
            CHECK(back[0] == NI && back[KB - 1] == NI, "I: read back %d %d, want %d", back[0],
                  back[KB - 1], NI);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        n = count_since(&c);
        CHECK(round == 0 || rank == 0 || n == 1, "I: the target answered the flush with %llu "
              "messages, want 1", n);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* put + flush exchanges: the first flush asks, then the puts do.  The
     * target has read the bytes before the next put may overwrite them: a
     * zero-byte message back (no put, so no answer rides on it) */
    for (int i = 0; i < NE; i++) {
        if (rank == 0) {
            memset(src, 100 + i, KB);
            MPI_OK(MPI_Put_notify(src, KB, MPI_BYTE, 1, 0, KB, MPI_BYTE, win, 6));
            MPI_OK(MPI_Win_flush(1, win));
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            wait_tag(win, 0, 6, 1);
            CHECK(base[0] == (char) (100 + i), "I: exchange %d: data %d", i, base[0]);
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, 6, MPI_COMM_WORLD));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned long long n = count_since(&c);
    CHECK(rank == 1 || n == 1, "I: %d put + flush exchanges sent %llu FLUSH, want 1", NE, n);
    CHECK(rank == 0 || n == NE, "I: %d put + flush exchanges: %llu answers, want %d", NE, n,
          NE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_T_pvar_handle_free(session, &c.h));
}

/* J: a put that a completion function issues from MPI's progress after a
 * stream of unasked puts and the flush that ended it (mid_stream).  That
 * flush leaves later puts unasked; the function's put must still be the
 * next flush's to complete, with its data in place.  (MPI_Win_flush's own
 * waits run only the netmod's and shm's progress with one VCI, not the
 * progress hooks that run completion functions, so none runs inside it.) */
static MPI_Win j_win;
static volatile int j_calls;
static char j_src[KB];

static int j_put(int error_code, void *data)
{
    (void) data;
    j_calls++;
    memset(j_src, 77, KB);
    if (error_code == MPI_SUCCESS)
        MPI_OK(MPI_Put_notify(j_src, KB, MPI_BYTE, 1, KB, KB, MPI_BYTE, j_win, 8));
    return MPI_SUCCESS;
}

static void mid_stream(MPI_Win win, char *base, int rank)
{
    char path[64], why[64];
    if (!kb_is_eager(win, rank, path, why))
        return;
    static char src[KB], back[KB];
    int token = 0, flag;
    j_win = win;
    if (rank == 0) {
        MPI_Request r;
        MPI_OK(MPI_Irecv(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &r));
        MPI_OK(MPIX_Continue(&r, j_put, NULL, 0, MPI_STATUS_IGNORE, MPI_REQUEST_NULL));
        for (int i = 0; i < NI; i++) {
            memset(src, i + 1, KB);
            MPI_OK(MPI_Put_notify(src, KB, MPI_BYTE, 1, 0, KB, MPI_BYTE, win, 7));
        }
        MPI_OK(MPI_Win_flush(1, win));
        /* rank 1 sends once the stream is in; the function runs from the
         * progress of a call that runs completion functions */
        double t0 = MPI_Wtime();
        int said = 0;
        while (j_calls == 0) {
            MPI_OK(MPI_Iprobe(1, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            if (!said && MPI_Wtime() - t0 > 20) {
                fprintf(stderr, "[0] J: the completion function has not run after 20 s\n");
                said = 1;
            }
        }
        CHECK(j_calls == 1, "J: the completion function ran %d times, want 1", j_calls);
        MPI_OK(MPI_Win_flush(1, win));
        MPI_OK(MPI_Get(back, KB, MPI_BYTE, 1, KB, KB, MPI_BYTE, win));
        MPI_OK(MPI_Win_flush(1, win));
        CHECK(back[0] == 77 && back[KB - 1] == 77, "J: read back %d %d, want 77", back[0],
              back[KB - 1]);
    } else {
        wait_tag(win, 0, 7, NI);
        CHECK(base[0] == NI && base[KB - 1] == NI, "J: stream data %d %d, want %d", base[0],
              base[KB - 1], NI);
        token = 1;
        MPI_OK(MPI_Send(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD));
        wait_tag(win, 0, 8, 1);
        CHECK(base[KB] == 77 && base[2 * KB - 1] == 77, "J: the function's put: %d %d",
              base[KB], base[2 * KB - 1]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, provided;
    char *base;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_OK(MPI_T_pvar_session_create(&session));
    MPI_OK(MPI_Win_allocate((MPI_Aint) NKINDS * BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    na_expect_path(win);
    MPI_OK(MPIX_Win_create_notify(win, 1));
    MPI_OK(MPI_Win_lock_all(0, win));

    by_path(win, base, rank);
    issue_order(win, base, rank);
    exchange(win, base, rank);
    idle_target(win, base, rank);
    request_based(win, base, rank);
    counter(win, base, rank);
    first_full(rank);
    flush_local_alone(win, base, rank);
    on_demand(win, base, rank);
    mid_stream(win, base, rank);

    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPIX_Win_free_notify(win));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_T_pvar_session_free(&session));
    MPI_T_finalize();
    return na_finish();
}
