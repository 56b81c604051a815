// Budgeted copies of table.move, table.sort, table.insert and table.remove (from Lua 5.4's
// ltablib.c, MIT licence, Copyright (C) 1994-2022 Lua.org, PUC-Rio).
//
// These loop in C without running Lua instructions, so the budget's hook cannot stop them:
// `table.move({}, 1, math.maxinteger // 2, 2)` copies nils for ever, `table.insert(t, 1, v)`
// with a __len answering math.maxinteger shifts for ever, and `table.sort` over many huge equal
// strings compares gigabytes. Each loop here counts its work and calls loom_check_budget every
// LOOM_TAB_STEP units (a string comparison costs its length / 1 KiB).
#include "loom_lua.h"

#include <limits.h>
#include <string.h>

#define LOOM_TAB_STEP 4096

typedef struct Budget {
    lua_State *L;
    long countdown;
} Budget;

static void budget_init(Budget *b, lua_State *L) {
    b->L = L;
    b->countdown = LOOM_TAB_STEP;
}

static void budget_spend(Budget *b, long units) {
    b->countdown -= units;
    if (b->countdown <= 0) {
        b->countdown = LOOM_TAB_STEP;
        loom_check_budget(b->L);
    }
}

#define TAB_R 1
#define TAB_W 2
#define TAB_L 4
#define TAB_RW (TAB_R | TAB_W)

#define aux_getn(L, n, w) (checktab(L, n, (w) | TAB_L), luaL_len(L, n))

static int checkfield(lua_State *L, const char *key, int n) {
    lua_pushstring(L, key);
    return (lua_rawget(L, -n) != LUA_TNIL);
}

static void checktab(lua_State *L, int arg, int what) {
    if (lua_type(L, arg) != LUA_TTABLE) {
        int n = 1;
        if (lua_getmetatable(L, arg) && (!(what & TAB_R) || checkfield(L, "__index", ++n)) &&
            (!(what & TAB_W) || checkfield(L, "__newindex", ++n)) && (!(what & TAB_L) || checkfield(L, "__len", ++n))) {
            lua_pop(L, n);
        } else
            luaL_checktype(L, arg, LUA_TTABLE);
    }
}

