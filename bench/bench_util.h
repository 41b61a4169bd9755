/* Helpers shared by the benchmark programs in bench/: option parsing, -modes
 * lists, order statistics, CSV output, a check that every rank got the same
 * arguments, the tag bound of notified access and the hash behind the
 * generated inputs.  Header-only (static inline), so each benchmark still
 * builds from its one .c file with a plain mpicc line (bench/run-bench.sh,
 * test/run-suite.sh).  More specific helpers, header-only too:
 * bench/cholesky_common.h (the two Cholesky programs), bench/task_util.h
 * (the OpenMP task programs).
 *
 * Error handling convention: a bad argument is reported once (by rank 0 of
 * MPI_COMM_WORLD, or by every process if MPI is not initialised yet) and the
 * function returns non-zero.  Since every rank parses the same arguments
 * (checked by bu_same_args), all ranks fail together and can leave with
 * MPI_Finalize + a non-zero exit status instead of hanging in a collective
 * that some ranks never reach.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <mpi.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ reporting */

#define BU_NELEMS(a) ((int) (sizeof(a) / sizeof((a)[0])))

/* Whether this process should print a diagnostic: rank 0 once MPI is up,
 * every process before MPI_Init or after MPI_Finalize (rank unknown then). */
static inline int bu_is_reporter(void)
{
    int init = 0, fini = 0, rank = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (!init || fini)
        return 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

/* ------------------------------------------------------------ options */

typedef enum { BU_INT, BU_LONG, BU_DOUBLE, BU_STRING } bu_type_t;

/* One "-flag VALUE" option.  dst points to an int, long, double or
 * const char * (BU_STRING: the pointer into argv is stored, not a copy); it
 * keeps its default when the flag is absent.  help is the text shown by the
 * usage message. */
typedef struct {
    const char *flag;
    bu_type_t type;
    void *dst;
    const char *help;
} bu_opt_t;

/* the program name for messages: the first word of the usage line */
static inline int bu_prog_len(const char *usage)
{
    return (int) strcspn(usage, " ");
}

static inline void bu_usage(FILE *f, const char *usage, const bu_opt_t *opts, int nopts)
{
    fprintf(f, "usage: %s\n", usage);
    for (int i = 0; i < nopts; i++)
        fprintf(f, "  %-10s %s\n", opts[i].flag, opts[i].help);
}

/* Decimal integer in [lo, hi]; the whole string must be the number (atoi
 * would read "12x" as 12 and "x" as 0).  0 on success. */
static inline int bu_to_long(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || x < lo || x > hi)
        return 1;
    *v = x;
    return 0;
}

/* Finite floating-point number, the whole string.  0 on success. */
static inline int bu_to_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    /* ERANGE on underflow returns a tiny but usable value; only overflow
     * (HUGE_VAL) and non-finite input are rejected */
    if (end == s || *end != '\0' || !isfinite(x) || (errno == ERANGE && fabs(x) > 1.0))
        return 1;
    *v = x;
    return 0;
}

/* Parse argv[1..argc) as "-flag VALUE" pairs from opts.  Unknown flags,
 * stray words, a flag without its value and malformed or out-of-range
 * numbers are errors: a message and the usage go to stderr (rank 0 only)
 * and 1 is returned.  -h / -help / --help prints the usage to stdout and
 * returns -1, so callers can exit with status (rc > 0).  0: all parsed. */
static inline int bu_parse(int argc, char **argv, const bu_opt_t *opts, int nopts,
                           const char *usage)
{
    int pl = bu_prog_len(usage), report = bu_is_reporter();
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-h") || !strcmp(arg, "-help") || !strcmp(arg, "--help")) {
            if (report)
                bu_usage(stdout, usage, opts, nopts);
            return -1;
        }
        const bu_opt_t *o = NULL;
        for (int k = 0; k < nopts && !o; k++)
            if (!strcmp(arg, opts[k].flag))
                o = &opts[k];
        const char *err = NULL;
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        long l;
        double d;
        if (!o)
            err = arg[0] == '-' ? "unknown option" : "unexpected argument";
        else if (!val)
            err = "missing value for";
        else {
            switch (o->type) {
                case BU_INT:
                    if (bu_to_long(val, INT_MIN, INT_MAX, &l))
                        err = "not an integer (or out of range) for";
                    else
                        *(int *) o->dst = (int) l;
                    break;
                case BU_LONG:
                    if (bu_to_long(val, LONG_MIN, LONG_MAX, &l))
                        err = "not an integer (or out of range) for";
                    else
                        *(long *) o->dst = l;
                    break;
                case BU_DOUBLE:
                    if (bu_to_double(val, &d))
                        err = "not a finite number for";
                    else
                        *(double *) o->dst = d;
                    break;
                case BU_STRING:
                    *(const char **) o->dst = val;
                    break;
            }
        }
        if (err) {
            if (report) {
                if (o && val)
                    fprintf(stderr, "%.*s: '%s' is %s %s\n", pl, usage, val, err, arg);
                else
                    fprintf(stderr, "%.*s: %s '%s'\n", pl, usage, err, arg);
                bu_usage(stderr, usage, opts, nopts);
            }
            return 1;
        }
        i++;                    /* the value */
    }
    return 0;
}

