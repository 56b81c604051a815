#ifndef LOOM_INTERNAL_H
#define LOOM_INTERNAL_H
// What the C files of Loom's Lua runtime share among themselves (private to CLua; the API is
// include/loom_lua.h).
#include "loom_lua.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <stdatomic.h>

/// The owner a new state's Lua code is charged to until the host sets one.
#define LOOM_DEFAULT_OWNER 1

/// The limits of a state (the allocator's userdata, reachable from any thread): the body of
/// loom_limits_of, inlined into the hot paths of the other files.
static inline loom_limits *loom_limits_from(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (loom_limits *)ud;
}

/// The allocator of every state: per-owner caps and accounting (loom_memory.c).
void *loom_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/// Whether a limit of the running call is spent (the watchdog stopped it, or memory); records
/// it in `exceeded` (loom_budget.c). Reads no clock.
int loom_budget_exhausted(loom_limits *lim);
/// The hook: the count hook the watchdog arms to stop a call, and line events for line coverage
/// (loom_budget.c).
void loom_hook(lua_State *L, lua_Debug *ar);
/// The hook events a thread is armed with to stop it: count, and lines when line coverage is
/// recorded.
static inline int loom_hook_mask(loom_limits *lim) {
    return LUA_MASKCOUNT | (lim->linecov ? LUA_MASKLINE : 0);
}
/// Arms `L` to run the hook at its next instruction (to raise a limit error).
static inline void loom_arm_now(lua_State *L, loom_limits *lim) { lua_sethook(L, loom_hook, loom_hook_mask(lim), 1); }
/// The standing hook of a thread: none, or the line hook while line coverage is recorded.
static inline void loom_disarm(lua_State *L, loom_limits *lim) {
    if (lim->linecov) lua_sethook(L, loom_hook, LUA_MASKLINE, 0);
    else lua_sethook(L, NULL, 0, 0);
}

/// The watchdog (loom_watchdog.c). One slot per OS thread that calls into a time-limited
/// state: written by that thread (call, budget, total_left, current), and by the watchdog (the
/// rest).
typedef struct loom_slot {
    _Atomic uint64_t call;             // the outer call running on this thread; 0: none
    _Atomic int64_t budget_ns;         // its budget; 0: none
    _Atomic int64_t total_left_ns;     // what its state's total had left at entry; INT64_MAX: no total
    _Atomic(lua_State *) current;      // the Lua thread running now (for the signal handler)
    _Atomic uint64_t seen_call;        // the call the watchdog first saw at seen_at_ns
    _Atomic int64_t seen_at_ns;
    _Atomic uint64_t confirmed_call;   // the call seen at two ticks: charged to the total at return
    _Atomic uint64_t fired_call;       // the call stopped, and by which limit
    _Atomic int fired_kind;
    uint64_t next_call;                // this thread's call counter
    pthread_t thread;                  // under the watchdog's lock
    clockid_t cpu_clock;               // the thread's CPU-time clock (cpu_ok: it has one)
    int cpu_ok;
    int64_t seen_cpu_ns;               // the watchdog's own: the thread's CPU time at the first sighting
    int live;
    uint64_t signalled_call;           // the watchdog's own: the call it signalled, when, and the
    int64_t signalled_at_ns;           // wait before it signals it again
    int64_t signal_gap_ns;
} loom_slot;
/// An outer call's watch (on the caller's stack).
typedef struct loom_watch {
    loom_slot *slot;                   // NULL: the state has no time limit
    uint64_t call;
    uint64_t outer_call;               // a call into another state this one runs inside of
    int64_t outer_budget, outer_left;
    lua_State *outer_current;
} loom_watch;
/// Starts the watchdog (once a process); 0 when it cannot start.
int loom_watchdog_start(void);
/// This thread's slot (NULL until its first watched call) and whether the watchdog dozes.
extern _Thread_local loom_slot *loom_tls_slot;
extern _Atomic int loom_wd_dozing;
/// The slow paths of loom_watch_begin / loom_watch_end (loom_watchdog.c): a thread's first
/// call, a call inside another state's call, waking the watchdog; a call the watchdog saw.
int loom_watch_begin_slow(loom_watch *w, loom_limits *lim, lua_State *L);
int loom_watch_end_slow(loom_watch *w, loom_limits *lim);

