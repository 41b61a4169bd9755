/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * natitrace: records an MPI program as a SimGrid time-independent trace
 * (sim/trace-format.md), for sim/replay.cpp to replay on a simulated
 * platform.  A PMPI tool like natrace (natrace/natrace.c): LD_PRELOAD it
 * (sim/trace.sh does), with NATI_DIR naming the trace directory.
 *
 * Per MPI call it records what the call puts on the wire (a message, a put,
 * a synchronisation), and between calls the CPU time the program spent
 * computing, so an oversubscribed run records the amounts an idle machine
 * would.  What a notification request matched comes from the MPI_T event
 * notify_match (src/mpi/notify/notify_events.c).  Records are kept in memory
 * and written at MPI_Finalize: a receive's source and tag are known only
 * when it completes, after its line's place in the trace.
 *
 * One thread per process makes MPI calls (the benchmarks); communicators
 * other than MPI_COMM_WORLD are translated to world ranks.
 *
 * natitrace.c records and writes the trace; natitrace_state.c follows
 * windows and requests; natitrace_p2p.c and natitrace_rma.c wrap the calls.
 */
#define _GNU_SOURCE

#include "natitrace.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ------------------------------------------------------------ records */


/* the line of each op: its name and how many of a, b, c, d it prints
 * (a group, for post and start, is printed from the group table) */
static const struct {
    const char *name;
    int nargs;
} op_fmt[NOPS] = {
    [O_INIT] = {"init", 0},[O_FINALIZE] = {"finalize", 0},[O_COMPUTE] = {"compute", 1},
    [O_SEND] = {"send", 3},[O_RECV] = {"recv", 3},[O_BARRIER] = {"barrier", 0},
    [O_BCAST] = {"bcast", 2},[O_REDUCE] = {"reduce", 3},[O_ALLREDUCE] = {"allreduce", 2},
    [O_ISEND] = {"na_isend", 4},[O_IRECV] = {"na_irecv", 4},[O_WAIT] = {"na_wait", 1},
    [O_WIN] = {"na_win", 1},[O_PUT] = {"na_put", 3},[O_GET] = {"na_get", 3},
    [O_ACC] = {"na_acc", 3},[O_FOP] = {"na_fop", 3},[O_FLUSH] = {"na_flush", 2},
    [O_FLUSH_ALL] = {"na_flush_all", 1},[O_LOCK] = {"na_lock", 2},[O_UNLOCK] = {"na_unlock", 2},
    [O_LOCK_ALL] = {"na_lock_all", 1},[O_UNLOCK_ALL] = {"na_unlock_all", 1},
    [O_FENCE] = {"na_fence", 1},[O_POST] = {"na_post", 1},[O_START] = {"na_start", 1},
    [O_COMPLETE] = {"na_complete", 1},[O_WINWAIT] = {"na_winwait", 1},
    [O_PUT_NOTIFY] = {"na_put_notify", 4},[O_GET_NOTIFY] = {"na_get_notify", 4},
    [O_NOTIFIED] = {"na_notified", 2},[O_FLAG] = {"na_flag", 3},[O_FLAGWAIT] = {"na_flagwait", 1},
};

struct rec *recs;
static size_t nrecs, caprecs;

int rank = -1, wsize;
bool in_region, spinning, yielding;
static bool region_done, pcontrolled;
static bool timing_only;        /* NATI_MODE=time: the region's wall time, no trace */
int spin_win = -1;
static long long cpu_mark, wall_start_ns, wall_ns, pending_ns;
static long long clock_cost;    /* ns a reading of the thread's CPU clock takes */
long long nunmodelled;
static const char *dir;

static long long clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (long long) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static size_t add(int op, int a, int b, int c, long long d)
{
    if (nrecs == caprecs) {
        size_t cap = caprecs ? 2 * caprecs : 1 << 16;
        struct rec *r = realloc(recs, cap * sizeof(*r));
        if (!r) {
            fprintf(stderr, "natitrace: out of memory at %zu records\n", nrecs);
            abort();
        }
        recs = r;
        caprecs = cap;
    }
    recs[nrecs] = (struct rec) {
        op, a, b, c, d
    };
    return nrecs++;
}

