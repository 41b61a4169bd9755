/* handoff.c ITERS: one notified hand-off per iteration after a barrier, as
 * bench/tree with 2 ranks: rank 1 MPI_Put_notify + FLUSH (below) to rank 0,
 * rank 0 MPI_Start + MPI_Wait; against MPI_Send / MPI_Recv(ANY_SOURCE); the
 * _pre variants start the request (post the receive) before the barrier.
 * Median time at rank 0 from the barrier's end, in us.  Built with
 * -DFLUSH='MPI_Win_flush(0,win);' (default), 'MPI_Win_flush_local(0,win);'
 * or ';' (no flush: not a correct program, the origin buffer is constant
 * and the epoch ends at unlock; it shows what the flush costs). */
#ifndef FLUSH
#define FLUSH MPI_Win_flush(0,win);
#endif
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int rank; MPI_Comm_rank(MPI_COMM_WORLD,&rank);
  int iters=atoi(argv[1]); double *slots; MPI_Win win;
  MPI_Win_allocate(64,8,MPI_INFO_NULL,MPI_COMM_WORLD,&slots,&win);
  MPI_Request nreq; MPI_Notify_init(win,MPI_ANY_SOURCE,0,1,&nreq);
  double *t=malloc(sizeof(double)*iters*4); double v=1,tmp;
  MPI_Win_lock_all(0,win);
  for(int r=0;r<10;r++) for(int m=0;m<4;m++) for(int it=r*iters/10;it<(r+1)*iters/10;it++){
    MPI_Request rr;
    if(rank==0 && m==2) MPI_Start(&nreq);
    if(rank==0 && m==3) MPI_Irecv(&tmp,1,MPI_DOUBLE,MPI_ANY_SOURCE,0,MPI_COMM_WORLD,&rr);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0=MPI_Wtime();
    if(rank==0){
      if(m==0){MPI_Start(&nreq);MPI_Wait(&nreq,MPI_STATUS_IGNORE);}
      else if(m==1) MPI_Recv(&tmp,1,MPI_DOUBLE,MPI_ANY_SOURCE,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE);
      else if(m==2) MPI_Wait(&nreq,MPI_STATUS_IGNORE);
      else MPI_Wait(&rr,MPI_STATUS_IGNORE);
    } else {
      if(m==0||m==2){MPI_Put_notify(&v,1,MPI_DOUBLE,0,0,1,MPI_DOUBLE,win,0);FLUSH}
      else MPI_Send(&v,1,MPI_DOUBLE,0,0,MPI_COMM_WORLD);
    }
    t[m*iters+it]=(MPI_Wtime()-t0)*1e6;
  }
  MPI_Win_unlock_all(win);
  if(rank==0){const char*n[]={"na","mp","na_pre","mp_pre"};for(int m=0;m<4;m++){qsort(t+m*iters,iters,8,cmp);printf("%-8s %.2f\n",n[m],t[m*iters+iters/2]);}}
  MPI_Request_free(&nreq); MPI_Win_free(&win); MPI_Finalize();}
