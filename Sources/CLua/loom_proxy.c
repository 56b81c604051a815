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
//   __loomrecording  a recording proxy only (loom_proxy_new_recording): its table and read log
//                are the userdata's user values 1 and 2, and __index is a C function that logs
//                each key read before reading the table raw. Recording proxies of one name share
//                one metatable (made once per state: a rule call made for a memo costs a userdata
//                and a log, not a metatable of ten fields and a closure)
//   __loomcopy   true when the table behind is the environment's own copy (a library view):
//                rawset then changes that copy, which only this environment sees
//
// Plugins cannot reach the metatable (no debug library; __metatable hides it), so the real
// table stays private. The sandbox replaces type, next, rawget, rawset, rawlen, setmetatable
// in every environment so that proxies behave as tables to plugins.
#include "loom_proxy_internal.h"

#include <string.h>

static int proxy_newindex(lua_State *L);
static int retired_index(lua_State *L);

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
        lua_pop(L, 2);
        // A recording proxy: its target is its user value 1, and whoever unwraps it (rawget,
        // next, pairs, #, table.*) may read anything: its log (user value 2) says so.
        if (lua_getiuservalue(L, idx, 2) == LUA_TTABLE) record_all(L, lua_gettop(L));
        lua_pop(L, 1);
        if (lua_getiuservalue(L, idx, 1) != LUA_TTABLE) {
            lua_pop(L, 1);
            return 0;
        }
        return 1;
    }
    lua_remove(L, -2);
    return 1;
}

// Replaces the proxy at `idx` (if it is one) by its target, in place; a retired view
// (loom_proxy_retire) raises its error instead.
void loom_proxy_unwrap(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TUSERDATA) return;
    if (loom_proxy_push_target(L, idx)) {
        lua_replace(L, idx);
        return;
    }
    if (lua_getmetatable(L, idx)) {
        int retired = loom_proxy_rawfield(L, -1, "__loomretired") == LUA_TBOOLEAN;
        lua_pop(L, 2);
        if (retired) loom_proxy_retired_error(L);
    }
}

int loom_proxy_retired_error(lua_State *L) {
    return luaL_error(L, "attempt to use a user view kept from an earlier user (host eval hands each user's rules a view "
                         "that is valid only while that user is evaluated; rules must be deterministic and keep no view)");
}

static int retired_index(lua_State *L) { return loom_proxy_retired_error(L); }

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

// The fields every proxy's metatable has besides __index, on the table on top: writes refused,
// length, pairs, `tostring` (`tostring_fn`), the name `table` for messages, the metatable hidden,
// and the proxy's name. (A fresh table has no metatable: lua_setfield is a raw set here.)
static void set_proxy_fields(lua_State *L, lua_CFunction tostring_fn, const char *name) {
    lua_pushcfunction(L, proxy_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, proxy_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, proxy_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushcfunction(L, tostring_fn);
    lua_setfield(L, -2, "__tostring");
    lua_pushliteral(L, "table");
    lua_setfield(L, -2, "__name");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__loomname");
}

void loom_proxy_make(lua_State *L, int idx, const char *name, int local_copy) {
    idx = lua_absindex(L, idx);
    lua_newuserdatauv(L, 0, 0);
    lua_createtable(L, 0, local_copy ? 9 : 8);
    lua_pushvalue(L, idx);
    lua_setfield(L, -2, "__index");
    set_proxy_fields(L, proxy_tostring, name);
    if (local_copy) {
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "__loomcopy");
    }
    lua_setmetatable(L, -2);
}

int loom_bounded_cache(lua_State *L, const char *key) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 1, 4);
        lua_pushinteger(L, 0);
        lua_rawseti(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_setfield(L, LUA_REGISTRYINDEX, key);
    }
    return lua_gettop(L);
}

void loom_bounded_cache_keep(lua_State *L, int cache, const char *k, size_t length, lua_Integer limit) {
    lua_rawgeti(L, cache, 1);
    lua_Integer kept = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (kept < limit) {
        lua_pushlstring(L, k, length);
        lua_pushvalue(L, -2);
        lua_rawset(L, cache);
        lua_pushinteger(L, kept + 1);
        lua_rawseti(L, cache, 1);
    }
}

void loom_proxy_new(lua_State *L, int idx, const char *name) { loom_proxy_make(L, idx, name, 0); }

// A recording proxy's __index: appends the key to the read log (the proxy's user value 2) when
// it is a string, else `true` (anything may have been read), then reads the target (user value
// 1) raw.
static int recording_index(lua_State *L) {
    lua_settop(L, 2);
    lua_getiuservalue(L, 1, 2);  // 3: the log
    if (lua_type(L, 2) == LUA_TSTRING) {
        lua_pushvalue(L, 2);
        lua_rawseti(L, 3, (lua_Integer)lua_rawlen(L, 3) + 1);
    } else {
        record_all(L, 3);
    }
    lua_getiuservalue(L, 1, 1);  // 4: the target
    lua_pushvalue(L, 2);
    lua_rawget(L, 4);
    return 1;
}

// tostring of a recording proxy: its address differs from user to user, so the log says the
// whole table was read (an answer built from it cannot be reused for another user).
static int recording_tostring(lua_State *L) {
    if (lua_type(L, 1) == LUA_TUSERDATA && lua_getiuservalue(L, 1, 2) == LUA_TTABLE) record_all(L, lua_gettop(L));
    lua_settop(L, 1);
    return proxy_tostring(L);
}

