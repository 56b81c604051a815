// The allocator: per-owner memory caps and accounting. See include/loom_lua.h.
#include "loom_internal.h"

// ---------------------------------------------------------------------------------------------
// Memory: every owner has its own cap. An allocation that would cross it is refused; Lua then
// runs an emergency collection and retries it once. Only when the retry is refused too (the live
// data, not garbage awaiting collection, would cross the cap) does the allocation fail (Lua
// raises "not enough memory"), and the failure is remembered and the count hook armed, so that it
// keeps raising until the host call returns: a script's pcall cannot swallow it. While a Swift host
// function runs, allocations never fail (a failing allocation there would longjmp across Swift
// frames); the trampoline raises the deferred error once Swift has returned.

// The cap is per owner: 0 is the host (outside calls, inside a Swift host function, the host's
// own trusted Lua), k > 0 is plugin k (Lua code running inside a call while `owner` is k). The
// host's own tables (node tables, the user table, caches) grow with the screens a user loads
// and are never capped; each plugin is capped alone, so one plugin holding most of the cap
// cannot make another plugin's modest allocation fail. Every block carries a small header with
// its size and the owner it is charged to. A block freed is credited to that owner; a block
// grown by another owner moves to it (a shrink leaves it where it is).

typedef struct loom_block {
    size_t size;
    int64_t owner;  // who the block is charged to
} loom_block;       // 16 bytes: keeps malloc's alignment for what follows

int loom_set_owner(loom_limits *lim, int32_t owner) {
    if (owner < 0) return 0;
    if (owner >= lim->owner_count) {
        int32_t n = lim->owner_count ? lim->owner_count : 8;
        while (n <= owner) {
            if (n > INT32_MAX / 2) return 0;
            n *= 2;
        }
        size_t *u = realloc(lim->owner_used, (size_t)n * sizeof(size_t));
        if (u == NULL) return 0;
        memset(u + lim->owner_count, 0, (size_t)(n - lim->owner_count) * sizeof(size_t));
        lim->owner_used = u;
        lim->owner_count = n;
    }
    lim->owner = owner;
    return 1;
}

size_t loom_owner_used(loom_limits *lim, int32_t owner) {
    if (owner < 0 || owner >= lim->owner_count || lim->owner_used == NULL) return 0;
    return lim->owner_used[owner];
}

void loom_limits_release(loom_limits *lim) {
    loom_linecov_free(lim);
    loom_reuse_records_free(lim);
    free(lim->owner_used);
    lim->owner_used = NULL;
    lim->owner_count = 0;
}

void *loom_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    loom_limits *lim = (loom_limits *)ud;
    (void)osize;
    loom_block *b = ptr ? ((loom_block *)ptr) - 1 : NULL;
    size_t old = b ? b->size : 0;
    int32_t old_owner = b ? (int32_t)b->owner : 0;
    if (nsize == 0) {
        free(b);
        lim->mem_used -= old;
        lim->owner_used[old_owner] -= old;
        return NULL;
    }
    int32_t who = (lim->in_call && !lim->in_host) ? lim->owner : 0;
    if (b && nsize <= old) who = old_owner;  // a shrink leaves the block where it is
    if (who > 0 && lim->mem_limit) {
        size_t mine = (b && old_owner == who) ? old : 0;
        if (nsize > mine) {
            size_t grow = nsize - mine;
            if (lim->owner_used[who] + grow > lim->mem_limit) {
                // The first refusal lets Lua collect garbage and retry (only frees and shrinks
                // happen in between); a second one is a real failure. (The host's own work,
                // outside calls or inside a Swift host function, never fails: it must never
                // raise.)
                if (!lim->alloc_refused) {
                    lim->alloc_refused = 1;
                    return NULL;
                }
                lim->alloc_refused = 0;
                if (!lim->exceeded) {
                    lim->exceeded = LOOM_EXCEEDED_MEMORY;
                    // The hook raises it again at the next instruction of the running thread
                    // and the main thread, so that a script's pcall cannot go on past it
                    // (lua_sethook may run at any point: it is safe even in a signal handler).
                    lua_State *current = loom_track_current();
                    if (current && loom_limits_from(current) == lim) loom_arm_now(current, lim);
                    if (lim->main_thread) loom_arm_now(lim->main_thread, lim);
                }
                return NULL;
            }
        }
    }
    if (nsize > SIZE_MAX - sizeof(loom_block)) return NULL;
    loom_block *n = realloc(b, sizeof(loom_block) + nsize);
    if (n == NULL) return NULL;
    if (nsize > old) {
        lim->alloc_refused = 0;
    }
    n->size = nsize;
    n->owner = who;
    lim->owner_used[old_owner] -= old;  // (old is 0 for a new block)
    lim->owner_used[who] += nsize;
    lim->mem_used = lim->mem_used - old + nsize;
    if (lim->mem_used > lim->mem_peak) lim->mem_peak = lim->mem_used;
    return n + 1;
}
