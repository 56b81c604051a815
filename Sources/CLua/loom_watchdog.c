// The time budget's watchdog: a thread that watches the calls into Lua of every thread and stops
// the ones that ran out of time. See loom_budget.c for what happens once a call is stopped.
//
// Why: Lua 5.4 sends every VM instruction through luaG_traceexec while a count hook is set, even
// one that fires every 1,000 instructions: a standing count hook made all plugin Lua 2.2-2.4x
// slower (`lua5.4` alone, `debug.sethook(f, "", 1000)`). So no hook is set while Lua runs within
// its budget; instead:
//
// - Each OS thread that calls into a state with a time limit has a slot (registered once, kept
//   for the thread's life and reused after it; the watchdog's signal is unblocked on it then)
//   where the outer call (loom_pcall entered from the
//   host) publishes a call id, its budget and what is left of its state's total, and the Lua
//   thread running now (`current`: the state's main thread, or the coroutine that
//   coroutine.resume / wrap / close is running; see loom_track_enter). A call costs a few stores
//   and loads and no clock read.
// - The watchdog ticks every millisecond. The first tick that sees a call running notes the
//   time (`seen_at`) and the thread's CPU time: the call has run at least the CPU time the
//   thread used since (so a thread that waits for a core is not charged for others' time). When that passes the
//   call's budget or what is left of the total, it records the call as stopped (`fired_call`,
//   `fired_kind`) and sends the thread a signal (a free real-time signal, SA_RESTART), again
//   after 4 ms, 8, 16, ... (at most 128) while the call goes on. The handler, on the thread running Lua, arms the count hook on `current` to
//   fire at the next instruction (`lua_sethook` is safe in a signal handler: ldebug.c, and lua.c
//   stops scripts on SIGINT the same way); the hook raises the limit error and the existing
//   logic (loom_budget.c) keeps raising it until the host call returns. C functions that run
//   long (patterns, string.rep, table.sort, ...) read the same record in loom_check_budget.
// - A signal is sent only to a thread whose slot shows the call still running (checked under the
//   registry lock, which a thread's exit takes too, so the thread exists), and the handler checks
//   again: it does nothing unless its thread is still inside the stopped call. Host code on that
//   thread never sees a signal except in the microseconds between that check and the delivery
//   when the call has just returned; SA_RESTART restarts the system calls it could interrupt.
// - Total time is charged by the watchdog's sightings: a call seen at two ticks (so it ran at
//   least a tick) is charged, when it returns, from its first sighting to its return (one clock
//   read). A call shorter than a tick adds nothing, as a call that did not reach the old count
//   hook's first check added nothing.
// - After a second without any call the watchdog ticks every 100 ms and the next call wakes it;
//   an idle host costs ten wake-ups a second.
//
// A call is thus stopped between its budget and its budget plus a tick (plus the watchdog's
// scheduling delay on a loaded machine); it used to be stopped at the first check, 1,000
// instructions, past it.
#include "loom_internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>

#define LOOM_TICK_NS 1000000LL           // 1 ms while calls run
#define LOOM_IDLE_TICKS 1000             // ticks without a call before the watchdog dozes
#define LOOM_DOZE_NS 100000000LL         // 100 ms between looks while dozing
#define LOOM_RESIGNAL_NS 4000000LL       // a stopped call still running is signalled again after 4 ms,
#define LOOM_RESIGNAL_MAX_NS 128000000LL // then 8, 16, ... up to 128 ms

_Thread_local loom_slot *loom_tls_slot = NULL;

static pthread_mutex_t wd_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wd_cond;
static loom_slot **wd_slots = NULL;     // every slot ever made (never freed: reused)
static int wd_count = 0, wd_cap = 0;
static pthread_key_t wd_key;
static int wd_signal = 0;
static int wd_ok = 0;
static pthread_once_t wd_once = PTHREAD_ONCE_INIT;
_Atomic int loom_wd_dozing = 0;

// ---------------------------------------------------------------------------------------------
// The signal handler: runs on the thread the watchdog signalled.

static void on_signal(int sig) {
    (void)sig;
    int saved = errno;
    loom_slot *s = loom_tls_slot;
    if (s != NULL) {
        uint64_t call = atomic_load_explicit(&s->call, memory_order_relaxed);
        if (call != 0 && atomic_load_explicit(&s->fired_call, memory_order_relaxed) == call) {
            lua_State *L = atomic_load_explicit(&s->current, memory_order_relaxed);
            if (L != NULL) lua_sethook(L, loom_hook, loom_hook_mask(loom_limits_from(L)), 1);
        }
    }
    errno = saved;
}

