#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>
/* records (event, tsc) for data-bearing recvfrom/recv and sendmsg/sendto; dumps at exit */
#define MAXEV 400000
static unsigned long long ts[MAXEV]; static char ev[MAXEV]; static int n;
static ssize_t (*r_recvfrom)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
static ssize_t (*r_sendmsg)(int, const struct msghdr*, int);
static ssize_t (*r_sendto)(int, const void*, size_t, int, const struct sockaddr*, socklen_t);
static ssize_t (*r_recv)(int, void*, size_t, int);
static ssize_t (*r_recvmsg)(int, struct msghdr*, int);
static void rec(char e){ if(n<MAXEV){ts[n]=__rdtsc();ev[n]=e;n++;} }
ssize_t recvfrom(int s, void*b, size_t l, int f, struct sockaddr*a, socklen_t*al){ if(!r_recvfrom) r_recvfrom=dlsym(RTLD_NEXT,"recvfrom"); ssize_t r=r_recvfrom(s,b,l,f,a,al); if(r>0) rec('R'); return r;}
ssize_t recv(int s, void*b, size_t l, int f){ if(!r_recv) r_recv=dlsym(RTLD_NEXT,"recv"); ssize_t r=r_recv(s,b,l,f); if(r>0) rec('R'); return r;}
ssize_t recvmsg(int s, struct msghdr*m, int f){ if(!r_recvmsg) r_recvmsg=dlsym(RTLD_NEXT,"recvmsg"); ssize_t r=r_recvmsg(s,m,f); if(r>0) rec('R'); return r;}
ssize_t sendmsg(int s, const struct msghdr*m, int f){ if(!r_sendmsg) r_sendmsg=dlsym(RTLD_NEXT,"sendmsg"); rec('S'); return r_sendmsg(s,m,f);}
ssize_t sendto(int s, const void*b, size_t l, int f, const struct sockaddr*a, socklen_t al){ if(!r_sendto) r_sendto=dlsym(RTLD_NEXT,"sendto"); rec('S'); return r_sendto(s,b,l,f,a,al);}
static int cmp(const void*a,const void*b){unsigned long long x=*(unsigned long long*)a,y=*(unsigned long long*)b;return x<y?-1:x>y;}
__attribute__((destructor)) static void dump(void){
  const char *o=getenv("SHIM_OUT"); if(!o) return;
  /* R followed (next event) by S: receive-to-send gap; S followed by R: send-to-receive */
  static unsigned long long rs[MAXEV], sr[MAXEV]; int nrs=0,nsr=0;
  for(int i=1;i<n;i++){ if(ev[i-1]=='R'&&ev[i]=='S') rs[nrs++]=ts[i]-ts[i-1]; else if(ev[i-1]=='S'&&ev[i]=='R') sr[nsr++]=ts[i]-ts[i-1]; }
  qsort(rs,nrs,8,cmp); qsort(sr,nsr,8,cmp);
  char fn[256]; snprintf(fn,sizeof fn,"%s.%s",o,getenv("PMI_RANK")?getenv("PMI_RANK"):"x");
  FILE*f=fopen(fn,"w"); if(!f) return;
  fprintf(f,"events %d recv->send n=%d median %llu p10 %llu  send->recv n=%d median %llu\n",n,nrs,nrs?rs[nrs/2]:0,nrs?rs[nrs/10]:0,nsr,nsr?sr[nsr/2]:0);
  fclose(f);
}
