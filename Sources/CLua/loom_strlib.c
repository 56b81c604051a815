// Budgeted pattern matching: string.find, string.match, string.gmatch and string.gsub for the
// sandbox.
//
// Why this copy exists: plugins run with a time budget per call, enforced by a Lua count hook
// (see loom_lua.c). A count hook only fires between Lua instructions, never while a C function
// runs, and Lua's own pattern matcher (lstrlib.c) is C code that can backtrack for an
// exponential or quadratic number of steps, e.g.
//     string.match(("a"):rep(40), ("a*"):rep(20) .. "b")
//     (":"):rep(1000000):find(".-x")
// Such a call would hang the host forever. This file is the pattern-matching part of Lua 5.4's
// lstrlib.c, unchanged in semantics (results, captures, error messages, the MAXCCALLS recursion
// limit), except that the matcher counts its steps and every LOOM_STEP_INTERVAL units of work
// calls loom_check_budget, which raises "time limit exceeded" once the call's budget is spent.
// Steps that can be long on their own (scanning a balanced match, comparing a back-reference,
// testing a large bracket class, plain substring search) are charged in proportion to their
// length. Only the public Lua C API (lua.h, lauxlib.h) is used.
//
// Two deliberate deviations, neither visible to correct programs:
//   * reprepstate resets the recursion counter (upstream only asserts it), so a gmatch iterator
//     whose previous call was interrupted by an error keeps its depth limit;
//   * the step counting itself.
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
#include "loom_lua.h"

#include <ctype.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

/*
** maximum number of captures that a pattern can do during
** pattern-matching. This limit is arbitrary, but must fit in
** an unsigned char.
*/
#if !defined(LUA_MAXCAPTURES)
#define LUA_MAXCAPTURES 32
#endif

/* maximum recursion depth for 'match' */
#define MAXCCALLS 200

/* units of work between two budget checks (one unit ~ one call of 'match' or one character
   scanned by a repetition) */
#define LOOM_STEP_INTERVAL 4096

/* bytes compared by memcmp/memchr, or bracket-class characters scanned, per unit of work */
#define LOOM_BYTES_PER_STEP 32

#define L_ESC '%'
#define SPECIALS "^$*+?.([%-"

#define loom_uchar(c) ((unsigned char)(c))