/// Publishes an outer call of `lim`'s state on `L`; 0 when the thread cannot get a slot. The
/// common case (inlined into every call): a few stores, no clock, no lock.
static inline int loom_watch_begin(loom_watch *w, loom_limits *lim, lua_State *L) {
    if (lim->time_budget_ns <= 0 && lim->total_budget_ns <= 0) {
        w->slot = NULL;  // nothing to watch
        return 1;
    }
    loom_slot *s = loom_tls_slot;
    if (s == NULL || atomic_load_explicit(&s->call, memory_order_relaxed) != 0 ||
        atomic_load_explicit(&loom_wd_dozing, memory_order_relaxed))
        return loom_watch_begin_slow(w, lim, L);
    w->slot = s;
    w->outer_call = 0;
    atomic_store_explicit(&s->budget_ns, lim->time_budget_ns > 0 ? lim->time_budget_ns : 0, memory_order_relaxed);
    atomic_store_explicit(&s->total_left_ns, lim->total_budget_ns > 0 ? lim->total_budget_ns - lim->total_used_ns : INT64_MAX,
                          memory_order_relaxed);
    atomic_store_explicit(&s->current, L, memory_order_relaxed);
    w->call = ++s->next_call;
    atomic_store_explicit(&s->call, w->call, memory_order_release);
    return 1;
}

/// Ends it: charges the total time; returns the LOOM_EXCEEDED_* the watchdog stopped it for, or
/// 0. The common case (a call the watchdog never saw): a store and two loads.
static inline int loom_watch_end(loom_watch *w, loom_limits *lim) {
    loom_slot *s = w->slot;
    if (s == NULL) return 0;
    if (w->outer_call == 0) {
        atomic_store_explicit(&s->call, 0, memory_order_release);
        if (atomic_load_explicit(&s->fired_call, memory_order_acquire) != w->call &&
            atomic_load_explicit(&s->confirmed_call, memory_order_acquire) != w->call)
            return 0;
    }
    return loom_watch_end_slow(w, lim);
}
/// The LOOM_EXCEEDED_* the watchdog stopped this thread's running call for, or 0.
int loom_watch_fired(void);
/// Makes `L` the Lua thread the watchdog's signal arms (around lua_resume and the like); returns
/// the previous one, to give back to loom_track_leave.
lua_State *loom_track_enter(lua_State *L);
void loom_track_leave(lua_State *previous);
/// The Lua thread the signal would arm now (NULL: none).
lua_State *loom_track_current(void);
/// Line coverage (loom_linecov.c): attaches a recorder to a new state when the creating thread
/// asked for it; counts a line event; frees the recorder.
void loom_linecov_attach_pending(lua_State *L, loom_limits *lim);
void loom_linecov_line(lua_State *L, lua_Debug *ar);
void loom_linecov_free(loom_limits *lim);
// Frees the records of the kept view entries flat views used last (loom_frozen_tree.c), if any.
void loom_reuse_records_free(loom_limits *lim);
/// The message of the limit a call exceeded (loom_budget.c).
const char *loom_exceeded_message(loom_limits *lim);
/// The message handler: message and traceback (loom_pcall.c).
int loom_msgh(lua_State *L);
/// Whether index 1 of `L`'s running frame holds loom_msgh (the look pcall_watched makes for the
/// resident handler; the caller knows index 1 exists).
static inline int loom_slot1_is_handler(lua_State *L) { return lua_tocfunction(L, 1) == loom_msgh; }

/// Lua's own dumps (loom_dump.c), read by line coverage and plain views: a buffer lua_dump writes
/// into through loom_dump_writer (growing, refusing to pass `limit` bytes: SIZE_MAX for none),
/// and a reader whose `ok` turns 0 at the first read past its end (every later read then
/// answers 0 or NULL).
typedef struct {
    unsigned char *bytes;
    size_t len, cap, limit;
} loom_dump_buffer;
typedef struct {
    const unsigned char *p, *end;
    int ok;
} loom_dump_reader;
int loom_dump_writer(lua_State *L, const void *p, size_t sz, void *ud);
unsigned loom_dump_byte(loom_dump_reader *r);
void loom_dump_skip(loom_dump_reader *r, size_t n);
size_t loom_dump_size(loom_dump_reader *r);
const unsigned char *loom_dump_string(loom_dump_reader *r, size_t *len);
/// The header of a dump made by this Lua on this machine; 1 with the reader at the main function.
int loom_dump_header(loom_dump_reader *r);

#endif
