/* Replay of Notified Access traces (sim/trace-format.md) in SimGrid 3.32's SMPI.
 *
 * SimGrid's own actions (init, finalize, compute, send, recv, barrier, bcast,
 * reduce, allreduce) keep SimGrid's implementations; every na_ action is
 * registered here and played with SMPI's own MPI calls.  What each one
 * becomes on SMPI's simulated wire, and why, is in sim/README.md; the
 * comments below say why where the choice is not obvious.
 *
 * Run it through sim/replay.sh (smpirun -replay INDEX -no-privatize); it
 * prints, once every rank has finished,
 *     na-replay: ranks N start T0 end T1 time T1-T0
 * where T0 is the simulated time at which the traced region starts (after
 * the windows and communicators of the set-up exist) and T1 the time at
 * which the last rank reached its finalize. */
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <smpi/smpi.h>
#include <xbt/config.hpp>
#include <xbt/replay.hpp>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

XBT_LOG_NEW_DEFAULT_CATEGORY(na_replay, "Replay of Notified Access traces");

namespace {
using Action = simgrid::xbt::ReplayAction; // [0] rank, [1] name, [2...] arguments

/* The trace has no data and SMPI copies none while replaying (its copy
 * callback is a no-op for replaying actors), so every buffer is this one
 * scratch area: memory stays the same at 1,024 ranks.  Operations a rank
 * does on its own window are skipped (below), the only ones where SMPI
 * would memcpy for real. */
char scratch[64];

/* How many wildcard receives each rank keeps posted for notifications and
 * for flags (env NA_REPLAY_POOL): a notification that finds one posted
 * moves at once, as an RDMA write lands whatever the target is doing. */
int pool_depth = 32;

/* A pool of always-posted wildcard receives on a communicator of its own:
 * the target side of notified accesses and flags.  Arrivals the rank has
 * not consumed yet wait in `arrived`, as notifications wait in the
 * library's queue until a request matches them. */
struct Pool {
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<MPI_Request> posted; // a ring: identical wildcard receives
  size_t oldest = 0;               // complete in the order they were posted
  std::deque<std::pair<int, int>> arrived; // (source, tag) in completion order

