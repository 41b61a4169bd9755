/*
 * Copyright (C) the Notified Access MPICH authors.
 *     See COPYRIGHT in top-level directory.
 */

/*
 * natrace: a tracer of Notified Access, as any MPI tool would write one.
 *
 * Through the profiling interface (PMPI) it wraps MPI_Init / MPI_Init_thread
 * to register a callback on each MPI_T event of source "notify"
 * (src/mpi/notify/notify_events.c: notify_arrival, notify_match,
 * notify_counter_update, notify_dropped, notify_refused), the blocking calls
 * MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Recv and MPI_Barrier
 * to record how long they blocked, and MPI_Finalize to write what it saw as
 * $NATRACE_DIR/natrace.<rank>.json in the Chrome trace event format (Perfetto,
 * chrome://tracing; scripts/natrace-plot draws it).  doc/man/natrace.md.
 *
 * Fortran: MPICH's mpif.h and "use mpi" bindings call these C functions, so
 * they are seen as they are; its mpi_f08 bindings of the calls without a
 * buffer call PMPI_* directly, so their entry points (mpi_init_f08_ ...) are
 * wrapped too, each calling the next definition of its own name (dlsym
 * RTLD_NEXT).  A process that initialized MPI through none of these, or
 * that exits without MPI_Finalize, is told so at exit.
 *
 * Use: the natrace launcher (scripts/natrace: LD_PRELOAD by an absolute
 * path), LD_PRELOAD=/abs/path/libnatrace.so, or link with -lnatrace.
 *
 * Recording is lock-free: a record is a slot of one preallocated array,
 * reserved with an atomic increment and published with a release store, so
 * the callbacks (called inside MPI, from any thread under
 * MPI_THREAD_MULTIPLE, with MPI_T_CB_REQUIRE_MPI_RESTRICTED) only copy data.
 * The array is allocated whole but only touched as it fills (calloc of a
 * large size maps zero pages), so the cap costs address space, not memory.
 */
#define _GNU_SOURCE     /* RTLD_NEXT */

#include <mpi.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* what a record is: the five events first (their order is that of the
 * callbacks' user data), then the wrapped blocking calls */
enum kind {
    K_ARRIVAL, K_MATCH, K_COUNTER, K_DROPPED, K_REFUSED,
    NEVENTS,
    K_WAIT = NEVENTS, K_WAITALL, K_WAITANY, K_WAITSOME, K_RECV, K_BARRIER,
    NKINDS
};

static const char *const kind_name[NKINDS] = {
    "notify_arrival", "notify_match", "notify_counter_update", "notify_dropped",
    "notify_refused",
    "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Recv", "MPI_Barrier"
};

/* The elements each event must have (notify_events.c).  A library whose event
 * differs is not read with the wrong types: that event is left out. */
static const struct {
    int n;
    MPI_Datatype types[6];
} expect[NEVENTS] = {
    {6, {MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_AINT}},
    {5, {MPI_INT, MPI_INT, MPI_INT, MPI_INT, MPI_AINT}},
    {3, {MPI_INT, MPI_INT, MPI_COUNT}},
    {3, {MPI_INT, MPI_INT, MPI_INT}},
    {2, {MPI_INT, MPI_INT}},
};

/* One record: i[] holds the int elements in event order, big the MPI_Aint or
 * MPI_Count one (bytes, counter value); for a call, i[0] its count of
 * requests (or source, tag for MPI_Recv).  Times in ns since the origin. */
struct rec {
    atomic_uchar ready;         /* set last (release): the record is whole */
    unsigned char kind;
    unsigned short tid;
    int i[5];
    long long ts, dur, big;
};

#define DEFAULT_MAX (1u << 20)

static struct rec *buf;         /* never freed: a late callback may still write */
static size_t cap;
static atomic_size_t next_slot, dropped;
static atomic_bool tracing;     /* between our MPI_Init and MPI_Finalize */
static atomic_int next_tid;
static _Thread_local int my_tid = -1;
static struct timespec origin;
static int rank = -1, size = 0;

static MPI_T_event_registration reg[NEVENTS];
static bool registered[NEVENTS], t_started;
static atomic_bool started;     /* a wrapper of MPI_Init* ran start() (tracing or not) */

