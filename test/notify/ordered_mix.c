/* Order and completeness across every shape a transport may split differently
 * (2 ranks; rank 1 issues, rank 0 is the target):
 *   - puts with contiguous data, a non-contiguous target (4-byte pieces, or
 *     four large blocks) or a non-contiguous origin, and gets with contiguous
 *     or non-contiguous target data;
 *   - sizes around every limit a path has: 0 bytes, the libfabric inject size
 *     (64 B tcp, 255 B sockets), the 2046-byte inline byte count of the CQ data
 *     word, pipelined sizes;
 *   - MPI_Send traffic (eager and rendezvous) on the same pair in between.
 * Rank 0 waits for each notification in turn with an MPI_ANY_TAG request:
 * its tag must be the next one issued (non-overtaking), its byte count right,
 * and a put's data complete.  After a get's notification rank 0 overwrites
 * the data, so a notification sent before the read shows up as wrong data. */
#include "na_test.h"

static const int sizes[] = { 0, 4, 8, 60, 64, 68, 252, 256, 2044, 2048, 4096, 65536, 300000 };

#define NSIZES ((int) (sizeof(sizes) / sizeof(sizes[0])))
#define NKINDS 6
#define ROUNDS 2
#define NOPS (NKINDS * NSIZES * ROUNDS)
#define BIGMSG (200 * 1000)

enum { PUT_CONTIG, PUT_NC_TARGET, PUT_NC_ORIGIN, GET_CONTIG, GET_NC_TARGET, PUT_BLOCKS };

/* PUT_BLOCKS: n ints as four blocks with gaps of the same size in between
 * (large pieces when n is large), or contiguous if n is not a multiple of 4 */
