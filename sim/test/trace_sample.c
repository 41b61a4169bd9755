/* A program whose trace is known line by line (sim/test/trace_sample.expect,
 * compute lines left out): two processes, every kind of call natitrace
 * records, with matches that only the completion tells (any source, any
 * tag, a notification request counting two). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, flag = 0, one = 1, *got;
    double buf[64] = { 0 }, x = 1;
    MPI_Win win, flags;
    MPI_Request req[2], nreq;
    MPI_Status sts[2];
    MPI_Group world, peer_group;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    MPI_Win_create(buf, sizeof(buf), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &got, &flags);
    MPI_Win_set_name(flags, "flags");
    MPI_Notify_init(win, MPI_ANY_SOURCE, MPI_ANY_TAG, 2, &nreq);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &peer, &peer_group);
    *got = -1;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Pcontrol(1);
    /* two-sided: blocking, then nonblocking with an any-source receive */
    if (rank == 0) {
        MPI_Send(buf, 8, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD);
        MPI_Irecv(buf, 64, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(buf + 8, 2, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, sts);
    } else {
        MPI_Recv(buf, 64, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Send(buf, 3, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
        MPI_Recv(buf, 2, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* notified access: two puts counted by one request at rank 1 */
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        MPI_Put_notify(&x, 1, MPI_DOUBLE, 1, 0, 1, MPI_DOUBLE, win, 3);
        MPI_Put_notify(buf, 4, MPI_DOUBLE, 1, 8, 4, MPI_DOUBLE, win, 4);
        MPI_Win_flush(1, win);
    } else {
        MPI_Start(&nreq);
        MPI_Wait(&nreq, MPI_STATUS_IGNORE);
    }
    /* the protocol by hand: data, flush, flag; the target spins */
    if (rank == 1) {
        MPI_Put(buf, 16, MPI_DOUBLE, 0, 0, 16, MPI_DOUBLE, win);
        MPI_Win_flush(0, win);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, flags);
        MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, flags);
        MPI_Win_unlock(0, flags);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, flags);     /* for MPI_Win_sync */
        volatile int *f = got;
        for (MPI_Win_sync(flags); *f < 0; MPI_Win_sync(flags))
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Win_unlock(0, flags);
    }
    MPI_Win_unlock_all(win);
    /* active target: fence, then post/start/complete/wait */
    MPI_Win_fence(0, win);
    MPI_Accumulate(&x, 1, MPI_DOUBLE, peer, 1, 1, MPI_DOUBLE, MPI_SUM, win);
    MPI_Win_fence(0, win);
    if (rank == 0) {
        MPI_Win_start(peer_group, 0, win);
        MPI_Get(buf, 2, MPI_DOUBLE, 1, 0, 2, MPI_DOUBLE, win);
        MPI_Win_complete(win);
    } else {
        MPI_Win_post(peer_group, 0, win);
        MPI_Win_wait(win);
    }
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Pcontrol(0);

    MPI_Request_free(&nreq);
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world);
    MPI_Win_free(&flags);
    MPI_Win_free(&win);
    if (rank == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return 0;
}
