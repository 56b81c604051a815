// The C side of Loom's Lua runtime: see include/loom_lua.h.
#include "loom_lua.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t loom_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// ---------------------------------------------------------------------------------------------
// Memory: every owner has its own cap. An allocation that would cross it is refused; Lua then
// runs an emergency collection and retries it once. Only when the retry is refused too (the live
// data, not garbage awaiting collection, would cross the cap) does the allocation fail (Lua
// raises "not enough memory"), and the failure is remembered so that the count hook keeps
// raising until the host call returns: a script's pcall cannot swallow it. While a Swift host
// function runs, allocations never fail (a failing allocation there would longjmp across Swift
// frames); the trampoline raises the deferred error once Swift has returned.

// The cap is per owner: 0 is the host (outside calls, inside a Swift host function, the host's
// own trusted Lua), k > 0 is plugin k (Lua code running inside a call while `owner` is k). The
// host's own tables (node tables, the user table, caches) grow with the screens a user loads
// and are never capped; each plugin is capped alone, so one plugin holding most of the cap
// cannot make another plugin's modest allocation fail. Every block carries a small header with
// its size and the owner it is charged to. A block freed is credited to that owner; a block
// grown by another owner moves to it (a shrink leaves it where it is).

typedef struct loom_block {
    size_t size;
    int64_t owner;  // who the block is charged to
} loom_block;       // 16 bytes: keeps malloc's alignment for what follows

#define LOOM_DEFAULT_OWNER 1

// Bulk C functions (table.concat, string.upper, string.rep, ...) run no Lua instruction while
// they work, so a loop calling them meets the count hook only every `hook_count` instructions:
// hundreds of calls. Their work shows as allocation, so every LOOM_ALLOC_CHECK_BYTES allocated
// by Lua code the allocator checks the budget too; once it is spent, the main thread's hook is
// armed to raise at the very next instruction (the allocation itself never fails for time).
#define LOOM_ALLOC_CHECK_BYTES ((size_t)1 << 20)
static int budget_exhausted(loom_limits *lim);
static void loom_hook(lua_State *L, lua_Debug *ar);

int loom_set_owner(loom_limits *lim, int32_t owner) {
    if (owner < 0) return 0;
    if (owner >= lim->owner_count) {
        int32_t n = lim->owner_count ? lim->owner_count : 8;
        while (n <= owner) {
            if (n > INT32_MAX / 2) return 0;
            n *= 2;
        }
        size_t *u = realloc(lim->owner_used, (size_t)n * sizeof(size_t));
        if (u == NULL) return 0;
        memset(u + lim->owner_count, 0, (size_t)(n - lim->owner_count) * sizeof(size_t));
        lim->owner_used = u;
        lim->owner_count = n;
    }
    lim->owner = owner;
    return 1;
}

size_t loom_owner_used(loom_limits *lim, int32_t owner) {
    if (owner < 0 || owner >= lim->owner_count || lim->owner_used == NULL) return 0;
    return lim->owner_used[owner];
}

void loom_limits_release(loom_limits *lim) {
    free(lim->owner_used);
    lim->owner_used = NULL;
    lim->owner_count = 0;
}

