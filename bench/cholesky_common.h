/* What the two tiled Cholesky benchmarks share (bench/cholesky.c,
 * left-looking with one process per core; bench/cholesky_tasks.c,
 * right-looking as OpenMP tasks): the LAPACK/BLAS kernels, the input matrix,
 * the tile layout, the broadcast tree, the argument limits and the residual
 * check.  One copy, so that both factor the same matrix and are held to the
 * same check, and their results can be compared.  Header-only (static
 * inline), as bench/bench_util.h, so each program still builds from its one
 * .c file with a plain mpicc line (add -llapack -lblas).
 *
 * Layout: the lower triangle of nt x nt tiles of b x b, tile (i,j), j <= i,
 * at index ch_tile_index(i, j) (row by row), each tile column-major.
 */
#ifndef CHOLESKY_COMMON_H
#define CHOLESKY_COMMON_H

#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_util.h"

/* system LAPACK/BLAS, Fortran calling convention */
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dtrsm_(const char *side, const char *uplo, const char *transa, const char *diag,
            const int *m, const int *n, const double *alpha, const double *a, const int *lda,
            double *b, const int *ldb);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *beta, double *c, const int *ldc);
void dgemm_(const char *transa, const char *transb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc);

/* ------------------------------------------------------------ tiles */

static inline int ch_tile_index(int i, int j)
{
    return i * (i + 1) / 2 + j;
}

/* tile index -> column, for the root of its broadcast tree */
static inline int ch_column_of(int t)
{
    int i = 0;
    while (ch_tile_index(i + 1, 0) <= t)
        i++;
    return t - ch_tile_index(i, 0);
}

/* the binary tree over np ranks rooted at root (a tile's producer), along
 * which tiles are broadcast: rank's parent (MPI_PROC_NULL at the root) */
static inline int ch_tree_parent(int rank, int np, int root)
{
    int rel = (rank - root + np) % np;
    return rel == 0 ? MPI_PROC_NULL : ((rel - 1) / 2 + root) % np;
}

/* ... and rank's children in ch[], how many */
static inline int ch_tree_children(int rank, int np, int root, int ch[2])
{
    int rel = (rank - root + np) % np, n = 0;
    for (int c = 2 * rel + 1; c <= 2 * rel + 2 && c < np; c++)
        ch[n++] = (c + root) % np;
    return n;
}

/* ------------------------------------------------------------ the matrix */

/* deterministic symmetric positive definite matrix of order n, generated per
 * element (diagonally dominant: off-diagonal entries in [0, 1), n added on
 * the diagonal) */
static inline double ch_a_elem(int gi, int gj, int n)
{
    if (gi < gj) {
        int x = gi;
        gi = gj;
        gj = x;
    }
    return (bu_hash2((uint32_t) gi, (uint32_t) gj) % 1000) / 1000.0 + (gi == gj ? n : 0.0);
}

/* tile (i,j) of A into T */
static inline void ch_fill_tile(double *T, int i, int j, int b, int nt)
{
    for (int c = 0; c < b; c++)
        for (int r = 0; r < b; r++)
            T[r + c * b] = ch_a_elem(i * b + r, j * b + c, nt * b);
}

/* ------------------------------------------------------------ arguments */

/* Tile indices, below nt (nt + 1) / 2, are message and notification tags,
 * and b * b is an int count: 0 if nt, b and reps fit, else 1 after a
 * message (rank 0) naming the limits; prog is the program's name. */
static inline int ch_check_size(const char *prog, int nt, int b, int reps)
{
    int max_tag = bu_max_tag(), max_nt = 1;
    while ((long) (max_nt + 1) * (max_nt + 2) / 2 - 1 <= max_tag)
        max_nt++;
    if (nt < 1 || nt > max_nt || b < 1 || b > 46340 || reps < 1) {
        if (bu_is_reporter())
            fprintf(stderr, "%s: need 1 <= TILES <= %d, 1 <= TILE_SIZE <= 46340, "
                    "reps >= 1\n", prog, max_nt);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ check */

/* ||A - L L^T||_F / ||A||_F, L the lower triangle of the factored tiles
 * (every tile present); the full matrices in memory, so run at one rank */
static inline double ch_residual(const char *prog, const double *tiles, int nt, int b)
{
    int n = nt * b;
    const double one = 1.0, minus_one = -1.0;
    double *L = calloc((size_t) n * n, sizeof(double));
    double *C = malloc((size_t) n * n * sizeof(double));
    double num = 0, den = 0;
    if (!L || !C) {
        fprintf(stderr, "%s: no memory for the check (n = %d)\n", prog, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++) {
            const double *T = tiles + (size_t) ch_tile_index(i, j) * b * b;
            for (int c = 0; c < b; c++)
                for (int r = 0; r < b; r++)
                    if (i * b + r >= j * b + c)
                        L[(size_t) (j * b + c) * n + i * b + r] = T[r + c * b];
        }
    for (int c = 0; c < n; c++)
        for (int r = 0; r < n; r++)
            C[(size_t) c * n + r] = ch_a_elem(r, c, n);
    dsyrk_("L", "N", &n, &n, &minus_one, L, &n, &one, C, &n);
    /* C = A - L L^T, lower triangle: off-diagonal entries count twice */
    for (int c = 0; c < n; c++)
        for (int r = c; r < n; r++) {
            double w = (r == c) ? 1.0 : 2.0, a = ch_a_elem(r, c, n);
            num += w * C[(size_t) c * n + r] * C[(size_t) c * n + r];
            den += w * a * a;
        }
    free(L);
    free(C);
    return sqrt(num / den);
}

/* the worst of a mode's residuals so far: a NaN is kept, it must fail the run */
static inline void ch_keep_worst(double *worst, double res)
{
    if (!isnan(*worst) && (isnan(res) || res > *worst))
        *worst = res;
}

#endif /* CHOLESKY_COMMON_H */