/* Entering a call: what the program computed since the last one.  A call
 * that polls (enter(true)) keeps the time since the previous polling call
 * out of the trace: spinning is waiting, and the wait is the replay's to
 * work out. */
void enter(bool poll)
{
    if (!in_region)
        return;
    if (!poll)
        end_spin();     /* any other call ends a spin on a flag */
    long long now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    /* between two readings lies about one reading's own cost (a system
     * call: hundreds of ns, as much as a message on the node) */
    if (!(poll && spinning) && now - cpu_mark > clock_cost)
        pending_ns += now - cpu_mark - clock_cost;
    cpu_mark = now;
}

/* The spin on a flags window (MPI_Win_sync on it, MPI_Iprobe and MPI_Test
 * that found nothing) ends at the first other call: a flag arrived */
void end_spin(void)
{
    if (spin_win >= 0 && in_region)
        add(O_FLAGWAIT, spin_win, 0, 0, 0);
    spin_win = -1;
}

/* An action: the computation before it first */
size_t act(int op, int a, int b, int c, long long d)
{
    end_spin();
    spinning = false;
    if (pending_ns > 0) {
        add(O_COMPUTE, 0, 0, 0, pending_ns);
        pending_ns = 0;
    }
    return add(op, a, b, c, d);
}

void leave(void)
{
    if (in_region)
        cpu_mark = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* notify_match (MPI_T): window, request, origin, tag, bytes */
static void on_match(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety s,
                     void *u)
{
    (void) reg;
    (void) s;
    (void) u;
    int win, req, origin, tag;
    if (MPI_T_event_read(ev, 1, &req) != MPI_SUCCESS ||
        MPI_T_event_read(ev, 2, &origin) != MPI_SUCCESS ||
        MPI_T_event_read(ev, 3, &tag) != MPI_SUCCESS ||
        MPI_T_event_read(ev, 0, &win) != MPI_SUCCESS)
        return;
    struct req *r = req_of((MPI_Request) req);
    if (!r || r->kind != R_NOTIFY)
        return;
    if (r->nmatched == r->capmatched) {
        r->capmatched = r->capmatched ? 2 * r->capmatched : 4;
        r->matched = realloc(r->matched, r->capmatched * sizeof(*r->matched));
    }
    r->matched[r->nmatched][0] = wtarget((MPI_Win) win, origin);
    r->matched[r->nmatched][1] = tag;
    r->nmatched++;
}

static MPI_T_event_registration match_reg;

static void register_match(void)
{
    int provided, idx;
    if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_event_get_index("notify_match", &idx) != MPI_SUCCESS ||
        MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &match_reg) != MPI_SUCCESS ||
        MPI_T_event_register_callback(match_reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL,
                                      NULL, on_match) != MPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "natitrace: no MPI_T event notify_match: notifications "
                    "cannot be traced\n");
    }
}

/* ------------------------------------------------------------ setup, region, output */

static void region_begin(void);

static void setup(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *mode = getenv("NATI_MODE");
    timing_only = mode && strcmp(mode, "time") == 0;
    const char *y = getenv("NATI_YIELD");
    yielding = y && strcmp(y, "1") == 0;
    dir = getenv("NATI_DIR");
    if (!dir || !*dir)
        dir = "natitrace";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        fprintf(stderr, "natitrace: cannot make %s: %s\n", dir, strerror(errno));
    register_match();
    /* the least of many back-to-back readings: what a reading costs */
    clock_cost = 1000000;
    for (int i = 0; i < 1000; i++) {
        long long a = clock_ns(CLOCK_THREAD_CPUTIME_ID), b = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        if (b - a < clock_cost)
            clock_cost = b - a;
    }
    region_begin();
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        setup();
    return rc;
}

static bool region_open;

static void region_begin(void)
{
    if (region_open || region_done)
        return;
    region_open = true;
    wall_start_ns = clock_ns(CLOCK_MONOTONIC);
    if (timing_only)
        return;
    in_region = true;
    cpu_mark = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    pending_ns = 0;
    add(O_INIT, 0, 0, 0, 0);
    /* the windows alive, in creation order (the same at every rank) */
    for (int num = 0; num < next_win_num; num++)
        for (int i = 0; i < nwins; i++)
            if (wins[i].num == num)
                add(O_WIN, num, 0, 0, 0);
}