static void *loom_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    loom_limits *lim = (loom_limits *)ud;
    (void)osize;
    loom_block *b = ptr ? ((loom_block *)ptr) - 1 : NULL;
    size_t old = b ? b->size : 0;
    int32_t old_owner = b ? (int32_t)b->owner : 0;
    if (nsize == 0) {
        free(b);
        lim->mem_used -= old;
        lim->owner_used[old_owner] -= old;
        return NULL;
    }
    int32_t who = (lim->in_call && !lim->in_host) ? lim->owner : 0;
    if (b && nsize <= old) who = old_owner;  // a shrink leaves the block where it is
    if (who > 0 && lim->mem_limit) {
        size_t mine = (b && old_owner == who) ? old : 0;
        if (nsize > mine) {
            size_t grow = nsize - mine;
            if (lim->owner_used[who] + grow > lim->mem_limit) {
                // The first refusal lets Lua collect garbage and retry (only frees and shrinks
                // happen in between); a second one is a real failure. (The host's own work,
                // outside calls or inside a Swift host function, never fails: it must never
                // raise.)
                if (!lim->alloc_refused) {
                    lim->alloc_refused = 1;
                    return NULL;
                }
                lim->alloc_refused = 0;
                if (!lim->exceeded) lim->exceeded = LOOM_EXCEEDED_MEMORY;
                return NULL;
            }
        }
    }
    if (nsize > SIZE_MAX - sizeof(loom_block)) return NULL;
    loom_block *n = realloc(b, sizeof(loom_block) + nsize);
    if (n == NULL) return NULL;
    if (nsize > old) {
        lim->alloc_refused = 0;
        if (lim->in_call && !lim->in_host) {
            lim->alloc_since_check += nsize - old;
            if (lim->alloc_since_check >= LOOM_ALLOC_CHECK_BYTES) {
                lim->alloc_since_check = 0;
                if (!lim->exceeded && budget_exhausted(lim) && lim->main_thread)
                    lua_sethook(lim->main_thread, loom_hook, LUA_MASKCOUNT, 1);
            }
        }
    }
    n->size = nsize;
    n->owner = who;
    lim->owner_used[old_owner] -= old;  // (old is 0 for a new block)
    lim->owner_used[who] += nsize;
    lim->mem_used = lim->mem_used - old + nsize;
    if (lim->mem_used > lim->mem_peak) lim->mem_peak = lim->mem_used;
    return n + 1;
}

// ---------------------------------------------------------------------------------------------
// Time: a count hook checks the monotonic clock every `hook_count` instructions. The deadline
// of a call is armed lazily, at the first check after the host entered Lua (call_seq changes),
// so a short call costs no clock read at all. Once a limit is exceeded the hook is re-armed on
// the running thread to fire at every instruction: a script that catches the error with pcall
// (or runs inside a coroutine) meets it again at its next instruction, until the error reaches
// the host.

static const char *exceeded_message(loom_limits *lim) {
    switch (lim->exceeded) {
    case LOOM_EXCEEDED_MEMORY: return "memory limit exceeded";
    case LOOM_EXCEEDED_TOTAL_TIME: return "total Lua time limit exceeded";
    default: return "time limit exceeded";
    }
}

// Every clock reading of a call (the hook's, loom_check_budget's) also feeds the state's total
// Lua time: the time since the previous reading of the same call is added. A short call that
// never reaches a check costs no clock read and adds nothing.
static int budget_exhausted(loom_limits *lim) {
    if (lim->exceeded) return 1;
    if (!lim->in_call) return 0;
    int timed = lim->time_budget_ns > 0, totaled = lim->total_budget_ns > 0;
    if (!timed && !totaled) return 0;
    int64_t now = loom_now_ns();
    if (lim->seen_seq != lim->call_seq) {
        lim->seen_seq = lim->call_seq;
        lim->deadline_ns = now + lim->time_budget_ns;
        lim->last_tick_ns = now;
        return 0;
    }
    if (now > lim->last_tick_ns) lim->total_used_ns += now - lim->last_tick_ns;
    lim->last_tick_ns = now;
    if (totaled && lim->total_used_ns > lim->total_budget_ns) {
        lim->total_exhausted = 1;
        lim->exceeded = LOOM_EXCEEDED_TOTAL_TIME;
        return 1;
    }
    if (timed && now > lim->deadline_ns) {
        lim->exceeded = LOOM_EXCEEDED_TIME;
        return 1;
    }
    return 0;
}

// Makes the running thread, and the main thread the host called into, raise at their next
// instruction: a coroutine that meets a limit is dead, and the thread that resumed it must not
// go on after `coroutine.resume` returned false.
static void arm_every_instruction(lua_State *L, loom_limits *lim) {
    lua_sethook(L, loom_hook, LUA_MASKCOUNT, 1);
    if (lim->main_thread && lim->main_thread != L) lua_sethook(lim->main_thread, loom_hook, LUA_MASKCOUNT, 1);
}

