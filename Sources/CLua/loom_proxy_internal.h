#ifndef LOOM_PROXY_INTERNAL_H
#define LOOM_PROXY_INTERNAL_H
// The read-only proxies' internals (loom_proxy.c) used by the sandbox's C helpers
// (loom_sandbox_lib.c). Private to CLua.
#include "loom_lua.h"

/// Pushes t[k] (raw) of the table at `idx` and returns its type.
int loom_proxy_rawfield(lua_State *L, int idx, const char *k);
/// Replaces the proxy at `idx` (if it is one) by its target, in place.
void loom_proxy_unwrap(lua_State *L, int idx);
/// The name a proxy was given (for messages).
const char *loom_proxy_name(lua_State *L, int idx);
/// Raises "attempt to modify read-only table 'NAME' (field 'K')".
int loom_proxy_readonly_error(lua_State *L, int proxy, int key);
/// Pushes a new proxy of the table at `idx`; `local_copy`: the table is the environment's own copy.
void loom_proxy_make(lua_State *L, int idx, const char *name, int local_copy);

/// Raises the error of a retired view (loom_proxy_retire) being used.
int loom_proxy_retired_error(lua_State *L);
/// loom_proxy_make for a view whose table is reused for later users (loom_push_reused_view):
/// its metatable holds the retired metatable of its name (under a C address key), which
/// loom_proxy_retire swaps in.
void loom_proxy_make_reused(lua_State *L, int idx, const char *name);

/// A bounded cache in the registry: the table at registry[`key`] (made on first use), whose [1]
/// counts the entries kept. Pushes it and returns its absolute index.
int loom_bounded_cache(lua_State *L, const char *key);
/// Keeps the value on top under the string `k` (`length` bytes) in the cache at `cache` when it
/// holds fewer than `limit` entries (the value stays on top either way).
void loom_bounded_cache_keep(lua_State *L, int cache, const char *k, size_t length, lua_Integer limit);

/// next(t, k) that also walks a proxy's table (the sandbox's `next`, and proxies' __pairs).
int loom_proxy_next(lua_State *L);

#endif
