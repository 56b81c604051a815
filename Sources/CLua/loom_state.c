// New states: the limits they carry, the per-thread extra space, the panic handler. See include/loom_lua.h.
#include "loom_internal.h"

// The extra space of every thread (copied into coroutines by lua_newthread) holds a pointer;
// the limits live in the allocator's userdata, reachable from any thread.
loom_limits *loom_limits_of(lua_State *L) { return loom_limits_from(L); }

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


lua_State *loom_newstate(loom_limits *limits) {
    // The watchdog enforces the time budget (loom_watchdog.c): a state is made only once it runs.
    if (!loom_watchdog_start()) return NULL;
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
    loom_linecov_attach_pending(L, limits);
    loom_disarm(L, limits);  // no standing hook: the line hook only while line coverage records
    lua_setwarnf(L, NULL, NULL);
    // Incremental collection (Lua's default), deliberately: in generational mode every minor
    // collection re-traverses old tables that were touched, and the registry (one entry per
    // cached node table) is touched by every new reference, which made a screen of 50,000
    // components quadratic.
    lua_gc(L, LUA_GCINC, 0, 0, 0);
    lua_pushcfunction(L, loom_msgh);  // resident message handler at index 1 (see loom_pcall)
    return L;
}
