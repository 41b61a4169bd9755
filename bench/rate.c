/* Message rate, one origin -> one target, osu_mbw_mr style (issue 17): the
 * origin sends a window of W messages, completes them, and waits for the
 * target's zero-byte acknowledgement of the window; the target takes the
 * window, checks the data, and acknowledges.  2 ranks; modes take turns
 * round by round, so ratios come from one run.
 *
 *   rate [-n WINDOWS] [-w W] [-size BYTES] [-rounds R] [-modes a,b] [-phases 1] [-csv FILE]
 *
 * Modes:
 *   isend        W MPI_Isend + MPI_Waitall | W pre-posted MPI_Irecv + MPI_Waitall
 *   put_notify   W MPI_Put_notify (one slot each) + MPI_Win_flush | one request
 *                counting W notifications: MPI_Start + MPI_Wait
 *   put_counter  W MPIX_Put_notify + MPI_Win_flush | poll counter 0 up to W
 * Output per mode: messages per second (median over the rounds), and its
 * ratio to isend's; with -phases 1 also where the origin's time goes per
 * window (mean): issuing the W calls, completing them (MPI_Waitall or the
 * flush), waiting for the acknowledgement. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_util.h"

enum { ISEND, PUT_NOTIFY, PUT_COUNTER, NMODES };
static const char *const mode_names[NMODES] = { "isend", "put_notify", "put_counter" };

enum { TAG = 2, ACK = 3 };

int main(int argc, char **argv)
{
    int windows = 2000, w = 64, size = 8, rounds = 10, phases = 0, rank, nranks;
    const char *csv = NULL, *modes = NULL;
    int use[NMODES];
    const bu_opt_t opts[] = {
        {"-n", BU_INT, &windows, "windows per mode (2000)"},
        {"-w", BU_INT, &w, "messages per window (64)"},
        {"-size", BU_INT, &size, "bytes per message (8)"},
        {"-rounds", BU_INT, &rounds, "rounds the modes take turns in (10, at most WINDOWS)"},
        {"-modes", BU_STRING, &modes, "comma-separated subset of isend,put_notify,"
         "put_counter (all; one alone for a profile of that mode)"},
        {"-phases", BU_INT, &phases, "1: also print the origin's time per window by phase (0)"},
        {"-csv", BU_STRING, &csv, "also write the results to this CSV file"},
    };
    int rc = bu_init(&argc, &argv, opts, BU_NELEMS(opts),
                     "rate [-n WINDOWS] [-w W] [-size BYTES] [-rounds R] [-modes a,b] "
                     "[-phases 1] [-csv FILE]", &rank, &nranks);
    if (!rc)
        rc = bu_parse_modes(modes, mode_names, NMODES, use);
    if (!rc && (windows < 1 || w < 1 || size < 1 || rounds < 1 || rounds > windows ||
                nranks != 2)) {
        if (rank == 0)
            fprintf(stderr, "rate: need 2 processes, WINDOWS, W, BYTES >= 1 and "
                    "1 <= R <= WINDOWS\n");
        rc = 1;
    }
    if (rc) {
        MPI_Finalize();
        return rc > 0;
    }
    int peer = 1 - rank;
    size_t bytes = (size_t) w * size;
    char *wbuf, *buf = malloc(bytes);
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wbuf, &win);
    memset(wbuf, 0, bytes);
    MPIX_Win_create_notify(win, 1);
    MPI_Request nreq = MPI_REQUEST_NULL, *reqs = malloc(w * sizeof(MPI_Request));
    MPI_Status *sts = malloc(w * sizeof(MPI_Status));
    if (rank == 1)
        MPI_Notify_init(win, 0, TAG, w, &nreq);
    double rate[NMODES][rounds];
    double phase[NMODES][3] = { {0} };  /* -phases: issue, complete, ack (s) */
    int errors = 0;
    unsigned mark = 0;
    MPI_Win_lock_all(0, win);
    for (int r = 0; r < rounds; r++) {
        int nwin = windows * (r + 1) / rounds - windows * r / rounds;
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int k = 0; k < nwin; k++) {
                char m = (char) (++mark % 250 + 1);
                if (rank == 0) {
                    memset(buf, m, bytes);
                    double t_issue = phases ? MPI_Wtime() : 0;
                    for (int i = 0; i < w; i++) {
                        char *p = buf + (size_t) i * size;
                        if (mode == ISEND)
                            MPI_Isend(p, size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &reqs[i]);
                        else if (mode == PUT_NOTIFY)
                            MPI_Put_notify(p, size, MPI_BYTE, peer, (MPI_Aint) i * size, size,
                                           MPI_BYTE, win, TAG);
                        else
                            MPIX_Put_notify(p, size, MPI_BYTE, peer, (MPI_Aint) i * size, size,
                                            MPI_BYTE, 0, win);
                    }
                    double t_complete = phases ? MPI_Wtime() : 0;
                    if (mode == ISEND)
                        MPI_Waitall(w, reqs, sts);
                    else
                        MPI_Win_flush(peer, win);
                    double t_ack = phases ? MPI_Wtime() : 0;
                    MPI_Recv(NULL, 0, MPI_BYTE, peer, ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    if (phases) {
                        phase[mode][0] += t_complete - t_issue;
                        phase[mode][1] += t_ack - t_complete;
                        phase[mode][2] += MPI_Wtime() - t_ack;
                    }
                } else {
                    char *data = wbuf;
                    if (mode == ISEND) {
                        for (int i = 0; i < w; i++)
                            MPI_Irecv(buf + (size_t) i * size, size, MPI_BYTE, peer, TAG,
                                      MPI_COMM_WORLD, &reqs[i]);
                        MPI_Waitall(w, reqs, sts);
                        data = buf;
                    } else if (mode == PUT_NOTIFY) {
                        MPI_Start(&nreq);
                        MPI_Wait(&nreq, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Count v;
                        do
                            MPIX_Win_get_notify(win, 0, &v);
                        while (v < w);
                        MPIX_Win_set_notify(win, 0, 0);
                    }
                    /* every message of the window arrived before it counted */
                    if (data[0] != m || data[bytes - 1] != m)
                        errors++;
                    MPI_Send(NULL, 0, MPI_BYTE, peer, ACK, MPI_COMM_WORLD);
                }
            }
            rate[mode][r] = (double) nwin * w / (MPI_Wtime() - t0);
        }
    }
    MPI_Win_unlock_all(win);
    int all_errors;
    MPI_Reduce(&errors, &all_errors, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double med[NMODES];
        FILE *out = bu_csv_open(csv, "mode,bytes,window,msgs_per_s,ratio_to_isend");
        printf("# rate: %d-byte messages, windows of %d, %d windows per mode in %d rounds; "
               "origin-side median over rounds\n", size, w, windows, rounds);
        printf("%-12s %14s %10s\n", "mode", "msgs_per_s", "vs_isend");
        for (int mode = 0; mode < NMODES; mode++)
            if (use[mode])
                bu_stats(rate[mode], rounds, &med[mode], NULL, NULL);
        for (int mode = 0; mode < NMODES; mode++) {
            if (!use[mode])
                continue;
            /* the ratio only where isend ran too */
            double ratio = use[ISEND] ? med[mode] / med[ISEND] : 0;
            if (use[ISEND])
                printf("%-12s %14.0f %10.2f\n", mode_names[mode], med[mode], ratio);
            else
                printf("%-12s %14.0f %10s\n", mode_names[mode], med[mode], "-");
            if (out)
                fprintf(out, "%s,%d,%d,%.0f,%.4f\n", mode_names[mode], size, w, med[mode], ratio);
        }
        if (out)
            fclose(out);
        for (int mode = 0; phases && mode < NMODES; mode++)
            if (use[mode])
                printf("# %-12s origin per window: issue %.2f us, complete %.2f us, "
                       "acknowledgement %.2f us\n", mode_names[mode],
                       1e6 * phase[mode][0] / windows, 1e6 * phase[mode][1] / windows,
                       1e6 * phase[mode][2] / windows);
        printf(all_errors ? "Found %d errors\n" : "No Errors\n", all_errors);
    }
    if (nreq != MPI_REQUEST_NULL)
        MPI_Request_free(&nreq);
    MPI_Win_free(&win);
    free(buf);
    free(reqs);
    free(sts);
    MPI_Finalize();
    return 0;
}