/* the names of the notify_path enum's items, by value */
#define MAX_PATHS 32
static char path_name[MAX_PATHS][32];
static int num_paths;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long) (t.tv_sec - origin.tv_sec) * 1000000000LL + (t.tv_nsec - origin.tv_nsec);
}

/* a small number per thread, for the trace's tid: 0 is the thread that
 * initialized MPI, others in order of their first record */
static int thread_id(void)
{
    if (my_tid < 0)
        my_tid = atomic_fetch_add(&next_tid, 1);
    return my_tid;
}

static struct rec *reserve(int kind, long long ts)
{
    if (!atomic_load_explicit(&tracing, memory_order_acquire))
        return NULL;
    size_t slot = atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed);
    if (slot >= cap) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        return NULL;
    }
    struct rec *r = &buf[slot];
    r->kind = (unsigned char) kind;
    r->tid = (unsigned short) thread_id();
    r->ts = ts;
    r->dur = 0;
    r->big = 0;
    for (int k = 0; k < 5; k++)
        r->i[k] = MPI_UNDEFINED;
    return r;
}

static void publish(struct rec *r)
{
    atomic_store_explicit(&r->ready, 1, memory_order_release);
}

static void on_event(MPI_T_event_instance ev, MPI_T_event_registration r_, MPI_T_cb_safety s,
                     void *user_data)
{
    (void) r_;
    (void) s;
    int kind = (int) (intptr_t) user_data;
    struct rec *r = reserve(kind, now_ns());
    if (!r)
        return;
    int nint = expect[kind].n - (expect[kind].types[expect[kind].n - 1] == MPI_INT ? 0 : 1);
    for (int k = 0; k < nint; k++)
        MPI_T_event_read(ev, k, &r->i[k]);
    if (kind == K_ARRIVAL || kind == K_MATCH) {
        MPI_Aint bytes = 0;
        MPI_T_event_read(ev, nint, &bytes);
        r->big = (long long) bytes;
    } else if (kind == K_COUNTER) {
        MPI_Count value = 0;
        MPI_T_event_read(ev, nint, &value);
        r->big = (long long) value;
    }
    publish(r);
}

/* a blocking call from t0 to now */
static void span(int kind, long long t0, int a, int b)
{
    struct rec *r = reserve(kind, t0);
    if (!r)
        return;
    r->dur = now_ns() - t0;
    r->i[0] = a;
    r->i[1] = b;
    publish(r);
}

static void read_paths(void)
{
    int idx, verb, cls, bind, ro, cont, atomic, nlen = 0, dlen = 0, n = 0;
    MPI_Datatype dt;
    MPI_T_enum et;
    char ename[64];
    int elen = sizeof(ename);
    if (MPI_T_pvar_get_index("notify_path", MPI_T_PVAR_CLASS_STATE, &idx) != MPI_SUCCESS ||
        MPI_T_pvar_get_info(idx, NULL, &nlen, &verb, &cls, &dt, &et, NULL, &dlen, &bind, &ro,
                            &cont, &atomic) != MPI_SUCCESS ||
        MPI_T_enum_get_info(et, &n, ename, &elen) != MPI_SUCCESS)
        return;
    for (int k = 0; k < n; k++) {
        int value, len = sizeof(path_name[0]);
        char name[sizeof(path_name[0])];
        if (MPI_T_enum_get_item(et, k, &value, name, &len) == MPI_SUCCESS && value >= 0 &&
            value < MAX_PATHS) {
            memcpy(path_name[value], name, sizeof(name));
            path_name[value][sizeof(path_name[0]) - 1] = '\0';
            if (value + 1 > num_paths)
                num_paths = value + 1;
        }
    }
}

/* Look each event up and register; an event this MPI lacks, or has with
 * other elements, is left out with a note (natrace still records waits). */