static void region_end(void)
{
    if (!region_open)
        return;
    wall_ns = clock_ns(CLOCK_MONOTONIC) - wall_start_ns;
    if (in_region) {
        enter(false);
        act(O_FINALIZE, 0, 0, 0, 0);
    }
    in_region = false;
    region_open = false;
    region_done = true;
}

/* Recording starts at MPI_Init; the program's first MPI_Pcontrol(1) drops
 * what came before and starts again there, MPI_Pcontrol(0) ends it. */
int MPI_Pcontrol(const int level, ...)
{
    if (level && !pcontrolled) {
        pcontrolled = true;
        in_region = region_open = false;
        nrecs = 0;
        spin_win = -1;
        spinning = false;
        for (int i = 0; i < nreqs; i++)
            reqs[i].id = 0;     /* their lines are gone */
    }
    if (level)
        region_begin();
    else
        region_end();
    return MPI_SUCCESS;
}

static void write_trace(void)
{
    char path[4096];
    FILE *f;
    snprintf(path, sizeof(path), "%s/rank-%d.ti", dir, rank);
    if (timing_only)
        goto meta;
    f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "natitrace: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    for (size_t i = 0; i < nrecs; i++) {
        const struct rec *r = &recs[i];
        fprintf(f, "%d %s", rank, op_fmt[r->op].name);
        if (r->op == O_LOCK) {
            fprintf(f, " %d %d %s\n", r->a, r->b, r->c ? "exclusive" : "shared");
            continue;
        }
        if (r->op == O_POST || r->op == O_START) {
            fprintf(f, " %d ", r->a);
            const int *g = groups[r->d];
            for (int k = 0; g[k] >= 0; k++)
                fprintf(f, "%s%d", k ? "," : "", g[k]);
            fputc('\n', f);
            continue;
        }
        long long v[4] = { r->a, r->b, r->c, r->d };
        int n = op_fmt[r->op].nargs;
        /* the size is the last argument of the ops that have one */
        switch (r->op) {
            case O_COMPUTE:
                v[0] = r->d;
                break;
            case O_SEND:
            case O_RECV:
            case O_PUT:
            case O_GET:
            case O_ACC:
            case O_FOP:
            case O_FLAG:
                v[2] = r->d;
                break;
            case O_BCAST:      /* size root */
            case O_ALLREDUCE:  /* size 0 */
                v[0] = r->d;
                v[1] = r->a;
                break;
            case O_REDUCE:     /* size 0 root */
                v[0] = r->d;
                v[1] = 0;
                v[2] = r->a;
                break;
            case O_ISEND:
            case O_IRECV:      /* peer tag size id */
                v[2] = r->d;
                v[3] = r->c;
                break;
            case O_PUT_NOTIFY:
            case O_GET_NOTIFY: /* win peer tag size */
                v[3] = r->d;
                break;
            default:
                break;
        }
        for (int k = 0; k < n; k++)
            fprintf(f, " %lld", v[k]);
        fputc('\n', f);
    }
    fclose(f);
  meta:
    if (rank != 0)
        return;
    if (timing_only) {
        snprintf(path, sizeof(path), "%s/measured", dir);
        if ((f = fopen(path, "w"))) {
            fprintf(f, "region_wall_s=%.9f\n", wall_ns / 1e9);
            fclose(f);
        }
        return;
    }
    snprintf(path, sizeof(path), "%s/index", dir);
    if ((f = fopen(path, "w"))) {
        for (int r = 0; r < wsize; r++)
            fprintf(f, "rank-%d.ti\n", r);
        fclose(f);
    }
    snprintf(path, sizeof(path), "%s/meta", dir);
    if ((f = fopen(path, "w"))) {
        fprintf(f, "ranks=%d\ncompute_unit=cpu_ns\nregion=%s\nregion_wall_s=%.9f\n"
                "unmodelled_calls=%lld\nclock_cost_ns=%lld\n", wsize,
                pcontrolled ? "pcontrol" : "init-finalize", wall_ns / 1e9, nunmodelled, clock_cost);
        fclose(f);
    }
}

int MPI_Finalize(void)
{
    region_end();
    write_trace();
    return PMPI_Finalize();
}