  void open(MPI_Comm c)
  {
    comm = c;
    posted.resize(pool_depth);
    for (auto& r : posted)
      post(r);
  }
  void post(MPI_Request& r)
  {
    // the receiver cannot know the size: the largest count, nothing is copied
    MPI_Irecv(scratch, INT_MAX, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &r);
  }
  /* Block until a message from src (-1: any) with tag has arrived, and
   * consume it.  MPI matches an arrival with the first posted receive that
   * fits, and all of these fit: waiting for the oldest is waiting for the
   * next arrival, at a cost that does not grow with the pool. */
  void take(int src, int tag)
  {
    for (;;) {
      auto it = std::find_if(arrived.begin(), arrived.end(), [&](const std::pair<int, int>& a) {
        return (src < 0 || a.first == src) && a.second == tag;
      });
      if (it != arrived.end()) {
        arrived.erase(it);
        return;
      }
      MPI_Status st;
      MPI_Wait(&posted[oldest], &st);
      arrived.emplace_back(st.MPI_SOURCE, st.MPI_TAG);
      post(posted[oldest]);
      oldest = (oldest + 1) % posted.size();
    }
  }
  void close()
  {
    for (auto& r : posted) {
      MPI_Cancel(&r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
  }
};

struct Win {
  MPI_Win win = MPI_WIN_NULL;
  std::vector<char> dirty;                    // per target: an access not yet acknowledged
  std::vector<char> exclusive;                // per target: an exclusive lock held
  std::vector<std::vector<MPI_Request>> sent; // per target: notified puts and flags in flight
  std::vector<int> origins, targets;          // of the PSCW epochs open (post, start)
};

struct Rank {
  int me = 0, n = 0;
  bool started = false;
  bool notified_run = false;             // the previous action was an na_notified
  simgrid::s4u::ExecPtr spin;            // busy polling beside the current action
  std::unordered_map<std::string, bool> is_recv; // na_irecv IDs among reqs
  MPI_Comm notify_comm = MPI_COMM_NULL, flag_comm = MPI_COMM_NULL, pscw_comm = MPI_COMM_NULL;
  MPI_Comm coll_comm = MPI_COMM_NULL; // the collectives played as messages (with costs)
  Pool notify, flags;
  std::vector<Win> wins;
  int declared = 0; // na_win lines seen
  std::unordered_map<std::string, MPI_Request> reqs; // na_isend / na_irecv by ID
  size_t in_flight = 0;                              // requests in all Win::sent
};

/* Software costs (env NA_REPLAY_COSTS=FILE, key=value in seconds of this
 * machine's CPU, written by sim/costs.sh): what the library spends in the
 * calls themselves, which a platform without SMPI overheads (the clusters)
 * does not charge.  Each is charged as computation on the caller's core,
 * where the library spends it: the origin before its message leaves, the
 * target after the arrival was taken.  A key the file lacks costs nothing. */
std::unordered_map<std::string, double> costs;

void read_costs(const char* path)
{
  std::FILE* f = std::fopen(path, "r");
  if (f == nullptr)
    xbt_die("replay: cannot read NA_REPLAY_COSTS=%s", path);
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    char key[128];
    double v;
    if (line[0] == '#' || std::sscanf(line, " %127[a-z_] = %lf", key, &v) != 2)
      continue;
    if (v < 0)
      xbt_die("replay: negative cost %s in %s", key, path);
    costs[key] = v;
  }
  std::fclose(f);
}

// One process simulates every rank (smpirun -no-privatize): state by actor.
std::unordered_map<aid_t, Rank> ranks;
double region_start = std::numeric_limits<double>::infinity();
double region_end   = 0;
int finished        = 0;

Rank& self()
{
  return ranks[simgrid::s4u::this_actor::get_pid()];
}

[[noreturn]] void bad(const Action& a, const char* why)
{
  std::string line;
  for (auto const& w : a)
    line += w + " ";
  xbt_die("replay: %s: %s", why, line.c_str());
}

/* Spend the software cost `key` on this rank's core (1e9 flop/s is one
 * core of the tracing machine, as for compute).  The busy polling beside the
 * action pauses meanwhile: the rank computes, it does not poll. */
void charge(const char* key)
{
  auto it = costs.find(key);
  if (it == costs.end() || it->second <= 0)
    return;
  auto& r = self();
  if (r.spin)
    r.spin->suspend();
  simgrid::s4u::this_actor::execute(it->second * 1e9);
  if (r.spin)
    r.spin->resume();
}

int arg_int(const Action& a, size_t i)
{
  if (i >= a.size())
    bad(a, "missing argument");
  char* end;
  long v = std::strtol(a[i].c_str(), &end, 10);
  if (*end != '\0' || v < INT_MIN || v > INT_MAX)
    bad(a, "not an int argument");
  return static_cast<int>(v);
}

Win& win_of(const Action& a)
{
  int w = arg_int(a, 2);
  auto& r = self();
  if (w < 0 || w >= static_cast<int>(r.wins.size()))
    bad(a, "window not declared (no na_win line for it)");
  return r.wins[w];
}

int target_of(const Action& a, size_t i)
{
  int p = arg_int(a, i);
  if (p < 0 || p >= self().n)
    bad(a, "rank out of range");
  return p;
}

/* The region starts at the first action that is not set-up (init, na_win):
 * window creation and communicator duplication are collective and take
 * simulated time in SMPI that the traced run spent before the region. */
void begin_region()
{
  auto& r = self();
  if (r.started)
    return;
  r.started    = true;
  region_start = std::min(region_start, simgrid::s4u::Engine::get_clock());
}

/* --- wire legs: a 0-byte message, with SMPI's own one-sided calls ---------
 * SMPI completes an MPI_Put when its data has arrived (MPI_Win_flush waits
 * for the target's side of the transfer) and an MPI_Get when the data is
 * back, and models neither the acknowledgement of a put nor the request of a
 * get.  A real flush waits for the target's answer.  So one extra message
 * from the target, a 0-byte MPI_Get followed by a flush, stands for the
 * acknowledgement (and for a get's request: the same latency, once). */
void leg_from(Win& w, int p)
{
  MPI_Get(scratch, 0, MPI_BYTE, p, 0, 0, MPI_BYTE, w.win);
  MPI_Win_flush(p, w.win);
}
void leg_to(Win& w, int p)
{
  MPI_Put(scratch, 0, MPI_BYTE, p, 0, 0, MPI_BYTE, w.win);
  MPI_Win_flush(p, w.win);
}

/* Whether remote completion costs the target's answer.  On a network it
 * does (MPICH's flush waits for the target's acknowledgement).  On a node,
 * MPICH's shared-memory module has the origin write the data itself: once
 * the data is there, the origin knows, and a flush costs no message; the
 * platform says so with the host property rma_answer="0" (local.xml). */
bool rma_answer()
{
  const char* p = simgrid::s4u::this_actor::get_host()->get_property("rma_answer");
  return p == nullptr || std::string(p) != "0";
}

/* Remote completion of everything this rank issued to p on w. */
void complete(Win& w, int p, bool force_answer)
{
  auto& r  = self();
  charge("flush_idle");
  auto& in = w.sent[p];
  if (not in.empty()) {
    MPI_Waitall(static_cast<int>(in.size()), in.data(), MPI_STATUSES_IGNORE);
    r.in_flight -= in.size();
    in.clear();
  }
  MPI_Win_flush(p, w.win);
  if ((w.dirty[p] || force_answer) && rma_answer())
    leg_from(w, p);
  w.dirty[p] = 0;
}

/* Keep the notified puts and flags in flight (their MPI_Issend requests,
 * waited for only by a flush) from growing without bound: every 1,024,
 * forget those already delivered.  MPI_Testsome costs no simulated time
 * with smpi/test:0, which sim/replay.sh sets. */
void remember(Win& w, int p, MPI_Request req)
{
  auto& r = self();
  w.sent[p].push_back(req);
  if (++r.in_flight % 1024 != 0)
    return;
  r.in_flight = 0;
  for (auto& win : r.wins)
    for (auto& in : win.sent) {
      std::vector<int> idx(in.size());
      int done = 0;
      if (not in.empty())
        MPI_Testsome(static_cast<int>(in.size()), in.data(), &done, idx.data(), MPI_STATUSES_IGNORE);
      in.erase(std::remove(in.begin(), in.end(), MPI_REQUEST_NULL), in.end());
      r.in_flight += in.size();
    }
}

/* A notified put or a flag: ONE message of the access's size, which the
 * origin never waits for (it is waited for only by a flush, an unlock, a
 * fence or a complete, as the access is).  MPI_Issend rather than
 * MPI_Isend: SMPI detaches small sends, and a detached send cannot be waited
 * for, while the flush needs to know when it arrived.  It moves at once
 * because the target keeps wildcard receives posted (Pool). */
void carry(Win& w, int p, int size, int tag, MPI_Comm comm)
{
  MPI_Request req;
  MPI_Issend(scratch, size, MPI_BYTE, p, tag, comm, &req);
  remember(w, p, req);
  w.dirty[p] = 1;
}

// --- the actions ------------------------------------------------------------

/* Windows are made before the replay starts (make_windows): here, only
 * check that the trace declares them in order. */
void na_win(Action& a)
{
  auto& r = self();
  int w   = arg_int(a, 2);
  if (w != r.declared || w >= static_cast<int>(r.wins.size()))
    bad(a, "na_win out of order (windows are declared 0, 1, ...)");
  r.declared++;
}

void na_isend(Action& a)
{
  auto& r = self();
  MPI_Request req;
  charge("send_origin");
  MPI_Isend(scratch, arg_int(a, 4), MPI_BYTE, target_of(a, 2), arg_int(a, 3), MPI_COMM_WORLD, &req);
  if (a.size() < 6 || not r.reqs.emplace(a[5], req).second)
    bad(a, "missing or duplicate request ID");
}

void na_irecv(Action& a)
{
  auto& r = self();
  MPI_Request req;
  charge("recv_complete");
  MPI_Irecv(scratch, arg_int(a, 4), MPI_BYTE, target_of(a, 2), arg_int(a, 3), MPI_COMM_WORLD, &req);
  if (a.size() < 6 || not r.reqs.emplace(a[5], req).second)
    bad(a, "missing or duplicate request ID");
  r.is_recv[a[5]] = true;
}

void na_wait(Action& a)
{
  auto& r = self();
  auto it = a.size() > 2 ? r.reqs.find(a[2]) : r.reqs.end();
  if (it == r.reqs.end())
    bad(a, "no na_isend/na_irecv with this ID");
  MPI_Wait(&it->second, MPI_STATUS_IGNORE);
  auto recv = r.is_recv.find(a[2]);
  if (recv != r.is_recv.end()) {
    charge("recv_match");
    r.is_recv.erase(recv);
  } else {
    charge("send_wait");
  }
  r.reqs.erase(it);
}

/* Put, get, accumulate and fetch-and-op: SMPI's MPI_Put / MPI_Get, the
 * data moving at once (SMPI's one-sided transfers are eager).  An access to
 * the rank's own window moves nothing on the wire and is skipped.
 * Accumulate is played as a put of the same size: SMPI's MPI_Accumulate
 * flushes after every call (an ordering workaround of SMPI's), which
 * MPICH's does not, and applies the operation to real memory.
 * Fetch-and-op / compare-and-swap / get_accumulate: a get of SIZE (the
 * answer), its request leg added by the next flush as for every get. */
void na_put(Action& a)
{
  Win& w = win_of(a);
  int p = target_of(a, 3), size = arg_int(a, 4);
  if (p == self().me)
    return;
  charge("put_origin");
  MPI_Put(scratch, size, MPI_BYTE, p, 0, size, MPI_BYTE, w.win);
  w.dirty[p] = 1;
}

void na_get(Action& a)
{
  Win& w = win_of(a);
  int p = target_of(a, 3), size = arg_int(a, 4);
  if (p == self().me)
    return;
  charge("put_origin");
  MPI_Get(scratch, size, MPI_BYTE, p, 0, size, MPI_BYTE, w.win);
  w.dirty[p] = 1;
}

void na_flush(Action& a)
{
  Win& w = win_of(a);
  int p = target_of(a, 3);
  if (p != self().me)
    complete(w, p, false);
  else if (not w.sent[p].empty()) // notifications to oneself
    complete(w, p, false);
}

/* flush_all: every target's acknowledgement comes back in parallel */
void na_flush_all(Action& a)
{
  auto& r = self();
  Win& w  = win_of(a);
  std::vector<int> answer;
  charge("flush_idle");
  for (int p = 0; p < r.n; p++) {
    auto& in = w.sent[p];
    if (not in.empty()) {
      MPI_Waitall(static_cast<int>(in.size()), in.data(), MPI_STATUSES_IGNORE);
      r.in_flight -= in.size();
      in.clear();
    }
    if (w.dirty[p] && p != r.me)
      answer.push_back(p);
    w.dirty[p] = 0;
  }
  MPI_Win_flush_all(w.win);
  if (not rma_answer())
    answer.clear();
  for (int p : answer)
    MPI_Get(scratch, 0, MPI_BYTE, p, 0, 0, MPI_BYTE, w.win);
  if (not answer.empty())
    MPI_Win_flush_all(w.win);
}

/* Locks: SMPI's MPI_Win_lock moves no message (an exclusive one is a mutex
 * at the target, used below to serialise exclusive holders).  MPICH acquires a
 * lock with a request and a grant (a round trip) and releases it with an
 * unlock request, sent behind the accesses, and the target's answer.
 * lock_all is taken lazily (no message); unlock_all is a flush_all. */
void na_lock(Action& a)
{
  Win& w = win_of(a);
  int p = target_of(a, 3);
  // na_lock W P shared|exclusive (sim/trace-format.md).  An
  // exclusive lock is also SMPI's MPI_Win_lock, a simulated mutex at the
  // target: the next exclusive origin waits until MPI_Win_unlock.
  if (a.size() > 4 && a[4] != "shared" && a[4] != "exclusive")
    bad(a, "lock type is shared or exclusive");
  if (a.size() > 4 && a[4] == "exclusive") {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, p, 0, w.win);
    w.exclusive[p] = 1;
  }
  if (p == self().me || not rma_answer()) // on a node: an atomic in shared memory
    return;
  leg_to(w, p);
  leg_from(w, p);
}

void na_unlock(Action& a)
{
  Win& w = win_of(a);
  int p = target_of(a, 3);
  if (p != self().me) {
    // the unlock request leaves now, behind the accesses still in flight
    if (rma_answer())
      MPI_Put(scratch, 0, MPI_BYTE, p, 0, 0, MPI_BYTE, w.win);
    complete(w, p, true);
  }
  if (w.exclusive[p]) {
    MPI_Win_unlock(p, w.win);
    w.exclusive[p] = 0;
  }
}

void na_lock_all(Action& a)
{
  win_of(a);
}

void wait_all_sent(Win& w)
{
  auto& r = self();
  for (auto& in : w.sent) {
    if (not in.empty())
      MPI_Waitall(static_cast<int>(in.size()), in.data(), MPI_STATUSES_IGNORE);
    r.in_flight -= in.size();
    in.clear();
  }
}

/* Fence: SMPI's own (a barrier, completion, a barrier).  Notified
 * accesses in the epoch are completed first, as the epoch's end completes
 * them. */
void na_fence(Action& a)
{
  Win& w = win_of(a);
  wait_all_sent(w);
  MPI_Win_fence(0, w.win);
  std::fill(w.dirty.begin(), w.dirty.end(), 0);
}

std::vector<int> group_of(const Action& a)
{
  if (a.size() < 4)
    bad(a, "missing group");
  std::vector<int> members;
  std::string list = a[3];
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0 || v >= self().n)
      bad(a, "bad group member");
    members.push_back(static_cast<int>(v));
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return members;
}