static void register_events(int thread_level)
{
    int provided, nregistered = 0;
    if (MPI_T_init_thread(thread_level, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "natrace: MPI_T_init_thread failed: no notify events\n");
        return;
    }
    t_started = true;
    read_paths();
    for (int e = 0; e < NEVENTS; e++) {
        int idx, verb, bind, num = 6, nlen = 0, dlen = 0;
        MPI_Datatype types[6];
        MPI_Aint displs[6];
        MPI_T_enum et;
        MPI_Info info;
        if (MPI_T_event_get_index(kind_name[e], &idx) != MPI_SUCCESS)
            continue;   /* not in this MPI: a tool tolerates it */
        bool ok = MPI_T_event_get_info(idx, NULL, &nlen, &verb, types, displs, &num, &et, &info,
                                       NULL, &dlen, &bind) == MPI_SUCCESS && num == expect[e].n;
        for (int k = 0; ok && k < num; k++)
            ok = types[k] == expect[e].types[k];
        if (!ok) {
            if (rank == 0)
                fprintf(stderr, "natrace: event %s has other elements than expected: "
                        "not recorded\n", kind_name[e]);
            continue;
        }
        if (MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg[e]) != MPI_SUCCESS)
            continue;
        if (MPI_T_event_register_callback(reg[e], MPI_T_CB_REQUIRE_MPI_RESTRICTED,
                                          MPI_INFO_NULL, (void *) (intptr_t) e,
                                          on_event) != MPI_SUCCESS) {
            MPI_T_event_handle_free(reg[e], NULL, NULL);
            continue;
        }
        registered[e] = true;
        nregistered++;
    }
    if (nregistered == 0 && rank == 0)
        fprintf(stderr, "natrace: this MPI has none of the notify MPI_T events (not the "
                "Notified Access MPICH, or configured without --enable-mpit-events): "
                "only the blocking calls are traced\n");
}

/* A colour shared by exactly the processes that read the same
 * CLOCK_MONOTONIC: those of one kernel boot in one time namespace.  Not
 * MPI_COMM_TYPE_SHARED: MPIR_CVAR_NOLOCAL or a network namespace makes
 * processes of one kernel look like separate nodes.  Without /proc each
 * process is a domain of its own. */
static int clock_domain(void)
{
    char key[PATH_MAX + 64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(key, 64, f)) {
        if (f)
            fclose(f);
        return rank;
    }
    fclose(f);
    size_t n = strlen(key);
    ssize_t m = readlink("/proc/self/ns/time", key + n, sizeof(key) - n - 1);
    key[n + (m > 0 ? (size_t) m : 0)] = '\0';
    unsigned h = 2166136261u;   /* FNV-1a, folded to a non-negative int */
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char) *p) * 16777619u;
    return (int) (h & INT_MAX);
}

static void start(int thread_level)
{
    if (atomic_exchange(&started, true))
        return; /* once, whichever wrapper saw MPI start first */
    const char *m = getenv("NATRACE_MAX_EVENTS");
    char *end;
    unsigned long long want = m ? strtoull(m, &end, 10) : DEFAULT_MAX;
    if (!m || *end || want == 0 || want > (1ull << 28))
        want = DEFAULT_MAX;
    cap = (size_t) want;
    buf = calloc(cap, sizeof(*buf));
    if (!buf)   /* the collectives below must still happen, with every rank */
        fprintf(stderr, "natrace: cannot allocate %zu records: not tracing\n", cap);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    my_tid = atomic_fetch_add(&next_tid, 1);    /* 0: the thread of MPI_Init */
    /* The origin: where the first rank of each clock domain left a barrier
     * of all.  Processes that share CLOCK_MONOTONIC take that one instant and
     * agree exactly (each its own barrier exit would be off by however late
     * it was scheduled: microseconds to milliseconds on a loaded node);
     * domains agree as well as their barrier exits do. */
    PMPI_Barrier(MPI_COMM_WORLD);
    clock_gettime(CLOCK_MONOTONIC, &origin);
    MPI_Comm domain;
    if (PMPI_Comm_split(MPI_COMM_WORLD, clock_domain(), 0, &domain) == MPI_SUCCESS) {
        long long t[2] = { (long long) origin.tv_sec, origin.tv_nsec };
        PMPI_Bcast(t, 2, MPI_LONG_LONG, 0, domain);
        origin.tv_sec = (time_t) t[0];
        origin.tv_nsec = (long) t[1];
        PMPI_Comm_free(&domain);
    }
    if (!buf)
        return;
    atomic_store_explicit(&tracing, true, memory_order_release);
    register_events(thread_level);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        start(provided);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        start(*provided);
    return rc;
}