// Recording proxies' metatables, by name: a registry table from the name to the metatable, with
// its count of entries at [1]. At most RECORDING_NAMES names are kept (views are named by the
// host: "node", a few others); a proxy of any other name gets a metatable of its own. Sharing
// cannot be observed: plugins reach no metatable (__metatable is false) and no user value (no
// debug library), and nothing changes a metatable once made.
#define RECORDING_METATABLES "loom.recordingmts"
#define RECORDING_NAMES 16

// Pushes the metatable the proxies of one kind named `name` share (made on first use, kept under
// `name` in the bounded cache `cache_key` for at most RECORDING_NAMES names): `__index` is
// `index_fn`, the proxy fields with `tostring_fn`, and the field `marker` is true.
static void push_shared_metatable(lua_State *L, const char *cache_key, const char *name, lua_CFunction index_fn,
                                  lua_CFunction tostring_fn, const char *marker) {
    int cache = loom_bounded_cache(L, cache_key);
    lua_pushstring(L, name);
    if (lua_rawget(L, cache) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 9);
        lua_pushcfunction(L, index_fn);
        lua_setfield(L, -2, "__index");
        set_proxy_fields(L, tostring_fn, name);
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, marker);
        loom_bounded_cache_keep(L, cache, name, strlen(name), RECORDING_NAMES);
    }
    lua_remove(L, cache);
}

// Pushes the shared metatable of recording proxies named `name` (made on first use).
static void push_recording_metatable(lua_State *L, const char *name) {
    push_shared_metatable(L, RECORDING_METATABLES, name, recording_index, recording_tostring, "__loomrecording");
}

void loom_proxy_new_recording(lua_State *L, int idx, int record, const char *name) {
    idx = lua_absindex(L, idx);
    record = lua_absindex(L, record);
    lua_newuserdatauv(L, 0, 2);
    lua_pushvalue(L, idx);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, record);
    lua_setiuservalue(L, -2, 2);
    push_recording_metatable(L, name);
    lua_setmetatable(L, -2);
}

int loom_recording_view(lua_State *L, int view_ref, int *proxy_ref, int *log_ref) {
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 8)) return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, view_ref);
    int view = lua_gettop(L);
    // The view's own name (what a write's error message says): the string stays alive while
    // the view's metatable, which holds it, is on the stack.
    const char *name = "?";
    if (lua_getmetatable(L, view)) {
        if (loom_proxy_rawfield(L, -1, "__loomname") == LUA_TSTRING) name = lua_tostring(L, -1);
    }
    if (!loom_proxy_push_target(L, view)) {
        lua_settop(L, top);
        return 0;
    }
    int target = lua_gettop(L);
    lua_createtable(L, 4, 0);
    int log = lua_gettop(L);
    loom_proxy_new_recording(L, target, log, name);
    *proxy_ref = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the proxy
    *log_ref = luaL_ref(L, LUA_REGISTRYINDEX);    // pops the log
    lua_settop(L, top);
    return 1;
}

int loom_recording_of_table(lua_State *L, int table_ref, const char *name, int *proxy_ref, int *log_ref) {
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 6)) return 0;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, table_ref) != LUA_TTABLE) {
        lua_settop(L, top);
        return 0;
    }
    int target = lua_gettop(L);
    lua_createtable(L, 4, 0);
    int log = lua_gettop(L);
    loom_proxy_new_recording(L, target, log, name);
    *proxy_ref = luaL_ref(L, LUA_REGISTRYINDEX);  // pops the proxy
    *log_ref = luaL_ref(L, LUA_REGISTRYINDEX);    // pops the log
    lua_settop(L, top);
    return 1;
}

int loom_proxy_of_table(lua_State *L, int table_ref, const char *name) {
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 4)) return 0;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, table_ref) != LUA_TTABLE) {
        lua_settop(L, top);
        return 0;
    }
    loom_proxy_new(L, -1, name);
    lua_remove(L, -2);
    return 1;
}

// Retired views (loom_proxy_retire), by name: made once per state, as recording proxies' are. A
// reused view's metatable holds its retired metatable at integer key RETIRED_AT (a key no plugin
// can reach: plugins get no metatable, __metatable being false; and one that no other field of a
// proxy's metatable uses, all of them strings), so that retiring a view looks up no string and
// no pointer (a light userdata key costs a retirement about 100 instructions more).
#define RETIRED_METATABLES "loom.retiredmts"
#define RETIRED_AT 1

void loom_proxy_make_reused(lua_State *L, int idx, const char *name) {
    loom_proxy_make(L, idx, name, 0);
    lua_getmetatable(L, -1);
    push_shared_metatable(L, RETIRED_METATABLES, name, retired_index, proxy_tostring, "__loomretired");
    lua_rawseti(L, -2, RETIRED_AT);
    lua_pop(L, 1);
}

void loom_proxy_retire(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TUSERDATA || !lua_getmetatable(L, idx)) return;
    if (lua_rawgeti(L, -1, RETIRED_AT) == LUA_TTABLE) lua_setmetatable(L, idx);
    lua_settop(L, idx);
}
