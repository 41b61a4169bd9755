/* A differential argument checker (issue 33): every bad argument that MPICH
 * rejects for a plain RMA call must be rejected, with the same error class,
 * by its notified twins: the matching dialect (MPI_Put_notify ...) and the
 * counter dialect (MPIX_Put_notify ...), blocking and request-based.  Then
 * the notified calls' own arguments (tag, counter index, MPI_Notify_init's
 * source, tag and count).
 *
 * Each case changes one argument of a correct access; the plain call must
 * reject it (otherwise the case is wrong and the test says so), and each
 * twin must return the plain call's class.  A twin that accepts a bad
 * argument would go on to access memory with it: the test crashes or fails.
 * run-suite.sh checks that every access call of src/binding/c/notify*_api.txt
 * is named in the table below (kinds[].names).
 *
 * With -unchecked (run with MPIR_CVAR_ERROR_CHECKING=0) only the tag and
 * index cases: those checks hold without runtime error checking too, since
 * a tag with bit 30 set would otherwise reach the device as a counter
 * update; the plain calls' cases need the checks and are left out.
 *
 * All inside a lock_all epoch of a window with 2 counters; at the end a
 * plain MPI_Put and MPI_Accumulate and a notified put to the same bytes are
 * checked, to show nothing else was written.  2 processes.
 */
#include "na_test.h"

enum kind { PUT, GET, ACC, GACC, FOP, CAS, RPUT, RGET, RACC, RGACC, NKIND };
enum dialect { PLAIN, TAGGED, COUNTED, NDIALECT };

static const struct {
    const char *names[NDIALECT];
    int counts, result, op, request, predefined_only;
} kinds[NKIND] = {
    [PUT] = {{"MPI_Put", "MPI_Put_notify", "MPIX_Put_notify"}, 1, 0, 0, 0, 0},
    [GET] = {{"MPI_Get", "MPI_Get_notify", "MPIX_Get_notify"}, 1, 0, 0, 0, 0},
    [ACC] = {{"MPI_Accumulate", "MPI_Accumulate_notify", "MPIX_Accumulate_notify"}, 1, 0, 1, 0, 0},
    [GACC] = {{"MPI_Get_accumulate", "MPI_Get_accumulate_notify", "MPIX_Get_accumulate_notify"},
              1, 1, 1, 0, 0},
    [FOP] = {{"MPI_Fetch_and_op", "MPI_Fetch_and_op_notify", NULL}, 0, 1, 1, 0, 1},
    [CAS] = {{"MPI_Compare_and_swap", "MPI_Compare_and_swap_notify", NULL}, 0, 1, 0, 0, 1},
    [RPUT] = {{"MPI_Rput", "MPI_Rput_notify", "MPIX_Rput_notify"}, 1, 0, 0, 1, 0},
    [RGET] = {{"MPI_Rget", "MPI_Rget_notify", "MPIX_Rget_notify"}, 1, 0, 0, 1, 0},
    [RACC] = {{"MPI_Raccumulate", "MPI_Raccumulate_notify", "MPIX_Raccumulate_notify"}, 1, 0, 1,
              1, 0},
    [RGACC] = {{"MPI_Rget_accumulate", "MPI_Rget_accumulate_notify",
                "MPIX_Rget_accumulate_notify"}, 1, 1, 1, 1, 0},
};

typedef struct {
    const void *o;
    int oc;
    MPI_Datatype ot;
    void *r;
    int rc;
    MPI_Datatype rt;
    const void *c;
    int rank;
    MPI_Aint disp;
    int tc;
    MPI_Datatype tt;
    MPI_Op op;
    MPI_Win win;
    MPI_Request *req;
    int tag, idx;
} args_t;

