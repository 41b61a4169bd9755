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
 */
#define _GNU_SOURCE

#include <mpi.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* ------------------------------------------------------------ records */

enum op {
    O_INIT, O_FINALIZE, O_COMPUTE, O_SEND, O_RECV, O_BARRIER, O_BCAST, O_REDUCE, O_ALLREDUCE,
    O_ISEND, O_IRECV, O_WAIT,
    O_WIN, O_PUT, O_GET, O_ACC, O_FOP, O_FLUSH, O_FLUSH_ALL, O_LOCK, O_UNLOCK, O_LOCK_ALL,
    O_UNLOCK_ALL, O_FENCE, O_POST, O_START, O_COMPLETE, O_WINWAIT,
    O_PUT_NOTIFY, O_GET_NOTIFY, O_NOTIFIED, O_FLAG, O_FLAGWAIT,
    NOPS
};

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

struct rec {
    int op;
    int a, b, c;                /* ranks, tags, window numbers, ids */
    long long d;                /* bytes, nanoseconds; for post/start the group's index */
};

static struct rec *recs;
static size_t nrecs, caprecs;
static int **groups;            /* world ranks of each post/start group, -1 terminated */
static size_t ngroups;

static int rank = -1, wsize;
static bool in_region, region_done, spinning, pcontrolled;
static bool timing_only;        /* NATI_MODE=time: the region's wall time, no trace */
static int spin_win = -1;
static long long cpu_mark, wall_start_ns, wall_ns, pending_ns;
static long long clock_cost;    /* ns a reading of the thread's CPU clock takes */
static long long nunmodelled;
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
static void enter(bool poll)
{
    if (!in_region)
        return;
    long long now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    /* between two readings lies about one reading's own cost (a system
     * call: hundreds of ns, as much as a message on the node) */
    if (!(poll && spinning) && now - cpu_mark > clock_cost)
        pending_ns += now - cpu_mark - clock_cost;
    cpu_mark = now;
}

/* The spin on a flags window ends at the first call that is not part of it */
static void end_spin(void)
{
    if (spin_win >= 0 && in_region)
        add(O_FLAGWAIT, spin_win, 0, 0, 0);
    spin_win = -1;
}

/* An action: the computation before it first */
static size_t act(int op, int a, int b, int c, long long d)
{
    end_spin();
    spinning = false;
    if (pending_ns > 0) {
        add(O_COMPUTE, 0, 0, 0, pending_ns);
        pending_ns = 0;
    }
    return add(op, a, b, c, d);
}

static void leave(void)
{
    if (in_region)
        cpu_mark = clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* ------------------------------------------------------------ ranks */

static int world_rank(MPI_Group g, int r)
{
    if (r < 0)  /* MPI_PROC_NULL, MPI_ANY_SOURCE */
        return r;
    MPI_Group world;
    int out = r;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(g, 1, &r, world, &out);
    PMPI_Group_free(&world);
    return out;
}

static int comm_world_rank(MPI_Comm comm, int r)
{
    if (comm == MPI_COMM_WORLD || r < 0)
        return r;
    MPI_Group g;
    PMPI_Comm_group(comm, &g);
    int w = world_rank(g, r);
    PMPI_Group_free(&g);
    return w;
}

static long long bytes(int count, MPI_Datatype t)
{
    int s = 0;
    PMPI_Type_size(t, &s);
    return (long long) count *s;
}

/* ------------------------------------------------------------ windows */

struct win {
    MPI_Win win;
    int num;
    bool flags;                 /* named "flags": puts to it are flags polled by the target */
    int *world;                 /* world rank of each rank of the window's group */
};
static struct win *wins;
static int nwins, capwins, next_win_num;

static struct win *win_of(MPI_Win w)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i].win == w)
            return &wins[i];
    return NULL;
}

static void win_new(MPI_Win w)
{
    if (nwins == capwins) {
        capwins = capwins ? 2 * capwins : 8;
        wins = realloc(wins, capwins * sizeof(*wins));
    }
    struct win *x = &wins[nwins++];
    MPI_Group g;
    int n;
    *x = (struct win) {
        .win = w,.num = next_win_num++
    };
    PMPI_Win_get_group(w, &g);
    PMPI_Group_size(g, &n);
    x->world = malloc(n * sizeof(int));
    for (int r = 0; r < n; r++)
        x->world[r] = world_rank(g, r);
    PMPI_Group_free(&g);
    if (in_region)
        act(O_WIN, x->num, 0, 0, 0);
}