/* PSCW, with the messages SMPI's own MPI_Win_post/start/complete/wait send
 * (a 0-byte message from each target to each origin at post, and from each
 * origin to each target at complete), on a communicator of their own:
 * SMPI 3.32's calls refuse the replay's accesses after a start (MPI_Put
 * returns MPI_ERR_WIN), and the window stays open for them anyway.  The
 * target's wait ends when every origin's "done" has come and the data has
 * landed (MPI_Win_flush_local_all at the target waits for what SMPI moves
 * into its window). */
void na_post(Action& a)
{
  Win& w = win_of(a);
  for (int p : group_of(a))
    if (p != self().me) {
      MPI_Request req;
      MPI_Isend(scratch, 0, MPI_BYTE, p, 2 * arg_int(a, 2), self().pscw_comm, &req);
      MPI_Request_free(&req); // detached: nothing to wait for
    }
  w.origins = group_of(a);
}

void na_start(Action& a)
{
  Win& w = win_of(a);
  w.targets = group_of(a);
  for (int p : w.targets)
    if (p != self().me)
      MPI_Recv(scratch, 0, MPI_BYTE, p, 2 * arg_int(a, 2), self().pscw_comm, MPI_STATUS_IGNORE);
}

void na_complete(Action& a)
{
  Win& w = win_of(a);
  wait_all_sent(w);
  for (int p : w.targets)
    if (p != self().me) {
      MPI_Request req;
      MPI_Isend(scratch, 0, MPI_BYTE, p, 2 * arg_int(a, 2) + 1, self().pscw_comm, &req);
      MPI_Request_free(&req);
    }
  w.targets.clear();
  std::fill(w.dirty.begin(), w.dirty.end(), 0);
}