/* the call of kind k in dialect d with a's arguments */
static int call(enum kind k, enum dialect d, args_t a)
{
    switch (k * NDIALECT + d) {
#define ONE(kind_, plain_, tagged_, counted_) \
        case kind_ * NDIALECT + PLAIN: return plain_; \
        case kind_ * NDIALECT + TAGGED: return tagged_; \
        case kind_ * NDIALECT + COUNTED: return counted_;
        ONE(PUT, MPI_Put(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win),
            MPI_Put_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win, a.tag),
            MPIX_Put_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.idx, a.win))
        ONE(GET, MPI_Get(a.r, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win),
            MPI_Get_notify(a.r, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win, a.tag),
            MPIX_Get_notify(a.r, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.idx, a.win))
        ONE(ACC, MPI_Accumulate(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.op, a.win),
            MPI_Accumulate_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.op, a.win,
                                  a.tag),
            MPIX_Accumulate_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.op, a.idx,
                                   a.win))
        ONE(GACC, MPI_Get_accumulate(a.o, a.oc, a.ot, a.r, a.rc, a.rt, a.rank, a.disp, a.tc,
                                     a.tt, a.op, a.win),
            MPI_Get_accumulate_notify(a.o, a.oc, a.ot, a.r, a.rc, a.rt, a.rank, a.disp, a.tc,
                                      a.tt, a.op, a.win, a.tag),
            MPIX_Get_accumulate_notify(a.o, a.oc, a.ot, a.r, a.rc, a.rt, a.rank, a.disp, a.tc,
                                       a.tt, a.op, a.idx, a.win))
        ONE(FOP, MPI_Fetch_and_op(a.o, a.r, a.ot, a.rank, a.disp, a.op, a.win),
            MPI_Fetch_and_op_notify(a.o, a.r, a.ot, a.rank, a.disp, a.op, a.win, a.tag), -1)
        ONE(CAS, MPI_Compare_and_swap(a.o, a.c, a.r, a.ot, a.rank, a.disp, a.win),
            MPI_Compare_and_swap_notify(a.o, a.c, a.r, a.ot, a.rank, a.disp, a.win, a.tag), -1)
        ONE(RPUT, MPI_Rput(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win, a.req),
            MPI_Rput_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win, a.tag, a.req),
            MPIX_Rput_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.idx, a.win, a.req))
        ONE(RGET, MPI_Rget(a.r, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win, a.req),
            MPI_Rget_notify(a.r, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.win, a.tag, a.req),
            MPIX_Rget_notify(a.r, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.idx, a.win, a.req))
        ONE(RACC, MPI_Raccumulate(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.op, a.win,
                                  a.req),
            MPI_Raccumulate_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.op, a.win,
                                   a.tag, a.req),
            MPIX_Raccumulate_notify(a.o, a.oc, a.ot, a.rank, a.disp, a.tc, a.tt, a.op, a.idx,
                                    a.win, a.req))
        ONE(RGACC, MPI_Rget_accumulate(a.o, a.oc, a.ot, a.r, a.rc, a.rt, a.rank, a.disp, a.tc,
                                       a.tt, a.op, a.win, a.req),
            MPI_Rget_accumulate_notify(a.o, a.oc, a.ot, a.r, a.rc, a.rt, a.rank, a.disp, a.tc,
                                       a.tt, a.op, a.win, a.tag, a.req),
            MPIX_Rget_accumulate_notify(a.o, a.oc, a.ot, a.r, a.rc, a.rt, a.rank, a.disp, a.tc,
                                        a.tt, a.op, a.idx, a.win, a.req))
#undef ONE
    }
    return -1;
}

static int class_of(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static MPI_Datatype derived, uncommitted;
static MPI_Op user_op;
static void user_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void) in;
    (void) inout;
    (void) len;
    (void) t;
}

/* one bad argument: whether it applies to kind k, and what it changes */
typedef struct {
    const char *what;
    int (*applies)(enum kind k);
    void (*bend)(args_t * a, int size);
} bad_t;

static int all(enum kind k)
{
    (void) k;
    return 1;
}

static int with_counts(enum kind k)
{
    return kinds[k].counts;
}

static int with_result(enum kind k)
{
    return kinds[k].result;
}

static int with_result_count(enum kind k)
{
    return kinds[k].result && kinds[k].counts;
}

static int with_op(enum kind k)
{
    return kinds[k].op;
}

static int with_request(enum kind k)
{
    return kinds[k].request;
}

static int predefined_only(enum kind k)
{
    return kinds[k].predefined_only;
}

static int sends_origin(enum kind k)
{
    return k != GET && k != RGET;
}

static int is_get(enum kind k)
{
    return k == GET || k == RGET;
}

static void null_origin(args_t * a, int size)
{
    (void) size;
    a->o = NULL;
}

static void null_get_buffer(args_t * a, int size)
{
    (void) size;
    a->r = NULL;
}

static void null_result(args_t * a, int size)
{
    (void) size;
    a->r = NULL;
}

static void neg_origin_count(args_t * a, int size)
{
    (void) size;
    a->oc = -1;
}

static void neg_target_count(args_t * a, int size)
{
    (void) size;
    a->tc = -1;
}

static void neg_result_count(args_t * a, int size)
{
    (void) size;
    a->rc = -1;
}

static void null_type(args_t * a, int size)
{
    (void) size;
    a->ot = MPI_DATATYPE_NULL;
}

static void null_target_type(args_t * a, int size)
{
    (void) size;
    a->tt = MPI_DATATYPE_NULL;
}

