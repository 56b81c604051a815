// Read-only proxies: see include/loom_lua.h (the sandbox's C helpers over them are in
// loom_sandbox_lib.c).
//
// A proxy is an empty full userdata (a table can always be changed with rawset; a userdata
// cannot) with a metatable of its own:
//
//   __index      the real table: reading `user.tier` stays a plain VM table lookup
//   __newindex   raises "attempt to modify read-only table 'NAME' (field 'K')"
//   __len        the real table's raw length
//   __pairs      (loom_next, proxy, nil): an iterator over the real table, never the table itself
//   __tostring   "table: 0x..."
//   __name       "table" (error messages say "a table value")
//   __metatable  false (getmetatable answers false; setmetatable refuses)
//   __loomname   NAME, for the messages
//   __loomtarget, __loomrecord  a recording proxy only (loom_proxy_new_recording): __index is
//                then a C function that logs each key read before reading the target raw
//   __loomcopy   true when the table behind is the environment's own copy (a library view):
//                rawset then changes that copy, which only this environment sees
//
// Plugins cannot reach the metatable (no debug library; __metatable hides it), so the real
// table stays private. The sandbox replaces type, next, rawget, rawset, rawlen, setmetatable
// in every environment so that proxies behave as tables to plugins.
#include "loom_proxy_internal.h"

#include <string.h>

static int proxy_newindex(lua_State *L);

int loom_proxy_rawfield(lua_State *L, int idx, const char *k) {
    idx = lua_absindex(L, idx);
    lua_pushstring(L, k);
    return lua_rawget(L, idx);
}

int loom_is_proxy(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TUSERDATA) return 0;
    if (!lua_getmetatable(L, idx)) return 0;
    loom_proxy_rawfield(L, -1, "__newindex");
    int yes = lua_tocfunction(L, -1) == proxy_newindex;
    lua_pop(L, 2);
    return yes;
}

// A recording proxy's read log (its metatable's __loomrecord) learns that the whole table was
// read: `true` appended (see loom_proxy_new_recording).
static void record_all(lua_State *L, int record) {
    lua_pushboolean(L, 1);
    lua_rawseti(L, record, (lua_Integer)lua_rawlen(L, record) + 1);
}

int loom_proxy_push_target(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!loom_is_proxy(L, idx)) return 0;
    lua_getmetatable(L, idx);
    if (loom_proxy_rawfield(L, -1, "__index") != LUA_TTABLE) {
        lua_pop(L, 1);
        // A recording proxy: its target is __loomtarget, and whoever unwraps it (rawget, next,
        // pairs, #, table.*) may read anything: the log says so.
        if (loom_proxy_rawfield(L, -1, "__loomrecord") == LUA_TTABLE) record_all(L, lua_gettop(L));
        lua_pop(L, 1);
        if (loom_proxy_rawfield(L, -1, "__loomtarget") != LUA_TTABLE) {
            lua_pop(L, 2);
            return 0;
        }
    }
    lua_remove(L, -2);
    return 1;
}

// Replaces the proxy at `idx` (if it is one) by its target, in place.
void loom_proxy_unwrap(lua_State *L, int idx) {
    if (lua_type(L, idx) == LUA_TUSERDATA && loom_proxy_push_target(L, idx)) lua_replace(L, idx);
}

const char *loom_proxy_name(lua_State *L, int idx) {
    const char *name = "?";
    if (lua_getmetatable(L, idx)) {
        if (loom_proxy_rawfield(L, -1, "__loomname") == LUA_TSTRING) name = lua_tostring(L, -1);
        lua_pop(L, 2);  // (the name stays alive: the metatable holds it)
    }
    return name;
}

int loom_proxy_readonly_error(lua_State *L, int proxy, int key) {
    const char *name = loom_proxy_name(L, proxy);
    int t = lua_type(L, key);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) {
        lua_pushvalue(L, key);
        const char *k = lua_tostring(L, -1);
        return luaL_error(L, "attempt to modify read-only table '%s' (field '%s')", name, k);
    }
    return luaL_error(L, "attempt to modify read-only table '%s' (a %s key)", name, luaL_typename(L, key));
}

static int proxy_newindex(lua_State *L) { return loom_proxy_readonly_error(L, 1, 2); }

static int proxy_len(lua_State *L) {
    loom_proxy_unwrap(L, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

// next(t, k) that also walks a proxy's table.
int loom_proxy_next(lua_State *L) {
    loom_proxy_unwrap(L, 1);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int proxy_pairs(lua_State *L) {
    lua_pushcfunction(L, loom_proxy_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int proxy_tostring(lua_State *L) {
    lua_pushfstring(L, "table: %p", lua_topointer(L, 1));
    return 1;
}

void loom_proxy_make(lua_State *L, int idx, const char *name, int local_copy) {
    idx = lua_absindex(L, idx);
    lua_newuserdatauv(L, 0, 0);
    lua_createtable(L, 0, local_copy ? 9 : 8);
    // A fresh table has no metatable: lua_setfield is a raw set here.
    lua_pushvalue(L, idx);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, proxy_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, proxy_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, proxy_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushcfunction(L, proxy_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "table");
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__loomname");
    if (local_copy) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "__loomcopy");
    }
    lua_setmetatable(L, -2);
}

void loom_proxy_new(lua_State *L, int idx, const char *name) { loom_proxy_make(L, idx, name, 0); }

// A recording proxy's __index: appends the key to the read log (upvalue 2) when it is a
// string, else `true` (anything may have been read), then reads the target (upvalue 1) raw.
static int recording_index(lua_State *L) {
    int record = lua_upvalueindex(2);
    if (lua_type(L, 2) == LUA_TSTRING) {
        lua_pushvalue(L, 2);
        lua_rawseti(L, record, (lua_Integer)lua_rawlen(L, record) + 1);
    } else {
        record_all(L, record);
    }
    lua_settop(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    return 1;
}

// tostring of a recording proxy: its address differs from user to user, so the log says the
// whole table was read (an answer built from it cannot be reused for another user).
static int recording_tostring(lua_State *L) {
    if (lua_getmetatable(L, 1)) {
        if (loom_proxy_rawfield(L, -1, "__loomrecord") == LUA_TTABLE) record_all(L, lua_gettop(L));
        lua_pop(L, 2);
    }
    return proxy_tostring(L);
}

void loom_proxy_new_recording(lua_State *L, int idx, int record, const char *name) {
    idx = lua_absindex(L, idx);
    record = lua_absindex(L, record);
    loom_proxy_make(L, idx, name, 0);
    lua_getmetatable(L, -1);
    lua_pushvalue(L, idx);
    lua_setfield(L, -2, "__loomtarget");
    lua_pushvalue(L, record);
    lua_setfield(L, -2, "__loomrecord");
    lua_pushvalue(L, idx);
    lua_pushvalue(L, record);
    lua_pushcclosure(L, recording_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, recording_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}
