/* callgrind: instructions of the target's MPI_Wait when the notification is
 * already published but the request was started before (the ping-pong's
 * critical path after detection), and of the origin's put call alone */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/callgrind.h>
int main(int argc, char **argv){
    MPI_Init(&argc,&argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD,&rank); int peer=1-rank;
    int mode = atoi(argv[1]); int n = 200;
    char *buf; MPI_Win win;
    MPI_Win_allocate(64,1,MPI_INFO_NULL,MPI_COMM_WORLD,&buf,&win);
    MPIX_Win_create_notify(win,1);
    MPI_Request nreq; MPI_Notify_init(win,peer,1,1,&nreq);
    MPI_Win_lock_all(MPI_MODE_NOCHECK,win);
    char src[8]={1};
    MPI_Count cnt=0;
    for (int i=0;i<n+50;i++){
        if (rank==1){ if(mode==1) MPI_Start(&nreq); }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank==0){
            if (i>=50) CALLGRIND_TOGGLE_COLLECT;
            if (mode==0) MPI_Put(src,8,MPI_BYTE,peer,0,8,MPI_BYTE,win);
            else if (mode==1) MPI_Put_notify(src,8,MPI_BYTE,peer,0,8,MPI_BYTE,win,1);
            else MPIX_Put_notify(src,8,MPI_BYTE,peer,0,8,MPI_BYTE,0,win);
            if (i>=50) CALLGRIND_TOGGLE_COLLECT;
            MPI_Win_flush(peer,win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank==1){
            if (i>=50) CALLGRIND_TOGGLE_COLLECT;
            if (mode==0) MPI_Win_sync(win);
            else if (mode==1) MPI_Wait(&nreq,MPI_STATUS_IGNORE);
            else { MPI_Count c; MPIX_Win_get_notify(win,0,&c); cnt=c; }
            if (i>=50) CALLGRIND_TOGGLE_COLLECT;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Request_free(&nreq);
    MPI_Win_free(&win); MPI_Finalize(); return 0;
}