// ---------------------------------------------------------------------------------------------
// The watchdog thread.

// The CPU time the slot's thread has used, or -1 when it has no CPU clock. Called under
// wd_mutex, which a thread's exit takes too: the thread (and its clock) exist.
static int64_t thread_cpu_ns(loom_slot *s) {
    if (!s->cpu_ok) return -1;
    struct timespec ts;
    if (clock_gettime(s->cpu_clock, &ts) != 0) return -1;
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void watch_slot(loom_slot *s, int64_t now, int *busy) {
    uint64_t call = atomic_load_explicit(&s->call, memory_order_acquire);
    if (call == 0) return;
    *busy = 1;
    int64_t budget = atomic_load_explicit(&s->budget_ns, memory_order_relaxed);
    int64_t left = atomic_load_explicit(&s->total_left_ns, memory_order_relaxed);
    if (atomic_load_explicit(&s->seen_call, memory_order_relaxed) != call) {
        // First sighting. seen_call is published before seen_at changes (the release fence), so
        // a thread that reads the new seen_at also reads the new seen_call (loom_watch_end).
        atomic_store_explicit(&s->seen_call, call, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&s->seen_at_ns, now, memory_order_relaxed);
        s->seen_cpu_ns = thread_cpu_ns(s);
        return;
    }
    // What the call ran is the thread's CPU time since the first sighting (wall time when the
    // thread has no CPU clock): a thread waiting for a core (256 workers on 2 cores) is not
    // running Lua, and must not be stopped for the time others ran.
    int64_t cpu = thread_cpu_ns(s);
    int64_t ran = cpu >= 0 && s->seen_cpu_ns >= 0 ? cpu - s->seen_cpu_ns
                                                  : now - atomic_load_explicit(&s->seen_at_ns, memory_order_relaxed);
    if (atomic_load_explicit(&s->confirmed_call, memory_order_relaxed) != call)
        atomic_store_explicit(&s->confirmed_call, call, memory_order_release);
    int kind = 0;
    if (left != INT64_MAX && ran > left) kind = LOOM_EXCEEDED_TOTAL_TIME;
    else if (budget > 0 && ran > budget) kind = LOOM_EXCEEDED_TIME;
    if (kind == 0) return;
    if (atomic_load_explicit(&s->fired_call, memory_order_relaxed) != call) {
        atomic_store_explicit(&s->fired_kind, kind, memory_order_relaxed);
        atomic_store_explicit(&s->fired_call, call, memory_order_release);
    }
    // Signalled again while the call runs on (the signal may have armed a thread that stopped
    // running meanwhile: a coroutine that yielded), at growing intervals: arming walks the whole
    // call stack (settraps), and a deep one (a runaway recursion whose error handler is writing
    // its traceback) must not spend all its time in the handler.
    if (s->signalled_call == call && now - s->signalled_at_ns < s->signal_gap_ns) return;
    if (s->signalled_call != call) {
        s->signalled_call = call;
        s->signal_gap_ns = LOOM_RESIGNAL_NS;
    } else if (s->signal_gap_ns < LOOM_RESIGNAL_MAX_NS) {
        s->signal_gap_ns *= 2;
    }
    s->signalled_at_ns = now;
    // Only while the call still runs (the thread is alive: its exit takes wd_mutex, held here).
    if (atomic_load_explicit(&s->call, memory_order_acquire) == call) pthread_kill(s->thread, wd_signal);
}

static void *watchdog_main(void *arg) {
    (void)arg;
    int idle = 0;
    for (;;) {
        if (atomic_load_explicit(&loom_wd_dozing, memory_order_relaxed)) {
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_nsec += LOOM_DOZE_NS;
            if (until.tv_nsec >= 1000000000L) { until.tv_sec += 1; until.tv_nsec -= 1000000000L; }
            pthread_mutex_lock(&wd_mutex);
            if (atomic_load_explicit(&loom_wd_dozing, memory_order_relaxed))
                pthread_cond_timedwait(&wd_cond, &wd_mutex, &until);  // wd_cond uses CLOCK_MONOTONIC
            pthread_mutex_unlock(&wd_mutex);
        } else {
            struct timespec tick = {0, LOOM_TICK_NS};
            while (clock_nanosleep(CLOCK_MONOTONIC, 0, &tick, &tick) == EINTR) {}
        }
        int64_t now = loom_now_ns();
        int busy = 0;
        pthread_mutex_lock(&wd_mutex);
        for (int i = 0; i < wd_count; i++)
            if (wd_slots[i]->live) watch_slot(wd_slots[i], now, &busy);
        if (busy) {
            idle = 0;
            atomic_store_explicit(&loom_wd_dozing, 0, memory_order_relaxed);
        } else if (++idle >= LOOM_IDLE_TICKS) {
            atomic_store_explicit(&loom_wd_dozing, 1, memory_order_relaxed);
        }
        pthread_mutex_unlock(&wd_mutex);
    }
    return NULL;
}

// A thread's exit releases its slot for reuse (after this, the watchdog never signals it).
static void release_slot(void *p) {
    loom_slot *s = p;
    pthread_mutex_lock(&wd_mutex);
    s->live = 0;
    atomic_store_explicit(&s->call, 0, memory_order_relaxed);
    atomic_store_explicit(&s->current, NULL, memory_order_relaxed);
    pthread_mutex_unlock(&wd_mutex);
}

static void start_once(void) {
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) return;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int ok = pthread_cond_init(&wd_cond, &ca) == 0;
    pthread_condattr_destroy(&ca);
    if (!ok || pthread_key_create(&wd_key, release_slot) != 0) return;
    // A real-time signal nobody handles yet (glibc keeps the first ones below SIGRTMIN).
    struct sigaction old;
    for (int sig = SIGRTMIN + 4; sig <= SIGRTMAX; sig++) {
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO)) {
            wd_signal = sig;
            break;
        }
    }
    if (wd_signal == 0) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(wd_signal, &sa, NULL) != 0) return;
    // The watchdog starts with every signal blocked: process signals (SIGINT, SIGPIPE, ...) go
    // to the host's threads as before.
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    pthread_attr_t attr;
    pthread_t t;
    int created = 0;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attr, 64 * 1024);
        created = pthread_create(&t, &attr, watchdog_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    wd_ok = created;
}