int MPI_Wait(MPI_Request * request, MPI_Status * status)
{
    long long t0 = now_ns();
    int rc = PMPI_Wait(request, status);
    span(K_WAIT, t0, 1, MPI_UNDEFINED);
    return rc;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    long long t0 = now_ns();
    int rc = PMPI_Waitall(count, array_of_requests, array_of_statuses);
    span(K_WAITALL, t0, count, MPI_UNDEFINED);
    return rc;
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int *indx, MPI_Status * status)
{
    long long t0 = now_ns();
    int rc = PMPI_Waitany(count, array_of_requests, indx, status);
    span(K_WAITANY, t0, count, MPI_UNDEFINED);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[])
{
    long long t0 = now_ns();
    int rc = PMPI_Waitsome(incount, array_of_requests, outcount, array_of_indices,
                           array_of_statuses);
    span(K_WAITSOME, t0, incount, MPI_UNDEFINED);
    return rc;
}

int MPI_Recv(void *buf_, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status * status)
{
    long long t0 = now_ns();
    int rc = PMPI_Recv(buf_, count, datatype, source, tag, comm, status);
    span(K_RECV, t0, source, tag);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    long long t0 = now_ns();
    int rc = PMPI_Barrier(comm);
    span(K_BARRIER, t0, MPI_UNDEFINED, MPI_UNDEFINED);
    return rc;
}

/* ---- the trace file ---- */

static int by_time(const void *a, const void *b)
{
    const struct rec *x = *(const struct rec * const *) a, *y = *(const struct rec * const *) b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x < y ? -1 : x > y;  /* keep recording order among equal times */
}

/* ns as the format's microseconds, exactly */
static void put_us(FILE * f, const char *key, long long ns)
{
    fprintf(f, "\"%s\":%s%lld.%03lld", key, ns < 0 ? "-" : "", llabs(ns) / 1000, llabs(ns) % 1000);
}

/* an element, MPI_UNDEFINED as null (a counter's tag, a tag's counter) */
static void put_int(FILE * f, const char *sep, const char *key, int v)
{
    if (v == MPI_UNDEFINED)
        fprintf(f, "%s\"%s\":null", sep, key);
    else
        fprintf(f, "%s\"%s\":%d", sep, key, v);
}

static void put_args(FILE * f, const struct rec *r)
{
    static const char *const names[NKINDS][5] = {
        [K_ARRIVAL] = {"win", "source", "tag", "counter", "path"},
        [K_MATCH] = {"win", "request", "source", "tag"},
        [K_COUNTER] = {"win", "counter"},
        [K_DROPPED] = {"win", "source", "counter"},
        [K_REFUSED] = {"win", "target"},
        [K_WAIT] = {"count"},
        [K_WAITALL] = {"count"},
        [K_WAITANY] = {"count"},
        [K_WAITSOME] = {"count"},
        [K_RECV] = {"source", "tag"},
    };
    fprintf(f, ",\"args\":{");
    for (int k = 0; k < 5 && names[r->kind][k]; k++)
        put_int(f, k ? "," : "", names[r->kind][k], r->i[k]);
    if (r->kind == K_ARRIVAL) {
        int p = r->i[4];
        if (p >= 0 && p < num_paths && path_name[p][0])
            fprintf(f, ",\"path_name\":\"%s\"", path_name[p]);
        else
            fprintf(f, ",\"path_name\":null");
    }
    if (r->kind == K_ARRIVAL || r->kind == K_MATCH)
        fprintf(f, ",\"bytes\":%lld", r->big);
    if (r->kind == K_COUNTER)
        fprintf(f, ",\"value\":%lld", r->big);
    fputc('}', f);
}

/* names in the trace are ours or MPI_T's (no quotes nor backslashes), so
 * they are written as they are */