static void uncommitted_type(args_t * a, int size)
{
    (void) size;
    a->ot = uncommitted;
}

static void derived_type(args_t * a, int size)
{
    (void) size;
    a->ot = a->rt = a->tt = derived;
}

static void null_op(args_t * a, int size)
{
    (void) size;
    a->op = MPI_OP_NULL;
}

static void users_op(args_t * a, int size)
{
    (void) size;
    a->op = user_op;
}

static void rank_past(args_t * a, int size)
{
    a->rank = size;
}

static void rank_negative(args_t * a, int size)
{
    (void) size;
    a->rank = -5;
}

static void disp_negative(args_t * a, int size)
{
    (void) size;
    a->disp = -1;
}

static void win_null(args_t * a, int size)
{
    (void) size;
    a->win = MPI_WIN_NULL;
}

static void null_request(args_t * a, int size)
{
    (void) size;
    a->req = NULL;
}

static const bad_t bad[] = {
    {"NULL origin buffer", sends_origin, null_origin},
    {"NULL get buffer", is_get, null_get_buffer},
    {"NULL result buffer", with_result, null_result},
    {"negative origin count", with_counts, neg_origin_count},
    {"negative target count", with_counts, neg_target_count},
    {"negative result count", with_result_count, neg_result_count},
    {"MPI_DATATYPE_NULL", all, null_type},
    {"MPI_DATATYPE_NULL target", with_counts, null_target_type},
    {"uncommitted datatype", all, uncommitted_type},
    {"derived datatype where a predefined one is required", predefined_only, derived_type},
    {"MPI_OP_NULL", with_op, null_op},
    {"user-defined op", with_op, users_op},
    {"rank past the group", all, rank_past},
    {"negative rank", all, rank_negative},
    {"negative displacement", all, disp_negative},
    {"MPI_WIN_NULL", all, win_null},
    {"NULL request", with_request, null_request},
};

