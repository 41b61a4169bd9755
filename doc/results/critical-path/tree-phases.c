#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static double med(double*v,int n){qsort(v,n,8,cmp);return v[n/2];}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv); int rank; MPI_Comm_rank(MPI_COMM_WORLD,&rank);
  int mp = argc>1 && !strcmp(argv[1],"mp"); int N=3000;
  double *slot; MPI_Win win; MPI_Win_allocate(64,8,MPI_INFO_NULL,MPI_COMM_WORLD,&slot,&win);
  MPI_Request req; MPI_Notify_init(win,1,0,1,&req);
  MPI_Win_lock_all(0,win);
  double *t=calloc(6*N,8), x=1;
  for(int i=0;i<N;i++){
    MPI_Barrier(MPI_COMM_WORLD);
    double a=now();
    if(rank==0){ if(mp) MPI_Recv(&x,1,MPI_DOUBLE,1,0,MPI_COMM_WORLD,MPI_STATUS_IGNORE); else {MPI_Start(&req);MPI_Wait(&req,MPI_STATUS_IGNORE);} t[6*i]=a; t[6*i+1]=now(); }
    else { if(mp) MPI_Send(&x,1,MPI_DOUBLE,0,0,MPI_COMM_WORLD); else { MPI_Put_notify(&x,1,MPI_DOUBLE,0,0,1,MPI_DOUBLE,win,0); double b=now(); MPI_Win_flush(0,win); t[6*i+3]=b; } t[6*i+2]=a; t[6*i+4]=now(); }
  }
  double *o=calloc(6*N,8);
  if(rank==1) MPI_Send(t,6*N,MPI_DOUBLE,0,5,MPI_COMM_WORLD); else MPI_Recv(o,6*N,MPI_DOUBLE,1,5,MPI_COMM_WORLD,MPI_STATUS_IGNORE);
  if(rank==0){ double *r=calloc(N,8),*s=calloc(N,8),*u=calloc(N,8),*w=calloc(N,8),*z=calloc(N,8);
    for(int i=0;i<N;i++){ r[i]=t[6*i+1]-t[6*i]; s[i]=o[6*i+2]-t[6*i]; u[i]=t[6*i+1]-o[6*i+2]; w[i]=o[6*i+4]-o[6*i+2]; z[i]=mp?0:o[6*i+3]-o[6*i+2]; }
    printf("%s: root timed %.3f | child barrier exit - root's %.3f | data at root - child barrier exit %.3f | child send call(s) %.3f (put call %.3f)\n", mp?"mp":"na", med(r,N), med(s,N), med(u,N), med(w,N), med(z,N)); }
  MPI_Win_unlock_all(win); MPI_Request_free(&req); MPI_Win_free(&win); MPI_Finalize(); }