int loom_watchdog_start(void) {
    pthread_once(&wd_once, start_once);
    return wd_ok;
}

// ---------------------------------------------------------------------------------------------
// The calling thread's side.

static loom_slot *register_slot(void) {
    if (!loom_watchdog_start()) return NULL;
    pthread_mutex_lock(&wd_mutex);
    loom_slot *s = NULL;
    for (int i = 0; i < wd_count; i++)
        if (!wd_slots[i]->live) { s = wd_slots[i]; break; }
    if (s == NULL) {
        if (wd_count == wd_cap) {
            int cap = wd_cap ? wd_cap * 2 : 16;
            loom_slot **grown = realloc(wd_slots, sizeof(loom_slot *) * (size_t)cap);
            if (grown == NULL) { pthread_mutex_unlock(&wd_mutex); return NULL; }
            wd_slots = grown;
            wd_cap = cap;
        }
        s = calloc(1, sizeof(loom_slot));
        if (s == NULL) { pthread_mutex_unlock(&wd_mutex); return NULL; }
        wd_slots[wd_count++] = s;
    }
    // A reused slot keeps its call counter: ids the watchdog saw for its previous thread never
    // come back.
    atomic_store_explicit(&s->call, 0, memory_order_relaxed);
    atomic_store_explicit(&s->current, NULL, memory_order_relaxed);
    s->thread = pthread_self();
    s->cpu_ok = pthread_getcpuclockid(s->thread, &s->cpu_clock) == 0;
    if (pthread_setspecific(wd_key, s) != 0) { pthread_mutex_unlock(&wd_mutex); return NULL; }
    // Threads of libdispatch's pool (where Swift's async work and concurrentPerform run) start
    // with nearly every signal blocked: a blocked signal would never stop the call. Nobody else
    // sends this one, so unblocking it changes nothing else for the thread.
    sigset_t ours;
    sigemptyset(&ours);
    sigaddset(&ours, wd_signal);
    if (pthread_sigmask(SIG_UNBLOCK, &ours, NULL) != 0) { pthread_mutex_unlock(&wd_mutex); return NULL; }
    s->live = 1;
    pthread_mutex_unlock(&wd_mutex);
    loom_tls_slot = s;
    return s;
}