int main(int argc, char **argv)
{
    int rank, size, ncases = 0;
    MPI_Init(&argc, &argv);
    int unchecked = argc > 1 && strcmp(argv[1], "-unchecked") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank + 1) % size;
    int *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    memset(base, 0, 8 * sizeof(int));
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_OK(MPIX_Win_create_notify(win, 2));
    MPI_OK(MPI_Type_contiguous(1, MPI_INT, &derived));
    MPI_OK(MPI_Type_commit(&derived));
    MPI_OK(MPI_Type_contiguous(1, MPI_INT, &uncommitted));
    MPI_OK(MPI_Op_create(user_fn, 1, &user_op));

    int o = 1, r = 0, c = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    const args_t good = {.o = &o,.oc = 1,.ot = MPI_INT,.r = &r,.rc = 1,.rt = MPI_INT,.c = &c,
        .rank = peer,.disp = 0,.tc = 1,.tt = MPI_INT,.op = MPI_SUM,.win = win,.req = &req,
        .tag = 7,.idx = 1
    };

    MPI_OK(MPI_Win_lock_all(0, win));
    /* bad arguments of the plain calls */
    for (size_t b = 0; !unchecked && b < sizeof(bad) / sizeof(bad[0]); b++)
        for (int k = 0; k < NKIND; k++) {
            if (!bad[b].applies((enum kind) k))
                continue;
            args_t a = good;
            bad[b].bend(&a, size);
            int plain = class_of(call((enum kind) k, PLAIN, a));
            CHECK(plain != MPI_SUCCESS, "%s: %s accepted it (a wrong case)", bad[b].what,
                  kinds[k].names[PLAIN]);
            for (int d = TAGGED; d < NDIALECT; d++) {
                if (!kinds[k].names[d])
                    continue;
                int twin = class_of(call((enum kind) k, (enum dialect) d, a));
                CHECK(twin == plain, "%s: %s class %d, %s class %d", bad[b].what,
                      kinds[k].names[d], twin, kinds[k].names[PLAIN], plain);
                ncases++;
            }
        }
    /* the notified calls' own arguments */
    const int bad_tags[] = { -1, MPI_NOTIFY_TAG_UB + 1, 1 << 30, (1 << 30) | 1, -2 };
    const int bad_idx[] = { -1, 2, 1 << 24 };
    for (int k = 0; k < NKIND; k++) {
        for (size_t t = 0; t < sizeof(bad_tags) / sizeof(bad_tags[0]); t++) {
            args_t a = good;
            a.tag = bad_tags[t];
            int cls = class_of(call((enum kind) k, TAGGED, a));
            CHECK(cls == MPI_ERR_TAG, "%s with tag %#x: class %d, want MPI_ERR_TAG",
                  kinds[k].names[TAGGED], bad_tags[t], cls);
            ncases++;
        }
        if (!kinds[k].names[COUNTED])
            continue;
        for (size_t i = 0; i < sizeof(bad_idx) / sizeof(bad_idx[0]); i++) {
            args_t a = good;
            a.idx = bad_idx[i];
            int cls = class_of(call((enum kind) k, COUNTED, a));
            CHECK(cls == MPIX_ERR_INVALID_NOTIFICATION,
                  "%s with index %d: class %d, want MPIX_ERR_INVALID_NOTIFICATION",
                  kinds[k].names[COUNTED], bad_idx[i], cls);
            ncases++;
        }
    }
    /* a tag on the MPI_PROC_NULL early return is checked too */
    {
        args_t a = good;
        a.rank = MPI_PROC_NULL;
        a.tag = -1;
        for (int k = 0; k < NKIND; k++) {
            int cls = class_of(call((enum kind) k, TAGGED, a));
            CHECK(cls == MPI_ERR_TAG, "%s to MPI_PROC_NULL with tag -1: class %d",
                  kinds[k].names[TAGGED], cls);
            ncases++;
        }
    }
    MPI_OK(MPI_Win_unlock_all(win));

    /* MPI_Notify_init (its checks are error checks) */
    if (!unchecked) {
        MPI_Request n = MPI_REQUEST_NULL;
        struct {
            int src, tag, count, cls;
            MPI_Win w;
        } ni[] = {
            {size, 1, 1, MPI_ERR_RANK, win}, {-7, 1, 1, MPI_ERR_RANK, win},
            {0, -2, 1, MPI_ERR_TAG, win}, {0, MPI_NOTIFY_TAG_UB + 1, 1, MPI_ERR_TAG, win},
            {0, 1, 0, MPI_ERR_COUNT, win}, {0, 1, -3, MPI_ERR_COUNT, win},
            {0, 1, 1, MPI_ERR_WIN, MPI_WIN_NULL},
        };
        for (size_t i = 0; i < sizeof(ni) / sizeof(ni[0]); i++) {
            int cls = class_of(MPI_Notify_init(ni[i].w, ni[i].src, ni[i].tag, ni[i].count, &n));
            CHECK(cls == ni[i].cls, "MPI_Notify_init(src %d, tag %d, count %d): class %d, want %d",
                  ni[i].src, ni[i].tag, ni[i].count, cls, ni[i].cls);
            ncases++;
        }
        int cls = class_of(MPI_Notify_init(win, 0, 1, 1, NULL));
        CHECK(cls == MPI_ERR_ARG, "MPI_Notify_init(NULL request): class %d", cls);
    }

    /* nothing of the refused accesses arrived: plain and notified RMA to the
     * same bytes give exactly their own result */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    int one = 1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
    MPI_OK(MPI_Put(&one, 1, MPI_INT, peer, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, peer, 0, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(peer, win));
    MPI_OK(MPIX_Put_notify(&one, 1, MPI_INT, peer, 1, 1, MPI_INT, 0, win));
    MPI_OK(MPI_Win_unlock(peer, win));
    MPI_Count n0 = 0, n1 = 0;
    do
        MPI_OK(MPIX_Win_get_notify(win, 0, &n0));
    while (n0 < 1);
    MPI_OK(MPIX_Win_get_notify(win, 1, &n1));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    CHECK(base[0] == 2 && base[1] == 1 && n0 == 1 && n1 == 0,
          "after the refused calls: words %d %d, counters %lld %lld; want 2 1, 1 0", base[0],
          base[1], (long long) n0, (long long) n1);
    for (int i = 2; i < 8; i++)
        CHECK(base[i] == 0, "word %d is %d: a refused access wrote it", i, base[i]);
    MPI_OK(MPI_Win_unlock(rank, win));

    {
        /* any unexpected tagged notification (from an accepted bad call)? */
        int flag = 0;
        MPI_Status st;
        MPI_OK(MPIX_Notify_iprobe(win, MPI_ANY_SOURCE, MPI_ANY_TAG, &flag, &st));
        CHECK(!flag, "a refused call notified (tag %d from %d)", st.MPI_TAG, st.MPI_SOURCE);
    }
    if (rank == 0)
        printf("argcheck: %d cases\n", ncases);
    MPI_OK(MPIX_Win_free_notify(win));
    MPI_OK(MPI_Type_free(&derived));
    MPI_OK(MPI_Type_free(&uncommitted));
    MPI_OK(MPI_Op_free(&user_op));
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
