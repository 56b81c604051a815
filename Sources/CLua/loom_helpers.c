// Wrappers of Lua's macros (Swift cannot import them) and the read-only metatable. See include/loom_lua.h.
#include "loom_internal.h"

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

int loom_resident_handler_in_place(lua_State *L) {
    return lua_gettop(L) >= 1 && loom_slot1_is_handler(L);
}
