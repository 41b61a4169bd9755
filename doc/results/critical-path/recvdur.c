#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define MX 200000
static double d[MX]; static long sz[MX]; static int n;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e6+t.tv_nsec*1e-3;}
static ssize_t (*r_recvfrom)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
static ssize_t (*r_recv)(int, void*, size_t, int);
static void rec(double a, ssize_t r){ if(r>0 && n<MX){ d[n]=now()-a; sz[n]=r; n++; } }
ssize_t recvfrom(int s, void*b, size_t l, int f, struct sockaddr*a, socklen_t*al){ if(!r_recvfrom) r_recvfrom=dlsym(RTLD_NEXT,"recvfrom"); double t0=now(); ssize_t r=r_recvfrom(s,b,l,f,a,al); rec(t0,r); return r;}
ssize_t recv(int s, void*b, size_t l, int f){ if(!r_recv) r_recv=dlsym(RTLD_NEXT,"recv"); double t0=now(); ssize_t r=r_recv(s,b,l,f); rec(t0,r); return r;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
__attribute__((destructor)) static void fin(void){ const char*o=getenv("RD_OUT"); if(!o) return; char fn[256]; snprintf(fn,sizeof fn,"%s.%s",o,getenv("PMI_RANK")); FILE*f=fopen(fn,"w");
  /* by size */
  long sizes[16]; int ns=0; for(int i=0;i<n;i++){int k; for(k=0;k<ns;k++) if(sizes[k]==sz[i]) break; if(k==ns && ns<16) sizes[ns++]=sz[i];}
  for(int k=0;k<ns;k++){ static double v[MX]; int m=0; for(int i=0;i<n;i++) if(sz[i]==sizes[k]) v[m++]=d[i]; qsort(v,m,8,cmp); fprintf(f,"size %ld: n %d median %.3f us p90 %.3f\n", sizes[k], m, v[m/2], v[m*9/10]); }
  fclose(f); }