static void loom_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    loom_limits *lim = loom_limits_of(L);
    if (lim == NULL || lim->in_host) return;
    if (budget_exhausted(lim)) {
        arm_every_instruction(L, lim);
        luaL_error(L, "%s", exceeded_message(lim));
    }
}

void loom_check_budget(lua_State *L) {
    loom_limits *lim = loom_limits_of(L);
    if (lim == NULL || lim->in_host) return;
    if (budget_exhausted(lim)) {
        arm_every_instruction(L, lim);
        luaL_error(L, "%s", exceeded_message(lim));
    }
}

// The extra space of every thread (copied into coroutines by lua_newthread) holds a pointer;
// the limits live in the allocator's userdata, reachable from any thread.
loom_limits *loom_limits_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (loom_limits *)ud;
}

void loom_set_extra(lua_State *L, void *p) { memcpy(lua_getextraspace(L), &p, sizeof(void *)); }
void *loom_get_extra(lua_State *L) {
    void *p;
    memcpy(&p, lua_getextraspace(L), sizeof(void *));
    return p;
}

static int loom_panic(lua_State *L) {
    // Unprotected errors are a bug in the host (it enters Lua only through loom_pcall); abort
    // loudly rather than continue in an undefined state.
    const char *msg = lua_tostring(L, -1);
    fprintf(stderr, "loom: unprotected Lua error: %s\n", msg ? msg : "(not a string)");
    abort();
}

static int loom_msgh(lua_State *L);

lua_State *loom_newstate(loom_limits *limits) {
    int32_t owner = limits->owner > 0 ? limits->owner : LOOM_DEFAULT_OWNER;
    if (!loom_set_owner(limits, owner)) return NULL;
    lua_State *L = lua_newstate(loom_alloc, limits);
    if (L == NULL) {
        loom_limits_release(limits);
        return NULL;
    }
    lua_atpanic(L, loom_panic);
    limits->main_thread = L;
    limits->alloc_refused = 0;
    if (limits->hook_count <= 0) limits->hook_count = 1000;
    lua_sethook(L, loom_hook, LUA_MASKCOUNT, limits->hook_count);
    lua_setwarnf(L, NULL, NULL);
    // Incremental collection (Lua's default), deliberately: in generational mode every minor
    // collection re-traverses old tables that were touched, and the registry (one entry per
    // cached node table) is touched by every new reference, which made a screen of 50,000
    // components quadratic.
    lua_gc(L, LUA_GCINC, 0, 0, 0);
    lua_pushcfunction(L, loom_msgh);  // resident message handler at index 1 (see loom_pcall)
    return L;
}

// ---------------------------------------------------------------------------------------------
// Protected calls.

// The error object as a message, without running any metamethod that could raise again.
static const char *describe_error(lua_State *L, int idx) {
    int t = lua_type(L, idx);
    switch (t) {
    case LUA_TSTRING:
        return lua_tostring(L, idx);
    case LUA_TNUMBER:
        return lua_pushfstring(L, "%s", lua_tostring(L, idx));  // converts a copy in place
    case LUA_TNIL:
        return "error object is nil";
    case LUA_TBOOLEAN:
        return lua_toboolean(L, idx) ? "error object is a boolean value (true)"
                                     : "error object is a boolean value (false)";
    default:
        if (luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) {
            // Call __tostring protected: a raising __tostring must not turn into an error in
            // the error handler.
            lua_pushvalue(L, idx);
            if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) return lua_tostring(L, -1);
            return lua_pushfstring(L, "error object is a %s value (its __tostring failed)", luaL_typename(L, idx));
        }
        return lua_pushfstring(L, "error object is a %s value", luaL_typename(L, idx));
    }
}