static void write_trace(struct rec **recs, size_t n, size_t lost, int nthreads)
{
    const char *dir = getenv("NATRACE_DIR");
    char path[4096];
    if (!dir || !*dir)
        dir = ".";
    /* mkdir -p: every rank may be creating it at once, so EEXIST is fine */
    snprintf(path, sizeof(path), "%s/", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "natrace: cannot create %s: %s\n", path, strerror(errno));
            return;
        }
        *p = '/';
    }
    snprintf(path, sizeof(path), "%s/natrace.%d.json", dir, rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "natrace: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "{\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
            "\"args\":{\"name\":\"rank %d\"}},\n", rank, rank);
    fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
            "\"args\":{\"sort_index\":%d}}", rank, rank);
    for (int t = 0; t < nthreads; t++)
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                "\"args\":{\"name\":\"thread %d%s\"}}", rank, t, t, t ? "" : " (MPI_Init)");
    for (size_t k = 0; k < n; k++) {
        const struct rec *r = recs[k];
        bool call = r->kind >= NEVENTS;
        fprintf(f, ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,",
                kind_name[r->kind], call ? "wait" : "notify", call ? "X" : "i", rank, r->tid);
        put_us(f, "ts", r->ts);
        if (call) {
            fputc(',', f);
            put_us(f, "dur", r->dur);
        } else {
            fprintf(f, ",\"s\":\"t\"");
        }
        put_args(f, r);
        fputc('}', f);
    }
    fprintf(f, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"rank\":%d,\"size\":%d,"
            "\"paths\":[", rank, size);
    for (int p = 0; p < num_paths; p++)
        fprintf(f, "%s\"%s\"", p ? "," : "", path_name[p]);
    fprintf(f, "],\"events\":%zu,\"dropped\":%zu,\"max_events\":%zu,"
            "\"clock\":\"CLOCK_MONOTONIC from the host's first rank leaving "
            "MPI_Barrier in MPI_Init\"}}\n", n, lost, cap);
    if (fclose(f) != 0)
        fprintf(stderr, "natrace: writing %s: %s\n", path, strerror(errno));
}

/* stop recording and write the trace (before MPICH's MPI_Finalize) */
static void finish(void)
{
    if (buf && atomic_exchange(&tracing, false)) {
        /* no new records from here; free the handles first so that MPI_T
         * stops calling us, then take what was published */
        for (int e = 0; e < NEVENTS; e++)
            if (registered[e])
                MPI_T_event_handle_free(reg[e], NULL, NULL);
        if (t_started)
            MPI_T_finalize();
        size_t reserved = atomic_load(&next_slot);
        size_t lost = atomic_load(&dropped), n = 0;
        if (reserved > cap)
            reserved = cap;
        /* the whole records, sorted by time; buf is only read from here on
         * (a thread still in MPI when the tracing stopped may be writing a
         * record it reserved before: that one is lost) */
        struct rec **recs = malloc((reserved ? reserved : 1) * sizeof(*recs));
        if (recs) {
            for (size_t k = 0; k < reserved; k++) {
                if (atomic_load_explicit(&buf[k].ready, memory_order_acquire))
                    recs[n++] = &buf[k];
                else
                    lost++;
            }
            qsort(recs, n, sizeof(*recs), by_time);
            int nthreads = atomic_load(&next_tid);
            write_trace(recs, n, lost, nthreads < USHRT_MAX ? nthreads : USHRT_MAX);
            free(recs);
        } else {
            fprintf(stderr, "natrace: out of memory: no trace written\n");
        }
    }
}

int MPI_Finalize(void)
{
    finish();
    return PMPI_Finalize();
}

/* ---- the mpi_f08 entry points ----
 *
 * MPICH's mpi_f08 bindings of the calls without a buffer (gfortran's names
 * of its MPI_Init_f08, MPI_Wait_f08 ...) call PMPI_Init, PMPI_Wait ...
 * themselves, past the C wrappers above; those with one (MPI_Recv) go
 * through the C functions, so they are not wrapped again.  Each is wrapped
 * here: the real one is the next definition of the same name (the MPI
 * Fortran library's), called with the arguments as they came, all of them
 * addresses (ierror is NULL when the program omits it). */

typedef MPI_Fint F;             /* a Fortran INTEGER; a handle of mpi_f08 is one */

static void *next_fn(void *_Atomic * cache, const char *name)
{
    void *fn = atomic_load_explicit(cache, memory_order_acquire);
    if (!fn) {
        fn = dlsym(RTLD_NEXT, name);
        if (!fn) {
            /* libnatrace linked after the MPI Fortran library, or no such
             * library: nothing to call */
            fprintf(stderr, "natrace: no %s after libnatrace to call (link -lnatrace "
                    "before the MPI libraries)\n", name);
            abort();
        }
        atomic_store_explicit(cache, fn, memory_order_release);
    }
    return fn;
}

