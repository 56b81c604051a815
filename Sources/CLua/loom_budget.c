// The time budget: the clock, the hook that stops a call, and the checks of C code. See
// include/loom_lua.h, and loom_watchdog.c for how a call that ran out of time is found.
#include "loom_internal.h"

int64_t loom_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// ---------------------------------------------------------------------------------------------
// No hook is set while a call runs within its budget. When the watchdog finds that a call ran
// out of time it arms the count hook on the running Lua thread (by a signal to the OS thread);
// the hook raises the limit error. Once a limit is met the hook is re-armed to fire at every
// instruction: a script that catches the error with pcall (or runs inside a coroutine) meets it
// again at its next instruction, until the error reaches the host (loom_pcall then takes the
// hook off again).

const char *loom_exceeded_message(loom_limits *lim) {
    switch (lim->exceeded) {
    case LOOM_EXCEEDED_MEMORY: return "memory limit exceeded";
    case LOOM_EXCEEDED_TOTAL_TIME: return "total Lua time limit exceeded";
    default: return "time limit exceeded";
    }
}

int loom_budget_exhausted(loom_limits *lim) {
    if (lim->exceeded) return 1;
    if (!lim->in_call) return 0;
    int kind = loom_watch_fired();
    if (kind == 0) return 0;
    lim->exceeded = kind;
    if (kind == LOOM_EXCEEDED_TOTAL_TIME) lim->total_exhausted = 1;
    return 1;
}

// Makes the running thread, the thread the watchdog would arm, and the main thread the host
// called into raise at their next instruction: a coroutine that meets a limit is dead, and the
// thread that resumed it must not go on after `coroutine.resume` returned false.
static void arm_every_instruction(lua_State *L, loom_limits *lim) {
    loom_arm_now(L, lim);
    lua_State *current = loom_track_current();
    if (current && current != L && loom_limits_from(current) == lim) loom_arm_now(current, lim);
    if (lim->main_thread && lim->main_thread != L) loom_arm_now(lim->main_thread, lim);
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
    // Armed for a call that has returned since (a coroutine the signal armed, resumed by a later
    // call): back to no hook.
    loom_disarm(L, lim);
}

void loom_check_budget(lua_State *L) {
    loom_limits *lim = loom_limits_from(L);
    if (lim == NULL || lim->in_host) return;
    if (loom_budget_exhausted(lim)) {
        arm_every_instruction(L, lim);
        luaL_error(L, "%s", loom_exceeded_message(lim));
    }
}
