/* The ping-pong of Listing 1 in Belli & Hoefler, "Notified Access" (IPDPS'15),
 * with the passive-target epoch the listing leaves out (MPI_Win_lock_all).
 * Rank 0 pings rank 1 with a notified put into the second half of rank 1's
 * window; rank 1 answers into the first half of rank 0's.  Each side checks
 * the payload it received, so the program also tests that data is visible
 * when the notification completes.
 *
 *   mpicc -o pingpong_notify pingpong_notify.c && mpiexec -n 2 ./pingpong_notify [max_doubles] [iters]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int max_size = argc > 1 ? atoi(argv[1]) : 4096;    /* doubles */
    int iters = argc > 2 ? atoi(argv[2]) : 100;
    int my_rank, nranks, errors = 0;
    double *buf;
    MPI_Win win;
    MPI_Request notification_request;
    MPI_Status notification_status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        if (my_rank == 0)
            fprintf(stderr, "run with 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int partner_rank = 1 - my_rank;
    MPI_Aint win_size = 2 * (MPI_Aint) max_size * sizeof(double);
    MPI_Win_allocate(win_size, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &buf, &win);
    double *payload = malloc(max_size * sizeof(double));

    /* initialize notification request */
    int customTag = 99, expected_count = 1;
    MPI_Notify_init(win, partner_rank, customTag, expected_count, &notification_request);
    MPI_Win_lock_all(0, win);

    for (int size = 1; size <= max_size; size *= 2) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            if (my_rank == 0) {
                /* send ping into the partner's second half */
                payload[0] = payload[size - 1] = it + size;
                MPI_Put_notify(payload, size, MPI_DOUBLE, partner_rank, max_size, size,
                               MPI_DOUBLE, win, customTag);
                MPI_Win_flush(partner_rank, win);
                /* wait for pong */
                MPI_Start(&notification_request);
                MPI_Wait(&notification_request, &notification_status);
                if (buf[0] != -(it + size) || buf[size - 1] != -(it + size))
                    errors++;
            } else {
                /* wait for ping */
                MPI_Start(&notification_request);
                MPI_Wait(&notification_request, &notification_status);
                if (buf[max_size] != it + size || buf[max_size + size - 1] != it + size)
                    errors++;
                /* send pong into the partner's first half */
                payload[0] = payload[size - 1] = -(it + size);
                MPI_Put_notify(payload, size, MPI_DOUBLE, partner_rank, 0, size, MPI_DOUBLE,
                               win, customTag);
                MPI_Win_flush(partner_rank, win);
            }
        }
        double half_rtt = (MPI_Wtime() - t0) / iters / 2 * 1e6;
        if (my_rank == 0)
            printf("%10zu bytes  %10.2f us half round trip\n", size * sizeof(double), half_rtt);
    }

    MPI_Win_unlock_all(win);
    MPI_Request_free(&notification_request);
    MPI_Win_free(&win);
    free(payload);
    int all;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (my_rank == 0)
        printf(all ? "Found %d errors\n" : "No Errors\n", all);
    MPI_Finalize();
    return all != 0;
}