/* real: the next name, a function of the parameter types params */
#define NEXT(name, params) \
    static void *_Atomic next_##name; \
    void (*real) params = (void (*) params) next_fn(&next_##name, #name)

/* MPI_Init's and MPI_Init_thread's ierror may be absent: whether MPI is now
 * initialized says whether it succeeded */
static bool world_up(void)
{
    int init = 0, fin = 0;
    PMPI_Initialized(&init);
    PMPI_Finalized(&fin);
    return init && !fin;
}

void mpi_init_f08_(F * ierror);
void mpi_init_f08_(F * ierror)
{
    NEXT(mpi_init_f08_, (F *));
    bool before = world_up();
    real(ierror);
    if (!before && world_up()) {
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        start(provided);
    }
}

void mpi_init_thread_f08_(const F * required, F * provided, F * ierror);
void mpi_init_thread_f08_(const F * required, F * provided, F * ierror)
{
    NEXT(mpi_init_thread_f08_, (const F *, F *, F *));
    bool before = world_up();
    real(required, provided, ierror);
    if (!before && world_up())
        start((int) *provided);
}

void mpi_finalize_f08_(F * ierror);
void mpi_finalize_f08_(F * ierror)
{
    NEXT(mpi_finalize_f08_, (F *));
    finish();
    real(ierror);
}

void mpi_wait_f08_(F * request, void *status, F * ierror);
void mpi_wait_f08_(F * request, void *status, F * ierror)
{
    NEXT(mpi_wait_f08_, (F *, void *, F *));
    long long t0 = now_ns();
    real(request, status, ierror);
    span(K_WAIT, t0, 1, MPI_UNDEFINED);
}

void mpi_waitall_f08_(const F * count, F * requests, void *statuses, F * ierror);
void mpi_waitall_f08_(const F * count, F * requests, void *statuses, F * ierror)
{
    NEXT(mpi_waitall_f08_, (const F *, F *, void *, F *));
    long long t0 = now_ns();
    real(count, requests, statuses, ierror);
    span(K_WAITALL, t0, (int) *count, MPI_UNDEFINED);
}

void mpi_waitany_f08_(const F * count, F * requests, F * index, void *status, F * ierror);
void mpi_waitany_f08_(const F * count, F * requests, F * index, void *status, F * ierror)
{
    NEXT(mpi_waitany_f08_, (const F *, F *, F *, void *, F *));
    long long t0 = now_ns();
    real(count, requests, index, status, ierror);
    span(K_WAITANY, t0, (int) *count, MPI_UNDEFINED);
}

void mpi_waitsome_f08_(const F * incount, F * requests, F * outcount, F * indices, void *statuses,
                       F * ierror);
void mpi_waitsome_f08_(const F * incount, F * requests, F * outcount, F * indices, void *statuses,
                       F * ierror)
{
    NEXT(mpi_waitsome_f08_, (const F *, F *, F *, F *, void *, F *));
    long long t0 = now_ns();
    real(incount, requests, outcount, indices, statuses, ierror);
    span(K_WAITSOME, t0, (int) *incount, MPI_UNDEFINED);
}

void mpi_barrier_f08_(const F * comm, F * ierror);
void mpi_barrier_f08_(const F * comm, F * ierror)
{
    NEXT(mpi_barrier_f08_, (const F *, F *));
    long long t0 = now_ns();
    real(comm, ierror);
    span(K_BARRIER, t0, MPI_UNDEFINED, MPI_UNDEFINED);
}

/* ---- at exit: say why there is no trace ----
 *
 * A process that initialized MPI but not through a wrapper above (a direct
 * PMPI_Init, another language's bindings), or that exits without
 * MPI_Finalize, writes no trace: one line says so, from the process of
 * rank 0 (PMI_RANK, the launcher's, when natrace never learnt it). */
__attribute__((destructor))
static void at_exit(void)
{
    int init = 0;
    if (!atomic_load(&started)) {
        const char *r = getenv("PMI_RANK");
        if (PMPI_Initialized(&init) == MPI_SUCCESS && init && (!r || strcmp(r, "0") == 0))
            fprintf(stderr, "natrace: this program initialized MPI without MPI_Init or "
                    "MPI_Init_thread of C or of mpi_f08, which natrace wraps: "
                    "no trace written\n");
    } else if (atomic_load(&tracing) && rank == 0) {
        fprintf(stderr, "natrace: rank 0 exited without MPI_Finalize: no trace written\n");
    }
}