/* Comma-separated list of decimal integers, each >= lo, into vals[0..max):
 * returns how many, or -1 after a message (rank 0) naming flag for an empty
 * or malformed item, a value below lo, or more than max items. */
static inline int bu_parse_int_list(const char *list, int *vals, int max, int lo,
                                    const char *flag)
{
    int n = 0;
    for (const char *p = list;; p += strcspn(p, ",") + 1) {
        size_t len = strcspn(p, ",");
        char item[32];
        long v = 0;
        int bad = len == 0 || len >= sizeof(item);
        if (!bad) {
            memcpy(item, p, len);
            item[len] = '\0';
            bad = bu_to_long(item, lo, INT_MAX, &v);
        }
        if (bad || n == max) {
            if (!bu_is_reporter())
                return -1;
            if (bad)
                fprintf(stderr, "%s: '%.*s' in '%s' is not an integer >= %d\n", flag, (int) len,
                        p, list, lo);
            else
                fprintf(stderr, "%s: at most %d values\n", flag, max);
            return -1;
        }
        vals[n++] = (int) v;
        if (p[len] == '\0')
            return n;
    }
}

/* -modes: list is a comma-separated list whose every item must equal one of
 * names[0..nnames) exactly (a substring match would let "nam" select "na"
 * and silently drop a misspelt mode).  Sets use[k] = 1 for the named modes
 * and 0 for the rest; list == NULL (no -modes given) selects every mode.
 * Returns 0, or 1 after a message (rank 0) for an empty list or an unknown
 * item, naming the valid modes. */
static inline int bu_parse_modes(const char *list, const char *const *names, int nnames, int *use)
{
    for (int k = 0; k < nnames; k++)
        use[k] = list == NULL;
    if (!list)
        return 0;
    for (const char *p = list;; p += strcspn(p, ",") + 1) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < nnames && !(strlen(names[k]) == len && !strncmp(p, names[k], len)))
            k++;
        if (k == nnames) {      /* also an empty item, so an empty list */
            if (bu_is_reporter()) {
                if (*list == '\0')
                    fprintf(stderr, "-modes: empty list");
                else if (len == 0)
                    fprintf(stderr, "-modes: empty item in '%s'", list);
                else
                    fprintf(stderr, "-modes: unknown mode '%.*s' in '%s'", (int) len, p, list);
                fprintf(stderr, "; valid modes:");
                for (k = 0; k < nnames; k++)
                    fprintf(stderr, "%s%s", k ? "," : " ", names[k]);
                fprintf(stderr, "\n");
            }
            return 1;
        }
        use[k] = 1;
        if (p[len] == '\0')
            return 0;
    }
}

/* ------------------------------------------------------------ statistics */

static inline int bu_cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* sort t[0..n) ascending, in place */
static inline void bu_sort(double *t, int n)
{
    qsort(t, (size_t) n, sizeof *t, bu_cmp_double);
}

/* Sort t[0..n) (n >= 1) in place and report order statistics by index,
 * without interpolation: median t[n / 2] (the upper middle value when n is
 * even), p10 t[n / 10], p90 t[n * 9 / 10].  Any output pointer may be NULL. */
static inline void bu_stats(double *t, int n, double *median, double *p10, double *p90)
{
    bu_sort(t, n);
    if (median)
        *median = t[n / 2];
    if (p10)
        *p10 = t[n / 10];
    if (p90)
        *p90 = t[(long) n * 9 / 10];
}

/* Index in t[0..n) (n >= 1) of the lower middle value: the one with (n - 1)
 * / 2 values before it in ascending order, ties in index order; t is left
 * as it is, so the rep it names can be looked up in other per-rep arrays. */
static inline int bu_median_rep(const double *t, int n)
{
    int med = 0;
    for (int a = 0; a < n; a++) {
        int before = 0;
        for (int b = 0; b < n; b++)
            before += t[b] < t[a] || (t[b] == t[a] && b < a);
        if (before == (n - 1) / 2)
            med = a;
    }
    return med;
}