void na_winwait(Action& a)
{
  Win& w = win_of(a);
  for (int p : w.origins)
    if (p != self().me)
      MPI_Recv(scratch, 0, MPI_BYTE, p, 2 * arg_int(a, 2) + 1, self().pscw_comm, MPI_STATUS_IGNORE);
  MPI_Win_flush_local_all(w.win);
  w.origins.clear();
}

void na_put_notify(Action& a)
{
  Win& w = win_of(a);
  charge("notify_origin");
  carry(w, target_of(a, 3), arg_int(a, 5), arg_int(a, 4), self().notify_comm);
}

/* A get whose target is told: the request leg carries the notification (a
 * 0-byte message, which the target counts when it arrives), the data comes
 * back with SMPI's MPI_Get. */
void na_get_notify(Action& a)
{
  Win& w = win_of(a);
  int p = target_of(a, 3), tag = arg_int(a, 4), size = arg_int(a, 5);
  charge("notify_origin");
  carry(w, p, 0, tag, self().notify_comm);
  if (p != self().me)
    MPI_Get(scratch, size, MPI_BYTE, p, 0, size, MPI_BYTE, w.win);
}

/* Matching is paid per notification; completion (MPI_Start and the test
 * that returns) once per request: the notifications one request counted
 * are consecutive lines, one request's. */
