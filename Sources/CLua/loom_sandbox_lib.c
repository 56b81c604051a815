// The sandbox's C helpers (freeze, proxy-aware type/next/rawget/rawset/rawlen/setmetatable,
// xpcall, coroutines): see loom_push_sandbox_lib in include/loom_lua.h.
#include "loom_proxy_internal.h"
#include "loom_internal.h"

#include <string.h>

// ---------------------------------------------------------------------------------------------
// freeze(value [, name]): a read-only view of a table, nested tables (values and keys) frozen
// too. Iterative (a work list, no C recursion: any depth), and each table is frozen once per
// call (a memo: cycles and shared substructures cost nothing more). Nested tables are replaced
// in place by their proxies, so `node.meta.title` is two plain VM lookups. A value that already
// is a proxy stays as it is.

static int sb_freeze(lua_State *L) {
    if (lua_type(L, 1) != LUA_TTABLE) {
        lua_settop(L, 1);
        return 1;
    }
    const char *name = luaL_optstring(L, 2, "node");
    lua_settop(L, 2);
    lua_createtable(L, 0, 0);  // 3: memo, table -> proxy
    lua_createtable(L, 4, 0);  // 4: work list of tables to traverse
    lua_createtable(L, 0, 0);  // 5: table keys met (replaced after the traversal of their table)
    int memo = 3, work = 4, tkeys = 5;
    lua_Integer nwork = 0;
    loom_proxy_make(L, 1, name, 0);  // 6: the result
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 6);
    lua_rawset(L, memo);
    lua_pushvalue(L, 1);
    lua_rawseti(L, work, ++nwork);
    while (nwork > 0) {
        lua_rawgeti(L, work, nwork);
        lua_pushnil(L);
        lua_rawseti(L, work, nwork--);
        int t = lua_gettop(L);
        lua_Integer nkeys = 0;
        lua_pushnil(L);
        while (lua_next(L, t)) {  // key at t+1, value at t+2
            if (lua_type(L, -1) == LUA_TTABLE) {
                lua_pushvalue(L, -1);
                if (lua_rawget(L, memo) == LUA_TNIL) {
                    lua_pop(L, 1);
                    loom_proxy_make(L, -1, name, 0);
                    lua_pushvalue(L, -2);
                    lua_pushvalue(L, -2);
                    lua_rawset(L, memo);
                    lua_pushvalue(L, -2);
                    lua_rawseti(L, work, ++nwork);
                }
                // key, value, proxy: t[key] = proxy (changing an existing field while
                // traversing is allowed)
                lua_pushvalue(L, -3);
                lua_insert(L, -2);
                lua_rawset(L, t);
            }
            if (lua_type(L, -2) == LUA_TTABLE) {
                lua_pushvalue(L, -2);
                lua_rawseti(L, tkeys, ++nkeys);
            }
            lua_pop(L, 1);
        }
        // Table keys: t[proxy(k)] = t[k], t[k] = nil.
        for (lua_Integer i = 1; i <= nkeys; i++) {
            lua_rawgeti(L, tkeys, i);  // k
            int k = lua_gettop(L);
            lua_pushvalue(L, k);
            if (lua_rawget(L, memo) == LUA_TNIL) {
                lua_pop(L, 1);
                loom_proxy_make(L, k, name, 0);
                lua_pushvalue(L, k);
                lua_pushvalue(L, -2);
                lua_rawset(L, memo);
                lua_pushvalue(L, k);
                lua_rawseti(L, work, ++nwork);
            }
            // k, proxy
            lua_pushvalue(L, k);
            lua_rawget(L, t);  // k, proxy, v
            lua_rawset(L, t);  // t[proxy] = v
            lua_pushnil(L);
            lua_rawset(L, t);  // t[k] = nil
            lua_pushnil(L);
            lua_rawseti(L, tkeys, i);
        }
        lua_settop(L, t - 1);
    }
    lua_settop(L, 6);
    return 1;
}

// ---------------------------------------------------------------------------------------------
// freeze for the host's own tables (loom_freeze_top): the same result as `freeze` when the
// value is a tree, as every table the host pushes is (made from JSON, with frozen tables, which
// are proxies, set in: no table is reached twice, no key is a table). Each nested table is made
// a proxy where it is set, depth first, then the table itself: no memo, no work list, no list of
// table keys, so no garbage beyond the proxies themselves. A table key, or nesting deeper than
// FREEZE_TREE_DEPTH (so a cycle too), is not such a tree: `freeze` then finishes the work (the
// proxies made so far are values it leaves as they are).

#define FREEZE_TREE_DEPTH 256

