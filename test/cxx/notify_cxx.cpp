// C++ against mpi.h with the notified calls' prototypes (mpicxx): rank 0
// puts a std::vector with MPI_Put_notify, rank 1 matches it with a
// persistent notification request and checks the data, then rank 1 reads
// it back with MPI_Get_notify into a std::array.  Prints "No Errors".
#include <mpi.h>
#include <array>
#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<double> mem(16, 0.0);
    MPI_Win win;
    MPI_Win_create(mem.data(), static_cast<MPI_Aint>(mem.size() * sizeof(double)), sizeof(double),
                   MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == 1) {
        MPI_Notify_init(win, 0, 11, 1, &req);
        MPI_Start(&req);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        std::vector<double> v(16);
        std::iota(v.begin(), v.end(), 1.0);
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Put_notify(v.data(), 16, MPI_DOUBLE, 1, 0, 16, MPI_DOUBLE, win, 11);
        MPI_Win_unlock(1, win);
    } else if (rank == 1) {
        MPI_Status st;
        MPI_Wait(&req, &st);
        for (int i = 0; i < 16; i++)
            errs += mem[i] != i + 1.0;
        errs += st.MPI_SOURCE != 0 || st.MPI_TAG != 11;
        MPI_Request_free(&req);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        std::array<double, 4> a{};
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get_notify(a.data(), 4, MPI_DOUBLE, 0, 0, 4, MPI_DOUBLE, win, 12);
        MPI_Win_unlock(0, win);
        for (double x : a)
            errs += x != 0.0;   /* rank 0's window is untouched */
    } else if (rank == 0) {
        MPI_Request r;
        MPI_Notify_init(win, 1, 12, 1, &r);
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Request_free(&r);
    }
    MPI_Allreduce(MPI_IN_PLACE, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Win_free(&win);
    if (rank == 0)
        std::printf(errs ? " Found %d errors\n" : " No Errors\n", errs);
    MPI_Finalize();
    return errs != 0;
}
