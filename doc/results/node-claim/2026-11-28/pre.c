#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmpd(const void *a, const void *b){ double x=*(double*)a,y=*(double*)b; return x<y?-1:x>y;}
int main(int argc, char **argv){
    MPI_Init(&argc,&argv);
    int rank; MPI_Comm_rank(MPI_COMM_WORLD,&rank); int peer=1-rank;
    int size = atoi(argv[1]), n = atoi(argv[2]), rounds=10;
    char *buf; MPI_Win win;
    MPI_Win_allocate(size,1,MPI_INFO_NULL,MPI_COMM_WORLD,&buf,&win);
    char *src = calloc(size,1), *dst = calloc(size,1);
    MPI_Request nreq; MPI_Notify_init(win,peer,1,1,&nreq);
    MPI_Win_lock_all(MPI_MODE_NOCHECK,win);
    double *t[3]; for (int m=0;m<3;m++) t[m]=malloc(sizeof(double)*n*rounds);
    int k[3]={0,0,0};
    for (int r=0;r<rounds;r++) for (int m=0;m<3;m++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (m==2 && rank==1) MPI_Start(&nreq);
        for (int i=0;i<n+10;i++){
            double t0=MPI_Wtime();
            if (m==0){ if(rank==0){MPI_Send(src,size,MPI_BYTE,peer,0,MPI_COMM_WORLD);MPI_Recv(dst,size,MPI_BYTE,peer,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);} else {MPI_Recv(dst,size,MPI_BYTE,peer,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);MPI_Send(src,size,MPI_BYTE,peer,0,MPI_COMM_WORLD);} }
            else if (m==1){ if(rank==0){MPI_Put_notify(src,size,MPI_BYTE,peer,0,size,MPI_BYTE,win,1);MPI_Win_flush(peer,win);MPI_Start(&nreq);MPI_Wait(&nreq,MPI_STATUS_IGNORE);} else {MPI_Start(&nreq);MPI_Wait(&nreq,MPI_STATUS_IGNORE);MPI_Put_notify(src,size,MPI_BYTE,peer,0,size,MPI_BYTE,win,1);MPI_Win_flush(peer,win);} }
            else { if(rank==0){MPI_Start(&nreq);MPI_Put_notify(src,size,MPI_BYTE,peer,0,size,MPI_BYTE,win,1);MPI_Win_flush(peer,win);MPI_Wait(&nreq,MPI_STATUS_IGNORE);} else {MPI_Wait(&nreq,MPI_STATUS_IGNORE);MPI_Start(&nreq);MPI_Put_notify(src,size,MPI_BYTE,peer,0,size,MPI_BYTE,win,1);MPI_Win_flush(peer,win);} }
            if (i>=10) t[m][k[m]++]=(MPI_Wtime()-t0)/2*1e6;
        }
        if (m==2) { if (rank==0) { MPI_Put_notify(src,size,MPI_BYTE,peer,0,size,MPI_BYTE,win,1);MPI_Win_flush(peer,win);} else MPI_Wait(&nreq,MPI_STATUS_IGNORE); }
    }
    if (rank==0) { for (int m=0;m<3;m++){ qsort(t[m],k[m],sizeof(double),cmpd);} printf("size %d: sendrecv %.3f put_notify %.3f (%.3f) pre-started %.3f (%.3f)\n", size, t[0][k[0]/2], t[1][k[1]/2], t[1][k[1]/2]/t[0][k[0]/2], t[2][k[2]/2], t[2][k[2]/2]/t[0][k[0]/2]); }
    MPI_Win_unlock_all(win);
    if (!getenv("KEEPREQ")) MPI_Request_free(&nreq);
    if (getenv("FREEWIN")) MPI_Win_free(&win);
    fflush(stdout);
    MPI_Finalize(); return 0;
}
