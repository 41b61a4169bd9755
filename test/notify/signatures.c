/*
 * The installed mpi.h declares every Notified Access call with the exact
 * signature the contract gives (doc/notified-access.md, and Intel MPI's for
 * the MPIX_ counter calls), int counts, and MPI_Count twins (_c) where MPI
 * has them: a mismatch fails to compile.  At run time, the PMPI_ and _c
 * entry points carry a notification like the others.
 */
#include "na_test.h"
#include <stdint.h>

#define SAME(fn, type) _Static_assert(__builtin_types_compatible_p(__typeof__(&fn), type), #fn)

typedef MPI_Datatype D;
typedef MPI_Aint A;
typedef MPI_Count C;
SAME(MPI_Put_notify, int (*)(const void *, int, D, int, A, int, D, MPI_Win, int));
SAME(MPI_Get_notify, int (*)(void *, int, D, int, A, int, D, MPI_Win, int));
SAME(MPI_Put_notify_c, int (*)(const void *, C, D, int, A, C, D, MPI_Win, int));
SAME(MPI_Get_notify_c, int (*)(void *, C, D, int, A, C, D, MPI_Win, int));
SAME(PMPI_Put_notify, int (*)(const void *, int, D, int, A, int, D, MPI_Win, int));
SAME(MPI_Notify_init, int (*)(MPI_Win, int, int, int, MPI_Request *));
SAME(MPI_Accumulate_notify, int (*)(const void *, int, D, int, A, int, D, MPI_Op, MPI_Win, int));
SAME(MPI_Accumulate_notify_c, int (*)(const void *, C, D, int, A, C, D, MPI_Op, MPI_Win, int));
SAME(MPI_Get_accumulate_notify, int (*)(const void *, int, D, void *, int, D, int, A, int, D,
                                        MPI_Op, MPI_Win, int));
SAME(MPI_Fetch_and_op_notify, int (*)(const void *, void *, D, int, A, MPI_Op, MPI_Win, int));
SAME(MPI_Compare_and_swap_notify, int (*)(const void *, const void *, void *, D, int, A, MPI_Win,
                                          int));
SAME(MPIX_Put_notify, int (*)(const void *, int, D, int, A, int, D, int, MPI_Win));
SAME(MPIX_Get_notify, int (*)(void *, int, D, int, A, int, D, int, MPI_Win));
SAME(MPIX_Accumulate_notify, int (*)(const void *, int, D, int, A, int, D, MPI_Op, int, MPI_Win));
SAME(MPIX_Get_accumulate_notify, int (*)(const void *, int, D, void *, int, D, int, A, int, D,
                                         MPI_Op, int, MPI_Win));
SAME(MPIX_Win_create_notify, int (*)(MPI_Win, int));
SAME(MPIX_Win_free_notify, int (*)(MPI_Win));
SAME(MPIX_Win_get_notify, int (*)(MPI_Win, int, MPI_Count *));
SAME(MPIX_Win_set_notify, int (*)(MPI_Win, int, MPI_Count));
SAME(MPIX_Notify_iprobe, int (*)(MPI_Win, int, int, int *, MPI_Status *));
SAME(MPIX_Notify_probe, int (*)(MPI_Win, int, int, MPI_Status *));
SAME(MPIX_Request_on_complete, int (*)(MPI_Request, void (*)(MPI_Status *, void *), void *));
/* continuations, as upstream MPICH declares them (pmodels/mpich PR #7164) */
SAME(MPIX_Continue_init, int (*)(int, int, MPI_Info, MPI_Request *));
SAME(MPIX_Continue, int (*)(MPI_Request *, int (*)(int, void *), void *, int, MPI_Status *,
                            MPI_Request));
SAME(MPIX_Continueall, int (*)(int, MPI_Request *, int (*)(int, void *), void *, int,
                               MPI_Status *, MPI_Request));
SAME(PMPIX_Continue, int (*)(MPI_Request *, int (*)(int, void *), void *, int, MPI_Status *,
                             MPI_Request));
SAME(MPIX_Win_notify_request, int (*)(MPI_Win, int, MPI_Count, MPI_Request *));
SAME(PMPIX_Request_on_complete, int (*)(MPI_Request, MPIX_Request_complete_function *, void *));
SAME(MPIX_Win_notify_on_update, int (*)(MPI_Win, int, MPI_Count,
                                        void (*)(MPI_Win, int, MPI_Count, void *), void *));

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int64_t *base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(8 * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &base, &win));
    for (int i = 0; i < 8; i++)
        base[i] = 0;
    MPI_OK(MPIX_Win_create_notify(win, 1));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        int64_t v[2] = { 7, 8 }, one = 1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        MPI_OK(PMPI_Put_notify(v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win, 1));
        MPI_OK(MPI_Put_notify_c(&v[1], (MPI_Count) 1, MPI_INT64_T, 0, 1, (MPI_Count) 1,
                                MPI_INT64_T, win, 2));
        MPI_OK(MPI_Accumulate_notify_c(&one, (MPI_Count) 1, MPI_INT64_T, 0, 2, (MPI_Count) 1,
                                       MPI_INT64_T, MPI_SUM, win, 3));
        MPI_OK(MPIX_Put_notify_c(&v[0], (MPI_Count) 1, MPI_INT64_T, 0, 3, (MPI_Count) 1,
                                 MPI_INT64_T, 0, win));
        MPI_OK(MPI_Win_unlock(0, win));
    } else if (rank == 0) {
        MPI_Request r;
        MPI_Status st;
        MPI_OK(MPI_Notify_init(win, 1, MPI_ANY_TAG, 1, &r));
        for (int tag = 1; tag <= 3; tag++) {
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Wait(&r, &st));
            CHECK(st.MPI_TAG == tag && base[tag - 1] == (tag == 3 ? 1 : 6 + tag),
                  "notification %d: tag %d, data %lld", tag, st.MPI_TAG,
                  (long long) base[tag - 1]);
        }
        MPI_OK(MPI_Request_free(&r));
        MPI_Count c = 0;
        while (c < 1)
            MPI_OK(MPIX_Win_get_notify(win, 0, &c));
        CHECK(base[3] == 7, "counted put: %lld", (long long) base[3]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_free(&win));
    return na_finish();
}
