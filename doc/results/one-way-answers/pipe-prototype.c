/* pipe.c ITERS WORK_US BYTES: rank 1 produces (work, then MPI_Put_notify +
 * MPI_Win_flush, or MPI_Send), rank 0 consumes (MPI_Start + MPI_Wait, or
 * MPI_Recv, then work).  Time per item at the consumer, median of 5 rounds. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static void work(double us){double t=MPI_Wtime();while((MPI_Wtime()-t)*1e6<us);}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int rank; MPI_Comm_rank(MPI_COMM_WORLD,&rank);
  int iters=atoi(argv[1]); double w=atof(argv[2]); int bytes=atoi(argv[3]);
  char *base,*buf=calloc(bytes,1); MPI_Win win;
  MPI_Win_allocate(bytes,1,MPI_INFO_NULL,MPI_COMM_WORLD,&base,&win);
  MPI_Request nreq; MPI_Notify_init(win,1,0,1,&nreq);
  double res[2][5];
  MPI_Win_lock_all(0,win);
  for(int r=0;r<5;r++) for(int m=0;m<2;m++){
    MPI_Barrier(MPI_COMM_WORLD); double t0=MPI_Wtime();
    for(int i=0;i<iters;i++){
      if(rank==1){ work(w); if(m==0){MPI_Put_notify(buf,bytes,MPI_BYTE,0,0,bytes,MPI_BYTE,win,0);MPI_Win_flush(0,win);} else MPI_Send(buf,bytes,MPI_BYTE,0,0,MPI_COMM_WORLD);}
      else { if(m==0){MPI_Start(&nreq);MPI_Wait(&nreq,MPI_STATUS_IGNORE);} else MPI_Recv(buf,bytes,MPI_BYTE,1,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE); work(w);}
    }
    res[m][r]=(MPI_Wtime()-t0)*1e6/iters;
  }
  MPI_Win_unlock_all(win);
  if(rank==0){qsort(res[0],5,8,cmp);qsort(res[1],5,8,cmp);printf("na %.2f mp %.2f na/mp %.3f\n",res[0][2],res[1][2],res[0][2]/res[1][2]);}
  MPI_Request_free(&nreq); MPI_Win_free(&win); MPI_Finalize();}
