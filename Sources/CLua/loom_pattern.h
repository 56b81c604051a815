#ifndef LOOM_PATTERN_H
#define LOOM_PATTERN_H
// The budgeted pattern matcher's state and entry points (loom_pattern.c), shared with the
// string functions that use it (loom_strlib.c). Private to CLua. Derived from lstrlib.c of
// Lua 5.4 (MIT licence: see loom_pattern.c).
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
static inline void budget_tick(MatchState *ms) {
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

/// Matches pattern `p` at `s` (Lua's 'match'): the end of the match, or NULL.
const char *loom_pattern_match(MatchState *ms, const char *s, const char *p);
/// Plain substring search, budgeted: the first occurrence of s2 in s1, or NULL.
const char *loom_lmemfind(MatchState *ms, const char *s1, size_t l1, const char *s2, size_t l2);

#endif