static int loom_msgh(lua_State *L) {
    loom_limits *lim = loom_limits_of(L);
    const char *msg;
    if (lim && lim->exceeded) {
        msg = exceeded_message(lim);
    } else {
        msg = describe_error(L, 1);
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

// The main thread keeps the message handler at stack index 1 (loom_newstate puts it there), so
// the common case, a call from the host on the main thread, needs no insert / remove.
static int has_resident_msgh(lua_State *L) {
    return lua_gettop(L) >= 1 && lua_tocfunction(L, 1) == loom_msgh;
}

int loom_pcall(lua_State *L, int nargs, int nresults, int *exceeded) {
    loom_limits *lim = loom_limits_of(L);
    int base = lua_gettop(L) - nargs;  // function index
    if (lim->total_exhausted) {
        // The state's total Lua time is spent: no Lua runs any more.
        lua_settop(L, base - 1);
        lua_pushliteral(L, "total Lua time limit exceeded");
        if (exceeded) *exceeded = LOOM_EXCEEDED_TOTAL_TIME;
        return LUA_ERRRUN;
    }
    int outer = lim->in_call;
    // A call from inside a Swift host function (a nested call into a plugin) runs plugin code
    // again: budgeted, and charged to the current owner, not to the host.
    int saved_in_host = lim->in_host;
    lim->in_host = 0;
    lim->in_call++;
    if (!outer) {
        lim->call_seq++;
        lim->exceeded = 0;
    }
    int resident = base > 1 && has_resident_msgh(L);
    int status;
    if (resident) {
        status = lua_pcall(L, nargs, nresults, 1);
    } else {
        lua_pushcfunction(L, loom_msgh);
        lua_insert(L, base);
        status = lua_pcall(L, nargs, nresults, base);
        lua_remove(L, base);
    }
    lim->in_call--;
    lim->in_host = saved_in_host;
    int ex = lim->exceeded;
    if (!outer) {
        if (ex) {
            // Undo the per-instruction re-arming on this thread.
            lua_sethook(L, loom_hook, LUA_MASKCOUNT, lim->hook_count);
            if (status == LUA_OK) {
                // The limit was met, but the script caught the error before the hook raised it
                // again (a memory error caught by pcall, a coroutine's error returned by
                // coroutine.resume) and returned: the call fails all the same.
                lua_settop(L, base - 1);
                lua_pushstring(L, exceeded_message(lim));
                status = LUA_ERRRUN;
            }
        }
        lim->exceeded = 0;
        lim->alloc_refused = 0;
    }
    if (status == LUA_ERRMEM && !ex) ex = LOOM_EXCEEDED_MEMORY;
    if (!outer && ex == LOOM_EXCEEDED_MEMORY) {
        // What the call allocated is garbage now: collect it, so that the next call does not
        // start at the cap (in_call is 0 here, so nothing can fail; __gc is not available to
        // scripts).
        lua_gc(L, LUA_GCCOLLECT, 0);
    }
    if (exceeded) *exceeded = status == LUA_OK ? 0 : ex;
    if (status == LUA_ERRMEM && lua_type(L, -1) != LUA_TSTRING) {
        lua_pop(L, 1);
        lua_pushliteral(L, "memory limit exceeded");
    }
    return status;
}

int loom_loadtext(lua_State *L, const char *buf, size_t len, const char *chunkname) {
    return luaL_loadbufferx(L, buf, len, chunkname, "t");
}

// ---------------------------------------------------------------------------------------------
// Swift host functions behind a C trampoline.

static loom_host_dispatch_fn host_dispatch = NULL;

void loom_set_host_dispatch(loom_host_dispatch_fn fn) { host_dispatch = fn; }

static int loom_trampoline(lua_State *L) {
    loom_limits *lim = loom_limits_of(L);
    int64_t id = (int64_t)lua_tointeger(L, lua_upvalueindex(1));
    if (!lua_checkstack(L, 32)) return luaL_error(L, "stack overflow in host function");
    lim->in_host++;
    int n = host_dispatch ? host_dispatch(L, id) : -1;
    lim->in_host--;
    if (n < 0) return lua_error(L);  // Swift pushed the message
    if (lim->exceeded && lim->in_call) return luaL_error(L, "%s", exceeded_message(lim));
    if (lim->mem_limit && lim->in_call && lim->owner > 0 && lim->owner_used[lim->owner] > lim->mem_limit) {
        lim->exceeded = LOOM_EXCEEDED_MEMORY;
        return luaL_error(L, "memory limit exceeded");
    }
    return n;
}

void loom_push_host_function(lua_State *L, int64_t id) {
    lua_pushinteger(L, (lua_Integer)id);
    lua_pushcclosure(L, loom_trampoline, 1);
}

// ---------------------------------------------------------------------------------------------
// Macro wrappers.

int loom_registry_index(void) { return LUA_REGISTRYINDEX; }
int loom_upvalue_index(int i) { return lua_upvalueindex(i); }
void loom_pop(lua_State *L, int n) { lua_pop(L, n); }
const char *loom_tolstring(lua_State *L, int idx, size_t *len) { return lua_tolstring(L, idx, len); }
void loom_newtable(lua_State *L) { lua_newtable(L); }
int loom_isnoneornil(lua_State *L, int idx) { return lua_isnoneornil(L, idx); }
int loom_isinteger(lua_State *L, int idx) { return lua_isinteger(L, idx); }
void loom_pushcopy(lua_State *L, int idx) { lua_pushvalue(L, idx); }
int loom_getglobal(lua_State *L, const char *name) { return lua_getglobal(L, name); }
void loom_remove(lua_State *L, int idx) { lua_remove(L, idx); }
void loom_insert(lua_State *L, int idx) { lua_insert(L, idx); }
int loom_rawget_ref(lua_State *L, lua_Integer ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }
int loom_ref(lua_State *L) { return luaL_ref(L, LUA_REGISTRYINDEX); }
void loom_unref(lua_State *L, int ref) { luaL_unref(L, LUA_REGISTRYINDEX, ref); }
int loom_gc_count_kb(lua_State *L) { return lua_gc(L, LUA_GCCOUNT, 0); }
void loom_full_gc(lua_State *L) { lua_gc(L, LUA_GCCOLLECT, 0); }

static int readonly_newindex(lua_State *L) {
    return luaL_error(L, "attempt to modify a read-only table");
}

void loom_set_readonly_mt(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_newtable(L);
    lua_pushcfunction(L, readonly_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, idx);
}

// ---------------------------------------------------------------------------------------------
// The hot path of rule evaluation in one C call: evaluate(user, args, node) by registry
// references (args_ref < 0: nil). On LUA_OK, *result is 0/1 for a boolean, or -1 with the
// returned value left on the stack (the caller names its type and pops it).
// The call runs as `owner` (its allocations are charged to it), restored afterwards: the owner
// switch is done here, not in Swift, to keep the hot path to one C call.
int loom_call_rule(lua_State *L, int32_t owner, int fn_ref, int user_ref, int args_ref, int node_ref, int *result, int *exceeded) {
    loom_limits *lim = loom_limits_of(L);
    int32_t previous = lim->owner;
    if (owner != previous && !loom_set_owner(lim, owner)) {
        lua_pushliteral(L, "cannot grow the per-owner memory counters");
        *exceeded = LOOM_EXCEEDED_MEMORY;
        return LUA_ERRMEM;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, fn_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, user_ref);
    if (args_ref >= 0) lua_rawgeti(L, LUA_REGISTRYINDEX, args_ref); else lua_pushnil(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, node_ref);
    int status = loom_pcall(L, 3, 1, exceeded);
    lim->owner = previous;
    if (status != LUA_OK) return status;
    if (lua_type(L, -1) == LUA_TBOOLEAN) {
        *result = lua_toboolean(L, -1);
        lua_pop(L, 1);
    } else {
        *result = -1;
    }
    return LUA_OK;
}

// A protected call of the host's own trusted Lua (the sandbox bootstrap's helpers, such as
// freezing node tables): what it allocates is the host's, and it is not time-limited.
int loom_pcall_host(lua_State *L, int nargs, int nresults) {
    loom_limits *lim = loom_limits_of(L);
    lim->in_host++;
    int status = lua_pcall(L, nargs, nresults, 0);
    lim->in_host--;
    return status;
}