// Makes every table value under the table at `t` a proxy; 0 when it is not a tree.
static int freeze_tree_members(lua_State *L, int t, const char *name, int depth) {
    if (depth > FREEZE_TREE_DEPTH || !lua_checkstack(L, 6)) return 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {  // key at -2, value at -1
        if (lua_type(L, -2) == LUA_TTABLE) {
            lua_pop(L, 2);
            return 0;
        }
        if (lua_type(L, -1) == LUA_TTABLE) {
            int v = lua_gettop(L);
            if (!freeze_tree_members(L, v, name, depth + 1)) {
                lua_pop(L, 2);
                return 0;
            }
            loom_proxy_make(L, v, name, 0);  // key, value, proxy
            lua_pushvalue(L, v - 1);
            lua_insert(L, -2);               // key, value, key, proxy
            lua_rawset(L, t);                // t[key] = proxy (an existing field: allowed while traversing)
        }
        lua_pop(L, 1);
    }
    return 1;
}

// freeze_tree(value, name): `freeze` for a tree (see above), falling back to `freeze`.
static int sb_freeze_tree(lua_State *L) {
    if (lua_type(L, 1) != LUA_TTABLE) {
        lua_settop(L, 1);
        return 1;
    }
    const char *name = luaL_optstring(L, 2, "node");
    lua_settop(L, 2);
    if (!freeze_tree_members(L, 1, name, 1)) {
        lua_settop(L, 2);
        return sb_freeze(L);
    }
    loom_proxy_make(L, 1, name, 0);
    return 1;
}

int loom_freeze_top(lua_State *L, const char *name) {
    lua_pushcfunction(L, sb_freeze_tree);
    lua_pushvalue(L, -2);
    lua_pushstring(L, name);
    int status = loom_pcall_host(L, 2, 1);
    if (status == LUA_OK) lua_replace(L, -2);
    return status;
}

// proxy(t, name): a library view over `t`, which is the environment's own copy.
static int sb_libproxy(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *name = luaL_checkstring(L, 2);
    loom_proxy_make(L, 1, name, 1);
    return 1;
}

static int sb_is_proxy(lua_State *L) {
    lua_pushboolean(L, loom_is_proxy(L, 1));
    return 1;
}

static int sb_type(lua_State *L) {
    int t = lua_type(L, 1);
    luaL_argcheck(L, t != LUA_TNONE, 1, "value expected");
    if (t == LUA_TUSERDATA && loom_is_proxy(L, 1)) t = LUA_TTABLE;
    lua_pushstring(L, lua_typename(L, t));
    return 1;
}

static int sb_rawget(lua_State *L) {
    loom_proxy_unwrap(L, 1);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

static int sb_rawlen(lua_State *L) {
    loom_proxy_unwrap(L, 1);
    int t = lua_type(L, 1);
    luaL_argexpected(L, t == LUA_TTABLE || t == LUA_TSTRING, 1, "table or string");
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

static int is_local_copy(lua_State *L, int idx) {
    int yes = 0;
    if (lua_getmetatable(L, idx)) {
        yes = loom_proxy_rawfield(L, -1, "__loomcopy") == LUA_TBOOLEAN;
        lua_pop(L, 2);
    }
    return yes;
}

static int sb_rawset(lua_State *L) {
    if (loom_is_proxy(L, 1)) {
        luaL_checkany(L, 3);
        if (!is_local_copy(L, 1)) return loom_proxy_readonly_error(L, 1, 2);
        // A library view: the table behind is this environment's own copy.
        loom_proxy_push_target(L, 1);
        lua_pushvalue(L, 2);
        lua_pushvalue(L, 3);
        lua_rawset(L, -3);
        lua_settop(L, 1);
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int sb_setmetatable(lua_State *L) {
    if (loom_is_proxy(L, 1))
        return luaL_error(L, "cannot change the metatable of read-only table '%s'", loom_proxy_name(L, 1));
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    if (t == LUA_TTABLE) {
        if (loom_proxy_rawfield(L, 2, "__gc") != LUA_TNIL) return luaL_error(L, "__gc metamethods are not available to plugins");
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

// ---------------------------------------------------------------------------------------------
// xpcall whose message handler does not run once a limit is met. The count hook raises the
// limit error from inside the hook, where Lua runs no further hooks: a handler run then would
// run unbounded (`xpcall(loop, function() while true do end end)`). The guard passes the error
// on untouched instead; the hook raises it again at the next instruction after xpcall returns.

static int guarded_handler(lua_State *L) {
    loom_limits *lim = loom_limits_of(L);
    if (lim && lim->exceeded) {
        lua_settop(L, 1);
        return 1;
    }
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

static int finishpcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int sb_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finishpcall);
    return finishpcall(L, status, 2);
}

// ---------------------------------------------------------------------------------------------
// Coroutines. A coroutine that died of an error raised by the count hook keeps hooks disabled
// (Lua restores them only where a pcall catches the error), so its pending to-be-closed
// variables must not run: coroutine.close and coroutine.wrap do not close a coroutine that
// died of an error (its __close handlers are skipped; nothing a plugin holds needs closing).
//
// Every resume (and the closing of a coroutine, which runs its __close handlers on it) tells the
// watchdog which Lua thread runs (loom_track_enter): its signal arms that thread's hook, so a
// limit stops a loop inside a coroutine. These replace coroutine.resume, wrap and close in every
// state (loom_openlibs); the sandbox's wrap and close below use them too.

static int auxresume(lua_State *L, lua_State *co, int narg) {
    int status, nres;
    if (!lua_checkstack(co, narg)) {
        lua_pushliteral(L, "too many arguments to resume");
        return -1;
    }
    lua_xmove(L, co, narg);
    lua_State *previous = loom_track_enter(co);
    status = lua_resume(co, L, narg, &nres);
    loom_track_leave(previous);
    // A limit met inside the coroutine stops the resumer too, at its next instruction.
    loom_limits *lim = loom_limits_of(L);
    if (lim->exceeded && lim->in_call && !lim->in_host) loom_arm_now(L, lim);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            lua_pushliteral(L, "too many results to resume");
            return -1;
        }
        lua_xmove(co, L, nres);
        return nres;
    }
    lua_xmove(co, L, 1);
    return -1;
}

// A wrapped coroutine's call: its results, or its error raised in the caller with the call's
// position. `close_dead`: a coroutine that died of an error is closed first (its __close
// handlers run, on it), as Lua's own wrap does; the sandbox's wrap does not (see above).
static int wrapped_call(lua_State *L, int close_dead) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int r = auxresume(L, co, lua_gettop(L));
    if (r < 0) {
        int stat = lua_status(co);
        if (close_dead && stat != LUA_OK && stat != LUA_YIELD) {
            lua_State *previous = loom_track_enter(co);
            stat = lua_resetthread(co);  // runs its __close handlers, on it
            loom_track_leave(previous);
            lua_xmove(co, L, 1);
        }
        if (stat != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    return r;
}

static int auxwrap(lua_State *L) { return wrapped_call(L, 0); }

// coroutine.wrap's body: a new coroutine running the function at 1, called through `call`.
static int wrap_with(lua_State *L, lua_CFunction call) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *NL = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, NL, 1);
    lua_pushcclosure(L, call, 1);
    return 1;
}

// Lua 5.4's coroutine.resume, wrap and close (lcorolib.c, MIT licence, Copyright (C) 1994-2022
// Lua.org, PUC-Rio), through the tracking auxresume above.
static int co_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    int r = auxresume(L, co, lua_gettop(L) - 1);
    if (r < 0) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, -(r + 1));
    return r + 1;
}

