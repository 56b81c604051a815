// Budgeted pattern matching, the matcher itself (the string functions using it, string.find,
// match, gmatch and gsub, are in loom_strlib.c).
//
// Why this copy exists: plugins run with a time budget per call, enforced by a Lua count hook
// the watchdog arms (see loom_watchdog.c). A hook only fires between Lua instructions, never
// while a C function runs, and Lua's own pattern matcher (lstrlib.c) is C code that can backtrack for an
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
#include "loom_pattern.h"


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
        const char *res = loom_pattern_match(ms, (s + i), ep + 1);
        if (res) return res;
        i--; /* else didn't match; reduce 1 repetition to try again */
    }
    return NULL;
}

static const char *min_expand(MatchState *ms, const char *s, const char *p, const char *ep) {
    for (;;) {
        const char *res = loom_pattern_match(ms, s, ep + 1);
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
    if ((res = loom_pattern_match(ms, s, p)) == NULL) /* match failed? */
        ms->level--;                      /* undo capture */
    return res;
}

static const char *end_capture(MatchState *ms, const char *s, const char *p) {
    int l = capture_to_close(ms);
    const char *res;
    ms->capture[l].len = s - ms->capture[l].init; /* close capture */
    if ((res = loom_pattern_match(ms, s, p)) == NULL)          /* match failed? */
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

const char *loom_pattern_match(MatchState *ms, const char *s, const char *p) {
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
                    goto init; /* return loom_pattern_match(ms, s, p + 4); */
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
                    goto init; /* return loom_pattern_match(ms, s, ep); */
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
                    goto init; /* return loom_pattern_match(ms, s, p + 2) */
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
                    goto init; /* return loom_pattern_match(ms, s, ep + 1); */
                } else         /* '+' or no suffix */
                    s = NULL;  /* fail */
            } else {           /* matched once */
                switch (*ep) { /* handle optional suffix */
                case '?': {    /* optional */
                    const char *res;
                    if ((res = loom_pattern_match(ms, s + 1, ep + 1)) != NULL)
                        s = res;
                    else {
                        p = ep + 1;
                        goto init; /* else return loom_pattern_match(ms, s, ep + 1); */
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
                    goto init; /* return loom_pattern_match(ms, s + 1, ep); */
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
const char *loom_lmemfind(MatchState *ms, const char *s1, size_t l1, const char *s2, size_t l2) {
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
