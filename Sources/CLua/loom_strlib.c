// The sandbox's string.find, string.match, string.gmatch, string.gsub and string.rep, over the
// budgeted pattern matcher of loom_pattern.c (which says why it exists and how the budget is
// counted). Same results, captures and error messages as Lua 5.4's lstrlib.c.
//
// Derived from lstrlib.c of Lua 5.4, which carries this notice:
//
/******************************************************************************
* Copyright (C) 1994-2022 Lua.org, PUC-Rio.
*
* Permission is hereby granted, free of charge, to any person obtaining
* a copy of this software and associated documentation files (the
* "Software"), to deal in the Software without restriction, including
* without limitation the rights to use, copy, modify, merge, publish,
* distribute, sublicense, and/or sell copies of the Software, and to
* permit persons to whom the Software is furnished to do so, subject to
* the following conditions:
*
* The above copyright notice and this permission notice shall be
* included in all copies or substantial portions of the Software.
*
* THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND,
* EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
* MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
* IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY
* CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT,
* TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
* SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
******************************************************************************/
#include "loom_pattern.h"

/*
** translate a relative initial string position
** (negative means back from end): clip result to [1, inf).
** The length of any string in Lua must fit in a lua_Integer,
** so there are no overflows in the casts.
** The inverted comparison avoids a possible overflow
** computing '-pos'.
*/
static size_t posrelatI(lua_Integer pos, size_t len) {
    if (pos > 0)
        return (size_t)pos;
    else if (pos == 0)
        return 1;
    else if (pos < -(lua_Integer)len) /* inverted comparison */
        return 1;                     /* clip to 1 */
    else
        return len + (size_t)pos + 1;
}

/*
** get information about the i-th capture. If there are no captures
** and 'i==0', return information about the whole match, which
** is the range 's'..'e'. If the capture is a string, return
** its length and put its address in '*cap'. If it is an integer
** (a position), push it on the stack and return CAP_POSITION.
*/
static ptrdiff_t get_onecapture(MatchState *ms, int i, const char *s, const char *e, const char **cap) {
    if (i >= ms->level) {
        if (loom_unlikely(i != 0)) luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        *cap = s;
        return (e - s);
    } else {
        ptrdiff_t capl = ms->capture[i].len;
        *cap = ms->capture[i].init;
        if (loom_unlikely(capl == CAP_UNFINISHED))
            luaL_error(ms->L, "unfinished capture");
        else if (capl == CAP_POSITION)
            lua_pushinteger(ms->L, (lua_Integer)(ms->capture[i].init - ms->src_init) + 1);
        return capl;
    }
}

/*
** Push the i-th capture on the stack.
*/
static void push_onecapture(MatchState *ms, int i, const char *s, const char *e) {
    const char *cap;
    ptrdiff_t l = get_onecapture(ms, i, s, e, &cap);
    if (l != CAP_POSITION) lua_pushlstring(ms->L, cap, (size_t)l);
    /* else position was already pushed */
}

static int push_captures(MatchState *ms, const char *s, const char *e) {
    int i;
    int nlevels = (ms->level == 0 && s) ? 1 : ms->level;
    luaL_checkstack(ms->L, nlevels, "too many captures");
    for (i = 0; i < nlevels; i++) push_onecapture(ms, i, s, e);
    return nlevels; /* number of strings pushed */
}

/* check whether pattern has no special characters */
static int nospecials(const char *p, size_t l) {
    size_t upto = 0;
    do {
        if (strpbrk(p + upto, SPECIALS)) return 0; /* pattern has a special character */
        upto += strlen(p + upto) + 1;               /* may have more after \0 */
    } while (upto <= l);
    return 1; /* no special chars found */
}

static void prepstate(MatchState *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    ms->L = L;
    ms->matchdepth = MAXCCALLS;
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->p_end = p + lp;
    ms->countdown = LOOM_STEP_INTERVAL;
}

static void reprepstate(MatchState *ms) {
    ms->level = 0;
    /* Upstream asserts matchdepth == MAXCCALLS. A match interrupted by an error (the time
       budget, "pattern too complex") leaves it lowered, and a gmatch iterator keeps its
       MatchState across calls: reset it so that the depth limit always holds. */
    ms->matchdepth = MAXCCALLS;
}