static int co_auxwrap(lua_State *L) { return wrapped_call(L, 1); }

static int co_wrap(lua_State *L) { return wrap_with(L, co_auxwrap); }

static int co_close(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    const char *what = NULL;
    if (co == L) {
        what = "running";
    } else if (lua_status(co) == LUA_OK) {
        lua_Debug ar;
        if (lua_getstack(co, 0, &ar)) what = "normal";  // it resumed another coroutine
    }
    if (what != NULL) return luaL_error(L, "cannot close a %s coroutine", what);
    lua_State *previous = loom_track_enter(co);
    int status = lua_resetthread(co);  // runs its __close handlers, on it
    loom_track_leave(previous);
    if (status == LUA_OK) {
        lua_pushboolean(L, 1);
        return 1;
    }
    lua_pushboolean(L, 0);
    lua_xmove(co, L, 1);
    return 2;
}

void loom_openlibs(lua_State *L) {
    luaL_openlibs(L);
    lua_getglobal(L, "coroutine");
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushcfunction(L, co_resume);
        lua_setfield(L, -2, "resume");
        lua_pushcfunction(L, co_wrap);
        lua_setfield(L, -2, "wrap");
        lua_pushcfunction(L, co_close);
        lua_setfield(L, -2, "close");
    }
    lua_pop(L, 1);
}

static int sb_cowrap(lua_State *L) { return wrap_with(L, auxwrap); }

static int sb_coclose(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    int st = lua_status(co);
    if (st != LUA_OK && st != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "cannot close a coroutine that died of an error");
        return 2;
    }
    lua_pushvalue(L, lua_upvalueindex(1));  // the library's close
    lua_pushvalue(L, 1);
    lua_call(L, 1, LUA_MULTRET);
    return lua_gettop(L) - 1;
}

void loom_push_sandbox_lib(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"freeze", sb_freeze},
        {"proxy", sb_libproxy},
        {"is_proxy", sb_is_proxy},
        {"type", sb_type},
        {"next", loom_proxy_next},
        {"rawget", sb_rawget},
        {"rawset", sb_rawset},
        {"rawlen", sb_rawlen},
        {"setmetatable", sb_setmetatable},
        {"xpcall", sb_xpcall},
        {"coroutine_wrap", sb_cowrap},
        {NULL, NULL},
    };
    lua_createtable(L, 0, 16);
    luaL_setfuncs(L, funcs, 0);
    // coroutine_close(co) wraps the library's close (an upvalue).
    lua_getglobal(L, "coroutine");
    lua_getfield(L, -1, "close");
    lua_remove(L, -2);
    lua_pushcclosure(L, sb_coclose, 1);
    lua_setfield(L, -2, "coroutine_close");
}