void na_notified(Action& a)
{
  auto& r = self();
  r.notify.take(target_of(a, 2), arg_int(a, 3));
  charge("notify_match");
  if (not r.notified_run)
    charge("notify_complete");
}

/* A put into a "flags" window: one message as for a notified put, tagged
 * with the window, which the target's spin (na_flagwait) takes in arrival
 * order from any source. */
void na_flag(Action& a)
{
  Win& w = win_of(a);
  charge("put_origin");
  carry(w, target_of(a, 3), arg_int(a, 4), arg_int(a, 2), self().flag_comm);
}

void na_flagwait(Action& a)
{
  win_of(a);
  self().flags.take(-1, arg_int(a, 2));
  charge("sync");
}

// --- set-up and end -----------------------------------------------------------

action_fun simgrid_init, simgrid_finalize;

void init(Action& a)
{
  simgrid_init(a);
}

void finalize(Action& a)
{
  begin_region();
  auto& r = self();
  for (auto& w : r.wins)
    wait_all_sent(w); // the notified accesses and flags still in flight land
  region_end = std::max(region_end, simgrid::s4u::Engine::get_clock());
  // MPI_Finalize synchronises: no rank's process goes away while another may
  // still reach its window (SMPI's one-sided calls need the target alive)
  MPI_Barrier(MPI_COMM_WORLD);
  if (not r.reqs.empty())
    XBT_WARN("rank %d: %zu na_isend/na_irecv never waited for", r.me, r.reqs.size());
  if (not r.notify.arrived.empty() || not r.flags.arrived.empty())
    XBT_WARN("rank %d: %zu notifications and %zu flags arrived but never taken", r.me, r.notify.arrived.size(),
             r.flags.arrived.size());
  r.notify.close();
  r.flags.close();
  if (++finished == r.n)
    std::printf("na-replay: ranks %d start %.9f end %.9f time %.9f\n", r.n, region_start, region_end,
                region_end - region_start);
  std::fflush(stdout);
  simgrid_finalize(a);
}