static int str_find_aux(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = posrelatI(luaL_optinteger(L, 3, 1), ls) - 1;
    MatchState ms;
    if (init > ls) {      /* start after string's end? */
        luaL_pushfail(L); /* cannot find anything */
        return 1;
    }
    /* explicit request or no special characters? */
    if (find && (lua_toboolean(L, 4) || nospecials(p, lp))) {
        /* do a plain search */
        const char *s2;
        prepstate(&ms, L, s, ls, p, lp);
        s2 = loom_lmemfind(&ms, s + init, ls - init, p, lp);
        if (s2) {
            lua_pushinteger(L, (lua_Integer)(s2 - s) + 1);
            lua_pushinteger(L, (lua_Integer)((size_t)(s2 - s) + lp));
            return 2;
        }
    } else {
        const char *s1 = s + init;
        int anchor = (*p == '^');
        if (anchor) {
            p++;
            lp--; /* skip anchor character */
        }
        prepstate(&ms, L, s, ls, p, lp);
        do {
            const char *res;
            reprepstate(&ms);
            if ((res = loom_pattern_match(&ms, s1, p)) != NULL) {
                if (find) {
                    lua_pushinteger(L, (lua_Integer)(s1 - s) + 1); /* start */
                    lua_pushinteger(L, (lua_Integer)(res - s));    /* end */
                    return push_captures(&ms, NULL, 0) + 2;
                } else
                    return push_captures(&ms, s1, res);
            }
        } while (s1++ < ms.src_end && !anchor);
    }
    luaL_pushfail(L); /* not found */
    return 1;
}

static int str_find(lua_State *L) { return str_find_aux(L, 1); }

static int str_match(lua_State *L) { return str_find_aux(L, 0); }

/* state for 'gmatch' */
typedef struct GMatchState {
    const char *src;       /* current position */
    const char *p;         /* pattern */
    const char *lastmatch; /* end of last match */
    MatchState ms;         /* match state */
} GMatchState;

static int gmatch_aux(lua_State *L) {
    GMatchState *gm = (GMatchState *)lua_touserdata(L, lua_upvalueindex(3));
    const char *src;
    gm->ms.L = L;
    for (src = gm->src; src <= gm->ms.src_end; src++) {
        const char *e;
        reprepstate(&gm->ms);
        if ((e = loom_pattern_match(&gm->ms, src, gm->p)) != NULL && e != gm->lastmatch) {
            gm->src = gm->lastmatch = e;
            return push_captures(&gm->ms, src, e);
        }
    }
    return 0; /* not found */
}

static int gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = posrelatI(luaL_optinteger(L, 3, 1), ls) - 1;
    GMatchState *gm;
    lua_settop(L, 2); /* keep strings on closure to avoid being collected */
    gm = (GMatchState *)lua_newuserdatauv(L, sizeof(GMatchState), 0);
    if (init > ls)     /* start after string's end? */
        init = ls + 1; /* avoid overflows in 's + init' */
    prepstate(&gm->ms, L, s, ls, p, lp);
    gm->src = s + init;
    gm->p = p;
    gm->lastmatch = NULL;
    lua_pushcclosure(L, gmatch_aux, 3);
    return 1;
}

static void add_s(MatchState *ms, luaL_Buffer *b, const char *s, const char *e) {
    size_t l;
    lua_State *L = ms->L;
    const char *news = lua_tolstring(L, 3, &l);
    const char *p;
    while ((p = (const char *)memchr(news, L_ESC, l)) != NULL) {
        /* a replacement of millions of '%0' runs no Lua instruction: charge each piece */
        COUNT_STEPS(ms, BULK_COST(p - news));
        luaL_addlstring(b, news, (size_t)(p - news));
        p++;                 /* skip ESC */
        if (*p == L_ESC)     /* '%%' */
            luaL_addchar(b, *p);
        else if (*p == '0') { /* '%0' */
            COUNT_STEPS(ms, BULK_COST(e - s));
            luaL_addlstring(b, s, (size_t)(e - s));
        }
        else if (isdigit(loom_uchar(*p))) { /* '%n' */
            const char *cap;
            ptrdiff_t resl = get_onecapture(ms, *p - '1', s, e, &cap);
            if (resl == CAP_POSITION)
                luaL_addvalue(b); /* add position to accumulated result */
            else
                luaL_addlstring(b, cap, (size_t)resl);
        } else
            luaL_error(L, "invalid use of '%c' in replacement string", L_ESC);
        l -= (size_t)(p + 1 - news);
        news = p + 1;
    }
    luaL_addlstring(b, news, l);
}

