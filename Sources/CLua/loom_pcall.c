// Protected calls from the host, the message handler, and the rule-call hot path. See include/loom_lua.h.
#include "loom_internal.h"

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

int loom_msgh(lua_State *L) {
    loom_limits *lim = loom_limits_from(L);
    const char *msg;
    if (lim && lim->exceeded) {
        msg = loom_exceeded_message(lim);
    } else {
        msg = describe_error(L, 1);
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

// The main thread keeps the message handler at stack index 1 (loom_newstate puts it there), so
// the common case, a call from the host on the main thread, needs no insert / remove
// (resident: index 1 is below the called function, base > 1, and holds loom_msgh).

static int pcall_at(lua_State *L, loom_limits *lim, int base, int nargs, int nresults, int *exceeded);
static inline __attribute__((always_inline))
int pcall_watched(lua_State *L, loom_limits *lim, int base, int nargs, int nresults, int *exceeded, loom_watch **watched);

int loom_pcall(lua_State *L, int nargs, int nresults, int *exceeded) {
    return pcall_at(L, loom_limits_from(L), lua_gettop(L) - nargs, nargs, nresults, exceeded);
}

// loom_pcall with the limits and the function's index (`base`) already at hand (the rule hot
// path knows both): pcall_watched without `watched` (the same code, the compiler making one
// copy of each: a rule call pays nothing for what loom_call_rules needs).
static int pcall_at(lua_State *L, loom_limits *lim, int base, int nargs, int nresults, int *exceeded) {
    return pcall_watched(L, lim, base, nargs, nresults, exceeded, NULL);
}

// pcall_at, with `watched` (may be NULL) set to the outer call's watch while the call runs (NULL
// for a nested call), for a function that makes several calls inside one protected call and
// watches each as a call of its own (loom_call_rules).
static inline __attribute__((always_inline))
int pcall_watched(lua_State *L, loom_limits *lim, int base, int nargs, int nresults, int *exceeded, loom_watch **watched) {
    if (lim->total_exhausted) {
        // The state's total Lua time is spent: no Lua runs any more.
        lua_settop(L, base - 1);
        lua_pushliteral(L, "total Lua time limit exceeded");
        if (exceeded) *exceeded = LOOM_EXCEEDED_TOTAL_TIME;
        return LUA_ERRRUN;
    }
    int outer = lim->in_call;
    // The outer call is published to the watchdog (loom_watchdog.c); a nested one only tells it
    // which Lua thread runs now (a host function running on a coroutine calls in on it).
    loom_watch watch;
    lua_State *tracked = NULL;
    if (!outer) {
        if (!loom_watch_begin(&watch, lim, L)) {
            lua_settop(L, base - 1);
            lua_pushliteral(L, "cannot watch the call's time budget (out of memory)");
            if (exceeded) *exceeded = 0;
            return LUA_ERRRUN;
        }
    } else {
        tracked = loom_track_enter(L);
    }
    // A call from inside a Swift host function (a nested call into a plugin) runs plugin code
    // again: budgeted, and charged to the current owner, not to the host.
    int saved_in_host = lim->in_host;
    lim->in_host = 0;
    lim->in_call++;
    if (!outer) lim->exceeded = 0;
    // The resident handler (above). An outer call on the main thread with no host Lua running
    // (loom_pcall_host) is made from the base level: no Lua or C function runs on the state, so
    // the running frame is the main thread's base frame, whose slot 1 loom_newstate set and
    // nothing at the base level takes away (only a settop below 1 could, and LuaState.top never
    // sets one there: LuaStateTests checks the slot after each kind of use). Such a call trusts
    // the slot; any other looks (a nested call's index 1 is its host function's first argument).
    // The look is a library call through the PLT, about 6% of a rule call's time.
    int resident = base > 1 && ((!outer && saved_in_host == 0 && L == lim->main_thread) || loom_slot1_is_handler(L));
    if (watched) *watched = outer ? NULL : &watch;
    int status;
    if (resident) {
        status = lua_pcall(L, nargs, nresults, 1);
    } else {
        lua_pushcfunction(L, loom_msgh);
        lua_insert(L, base);
        status = lua_pcall(L, nargs, nresults, base);
        lua_remove(L, base);
    }
    if (watched) *watched = NULL;
    lim->in_call--;
    lim->in_host = saved_in_host;
    int ex = lim->exceeded;
    if (!outer) {
        // A call the watchdog stopped that returned before running another Lua instruction (its
        // time was in C: a long library function, the message handler's traceback of a stack
        // overflow) keeps its own result, as it did when a count hook checked the budget. (Its
        // time is charged to the total all the same.)
        int fired = loom_watch_end(&watch, lim);
        if (ex || fired) {
            // Undo the arming (a coroutine still armed disarms itself at its first hook:
            // loom_hook).
            loom_disarm(L, lim);
            if (lim->main_thread && lim->main_thread != L) loom_disarm(lim->main_thread, lim);
            if (ex && status == LUA_OK) {
                // The limit was met, but the script caught the error before the hook raised it
                // again (a memory error caught by pcall, a coroutine's error returned by
                // coroutine.resume) and returned: the call fails all the same.
                lua_settop(L, base - 1);
                lua_pushstring(L, loom_exceeded_message(lim));
                status = LUA_ERRRUN;
            }
        }
        lim->exceeded = 0;
        lim->alloc_refused = 0;
    } else {
        loom_track_leave(tracked);
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
// The function at `base` and its three arguments above it called as `owner` (its allocations
// charged to it), restored afterwards: the owner switch is done here, not in Swift, to keep the
// hot path to one C call. When the per-owner counters cannot grow, the four values are replaced
// by the message.
// Inlined with the protected call's bookkeeping (pcall_watched) into its two callers: the rule
// hot path then makes one C call and the protected call, not three nested calls (rule_call's
// host call: 1,134 instructions a call against 736 for a bare lua_pcall, of which call_rule_as
// and pcall_at as functions of their own took 167).
static inline __attribute__((always_inline)) int call_rule_as(lua_State *L, loom_limits *lim, int32_t owner, int base, int *exceeded) {
    int32_t previous = lim->owner;
    if (owner >= 0 && owner < lim->owner_count) {
        lim->owner = owner;  // counters already sized: no call
    } else if (!loom_set_owner(lim, owner)) {
        lua_settop(L, base - 1);
        lua_pushliteral(L, "cannot grow the per-owner memory counters");
        *exceeded = LOOM_EXCEEDED_MEMORY;
        return LUA_ERRMEM;
    }
    int status = pcall_watched(L, lim, base, 3, 1, exceeded, NULL);
    lim->owner = previous;
    return status;
}

// The hot path of rule evaluation in one C call: evaluate(user, args, node) by registry
// references (args_ref < 0: nil), as `owner`. On LUA_OK, *result is 0/1 for a boolean, or -1
// with the returned value left on the stack (the caller names its type and pops it).
// Pushes evaluate, user, args, node by registry references (args_ref < 0: nil); the user the
// value at stack index `user_at` instead when that is not 0 (pushed once for several calls).
static inline void push_rule_call(lua_State *L, int fn_ref, int user_ref, int args_ref, int node_ref, int user_at) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, fn_ref);
    if (user_at) lua_pushvalue(L, user_at); else lua_rawgeti(L, LUA_REGISTRYINDEX, user_ref);
    if (args_ref >= 0) lua_rawgeti(L, LUA_REGISTRYINDEX, args_ref); else lua_pushnil(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, node_ref);
}

// The limits are given and the answers returned in one value (include/loom_lua.h): the rule hot
// path (LuaRule) keeps the limits, so no lua_getallocf per call, and reads one register, not two
// values stored through pointers.
int loom_call_rule_packed(lua_State *L, loom_limits *lim, int32_t owner, int fn_ref, int user_ref, int args_ref, int node_ref) {
    int base = lua_gettop(L) + 1;
    push_rule_call(L, fn_ref, user_ref, args_ref, node_ref, 0);
    int exceeded = 0;
    int status = call_rule_as(L, lim, owner, base, &exceeded);
    if (status != LUA_OK) return status | exceeded << 16;
    if (lua_type(L, -1) == LUA_TBOOLEAN) {
        int result = lua_toboolean(L, -1);
        lua_pop(L, 1);
        return (result ? LOOM_RULE_TRUE : LOOM_RULE_FALSE);
    }
    return LUA_OK;  // result -1: the value is left on the stack
}

// Several rule calls from one call into C (`host eval`'s calls of the rules every user's walk
// starts with: VisibilityPlan). The calls of one owner in a row are made inside one protected
// call (a Lua function calling another costs much less than a protected call from C), each
// watched as a call of its own (its own time budget, its time charged to the state's total as
// for a call made alone, a limit it met ending it), so a budget, an owner, a limit and an error
// are each call's as when the calls are made one by one (loom_call_rule_packed). Stops at the first
// call not answered with a boolean (see include/loom_lua.h).

typedef struct rule_run {
    const loom_rule_call *calls;
    int count;               // calls in the run (one owner)
    int8_t *results;
    int done;                // calls answered so far; the one at `done` is running or stopped
    loom_limits *lim;
    loom_watch *watch;       // the protected call's watch (pcall_at), NULL when none
} rule_run;

// Ends the watch of the call just made and begins one for the next (what pcall_at does around
// a call made alone: the previous call's time charged to the total, a new call for the
// watchdog, whose budget starts now). A call the watchdog stopped after it returned keeps its
// result, as it does alone, and the hook armed for it is undone. Raises (as the next call would
// fail at once alone) when the total is spent.
static void next_watched_call(lua_State *L, rule_run *r) {
    loom_limits *lim = r->lim;
    loom_watch *w = r->watch;
    if (w == NULL) return;
    if (loom_watch_end(w, lim)) {
        loom_disarm(L, lim);
        if (lim->main_thread && lim->main_thread != L) loom_disarm(lim->main_thread, lim);
    }
    lim->alloc_refused = 0;
    // Begun before anything is raised, so that pcall_at ends a watch of its own (not the one
    // just ended, whose time is charged already).
    if (!loom_watch_begin(w, lim, L)) {
        r->watch = NULL;
        luaL_error(L, "cannot watch the call's time budget (out of memory)");
    }
    if (lim->total_exhausted) {
        lim->exceeded = LOOM_EXCEEDED_TOTAL_TIME;
        luaL_error(L, "total Lua time limit exceeded");
    }
}

static int rule_run_body(lua_State *L) {
    rule_run *r = (rule_run *)lua_touserdata(L, 1);
    loom_limits *lim = r->lim;
    // The first call's user, pushed once for every call of the run with the same user (a
    // user's calls share their view: one per plugin).
    int user_ref = r->done < r->count ? r->calls[r->done].user_ref : LUA_NOREF;
    lua_rawgeti(L, LUA_REGISTRYINDEX, user_ref);
    int user = lua_gettop(L);
    for (; r->done < r->count; r->done++) {
        const loom_rule_call *c = &r->calls[r->done];
        if (r->done > 0) next_watched_call(L, r);
        push_rule_call(L, c->fn_ref, c->user_ref, c->args_ref, c->node_ref, c->user_ref == user_ref ? user : 0);
        lua_callk(L, 3, 1, 0, NULL);
        if (lim->exceeded) {
            // A limit met that the script caught before the hook raised it again: the call
            // fails all the same (as pcall_at fails it).
            lua_pushstring(L, loom_exceeded_message(lim));
            return lua_error(L);
        }
        if (lua_type(L, -1) != LUA_TBOOLEAN) {
            lua_pop(L, 1);  // no boolean: the run stops here, nothing raised
            return 0;
        }
        r->results[r->done] = (int8_t)lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    return 0;
}

int loom_call_rules(lua_State *L, const loom_rule_call *calls, int count, int8_t *results, int *status, int *exceeded) {
    *status = LUA_OK;
    *exceeded = 0;
    loom_limits *lim = loom_limits_from(L);
    int answered = 0;
    while (answered < count) {
        // The run: the calls of this owner in a row.
        int32_t owner = calls[answered].owner;
        int end = answered + 1;
        while (end < count && calls[end].owner == owner) end++;
        int32_t previous = lim->owner;
        if (lim->in_call || !lua_checkstack(L, 8) || !(owner >= 0 && owner < lim->owner_count)) {
            // Inside another call (no watch of its own to restart), or an owner whose counters
            // are not sized yet: one by one (loom_call_rule_packed grows them).
            for (; answered < end; answered++) {
                const loom_rule_call *c = &calls[answered];
                int answer = loom_call_rule_packed(L, lim, c->owner, c->fn_ref, c->user_ref, c->args_ref, c->node_ref);
                int s = loom_rule_status(answer);
                if (s != LUA_OK) {
                    *status = s;  // the error on top
                    *exceeded = loom_rule_exceeded(answer);
                    return answered;
                }
                if (answer != LOOM_RULE_TRUE && answer != LOOM_RULE_FALSE) {
                    lua_pop(L, 1);  // the value that is no boolean
                    return answered;
                }
                results[answered] = (int8_t)(answer == LOOM_RULE_TRUE);
            }
            continue;
        }
        rule_run r = { calls + answered, end - answered, results + answered, 0, lim, NULL };
        lim->owner = owner;
        int base = lua_gettop(L) + 1;
        lua_pushcfunction(L, rule_run_body);
        lua_pushlightuserdata(L, &r);
        int s = pcall_watched(L, lim, base, 1, 0, exceeded, &r.watch);
        lim->owner = previous;
        answered += r.done;
        if (s != LUA_OK) {
            *status = s;  // the error on top
            return answered;
        }
        if (r.done < r.count) return answered;  // answered no boolean
        *exceeded = 0;
    }
    return count;
}

// loom_call_rule_packed over a recording view of the table on top (include/loom_lua.h): no registry
// reference made for the table, the view or its log (`host eval`'s narrowed calls, one per user).
int loom_call_rule_recording(lua_State *L, int32_t owner, int fn_ref, int args_ref, int node_ref, const char *name, int *result, int *exceeded) {
    if (!lua_checkstack(L, 8)) {
        lua_pop(L, 1);
        return -1;
    }
    int t = lua_gettop(L);
    lua_createtable(L, 4, 0);
    loom_proxy_new_recording(L, t, t + 1, name);
    lua_remove(L, t);  // [log, view]
    int base = lua_gettop(L) + 1;
    lua_rawgeti(L, LUA_REGISTRYINDEX, fn_ref);
    lua_pushvalue(L, base - 1);
    if (args_ref >= 0) lua_rawgeti(L, LUA_REGISTRYINDEX, args_ref); else lua_pushnil(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, node_ref);
    int status = call_rule_as(L, loom_limits_from(L), owner, base, exceeded);
    if (status == LUA_OK) *result = lua_type(L, -1) == LUA_TBOOLEAN ? lua_toboolean(L, -1) : -1;
    return status;
}

// A protected call of the host's own trusted Lua (the sandbox bootstrap's helpers, such as
// freezing node tables): what it allocates is the host's, and it is not time-limited.
int loom_pcall_host(lua_State *L, int nargs, int nresults) {
    loom_limits *lim = loom_limits_from(L);
    lim->in_host++;
    int status = lua_pcall(L, nargs, nresults, 0);
    lim->in_host--;
    return status;
}
