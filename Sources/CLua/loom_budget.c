// The time budget: the clock, the count hook and the checks of C code. See include/loom_lua.h.
#include "loom_internal.h"

int64_t loom_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// ---------------------------------------------------------------------------------------------
// Time: a count hook checks the monotonic clock every `hook_count` instructions. The deadline
// of a call is armed lazily, at the first check after the host entered Lua (call_seq changes),
// so a short call costs no clock read at all. Once a limit is exceeded the hook is re-armed on
// the running thread to fire at every instruction: a script that catches the error with pcall
// (or runs inside a coroutine) meets it again at its next instruction, until the error reaches
// the host.

const char *loom_exceeded_message(loom_limits *lim) {
    switch (lim->exceeded) {
    case LOOM_EXCEEDED_MEMORY: return "memory limit exceeded";
    case LOOM_EXCEEDED_TOTAL_TIME: return "total Lua time limit exceeded";
    default: return "time limit exceeded";
    }
}

// Every clock reading of a call (the hook's, loom_check_budget's) also feeds the state's total
// Lua time: the time since the previous reading of the same call is added. A short call that
// never reaches a check costs no clock read and adds nothing.
int loom_budget_exhausted(loom_limits *lim) {
    if (lim->exceeded) return 1;
    if (!lim->in_call) return 0;
    int timed = lim->time_budget_ns > 0, totaled = lim->total_budget_ns > 0;
    if (!timed && !totaled) return 0;
    int64_t now = loom_now_ns();
    if (lim->seen_seq != lim->call_seq) {
        lim->seen_seq = lim->call_seq;
        lim->deadline_ns = now + lim->time_budget_ns;
        lim->last_tick_ns = now;
        return 0;
    }
    if (now > lim->last_tick_ns) lim->total_used_ns += now - lim->last_tick_ns;
    lim->last_tick_ns = now;
    if (totaled && lim->total_used_ns > lim->total_budget_ns) {
        lim->total_exhausted = 1;
        lim->exceeded = LOOM_EXCEEDED_TOTAL_TIME;
        return 1;
    }
    if (timed && now > lim->deadline_ns) {
        lim->exceeded = LOOM_EXCEEDED_TIME;
        return 1;
    }
    return 0;
}

// Makes the running thread, and the main thread the host called into, raise at their next
// instruction: a coroutine that meets a limit is dead, and the thread that resumed it must not
// go on after `coroutine.resume` returned false.
static void arm_every_instruction(lua_State *L, loom_limits *lim) {
    lua_sethook(L, loom_hook, loom_hook_mask(lim), 1);
    if (lim->main_thread && lim->main_thread != L) lua_sethook(lim->main_thread, loom_hook, loom_hook_mask(lim), 1);
}

void loom_hook(lua_State *L, lua_Debug *ar) {
    // Line events come only when line coverage is recorded; the budget sees count events.
    if (ar->event == LUA_HOOKLINE) {
        loom_linecov_line(L, ar);
        return;
    }
    loom_limits *lim = loom_limits_from(L);
    if (lim == NULL || lim->in_host) return;
    if (loom_budget_exhausted(lim)) {
        arm_every_instruction(L, lim);
        luaL_error(L, "%s", loom_exceeded_message(lim));
    }
}

void loom_check_budget(lua_State *L) {
    loom_limits *lim = loom_limits_from(L);
    if (lim == NULL || lim->in_host) return;
    if (loom_budget_exhausted(lim)) {
        arm_every_instruction(L, lim);
        luaL_error(L, "%s", loom_exceeded_message(lim));
    }
}