static int tinsert(lua_State *L) {
    lua_Integer pos;
    lua_Integer e = aux_getn(L, 1, TAB_RW);
    e = (lua_Integer)((lua_Unsigned)e + 1u);
    switch (lua_gettop(L)) {
    case 2: pos = e; break;
    case 3: {
        lua_Integer i;
        Budget b;
        budget_init(&b, L);
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        for (i = e; i > pos; i--) {
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
            budget_spend(&b, 1);
        }
        break;
    }
    default: return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int tremove(lua_State *L) {
    lua_Integer size = aux_getn(L, 1, TAB_RW);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    Budget b;
    budget_init(&b, L);
    if (pos != size) luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
        budget_spend(&b, 1);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

static int tmove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    lua_Integer t = luaL_checkinteger(L, 4);
    int tt = !lua_isnoneornil(L, 5) ? 5 : 1;
    checktab(L, 1, TAB_R);
    checktab(L, tt, TAB_W);
    if (e >= f) {
        lua_Integer n, i;
        Budget b;
        budget_init(&b, L);
        luaL_argcheck(L, f > 0 || e < LUA_MAXINTEGER + f, 3, "too many elements to move");
        n = e - f + 1;
        luaL_argcheck(L, t <= LUA_MAXINTEGER - n + 1, 4, "destination wrap around");
        if (t > e || t <= f || (tt != 1 && !lua_compare(L, 1, tt, LUA_OPEQ))) {
            for (i = 0; i < n; i++) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
                budget_spend(&b, 1);
            }
        } else {
            for (i = n - 1; i >= 0; i--) {
                lua_geti(L, 1, f + i);
                lua_seti(L, tt, t + i);
                budget_spend(&b, 1);
            }
        }
    }
    lua_pushvalue(L, tt);
    return 1;
}

/*
** {======================================================
** Quicksort
** =======================================================
*/

typedef unsigned int IdxT;

#define RANLIMIT 100u

static void set2(lua_State *L, IdxT i, IdxT j) {
    lua_seti(L, 1, i);
    lua_seti(L, 1, j);
}

// The cost of comparing the values at a and b: 1, plus the length of the shorter string / 1 KiB
// when both are strings (equal prefixes are compared byte by byte).
static long compare_cost(lua_State *L, int a, int b) {
    if (lua_type(L, a) == LUA_TSTRING && lua_type(L, b) == LUA_TSTRING) {
        size_t la = lua_rawlen(L, a), lb = lua_rawlen(L, b);
        size_t m = la < lb ? la : lb;
        return 1 + (long)(m / 1024);
    }
    return 1;
}

static int sort_comp(lua_State *L, Budget *bud, int a, int b) {
    if (lua_isnil(L, 2)) {
        budget_spend(bud, compare_cost(L, a, b));
        return lua_compare(L, a, b, LUA_OPLT);
    } else {
        int res;
        budget_spend(bud, 1);
        lua_pushvalue(L, 2);
        lua_pushvalue(L, a - 1);
        lua_pushvalue(L, b - 2);
        lua_call(L, 2, 1);
        res = lua_toboolean(L, -1);
        lua_pop(L, 1);
        return res;
    }
}

static IdxT partition(lua_State *L, Budget *bud, IdxT lo, IdxT up) {
    IdxT i = lo;
    IdxT j = up - 1;
    for (;;) {
        while (lua_geti(L, 1, ++i), sort_comp(L, bud, -1, -2)) {
            if (i == up - 1) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        while (lua_geti(L, 1, --j), sort_comp(L, bud, -3, -1)) {
            if (j < i) luaL_error(L, "invalid order function for sorting");
            lua_pop(L, 1);
        }
        if (j < i) {
            lua_pop(L, 1);
            set2(L, up - 1, i);
            return i;
        }
        set2(L, i, j);
    }
}

static IdxT choosePivot(IdxT lo, IdxT up, unsigned int rnd) {
    IdxT r4 = (up - lo) / 4;
    IdxT p = rnd % (r4 * 2) + (lo + r4);
    return p;
}

static void auxsort(lua_State *L, Budget *bud, IdxT lo, IdxT up, unsigned int rnd) {
    while (lo < up) {
        IdxT p;
        IdxT n;
        lua_geti(L, 1, lo);
        lua_geti(L, 1, up);
        if (sort_comp(L, bud, -1, -2))
            set2(L, lo, up);
        else
            lua_pop(L, 2);
        if (up - lo == 1) break;
        if (up - lo < RANLIMIT || rnd == 0)
            p = (lo + up) / 2;
        else
            p = choosePivot(lo, up, rnd);
        lua_geti(L, 1, p);
        lua_geti(L, 1, lo);
        if (sort_comp(L, bud, -2, -1))
            set2(L, p, lo);
        else {
            lua_pop(L, 1);
            lua_geti(L, 1, up);
            if (sort_comp(L, bud, -1, -2))
                set2(L, p, up);
            else
                lua_pop(L, 2);
        }
        if (up - lo == 2) break;
        lua_geti(L, 1, p);
        lua_pushvalue(L, -1);
        lua_geti(L, 1, up - 1);
        set2(L, p, up - 1);
        p = partition(L, bud, lo, up);
        if (p - lo < up - p) {
            auxsort(L, bud, lo, p - 1, rnd);
            n = p - lo;
            lo = p + 1;
        } else {
            auxsort(L, bud, p + 1, up, rnd);
            n = up - p;
            up = p - 1;
        }
        if ((up - lo) / 128 > n) rnd = (unsigned int)(lo * 2654435761u + up);  // deterministic
    }
}

static int sort(lua_State *L) {
    lua_Integer n = aux_getn(L, 1, TAB_RW);
    if (n > 1) {
        Budget bud;
        budget_init(&bud, L);
        luaL_argcheck(L, n < INT_MAX, 1, "array too big");
        if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
        lua_settop(L, 2);
        auxsort(L, &bud, 1, (IdxT)n, 0);
    }
    return 0;
}

/* }====================================================== */

void loom_open_budgeted_tablib(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"insert", tinsert},
        {"remove", tremove},
        {"move", tmove},
        {"sort", sort},
        {NULL, NULL},
    };
    luaL_setfuncs(L, funcs, 0);
}