/* the lower middle value of t[0..n) (n >= 1): of an even count, the smaller
 * one (of times, the faster rep) */
static inline double bu_lower_median(const double *t, int n)
{
    return t[bu_median_rep(t, n)];
}

/* ------------------------------------------------------------ CSV */

/* Open path for writing and write header (no trailing newline needed) as
 * its first line.  NULL if path is NULL, or after a message if the file
 * cannot be opened: the benchmark still runs and prints its table. */
static inline FILE *bu_csv_open(const char *path, const char *header)
{
    if (!path)
        return NULL;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "cannot write CSV file %s: %s\n", path, strerror(errno));
        return NULL;
    }
    fprintf(f, "%s\n", header);
    return f;
}

/* ------------------------------------------------------------ all ranks */

/* Collective over comm: 1 if every rank got the same argv[1..argc), else 0
 * with a message on rank 0 of comm.  The benchmarks validate their options
 * on each rank and leave without further communication when they are bad;
 * that only ends cleanly if all ranks reach the same verdict, which this
 * makes sure of (an MPMD launch could pass different arguments). */
static inline int bu_same_args(int argc, char **argv, MPI_Comm comm)
{
    uint64_t h = 14695981039346656037u;         /* FNV-1a, 64 bit */
    for (int i = 1; i < argc; i++) {
        const unsigned char *p = (const unsigned char *) argv[i];
        do                      /* the NUL too: "ab","c" differs from "a","bc" */
            h = (h ^ *p) * 1099511628211u;
        while (*p++);
    }
    /* one reduction gives MIN and MAX: max(~h) == ~min(h) */
    uint64_t v[2] = { h, ~h }, r[2];
    MPI_Allreduce(v, r, 2, MPI_UINT64_T, MPI_MAX, comm);
    if (r[0] == ~r[1])
        return 1;
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        fprintf(stderr, "%s: the ranks were started with different arguments; "
                "every rank needs the same options\n", argv[0]);
    return 0;
}

/* after MPI_Init(_thread): the rank and size in MPI_COMM_WORLD, then the
 * options, the same on every rank.  0: parsed */
static inline int bu_world_args(int argc, char **argv, const bu_opt_t * opts, int nopts,
                                const char *usage, int *rank, int *nranks)
{
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nranks);
    return !bu_same_args(argc, argv, MPI_COMM_WORLD) ? 1 :
        bu_parse(argc, argv, opts, nopts, usage);
}

/* MPI_Init, the rank and size in MPI_COMM_WORLD, then the options: the same
 * on every rank, so that all ranks leave on a bad one or none.  0: parsed */
static inline int bu_init(int *argc, char ***argv, const bu_opt_t * opts, int nopts,
                          const char *usage, int *rank, int *nranks)
{
    MPI_Init(argc, argv);
    return bu_world_args(*argc, *argv, opts, nopts, usage, rank, nranks);
}

/* As bu_init, with MPI_Init_thread asking for the level required (the task
 * programs call MPI from several threads); the level granted goes to
 * *provided, for the caller to check once the options are known (whether
 * it needs the level can depend on -modes). */
static inline int bu_init_thread(int *argc, char ***argv, int required, int *provided,
                                 const bu_opt_t * opts, int nopts, const char *usage, int *rank,
                                 int *nranks)
{
    MPI_Init_thread(argc, argv, required, provided);
    return bu_world_args(*argc, *argv, opts, nopts, usage, rank, nranks);
}

#ifdef MPI_NOTIFY_TAG_UB        /* not with stock MPICH (bench/instr.c builds against it) */
/* The largest tag that is valid both as a message tag (MPI_TAG_UB of
 * MPI_COMM_WORLD) and as a notification tag (MPI_NOTIFY_TAG_UB): the
 * programs that use one index as both, or compare the two ways, are bound
 * by the smaller. */
static inline int bu_max_tag(void)
{
    int *tag_ub, flag, max_tag = MPI_NOTIFY_TAG_UB;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
    if (flag && *tag_ub < max_tag)
        max_tag = *tag_ub;
    return max_tag;
}
#endif

/* ------------------------------------------------------------ generated data */

/* A pseudo-random 32-bit value of two indices (multiplicative hashing with
 * a MurmurHash2-style finish), so that inputs are generated per element, the
 * same on every rank and in every run, with no generator state to share:
 * the matrix of the Cholesky programs, gauss_seidel's initial grid,
 * streaming's blocks. */
static inline uint32_t bu_hash2(uint32_t i, uint32_t j)
{
    uint32_t h = i * 2654435761u ^ j * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h;
}

#endif /* BENCH_UTIL_H */