/* Busy polling.  MPICH waits by spinning in its progress engine, so on a
 * host with more ranks than cores a rank inside MPI takes its share of a
 * core from the ranks that compute there (4 ranks on 2 cores: each computes
 * at half speed, whoever waits).  On a host whose platform sets the
 * property busy_poll="1", every action but compute runs next to an endless
 * execution of its own, cancelled when the action ends: SimGrid's CPU
 * sharing then divides the cores among computing and waiting ranks alike.
 * Where ranks <= cores it changes nothing. */
bool busy_poll()
{
  const char* p = simgrid::s4u::this_actor::get_host()->get_property("busy_poll");
  return p != nullptr && std::string(p) == "1";
}

/* Every action but init and na_win belongs to the region. */
action_fun in_region(action_fun f, bool spins = true)
{
  return [f, spins](Action& a) {
    begin_region();
    auto& r  = self();
    double t = simgrid::s4u::Engine::get_clock();
    if (spins && busy_poll())
      r.spin = simgrid::s4u::this_actor::exec_init(1e30)->set_name("poll")->start();
    f(a);
    if (r.spin)
      r.spin->cancel();
    r.spin         = nullptr;
    r.notified_run = a[1] == "na_notified";
    if (XBT_LOG_ISENABLED(na_replay, xbt_log_priority_debug))
      XBT_DEBUG("%s %s: %.9f s", a[1].c_str(), a.size() > 2 ? a[2].c_str() : "", simgrid::s4u::Engine::get_clock() - t);
  };
}