static void wake_watchdog(void) {
    pthread_mutex_lock(&wd_mutex);
    if (atomic_load_explicit(&loom_wd_dozing, memory_order_relaxed)) {
        atomic_store_explicit(&loom_wd_dozing, 0, memory_order_relaxed);
        pthread_cond_signal(&wd_cond);
    }
    pthread_mutex_unlock(&wd_mutex);
}

int loom_watch_begin_slow(loom_watch *w, loom_limits *lim, lua_State *L) {
    w->slot = NULL;
    loom_slot *s = loom_tls_slot;
    if (s == NULL && (s = register_slot()) == NULL) return 0;
    w->slot = s;
    // A call into another state from inside a call (a host function of state A calling state B)
    // watches B's call alone, and A's again once B returns (A's first sighting restarts then).
    w->outer_call = atomic_load_explicit(&s->call, memory_order_relaxed);
    if (w->outer_call != 0) {
        w->outer_budget = atomic_load_explicit(&s->budget_ns, memory_order_relaxed);
        w->outer_left = atomic_load_explicit(&s->total_left_ns, memory_order_relaxed);
        w->outer_current = atomic_load_explicit(&s->current, memory_order_relaxed);
    }
    atomic_store_explicit(&s->budget_ns, lim->time_budget_ns > 0 ? lim->time_budget_ns : 0, memory_order_relaxed);
    atomic_store_explicit(&s->total_left_ns, lim->total_budget_ns > 0 ? lim->total_budget_ns - lim->total_used_ns : INT64_MAX,
                          memory_order_relaxed);
    atomic_store_explicit(&s->current, L, memory_order_relaxed);
    w->call = ++s->next_call;
    atomic_store_explicit(&s->call, w->call, memory_order_release);
    if (atomic_load_explicit(&loom_wd_dozing, memory_order_relaxed)) wake_watchdog();
    return 1;
}

int loom_watch_end_slow(loom_watch *w, loom_limits *lim) {
    loom_slot *s = w->slot;
    if (w->outer_call != 0) {
        atomic_store_explicit(&s->budget_ns, w->outer_budget, memory_order_relaxed);
        atomic_store_explicit(&s->total_left_ns, w->outer_left, memory_order_relaxed);
        atomic_store_explicit(&s->current, w->outer_current, memory_order_relaxed);
    }
    atomic_store_explicit(&s->call, w->outer_call, memory_order_release);
    int fired = 0;
    if (atomic_load_explicit(&s->fired_call, memory_order_acquire) == w->call)
        fired = atomic_load_explicit(&s->fired_kind, memory_order_relaxed);
    if (atomic_load_explicit(&s->confirmed_call, memory_order_acquire) == w->call) {
        // Seen at two ticks: charge it from its first sighting (a seen_at of a later call comes
        // with that call's seen_call: see watch_slot).
        int64_t seen_at = atomic_load_explicit(&s->seen_at_ns, memory_order_relaxed);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&s->seen_call, memory_order_relaxed) == w->call) {
            int64_t now = loom_now_ns();
            if (now > seen_at) lim->total_used_ns += now - seen_at;
            if (lim->total_budget_ns > 0 && lim->total_used_ns > lim->total_budget_ns) lim->total_exhausted = 1;
        }
    }
    return fired;
}

int loom_watch_fired(void) {
    loom_slot *s = loom_tls_slot;
    if (s == NULL) return 0;
    uint64_t call = atomic_load_explicit(&s->call, memory_order_relaxed);
    if (call == 0 || atomic_load_explicit(&s->fired_call, memory_order_acquire) != call) return 0;
    return atomic_load_explicit(&s->fired_kind, memory_order_relaxed);
}

lua_State *loom_track_enter(lua_State *L) {
    loom_slot *s = loom_tls_slot;
    if (s == NULL) return NULL;
    lua_State *previous = atomic_load_explicit(&s->current, memory_order_relaxed);
    atomic_store_explicit(&s->current, L, memory_order_relaxed);
    return previous;
}

void loom_track_leave(lua_State *previous) {
    loom_slot *s = loom_tls_slot;
    if (s != NULL) atomic_store_explicit(&s->current, previous, memory_order_relaxed);
}

lua_State *loom_track_current(void) {
    loom_slot *s = loom_tls_slot;
    return s ? atomic_load_explicit(&s->current, memory_order_relaxed) : NULL;
}