#if defined(__GNUC__)
#define loom_unlikely(x) (__builtin_expect(((x) != 0), 0))
#else
#define loom_unlikely(x) (x)
#endif

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
** {======================================================
** PATTERN MATCHING
** =======================================================
*/

#define CAP_UNFINISHED (-1)
#define CAP_POSITION (-2)

typedef struct MatchState {
    const char *src_init; /* init of source string */
    const char *src_end;  /* end ('\0') of source string */
    const char *p_end;    /* end ('\0') of pattern */
    lua_State *L;
    int matchdepth;      /* control for recursive depth (to avoid C stack overflow) */
    int level;           /* total number of captures (finished or unfinished) */
    ptrdiff_t countdown; /* units of work left until the next budget check */
    struct {
        const char *init;
        ptrdiff_t len; /* length or special value (CAP_*) */
    } capture[LUA_MAXCAPTURES];
} MatchState;

/* Budget accounting: the clock is read (by loom_check_budget) only every LOOM_STEP_INTERVAL
   units, which keeps the cost negligible. loom_check_budget raises a Lua error when the
   budget is exhausted; the matcher holds no resources, so unwinding from any point is safe. */
static void budget_tick(MatchState *ms) {
    ms->countdown = LOOM_STEP_INTERVAL;
    loom_check_budget(ms->L);
}

#define COUNT_STEPS(ms, n)                                       \
    do {                                                         \
        if (loom_unlikely(((ms)->countdown -= (ptrdiff_t)(n)) <= 0)) \
            budget_tick(ms);                                     \
    } while (0)

#define COUNT_STEP(ms) COUNT_STEPS(ms, 1)

/* cost of scanning 'len' bytes in bulk */
#define BULK_COST(len) (1 + (ptrdiff_t)((size_t)(len) / LOOM_BYTES_PER_STEP))

/* recursive function */
static const char *match(MatchState *ms, const char *s, const char *p);

static int check_capture(MatchState *ms, int l) {
    l -= '1';
    if (loom_unlikely(l < 0 || l >= ms->level || ms->capture[l].len == CAP_UNFINISHED))
        return luaL_error(ms->L, "invalid capture index %%%d", l + 1);
    return l;
}

static int capture_to_close(MatchState *ms) {
    int level = ms->level;
    for (level--; level >= 0; level--)
        if (ms->capture[level].len == CAP_UNFINISHED) return level;
    return luaL_error(ms->L, "invalid pattern capture");
}

static const char *classend(MatchState *ms, const char *p) {
    switch (*p++) {
    case L_ESC: {
        if (loom_unlikely(p == ms->p_end)) luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    case '[': {
        const char *start = p;
        if (*p == '^') p++;
        do { /* look for a ']' */
            if (loom_unlikely(p == ms->p_end)) luaL_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == L_ESC && p < ms->p_end) p++; /* skip escapes (e.g. '%]') */
        } while (*p != ']');
        if (loom_unlikely(p - start >= LOOM_BYTES_PER_STEP)) COUNT_STEPS(ms, BULK_COST(p - start));
        return p + 1;
    }
    default: {
        return p;
    }
    }
}

static int match_class(int c, int cl) {
    int res;
    switch (tolower(cl)) {
    case 'a': res = isalpha(c); break;
    case 'c': res = iscntrl(c); break;
    case 'd': res = isdigit(c); break;
    case 'g': res = isgraph(c); break;
    case 'l': res = islower(c); break;
    case 'p': res = ispunct(c); break;
    case 's': res = isspace(c); break;
    case 'u': res = isupper(c); break;
    case 'w': res = isalnum(c); break;
    case 'x': res = isxdigit(c); break;
    case 'z': res = (c == 0); break; /* deprecated option */
    default: return (cl == c);
    }
    return (islower(cl) ? res : !res);
}

static int matchbracketclass(int c, const char *p, const char *ec) {
    int sig = 1;
    if (*(p + 1) == '^') {
        sig = 0;
        p++; /* skip the '^' */
    }
    while (++p < ec) {
        if (*p == L_ESC) {
            p++;
            if (match_class(c, loom_uchar(*p))) return sig;
        } else if ((*(p + 1) == '-') && (p + 2 < ec)) {
            p += 2;
            if (loom_uchar(*(p - 2)) <= c && c <= loom_uchar(*p)) return sig;
        } else if (loom_uchar(*p) == c)
            return sig;
    }
    return !sig;
}

static int singlematch(MatchState *ms, const char *s, const char *p, const char *ep) {
    if (s >= ms->src_end)
        return 0;
    else {
        int c = loom_uchar(*s);
        switch (*p) {
        case '.': return 1; /* matches any char */
        case L_ESC: return match_class(c, loom_uchar(*(p + 1)));
        case '[':
            /* a large class costs in proportion to its length */
            if (loom_unlikely(ep - p > LOOM_BYTES_PER_STEP)) COUNT_STEPS(ms, BULK_COST(ep - p));
            return matchbracketclass(c, p, ep - 1);
        default: return (loom_uchar(*p) == c);
        }
    }
}

static const char *matchbalance(MatchState *ms, const char *s, const char *p) {
    if (loom_unlikely(p >= ms->p_end - 1))
        luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (*s != *p)
        return NULL;
    else {
        int b = *p;
        int e = *(p + 1);
        int cont = 1;
        while (++s < ms->src_end) {
            COUNT_STEP(ms);
            if (*s == e) {
                if (--cont == 0) return s + 1;
            } else if (*s == b)
                cont++;
        }
    }
    return NULL; /* string ends out of balance */
}

static const char *max_expand(MatchState *ms, const char *s, const char *p, const char *ep) {
    ptrdiff_t i = 0; /* counts maximum expand for item */
    while (singlematch(ms, s + i, p, ep)) {
        COUNT_STEP(ms);
        i++;
    }
    /* keeps trying to match with the maximum repetitions */
    while (i >= 0) {
        const char *res = match(ms, (s + i), ep + 1);
        if (res) return res;
        i--; /* else didn't match; reduce 1 repetition to try again */
    }
    return NULL;
}

static const char *min_expand(MatchState *ms, const char *s, const char *p, const char *ep) {
    for (;;) {
        const char *res = match(ms, s, ep + 1);
        if (res != NULL)
            return res;
        else if (singlematch(ms, s, p, ep))
            s++; /* try with one more repetition */
        else
            return NULL;
    }
}

static const char *start_capture(MatchState *ms, const char *s, const char *p, int what) {
    const char *res;
    int level = ms->level;
    if (level >= LUA_MAXCAPTURES) luaL_error(ms->L, "too many captures");
    ms->capture[level].init = s;
    ms->capture[level].len = what;
    ms->level = level + 1;
    if ((res = match(ms, s, p)) == NULL) /* match failed? */
        ms->level--;                      /* undo capture */
    return res;
}

static const char *end_capture(MatchState *ms, const char *s, const char *p) {
    int l = capture_to_close(ms);
    const char *res;
    ms->capture[l].len = s - ms->capture[l].init; /* close capture */
    if ((res = match(ms, s, p)) == NULL)          /* match failed? */
        ms->capture[l].len = CAP_UNFINISHED;      /* undo capture */
    return res;
}

static const char *match_capture(MatchState *ms, const char *s, int l) {
    size_t len;
    l = check_capture(ms, l);
    len = (size_t)ms->capture[l].len;
    if (loom_unlikely(len >= LOOM_BYTES_PER_STEP)) COUNT_STEPS(ms, BULK_COST(len));
    if ((size_t)(ms->src_end - s) >= len && memcmp(ms->capture[l].init, s, len) == 0)
        return s + len;
    else
        return NULL;
}

static const char *match(MatchState *ms, const char *s, const char *p) {
    if (loom_unlikely(ms->matchdepth-- == 0)) luaL_error(ms->L, "pattern too complex");
    COUNT_STEP(ms);
init: /* using goto to optimize tail recursion */
    if (p != ms->p_end) { /* end of pattern? */
        switch (*p) {
        case '(': {                /* start capture */
            if (*(p + 1) == ')') /* position capture? */
                s = start_capture(ms, s, p + 2, CAP_POSITION);
            else
                s = start_capture(ms, s, p + 1, CAP_UNFINISHED);
            break;
        }
        case ')': { /* end capture */
            s = end_capture(ms, s, p + 1);
            break;
        }
        case '$': {
            if ((p + 1) != ms->p_end) /* is the '$' the last char in pattern? */
                goto dflt;            /* no; go to default */
            s = (s == ms->src_end) ? s : NULL; /* check end of string */
            break;
        }
        case L_ESC: { /* escaped sequences not in the format class[*+?-]? */
            switch (*(p + 1)) {
            case 'b': { /* balanced string? */
                s = matchbalance(ms, s, p + 2);
                if (s != NULL) {
                    p += 4;
                    goto init; /* return match(ms, s, p + 4); */
                } /* else fail (s == NULL) */
                break;
            }
            case 'f': { /* frontier? */
                const char *ep;
                char previous;
                p += 2;
                if (loom_unlikely(*p != '[')) luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                ep = classend(ms, p); /* points to what is next */
                previous = (s == ms->src_init) ? '\0' : *(s - 1);
                if (!matchbracketclass(loom_uchar(previous), p, ep - 1) &&
                    matchbracketclass(loom_uchar(*s), p, ep - 1)) {
                    p = ep;
                    goto init; /* return match(ms, s, ep); */
                }
                s = NULL; /* match failed */
                break;
            }
            case '0': case '1': case '2': case '3':
            case '4': case '5': case '6': case '7':
            case '8': case '9': { /* capture results (%0-%9)? */
                s = match_capture(ms, s, loom_uchar(*(p + 1)));
                if (s != NULL) {
                    p += 2;
                    goto init; /* return match(ms, s, p + 2) */
                }
                break;
            }
            default: goto dflt;
            }
            break;
        }
        default:
        dflt : {                               /* pattern class plus optional suffix */
            const char *ep = classend(ms, p); /* points to optional suffix */
            /* the tail-recursive steps below re-enter 'init' without calling 'match' */
            COUNT_STEP(ms);
            /* does not match at least once? */
            if (!singlematch(ms, s, p, ep)) {
                if (*ep == '*' || *ep == '?' || *ep == '-') { /* accept empty? */
                    p = ep + 1;
                    goto init; /* return match(ms, s, ep + 1); */
                } else         /* '+' or no suffix */
                    s = NULL;  /* fail */
            } else {           /* matched once */
                switch (*ep) { /* handle optional suffix */
                case '?': {    /* optional */
                    const char *res;
                    if ((res = match(ms, s + 1, ep + 1)) != NULL)
                        s = res;
                    else {
                        p = ep + 1;
                        goto init; /* else return match(ms, s, ep + 1); */
                    }
                    break;
                }
                case '+': /* 1 or more repetitions */
                    s++;  /* 1 match already done */
                    /* FALLTHROUGH */
                case '*': /* 0 or more repetitions */
                    s = max_expand(ms, s, p, ep);
                    break;
                case '-': /* 0 or more repetitions (minimum) */
                    s = min_expand(ms, s, p, ep);
                    break;
                default: /* no suffix */
                    s++;
                    p = ep;
                    goto init; /* return match(ms, s + 1, ep); */
                }
            }
            break;
        }
        }
    }
    ms->matchdepth++;
    return s;
}

/* Plain substring search (string.find with 'plain' or without specials). Upstream's lmemfind,
   charging each candidate position by the length compared: a search for a long needle in a
   long, repetitive haystack is quadratic too. */
static const char *lmemfind(MatchState *ms, const char *s1, size_t l1, const char *s2, size_t l2) {
    if (l2 == 0)
        return s1; /* empty strings are everywhere */
    else if (l2 > l1)
        return NULL; /* avoids a negative 'l1' */
    else {
        const char *init; /* to search for a '*s2' inside 's1' */
        l2--;             /* 1st char will be checked by 'memchr' */
        l1 = l1 - l2;     /* 's2' cannot be found after that */
        while (l1 > 0 && (init = (const char *)memchr(s1, *s2, l1)) != NULL) {
            COUNT_STEPS(ms, BULK_COST((size_t)(init - s1)) + BULK_COST(l2));
            init++; /* 1st char is already checked */
            if (memcmp(init, s2 + 1, l2) == 0)
                return init - 1;
            else { /* correct 'l1' and 's1' to try again */
                l1 -= (size_t)(init - s1);
                s1 = init;
            }
        }
        return NULL; /* not found */
    }
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
        s2 = lmemfind(&ms, s + init, ls - init, p, lp);
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
            if ((res = match(&ms, s1, p)) != NULL) {
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
        if ((e = match(&gm->ms, src, gm->p)) != NULL && e != gm->lastmatch) {
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
        if ((e = match(&ms, src, p)) != NULL && e != lastmatch) { /* match? */
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