static MPI_Datatype blocks_type(int n)
{
    MPI_Datatype t;
    if (n > 0 && n % 4 == 0)
        MPI_Type_vector(4, n / 4, n / 2, MPI_INT, &t);
    else
        MPI_Type_contiguous(n, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

static int block_pos(int n, int k)
{
    return (n > 0 && n % 4 == 0) ? (k / (n / 4)) * (n / 2) + k % (n / 4) : k;
}

static int initial(int op, int k)
{
    return op * 1000003 + k;
}

static int put_value(int op, int k)
{
    return -(op * 7919 + k) - 1;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    MPI_Aint off[NOPS], total = 0;
    for (int i = 0; i < NOPS; i++) {
        off[i] = total;
        total += 2 * (MPI_Aint) sizes[(i / NKINDS) % NSIZES] + 8;
    }
    int *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(rank == 0 ? total : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                            &win));
    na_expect_path_to(win, 0);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (rank == 0)
        for (int i = 0; i < NOPS; i++)
            for (int k = 0; k < 2 * sizes[(i / NKINDS) % NSIZES] / 4; k++)
                base[off[i] / 4 + k] = initial(i, k);
    char *bigmsg = malloc(BIGMSG);
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 1) {
        int **got = calloc(NOPS, sizeof(int *)), **srcs = calloc(NOPS, sizeof(int *));
        for (int i = 0; i < NOPS; i++) {
            int kind = i % NKINDS, n = sizes[(i / NKINDS) % NSIZES] / 4;
            int *src = malloc((2 * n + 1) * sizeof(int));
            MPI_Datatype vec;
            MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
            MPI_Type_commit(&vec);
            MPI_Aint disp = off[i];
            for (int k = 0; k < n; k++)
                src[k] = put_value(i, k);
            switch (kind) {
                case PUT_CONTIG:
                    MPI_OK(MPI_Put_notify(src, n, MPI_INT, 0, disp, n, MPI_INT, win, i));
                    break;
                case PUT_NC_TARGET:
                    MPI_OK(MPI_Put_notify(src, n, MPI_INT, 0, disp, 1, vec, win, i));
                    break;
                case PUT_NC_ORIGIN:
                    for (int k = 0; k < n; k++)
                        src[2 * k] = put_value(i, k);
                    MPI_OK(MPI_Put_notify(src, 1, vec, 0, disp, n, MPI_INT, win, i));
                    break;
                case GET_CONTIG:
                    got[i] = malloc((n + 1) * sizeof(int));
                    MPI_OK(MPI_Get_notify(got[i], n, MPI_INT, 0, disp, n, MPI_INT, win, i));
                    break;
                case GET_NC_TARGET:
                    got[i] = malloc((n + 1) * sizeof(int));
                    MPI_OK(MPI_Get_notify(got[i], n, MPI_INT, 0, disp, 1, vec, win, i));
                    break;
                case PUT_BLOCKS:{
                        MPI_Datatype b = blocks_type(n);
                        MPI_OK(MPI_Put_notify(src, n, MPI_INT, 0, disp, 1, b, win, i));
                        MPI_Type_free(&b);
                        break;
                    }
            }
            MPI_Type_free(&vec);
            /* no flush in between: every access may be in flight at once */
            srcs[i] = src;
            if (i % 7 == 3)
                MPI_Send(&i, 1, MPI_INT, 0, 77, MPI_COMM_WORLD);
            if (i % 13 == 6) {
                memset(bigmsg, i & 0xff, BIGMSG);
                MPI_Send(bigmsg, BIGMSG, MPI_BYTE, 0, 78, MPI_COMM_WORLD);
            }
        }
        MPI_OK(MPI_Win_flush_all(win));
        for (int i = 0; i < NOPS; i++)
            free(srcs[i]);
        free(srcs);
        for (int i = 0; i < NOPS; i++) {
            int kind = i % NKINDS, n = sizes[(i / NKINDS) % NSIZES] / 4, bad = 0;
            if (kind != GET_CONTIG && kind != GET_NC_TARGET)
                continue;
            for (int k = 0; k < n; k++)
                bad += got[i][k] != initial(i, kind == GET_CONTIG ? k : 2 * k);
            CHECK(bad == 0, "get %d (%d bytes): %d ints read after the target was told", i,
                  4 * n, bad);
            free(got[i]);
        }
        free(got);
    } else if (rank == 0) {
        MPI_Request req;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, 1, MPI_ANY_TAG, 1, &req));
        for (int i = 0; i < NOPS; i++) {
            int kind = i % NKINDS, n = sizes[(i / NKINDS) % NSIZES] / 4, bad = 0, count;
            int *r = base + off[i] / 4;
            MPI_OK(MPI_Start(&req));
            MPI_OK(MPI_Wait(&req, &st));
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(st.MPI_TAG == i, "notification %d arrived when %d was expected", st.MPI_TAG, i);
            CHECK(count == 4 * n, "notification %d: %d bytes, expected %d", i, count, 4 * n);
            if (st.MPI_TAG != i)
                break;
            for (int k = 0; k < n; k++) {
                switch (kind) {
                    case PUT_CONTIG:
                    case PUT_NC_ORIGIN:
                        bad += r[k] != put_value(i, k);
                        break;
                    case PUT_NC_TARGET:
                        bad += r[2 * k] != put_value(i, k) || r[2 * k + 1] != initial(i, 2 * k + 1);
                        break;
                    case PUT_BLOCKS:
                        bad += r[block_pos(n, k)] != put_value(i, k);
                        break;
                    default:   /* a get has read it: overwrite */
                        r[k] = r[2 * k] = 0x7fffffff;
                }
            }
            CHECK(bad == 0, "put %d (kind %d, %d bytes): %d ints not in place when notified", i,
                  kind, 4 * n, bad);
            if (i % 7 == 3) {
                int v = -1;
                MPI_Recv(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(v == i, "message %d carried %d", i, v);
            }
            if (i % 13 == 6) {
                MPI_Recv(bigmsg, BIGMSG, MPI_BYTE, 1, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                int wrong = 0;
                for (int k = 0; k < BIGMSG; k++)
                    wrong += (unsigned char) bigmsg[k] != (i & 0xff);
                CHECK(wrong == 0, "large message after op %d: %d wrong bytes", i, wrong);
            }
        }
        MPI_Request_free(&req);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_free(&win));
    free(bigmsg);
    return na_finish();
}