static void win_gone(MPI_Win w)
{
    struct win *x = win_of(w);
    if (!x)
        return;
    free(x->world);
    *x = wins[--nwins];
}

static int wnum(MPI_Win w)
{
    struct win *x = win_of(w);
    return x ? x->num : -1;
}

static int wtarget(MPI_Win w, int r)
{
    struct win *x = win_of(w);
    return x && r >= 0 ? x->world[r] : r;
}

static bool is_flags(MPI_Win w)
{
    struct win *x = win_of(w);
    return x && x->flags;
}

/* a group of a window's PSCW epoch, as world ranks */
static long long group_index(MPI_Group g)
{
    int n;
    MPI_Group world;
    PMPI_Group_size(g, &n);
    int *in = malloc(n * sizeof(int)), *out = malloc((n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(g, n, in, world, out);
    PMPI_Group_free(&world);
    free(in);
    out[n] = -1;
    groups = realloc(groups, (ngroups + 1) * sizeof(*groups));
    groups[ngroups] = out;
    return (long long) ngroups++;
}

/* ------------------------------------------------------------ requests */

enum rkind { R_SEND, R_RECV, R_NOTIFY };
struct req {
    MPI_Request h;
    enum rkind kind;
    bool persistent;
    int peer, tag;              /* world rank; for a receive what it asked for */
    long long size;
    int id;                     /* of the current activation (0: inactive) */
    size_t line;                /* a receive's na_irecv, completed at its end */
    /* a notification request: what it matched since its start */
    int nmatched, capmatched, (*matched)[2];
};
static struct req *reqs;
static int nreqs, capreqs, next_id = 1;

static struct req *req_of(MPI_Request h)
{
    for (int i = nreqs - 1; i >= 0; i--)
        if (reqs[i].h == h)
            return &reqs[i];
    return NULL;
}

static struct req *req_new(MPI_Request h, enum rkind kind, bool persistent, int peer, int tag,
                           long long size)
{
    if (nreqs == capreqs) {
        capreqs = capreqs ? 2 * capreqs : 64;
        reqs = realloc(reqs, capreqs * sizeof(*reqs));
    }
    struct req *r = &reqs[nreqs++];
    *r = (struct req) {
        .h = h,.kind = kind,.persistent = persistent,.peer = peer,.tag = tag,.size = size
    };
    return r;
}

static void req_gone(struct req *r)
{
    free(r->matched);
    *r = reqs[--nreqs];
}

/* an activation: the isend / irecv line (a notification request's
 * matches are counted from before its MPI_Start: it may match there) */
static void req_start(struct req *r)
{
    if (!in_region || r->kind == R_NOTIFY) {
        r->id = 0;
        return;
    }
    r->id = next_id++;
    r->line = act(r->kind == R_SEND ? O_ISEND : O_IRECV, r->peer, r->tag, r->id, r->size);
}

/* the request completed with status st (of its activation) */
static void req_done(struct req *r, const MPI_Status * st)
{
    if (in_region) {
        if (r->kind == R_NOTIFY) {
            for (int i = 0; i < r->nmatched; i++)
                act(O_NOTIFIED, r->matched[i][0], r->matched[i][1], 0, 0);
        } else if (r->id) {
            if (r->kind == R_RECV && st) {
                int n = 0;
                PMPI_Get_count(st, MPI_BYTE, &n);
                recs[r->line].a = st->MPI_SOURCE;
                recs[r->line].b = st->MPI_TAG;
                recs[r->line].d = n;
            }
            act(O_WAIT, r->id, 0, 0, 0);
        }
    }
    r->id = 0;
    r->nmatched = 0;
    if (!r->persistent)
        req_gone(r);
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

/* Completion in a set: the handle before the call and after it */
static void done_one(MPI_Request before, MPI_Request after, const MPI_Status * st)
{
    struct req *r = before != MPI_REQUEST_NULL ? req_of(before) : NULL;
    /* a persistent request stays; the others became MPI_REQUEST_NULL */
    if (r && (after == MPI_REQUEST_NULL || r->persistent))
        req_done(r, st);
}

/* ------------------------------------------------------------ setup, region, output */

static void region_begin(void);

static void setup(void)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *mode = getenv("NATI_MODE");
    timing_only = mode && strcmp(mode, "time") == 0;
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

/* ------------------------------------------------------------ wrappers */

/* CALL(poll, expr): the call between enter and leave */
#define CALL(poll, expr) ({ enter(poll); int rc_ = (expr); leave(); rc_; })

int MPI_Send(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm)
{
    enter(false);
    if (in_region)
        act(O_SEND, comm_world_rank(comm, dest), tag, 0, bytes(count, t));
    int rc = PMPI_Send(buf, count, t, dest, tag, comm);
    leave();
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm,
             MPI_Status * status)
{
    MPI_Status st;
    enter(false);
    int rc = PMPI_Recv(buf, count, t, source, tag, comm, &st);
    if (in_region && rc == MPI_SUCCESS) {
        int n = 0;
        PMPI_Get_count(&st, MPI_BYTE, &n);
        act(O_RECV, comm_world_rank(comm, st.MPI_SOURCE), st.MPI_TAG, 0, n);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype st_, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rt, int source, int rtag, MPI_Comm comm,
                 MPI_Status * status)
{
    MPI_Status st;
    enter(false);
    int rc = PMPI_Sendrecv(sbuf, scount, st_, dest, stag, rbuf, rcount, rt, source, rtag, comm,
                           &st);
    if (in_region && rc == MPI_SUCCESS) {
        int n = 0, id = next_id++;
        PMPI_Get_count(&st, MPI_BYTE, &n);
        act(O_ISEND, comm_world_rank(comm, dest), stag, id, bytes(scount, st_));
        act(O_RECV, comm_world_rank(comm, st.MPI_SOURCE), st.MPI_TAG, 0, n);
        act(O_WAIT, id, 0, 0, 0);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
              MPI_Request * req)
{
    enter(false);
    int rc = PMPI_Isend(buf, count, t, dest, tag, comm, req);
    if (rc == MPI_SUCCESS)
        req_start(req_new(*req, R_SEND, false, comm_world_rank(comm, dest), tag, bytes(count, t)));
    leave();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm,
              MPI_Request * req)
{
    enter(false);
    int rc = PMPI_Irecv(buf, count, t, source, tag, comm, req);
    if (rc == MPI_SUCCESS)
        req_start(req_new(*req, R_RECV, false, comm_world_rank(comm, source), tag,
                          bytes(count, t)));
    leave();
    return rc;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
                  MPI_Request * req)
{
    int rc = CALL(false, PMPI_Send_init(buf, count, t, dest, tag, comm, req));
    if (rc == MPI_SUCCESS)
        req_new(*req, R_SEND, true, comm_world_rank(comm, dest), tag, bytes(count, t));
    return rc;
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype t, int source, int tag, MPI_Comm comm,
                  MPI_Request * req)
{
    int rc = CALL(false, PMPI_Recv_init(buf, count, t, source, tag, comm, req));
    if (rc == MPI_SUCCESS)
        req_new(*req, R_RECV, true, comm_world_rank(comm, source), tag, bytes(count, t));
    return rc;
}

int MPI_Notify_init(MPI_Win win, int src, int tag, int count, MPI_Request * req)
{
    int rc = CALL(false, PMPI_Notify_init(win, src, tag, count, req));
    if (rc == MPI_SUCCESS)
        req_new(*req, R_NOTIFY, true, wtarget(win, src), tag, 0);
    return rc;
}

int MPI_Start(MPI_Request * req)
{
    struct req *r = req_of(*req);
    enter(false);
    if (r)
        r->nmatched = 0;
    int rc = PMPI_Start(req);
    if (r && rc == MPI_SUCCESS)
        req_start(r);
    leave();
    return rc;
}

int MPI_Startall(int n, MPI_Request reqv[])
{
    enter(false);
    for (int i = 0; i < n; i++) {
        struct req *r = req_of(reqv[i]);
        if (r)
            r->nmatched = 0;
    }
    int rc = PMPI_Startall(n, reqv);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        struct req *r = req_of(reqv[i]);
        if (r)
            req_start(r);
    }
    leave();
    return rc;
}

int MPI_Request_free(MPI_Request * req)
{
    struct req *r = req_of(*req);
    int rc = PMPI_Request_free(req);
    if (r && rc == MPI_SUCCESS)
        req_gone(r);
    return rc;
}

int MPI_Wait(MPI_Request * req, MPI_Status * status)
{
    MPI_Request before = *req;
    MPI_Status st;
    enter(false);
    int rc = PMPI_Wait(req, &st);
    struct req *r = before != MPI_REQUEST_NULL ? req_of(before) : NULL;
    if (r && rc == MPI_SUCCESS)
        req_done(r, &st);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

int MPI_Test(MPI_Request * req, int *flag, MPI_Status * status)
{
    MPI_Request before = *req;
    MPI_Status st;
    enter(true);
    int rc = PMPI_Test(req, flag, &st);
    if (rc == MPI_SUCCESS && *flag) {
        struct req *r = before != MPI_REQUEST_NULL ? req_of(before) : NULL;
        spinning = false;
        if (r)
            req_done(r, &st);
    } else
        spinning = true;
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    leave();
    return rc;
}

/* the request sets: our own statuses where the caller ignores them */
enum set_kind { WAITALL, WAITANY, WAITSOME, TESTALL, TESTANY, TESTSOME };

static int set_call(enum set_kind kind, int n, MPI_Request reqv[], int *flag, int *index,
                    int *outcount, int indices[], MPI_Status * statuses)
{
    MPI_Request *before = malloc((n > 0 ? n : 1) * sizeof(*before));
    MPI_Status *st = malloc((n > 0 ? n : 1) * sizeof(*st));
    int rc, nst = 0;            /* statuses the caller gets */
    memcpy(before, reqv, n * sizeof(*before));
    enter(kind >= TESTALL);
    switch (kind) {
        case WAITALL:
        case TESTALL:
            rc = kind == WAITALL ? PMPI_Waitall(n, reqv, st) : PMPI_Testall(n, reqv, flag, st);
            if (rc == MPI_SUCCESS && (kind == WAITALL || *flag)) {
                for (int i = 0; i < n; i++)
                    done_one(before[i], reqv[i], &st[i]);
                nst = n;
            }
            break;
        case WAITANY:
        case TESTANY:
            rc = kind == WAITANY ? PMPI_Waitany(n, reqv, index, st) :
                PMPI_Testany(n, reqv, index, flag, st);
            if (rc == MPI_SUCCESS && (kind == WAITANY || *flag)) {
                if (*index != MPI_UNDEFINED)
                    done_one(before[*index], reqv[*index], &st[0]);
                nst = 1;
            }
            break;
        default:       /* WAITSOME, TESTSOME */
            rc = kind == WAITSOME ? PMPI_Waitsome(n, reqv, outcount, indices, st) :
                PMPI_Testsome(n, reqv, outcount, indices, st);
            if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
                for (int k = 0; k < *outcount; k++)
                    done_one(before[indices[k]], reqv[indices[k]], &st[k]);
                nst = *outcount;
            }
            break;
    }
    if (kind >= TESTALL)
        spinning = rc == MPI_SUCCESS && !(flag ? *flag : *outcount > 0);
    if (statuses != MPI_STATUSES_IGNORE && statuses != MPI_STATUS_IGNORE)
        memcpy(statuses, st, nst * sizeof(*st));
    free(before);
    free(st);
    leave();
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqv[], MPI_Status st[])
{
    return set_call(WAITALL, n, reqv, NULL, NULL, NULL, NULL, st);
}

int MPI_Waitany(int n, MPI_Request reqv[], int *index, MPI_Status * st)
{
    return set_call(WAITANY, n, reqv, NULL, index, NULL, NULL, st);
}

int MPI_Waitsome(int n, MPI_Request reqv[], int *outcount, int indices[], MPI_Status st[])
{
    return set_call(WAITSOME, n, reqv, NULL, NULL, outcount, indices, st);
}

int MPI_Testall(int n, MPI_Request reqv[], int *flag, MPI_Status st[])
{
    return set_call(TESTALL, n, reqv, flag, NULL, NULL, NULL, st);
}

int MPI_Testany(int n, MPI_Request reqv[], int *index, int *flag, MPI_Status * st)
{
    return set_call(TESTANY, n, reqv, flag, index, NULL, NULL, st);
}

int MPI_Testsome(int n, MPI_Request reqv[], int *outcount, int indices[], MPI_Status st[])
{
    return set_call(TESTSOME, n, reqv, NULL, NULL, outcount, indices, st);
}

/* a probe leaves no line: the receive after it has the matched source */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status * status)
{
    return CALL(false, PMPI_Probe(source, tag, comm, status));
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status * status)
{
    enter(true);
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    spinning = !(rc == MPI_SUCCESS && *flag);
    leave();
    return rc;
}

/* collectives (of MPI_COMM_WORLD; on another communicator not modelled) */
static void coll(MPI_Comm comm, int op, int a, long long d)
{
    if (!in_region)
        return;
    if (comm == MPI_COMM_WORLD)
        act(op, a, 0, 0, d);
    else
        nunmodelled++;
}

int MPI_Barrier(MPI_Comm comm)
{
    enter(false);
    coll(comm, O_BARRIER, 0, 0);
    int rc = PMPI_Barrier(comm);
    leave();
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    enter(false);
    coll(comm, O_BCAST, root, bytes(count, t));
    int rc = PMPI_Bcast(buf, count, t, root, comm);
    leave();
    return rc;
}

int MPI_Reduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, int root,
               MPI_Comm comm)
{
    enter(false);
    coll(comm, O_REDUCE, root, bytes(count, t));
    int rc = PMPI_Reduce(s, r, count, t, op, root, comm);
    leave();
    return rc;
}

int MPI_Allreduce(const void *s, void *r, int count, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    enter(false);
    coll(comm, O_ALLREDUCE, 0, bytes(count, t));
    int rc = PMPI_Allreduce(s, r, count, t, op, comm);
    leave();
    return rc;
}

/* windows */
int MPI_Win_create(void *base, MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_create(base, size, du, info, comm, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_allocate(MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, void *base, MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_allocate(size, du, info, comm, base, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_allocate_shared(MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, void *base,
                            MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_allocate_shared(size, du, info, comm, base, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win * win)
{
    int rc = CALL(false, PMPI_Win_create_dynamic(info, comm, win));
    if (rc == MPI_SUCCESS)
        win_new(*win);
    return rc;
}

int MPI_Win_free(MPI_Win * win)
{
    MPI_Win w = *win;
    int rc = CALL(false, PMPI_Win_free(win));
    if (rc == MPI_SUCCESS)
        win_gone(w);
    return rc;
}

int MPI_Win_set_name(MPI_Win win, const char *name)
{
    struct win *x = win_of(win);
    if (x)
        x->flags = strcmp(name, "flags") == 0;
    return PMPI_Win_set_name(win, name);
}

/* one-sided accesses */
#define RMA(op_, target, size, expr) ({ \
    enter(false); \
    if (in_region) \
        act(is_flags(win) && (op_) == O_PUT ? O_FLAG : (op_), wnum(win), wtarget(win, target), \
            0, size); \
    int rc_ = (expr); \
    leave(); \
    rc_; })

int MPI_Put(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
            MPI_Datatype tt, MPI_Win win)
{
    return RMA(O_PUT, tr, bytes(oc, ot), PMPI_Put(o, oc, ot, tr, td, tc, tt, win));
}

int MPI_Rput(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
             MPI_Datatype tt, MPI_Win win, MPI_Request * req)
{
    return RMA(O_PUT, tr, bytes(oc, ot), PMPI_Rput(o, oc, ot, tr, td, tc, tt, win, req));
}

int MPI_Get(void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
            MPI_Datatype tt, MPI_Win win)
{
    return RMA(O_GET, tr, bytes(oc, ot), PMPI_Get(o, oc, ot, tr, td, tc, tt, win));
}

int MPI_Rget(void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
             MPI_Datatype tt, MPI_Win win, MPI_Request * req)
{
    return RMA(O_GET, tr, bytes(oc, ot), PMPI_Rget(o, oc, ot, tr, td, tc, tt, win, req));
}

int MPI_Accumulate(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
                   MPI_Datatype tt, MPI_Op op, MPI_Win win)
{
    return RMA(O_ACC, tr, bytes(oc, ot), PMPI_Accumulate(o, oc, ot, tr, td, tc, tt, op, win));
}

int MPI_Fetch_and_op(const void *o, void *res, MPI_Datatype t, int tr, MPI_Aint td,
                     MPI_Op op, MPI_Win win)
{
    return RMA(O_FOP, tr, bytes(1, t), PMPI_Fetch_and_op(o, res, t, tr, td, op, win));
}

int MPI_Compare_and_swap(const void *o, const void *c, void *res, MPI_Datatype t, int tr,
                         MPI_Aint td, MPI_Win win)
{
    return RMA(O_FOP, tr, bytes(1, t), PMPI_Compare_and_swap(o, c, res, t, tr, td, win));
}

int MPI_Get_accumulate(const void *o, int oc, MPI_Datatype ot, void *res, int rcount,
                       MPI_Datatype rt,
                       int tr, MPI_Aint td, int tc, MPI_Datatype tt, MPI_Op op, MPI_Win win)
{
    return RMA(O_FOP, tr, bytes(oc, ot),
               PMPI_Get_accumulate(o, oc, ot, res, rcount, rt, tr, td, tc, tt, op, win));
}

/* notified accesses */
int MPI_Put_notify(const void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
                   MPI_Datatype tt, MPI_Win win, int tag)
{
    enter(false);
    if (in_region)
        act(O_PUT_NOTIFY, wnum(win), wtarget(win, tr), tag, bytes(oc, ot));
    int rc = PMPI_Put_notify(o, oc, ot, tr, td, tc, tt, win, tag);
    leave();
    return rc;
}

int MPI_Get_notify(void *o, int oc, MPI_Datatype ot, int tr, MPI_Aint td, int tc,
                   MPI_Datatype tt, MPI_Win win, int tag)
{
    enter(false);
    if (in_region)
        act(O_GET_NOTIFY, wnum(win), wtarget(win, tr), tag, bytes(oc, ot));
    int rc = PMPI_Get_notify(o, oc, ot, tr, td, tc, tt, win, tag);
    leave();
    return rc;
}

/* synchronisation */
#define SYNC(op_, a_, expr) ({ \
    enter(false); \
    if (in_region) \
        act(op_, wnum(win), a_, 0, 0); \
    int rc_ = (expr); \
    leave(); \
    rc_; })

int MPI_Win_flush(int r, MPI_Win win)
{
    return SYNC(O_FLUSH, wtarget(win, r), PMPI_Win_flush(r, win));
}

int MPI_Win_flush_local(int r, MPI_Win win)
{
    return SYNC(O_FLUSH, wtarget(win, r), PMPI_Win_flush_local(r, win));
}

int MPI_Win_flush_all(MPI_Win win)
{
    return SYNC(O_FLUSH_ALL, 0, PMPI_Win_flush_all(win));
}

int MPI_Win_flush_local_all(MPI_Win win)
{
    return SYNC(O_FLUSH_ALL, 0, PMPI_Win_flush_local_all(win));
}

int MPI_Win_lock(int type, int r, int assert, MPI_Win win)
{
    return SYNC(O_LOCK, wtarget(win, r), PMPI_Win_lock(type, r, assert, win));
}

int MPI_Win_unlock(int r, MPI_Win win)
{
    return SYNC(O_UNLOCK, wtarget(win, r), PMPI_Win_unlock(r, win));
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    return SYNC(O_LOCK_ALL, 0, PMPI_Win_lock_all(assert, win));
}

int MPI_Win_unlock_all(MPI_Win win)
{
    return SYNC(O_UNLOCK_ALL, 0, PMPI_Win_unlock_all(win));
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    return SYNC(O_FENCE, 0, PMPI_Win_fence(assert, win));
}

int MPI_Win_complete(MPI_Win win)
{
    return SYNC(O_COMPLETE, 0, PMPI_Win_complete(win));
}

int MPI_Win_wait(MPI_Win win)
{
    return SYNC(O_WINWAIT, 0, PMPI_Win_wait(win));
}

int MPI_Win_post(MPI_Group g, int assert, MPI_Win win)
{
    enter(false);
    if (in_region)
        act(O_POST, wnum(win), 0, 0, group_index(g));
    int rc = PMPI_Win_post(g, assert, win);
    leave();
    return rc;
}

int MPI_Win_start(MPI_Group g, int assert, MPI_Win win)
{
    enter(false);
    if (in_region)
        act(O_START, wnum(win), 0, 0, group_index(g));
    int rc = PMPI_Win_start(g, assert, win);
    leave();
    return rc;
}

/* MPI_Win_sync on a flags window is the spin of a flag protocol: the
 * calls until another one are one wait for the next flag */
int MPI_Win_sync(MPI_Win win)
{
    bool flag = is_flags(win);
    if (flag && spin_win >= 0 && spin_win != wnum(win))
        end_spin();
    enter(flag);
    int rc = PMPI_Win_sync(win);
    if (flag && in_region) {
        spin_win = wnum(win);
        spinning = true;
    }
    leave();
    return rc;
}
