// Swift host functions behind a C trampoline. See include/loom_lua.h.
#include "loom_internal.h"

// ---------------------------------------------------------------------------------------------
// Swift host functions behind a C trampoline.

static loom_host_dispatch_fn host_dispatch = NULL;

void loom_set_host_dispatch(loom_host_dispatch_fn fn) { host_dispatch = fn; }

static int loom_trampoline(lua_State *L) {
    loom_limits *lim = loom_limits_from(L);
    int64_t id = (int64_t)lua_tointeger(L, lua_upvalueindex(1));
    if (!lua_checkstack(L, 32)) return luaL_error(L, "stack overflow in host function");
    lim->in_host++;
    int n = host_dispatch ? host_dispatch(L, id) : -1;
    lim->in_host--;
    if (n < 0) return lua_error(L);  // Swift pushed the message
    if (lim->exceeded && lim->in_call) return luaL_error(L, "%s", loom_exceeded_message(lim));
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