/*
** Add the replacement value to the string buffer 'b'.
** Return true if the original string was changed. (Function calls and
** table indexing resulting in nil or false do not change the subject.)
*/
static int add_value(MatchState *ms, luaL_Buffer *b, const char *s, const char *e, int tr) {
    lua_State *L = ms->L;
    switch (tr) {
    case LUA_TFUNCTION: { /* call the function */
        int n;
        lua_pushvalue(L, 3);         /* push the function */
        n = push_captures(ms, s, e); /* all captures as arguments */
        lua_call(L, n, 1);           /* call it */
        break;
    }
    case LUA_TUSERDATA:                 /* a read-only view (checked by str_gsub) */
    case LUA_TTABLE: {                  /* index the table */
        push_onecapture(ms, 0, s, e); /* first capture is the index */
        lua_gettable(L, 3);
        break;
    }
    default: {                /* LUA_TNUMBER or LUA_TSTRING */
        add_s(ms, b, s, e); /* add value to the buffer */
        return 1;           /* something changed */
    }
    }
    if (!lua_toboolean(L, -1)) {                /* nil or false? */
        lua_pop(L, 1);                          /* remove value */
        luaL_addlstring(b, s, (size_t)(e - s)); /* keep original text */
        return 0;                               /* no changes */
    } else if (loom_unlikely(!lua_isstring(L, -1)))
        return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    else {
        luaL_addvalue(b); /* add result to accumulator */
        return 1;         /* something changed */
    }
}

static int str_gsub(lua_State *L) {
    size_t srcl, lp;
    const char *src = luaL_checklstring(L, 1, &srcl); /* subject */
    const char *p = luaL_checklstring(L, 2, &lp);     /* pattern */
    const char *lastmatch = NULL;                     /* end of last match */
    int tr = lua_type(L, 3);                          /* replacement type */
    /* max replacements */
    lua_Integer max_s = luaL_optinteger(L, 4, (lua_Integer)srcl + 1);
    int anchor = (*p == '^');
    lua_Integer n = 0; /* replacement count */
    int changed = 0;   /* change flag */
    MatchState ms;
    luaL_Buffer b;
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE ||
                     (tr == LUA_TUSERDATA && loom_is_proxy(L, 3)), 3, "string/function/table");
    luaL_buffinit(L, &b);
    if (anchor) {
        p++;
        lp--; /* skip anchor character */
    }
    prepstate(&ms, L, src, srcl, p, lp);
    while (n < max_s) {
        const char *e;
        COUNT_STEP(&ms);
        reprepstate(&ms);                                        /* (re)prepare state for new match */
        if ((e = loom_pattern_match(&ms, src, p)) != NULL && e != lastmatch) { /* match? */
            n++;
            changed = add_value(&ms, &b, src, e, tr) | changed;
            src = lastmatch = e;
        } else if (src < ms.src_end) /* otherwise, skip one character */
            luaL_addchar(&b, *src++);
        else
            break; /* end of subject */
        if (anchor) break;
    }
    if (!changed) /* no changes? */
        lua_pushvalue(L, 1); /* return original string */
    else {                   /* something changed */
        luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
        luaL_pushresult(&b); /* create and return new string */
    }
    lua_pushinteger(L, n); /* number of substitutions */
    return 2;
}

/* }====================================================== */

/* string.rep without the unbounded loop: upstream's copies the piece n times even when it is
   empty (`string.rep("", math.maxinteger)` never returns). Here an empty result returns at once
   and the copy doubles what is already written (O(log n) memcpy calls). */
#define LOOM_MAXSIZE ((size_t)INT_MAX)
static int str_rep(lua_State *L) {
    size_t l, lsep;
    const char *s = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    if (n <= 0 || (l == 0 && lsep == 0) || (n == 1 && l == 0))
        lua_pushliteral(L, "");
    else if (l + lsep < l || l + lsep > LOOM_MAXSIZE / (size_t)n)
        return luaL_error(L, "resulting string too large");
    else {
        size_t unit = l + lsep;                       /* s .. sep */
        size_t body = (size_t)(n - 1) * unit;         /* n - 1 units, then s */
        size_t totallen = body + l;
        luaL_Buffer b;
        char *p = luaL_buffinitsize(L, &b, totallen);
        if (body > 0) {
            memcpy(p, s, l);
            if (lsep > 0) memcpy(p + l, sep, lsep);
            size_t done = unit;
            while (done < body) {
                size_t chunk = done <= body - done ? done : body - done;
                memcpy(p + done, p, chunk);
                done += chunk;
                loom_check_budget(L);
            }
        }
        memcpy(p + body, s, l);
        luaL_pushresultsize(&b, totallen);
    }
    return 1;
}

void loom_open_budgeted_strlib(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"rep", str_rep},
        {"find", str_find},
        {"match", str_match},
        {"gmatch", gmatch},
        {"gsub", str_gsub},
        {NULL, NULL},
    };
    luaL_setfuncs(L, funcs, 0);
}