/* Every rank's smpi_replay_init registers SimGrid's actions again, over
 * these: each rank registers them after its own, wrapping SimGrid's
 * functions as they were first found. */
std::map<std::string, action_fun> simgrid_own;

/* SimGrid's blocking send and receive, with the software costs of the
 * nonblocking calls they are made of in MPICH. */
void send_costed(Action& a)
{
  charge("send_origin");
  simgrid_own["send"](a);
  charge("send_wait");
}
void recv_costed(Action& a)
{
  charge("recv_complete");
  simgrid_own["recv"](a);
  charge("recv_match");
}

/* With software costs, the collectives the applications use are played as
 * MPICH's algorithms for small messages, message by message, so that each
 * message pays its costs as the notified and two-sided ones do: a barrier
 * by dissemination (log2 N rounds of one send and one receive), a reduce
 * by a binomial tree to the root.  Without costs, SimGrid's own. */
void costed_send(int to, int size)
{
  charge("send_origin");
  MPI_Send(scratch, size, MPI_BYTE, to, 0, self().coll_comm);
  charge("send_wait");
}
void costed_recv(int from, int size)
{
  charge("recv_complete");
  MPI_Recv(scratch, size, MPI_BYTE, from, 0, self().coll_comm, MPI_STATUS_IGNORE);
  charge("recv_match");
}

void barrier_costed(Action& a)
{
  if (costs.empty())
    return simgrid_own["barrier"](a);
  auto& r = self();
  for (int k = 1; k < r.n; k *= 2) {
    MPI_Request req;
    charge("send_origin");
    MPI_Isend(scratch, 0, MPI_BYTE, (r.me + k) % r.n, 0, r.coll_comm, &req);
    costed_recv((r.me - k + r.n) % r.n, 0);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    charge("send_wait");
  }
}

void reduce_costed(Action& a)
{
  if (costs.empty())
    return simgrid_own["reduce"](a);
  auto& r  = self();
  int size = arg_int(a, 2), root = arg_int(a, 4);
  if (root < 0 || root >= r.n)
    bad(a, "root out of range");
  int v = (r.me - root + r.n) % r.n; // rank relative to the root
  for (int mask = 1; mask < r.n; mask *= 2) {
    if (v & mask) {
      costed_send((v - mask + root) % r.n, size);
      break;
    }
    if (v + mask < r.n)
      costed_recv((v + mask + root) % r.n, size);
  }
}

void register_actions()
{
  const char* own[] = {"init", "finalize", "compute", "send", "recv", "barrier", "bcast", "reduce", "allreduce"};
  if (simgrid_own.empty())
    for (const char* name : own)
      simgrid_own[name] = xbt_replay_action_get(name);
  simgrid_init     = simgrid_own["init"];
  simgrid_finalize = simgrid_own["finalize"];
  xbt_replay_action_register("init", init);
  xbt_replay_action_register("finalize", finalize);
  xbt_replay_action_register("na_win", na_win); // not a region start: set-up
  for (const char* name : own)
    if (std::string(name) != "init" && std::string(name) != "finalize")
      xbt_replay_action_register(name, in_region(simgrid_own[name], std::string(name) != "compute"));
  xbt_replay_action_register("send", in_region(send_costed));
  xbt_replay_action_register("recv", in_region(recv_costed));
  xbt_replay_action_register("barrier", in_region(barrier_costed));
  xbt_replay_action_register("reduce", in_region(reduce_costed));
  const std::map<std::string, void (*)(Action&)> mine = {
      {"na_isend", na_isend},         {"na_irecv", na_irecv},           {"na_wait", na_wait},
      {"na_put", na_put},             {"na_get", na_get},               {"na_acc", na_put},
      {"na_fop", na_get},             {"na_flush", na_flush},           {"na_flush_all", na_flush_all},
      {"na_lock", na_lock},           {"na_unlock", na_unlock},         {"na_lock_all", na_lock_all},
      {"na_unlock_all", na_flush_all}, {"na_fence", na_fence},          {"na_post", na_post},
      {"na_start", na_start},         {"na_complete", na_complete},     {"na_winwait", na_winwait},
      {"na_put_notify", na_put_notify}, {"na_get_notify", na_get_notify}, {"na_notified", na_notified},
      {"na_flag", na_flag},           {"na_flagwait", na_flagwait},
  };
  for (auto const& [name, f] : mine)
    xbt_replay_action_register(name.c_str(), in_region(f));
}

