#define _GNU_SOURCE
/* In-process A/B on the reply's critical path: at every message arrival
 * (a recv returning data) set the library's int AB_SYMBOL to 0 or 1 in
 * turn (ABSHIM_PERIOD arrivals each), and time arrival -> next send with
 * the TSC; at exit print the median per variant. */
#include <dlfcn.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#define MAXN 400000
static unsigned long long t0, d[2][MAXN]; static int nd[2], cur, on; static long arrivals; static int *flag; static int period = 1;
static ssize_t (*r_recvfrom)(int, void*, size_t, int, struct sockaddr*, socklen_t*);
static ssize_t (*r_sendmsg)(int, const struct msghdr*, int);
static ssize_t (*r_sendto)(int, const void*, size_t, int, const struct sockaddr*, socklen_t);
static ssize_t (*r_recv)(int, void*, size_t, int);
static ssize_t (*r_recvmsg)(int, struct msghdr*, int);
static void arrive(void){
  if(on) return;
  if(!flag){ const char*s=getenv("AB_SYMBOL"); if(s) flag=dlsym(RTLD_DEFAULT,s); const char*p=getenv("ABSHIM_PERIOD"); if(p) period=atoi(p); if(!flag){ static int w; if(!w++) fprintf(stderr,"abshim: no symbol %s\n", s?s:"(unset)"); return; } }
  cur = (int)((arrivals++ / period) & 1); *flag = cur; on = 1; t0 = __rdtsc();
}
static void depart(void){ if(on){ unsigned long long t=__rdtsc()-t0; if(nd[cur]<MAXN) d[cur][nd[cur]++]=t; on=0; } }
ssize_t recvfrom(int s, void*b, size_t l, int f, struct sockaddr*a, socklen_t*al){ if(!r_recvfrom) r_recvfrom=dlsym(RTLD_NEXT,"recvfrom"); ssize_t r=r_recvfrom(s,b,l,f,a,al); if(r>0) arrive(); return r;}
ssize_t recv(int s, void*b, size_t l, int f){ if(!r_recv) r_recv=dlsym(RTLD_NEXT,"recv"); ssize_t r=r_recv(s,b,l,f); if(r>0) arrive(); return r;}
ssize_t recvmsg(int s, struct msghdr*m, int f){ if(!r_recvmsg) r_recvmsg=dlsym(RTLD_NEXT,"recvmsg"); ssize_t r=r_recvmsg(s,m,f); if(r>0) arrive(); return r;}
ssize_t sendmsg(int s, const struct msghdr*m, int f){ if(!r_sendmsg) r_sendmsg=dlsym(RTLD_NEXT,"sendmsg"); depart(); return r_sendmsg(s,m,f);}
ssize_t sendto(int s, const void*b, size_t l, int f, const struct sockaddr*a, socklen_t al){ if(!r_sendto) r_sendto=dlsym(RTLD_NEXT,"sendto"); depart(); return r_sendto(s,b,l,f,a,al);}
static int cmp(const void*a,const void*b){unsigned long long x=*(unsigned long long*)a,y=*(unsigned long long*)b;return x<y?-1:x>y;}
__attribute__((destructor)) static void fin(void){
  const char*o=getenv("ABSHIM_OUT"); if(!o) return;
  char fn[256]; snprintf(fn,sizeof fn,"%s.%s",o,getenv("PMI_RANK")?getenv("PMI_RANK"):"x"); FILE*f=fopen(fn,"w"); if(!f) return;
  for(int v=0;v<2;v++){ qsort(d[v],nd[v],8,cmp); fprintf(f,"variant %d (%s=%d): n %d median %llu p25 %llu p10 %llu cycles\n", v, getenv("AB_SYMBOL"), v, nd[v], nd[v]?d[v][nd[v]/2]:0, nd[v]?d[v][nd[v]/4]:0, nd[v]?d[v][nd[v]/10]:0); }
  fclose(f);
}
