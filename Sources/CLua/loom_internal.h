#ifndef LOOM_INTERNAL_H
#define LOOM_INTERNAL_H
// What the C files of Loom's Lua runtime share among themselves (private to CLua; the API is
// include/loom_lua.h).
#include "loom_lua.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// The owner a new state's Lua code is charged to until the host sets one.
#define LOOM_DEFAULT_OWNER 1

/// The limits of a state (the allocator's userdata, reachable from any thread): the body of
/// loom_limits_of, inlined into the hot paths of the other files.
static inline loom_limits *loom_limits_from(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (loom_limits *)ud;
}

/// The allocator of every state: per-owner caps and accounting (loom_memory.c).
void *loom_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/// Whether the running call's time budget (or the state's total) is spent; records it
/// (loom_budget.c).
int loom_budget_exhausted(loom_limits *lim);
/// The hook: the count hook enforcing the time budget, and line events for line coverage
/// (loom_budget.c).
void loom_hook(lua_State *L, lua_Debug *ar);
/// The hook events a state's threads are armed with: the budget's count, and lines when line
/// coverage is recorded.
static inline int loom_hook_mask(loom_limits *lim) {
    return LUA_MASKCOUNT | (lim->linecov ? LUA_MASKLINE : 0);
}
/// Line coverage (loom_linecov.c): attaches a recorder to a new state when the creating thread
/// asked for it; counts a line event; frees the recorder.
void loom_linecov_attach_pending(lua_State *L, loom_limits *lim);
void loom_linecov_line(lua_State *L, lua_Debug *ar);
void loom_linecov_free(loom_limits *lim);
/// The message of the limit a call exceeded (loom_budget.c).
const char *loom_exceeded_message(loom_limits *lim);
/// The message handler: message and traceback (loom_pcall.c).
int loom_msgh(lua_State *L);

#endif