/* The set-up the region starts with, made while SMPI still moves real data:
 * SMPI's MPI_Win_create exchanges the windows' addresses with an allgather,
 * and once an actor replays, SMPI copies no message's data (its replay has
 * no one-sided calls), so a window made then points at nothing.  Hence
 * MPI_Init, the windows, and only then smpi_replay_init.  The number of
 * windows is that of the trace's na_win lines (all at its head today, see
 * sim/trace-format.md; one made later in the region would be made here too,
 * as every rank declares the same ones). */
void make_windows(const std::string& path)
{
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr)
    xbt_die("replay: cannot read %s", path.c_str());
  int nwin = 0;
  char line[4096]; // the longest lines, PSCW groups, may be cut: never na_win
  while (std::fgets(line, sizeof line, f)) {
    char name[64];
    if (std::sscanf(line, "%*s %63s", name) == 1 && std::string(name) == "na_win")
      nwin++;
  }
  std::fclose(f);

  auto& r = self();
  MPI_Comm_rank(MPI_COMM_WORLD, &r.me);
  MPI_Comm_size(MPI_COMM_WORLD, &r.n);
  MPI_Comm_dup(MPI_COMM_WORLD, &r.notify_comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &r.flag_comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &r.pscw_comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &r.coll_comm);
  // posted before the windows are made, so before any rank can notify
  r.notify.open(r.notify_comm);
  r.flags.open(r.flag_comm);
  for (int i = 0; i < nwin; i++) {
    Win w;
    // nothing is written into a window while replaying: declare it as large
    // as any access, on the scratch area
    MPI_Win_create(scratch, std::numeric_limits<MPI_Aint>::max() / 2, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
    // The region may begin inside an epoch the trace did not record: open
    // one for the whole replay, so that SMPI accepts every access.  A fence
    // (two barriers) rather than MPI_Win_lock_all, whose n locks and flushes
    // per rank take minutes of simulation at 1,024 ranks.  The only epoch
    // call the replay makes afterwards is MPI_Win_fence, which keeps it
    // open; locks and PSCW are modelled by their messages (na_lock, na_post).
    MPI_Win_fence(0, w.win);
    w.dirty.assign(r.n, 0);
    w.exclusive.assign(r.n, 0);
    w.sent.resize(r.n);
    r.wins.push_back(std::move(w));
  }
}

/* smpirun gives each rank the path written in the index file; the format
 * makes it relative to the index's directory, SimGrid to the working one. */
std::string trace_path(const char* given)
{
  if (given == nullptr || given[0] == '/')
    return given ? given : "";
  std::string index = simgrid::config::get_value<std::string>("smpi/replay");
  size_t slash      = index.rfind('/');
  return slash == std::string::npos ? given : index.substr(0, slash + 1) + given;
}
} // namespace

int main(int argc, char* argv[])
{
  auto* actor = simgrid::s4u::Actor::self();
  if (actor == nullptr || actor->get_property("rank") == nullptr)
    xbt_die("run this program with smpirun -replay (sim/replay.sh)");
  if (const char* depth = std::getenv("NA_REPLAY_POOL"))
    pool_depth = std::max(1, std::atoi(depth));
  if (const char* file = std::getenv("NA_REPLAY_COSTS"); file != nullptr && *file != '\0' && costs.empty())
    read_costs(file);
  if (argc < 2)
    xbt_die("one trace file per rank: the index must list them (sim/trace-format.md)");
  const int rank   = std::stoi(actor->get_property("rank"));
  std::string path = trace_path(argv[1]);
  MPI_Init(&argc, &argv);
  make_windows(path);
  smpi_replay_init(actor->get_property("instance_id"), rank, 0);
  register_actions();
  smpi_replay_main(rank, path.c_str());
  return 0;
}
