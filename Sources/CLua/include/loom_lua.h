#ifndef LOOM_LUA_H
#define LOOM_LUA_H
// The C side of Loom's Lua runtime.
//
// Swift cannot import Lua's function-like macros (lua_pcall, lua_pop, lua_tostring,
// LUA_REGISTRYINDEX, ...), and a Lua error must never longjmp across Swift frames. Everything
// that may raise a Lua error therefore happens here, in C: Swift enters Lua only through
// loom_pcall, and Swift functions exposed to Lua run behind loom_push_host_function's C
// trampoline, which raises their errors back into Lua after the Swift frame has returned.
#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Limits and accounting of one Lua state (owned by the Swift LuaState).
///
/// Memory is accounted per OWNER: 0 is the host, k > 0 is plugin k. Every block records the
/// owner it is charged to; `owner` is what Lua code running inside a call (not inside a Swift
/// host function) is charged to, and the cap `mem_limit` applies to each owner k > 0 alone.
/// Line coverage of a state (loom_linecov.c).
typedef struct loom_linecov loom_linecov;

typedef struct loom_limits {
    size_t mem_limit;        // bytes per owner k > 0; 0 = unlimited
    size_t mem_used;         // bytes currently allocated by this state (all owners)
    size_t mem_peak;         // high-water mark of mem_used
    size_t *owner_used;      // bytes per owner, indexed by owner (malloc'd; see loom_set_owner)
    int32_t owner_count;     // capacity of owner_used
    int32_t owner;           // the owner Lua code inside a call is charged to (default 1)
    int64_t time_budget_ns;  // per protected call; 0 = unlimited
    int64_t total_budget_ns; // all calls of this state together; 0 = unlimited
    int64_t total_used_ns;   // Lua time charged so far (by the watchdog's sightings: see loom_watchdog.c)
    int total_exhausted;     // the total budget is spent: every later loom_pcall fails at once
    int in_host;             // > 0 while a Swift host function runs (allocations never fail then)
    int in_call;             // > 0 while inside loom_pcall
    int exceeded;            // LOOM_EXCEEDED_*: sticky until the host call returns
    int alloc_refused;       // an allocation crossed the cap; Lua collects garbage and retries it once
    lua_State *main_thread;  // set by loom_newstate: re-armed too when a coroutine meets a limit
    loom_linecov *linecov;    // line coverage (loom_linecov.c); NULL: not recording
    struct loom_reuse_records *reuse_records;  // the kept view entries flat views used last (loom_frozen_tree.c); NULL: none
} loom_limits;

enum { LOOM_OK = 0, LOOM_EXCEEDED_TIME = 1, LOOM_EXCEEDED_MEMORY = 2, LOOM_EXCEEDED_TOTAL_TIME = 3 };

/// Sets the owner Lua code inside calls is charged to (>= 0), growing the per-owner counters
/// as needed. Returns 0 when the counters cannot grow (the owner is left unchanged).
int loom_set_owner(loom_limits *limits, int32_t owner);
/// Bytes currently charged to `owner`.
size_t loom_owner_used(loom_limits *limits, int32_t owner);
/// Frees what loom_newstate allocated beside the state (call after lua_close).
void loom_limits_release(loom_limits *limits);

/// A new state with Loom's allocator (memory cap), its time budget watched by the watchdog
/// thread (loom_watchdog.c; started by the first state), no standing hook. NULL on failure
/// (no memory, or the watchdog cannot start).
lua_State *loom_newstate(loom_limits *limits);
/// luaL_openlibs, with coroutine.resume, coroutine.wrap and coroutine.close replaced by copies
/// that tell the watchdog which Lua thread runs (so that a limit stops a loop in a coroutine).
void loom_openlibs(lua_State *L);
/// The limits a state was created with.
loom_limits *loom_limits_of(lua_State *L);
/// Monotonic clock in nanoseconds.
int64_t loom_now_ns(void);

/// Checks the time budget from C code that runs for long without executing Lua instructions
/// (pattern matching). Raises a Lua error when the budget is exhausted. May only be called
/// from C functions running inside loom_pcall.
void loom_check_budget(lua_State *L);

/// Line coverage (loom_linecov.c), off unless asked for. While `on` is 1, every state the
/// calling thread creates records the lines its Lua code runs (a line hook; the budget's count
/// hook joins it only when the watchdog stops a call) and the executable lines of every chunk that ran (nested functions included).
void loom_linecov_record_new_states(int on);
/// Starts recording on an existing state (coroutines it made earlier are not hooked). 0 on failure.
int loom_linecov_start(lua_State *L);
/// Recorded chunks: how many, the source name of chunk i ("@path", ...), one past its last line.
int loom_linecov_file_count(loom_limits *limits);
const char *loom_linecov_file_source(loom_limits *limits, int i);
int loom_linecov_file_lines(loom_limits *limits, int i);
/// Hits of a line of chunk i; -1 when the line has no code.
int64_t loom_linecov_hits(loom_limits *limits, int i, int line);

/// Whether index 1 of `L`'s running frame holds Loom's message handler: on the main thread at
/// the base level, the resident handler protected calls rely on (loom_pcall.c). For tests.
int loom_resident_handler_in_place(lua_State *L);
/// Protected call with Loom's message handler (message + traceback) and budget accounting.
/// Returns a LUA_* status. On error the stack top holds the error message (a string) and
/// *exceeded tells whether a limit ended the call (LOOM_EXCEEDED_*).
int loom_pcall(lua_State *L, int nargs, int nresults, int *exceeded);
/// evaluate(user, args, node) by registry references (args_ref < 0: nil) in one call, as
/// `owner` (see loom_pcall.c), with the state's limits given (loom_limits_of, kept by the
/// caller) and its three answers in the value returned: the LUA_* status in bits 0-7, the result plus one in bits 8-15
/// (0: the value returned is no boolean and is left on the stack; 1: false; 2: true), the
/// LOOM_EXCEEDED_* in bits 16-23. LOOM_RULE_TRUE and LOOM_RULE_FALSE are the two answers of a
/// call that returned a boolean.
int loom_call_rule_packed(lua_State *L, loom_limits *lim, int32_t owner, int fn_ref, int user_ref, int args_ref, int node_ref);
enum { LOOM_RULE_FALSE = 1 << 8, LOOM_RULE_TRUE = 2 << 8 };
/// The LUA_* status of an answer of loom_call_rule_packed.
static inline int loom_rule_status(int answer) { return answer & 0xFF; }
/// The LOOM_EXCEEDED_* of an answer of loom_call_rule_packed.
static inline int loom_rule_exceeded(int answer) { return (answer >> 16) & 0xFF; }
/// One call of loom_call_rules: evaluate(user, args, node) by registry references (args_ref < 0:
/// nil), as `owner`.
typedef struct loom_rule_call {
    int32_t owner, fn_ref, user_ref, args_ref, node_ref;
} loom_rule_call;
/// The `count` calls in order, each as loom_call_rule_packed makes it alone (its time budget, its owner,
/// its error; the calls of one owner in a row are made inside one protected call, each watched
/// as a call of its own: loom_pcall.c), until one raises, meets a limit or answers no boolean:
/// results[k] is 0 / 1 for each call answered. Returns how many were answered. When one was not,
/// *status is its status: not LUA_OK, its error is left on the stack (*exceeded as
/// loom_call_rule_packed gives it), for `popError`; LUA_OK, it answered no boolean and nothing is left.
int loom_call_rules(lua_State *L, const loom_rule_call *calls, int count, int8_t *results, int *status, int *exceeded);
/// loom_call_rule_packed with the user a recording view (loom_proxy_new_recording, named `name`) of the
/// table at the top of the stack, made for this call: the table is replaced by three values, the
/// view's read log, the view, and what the call left (the error when the status is not LUA_OK;
/// else the returned value, *result 0/1 for a boolean, -1 otherwise). Returns -1, the table
/// popped and nothing pushed, when the stack cannot grow.
int loom_call_rule_recording(lua_State *L, int32_t owner, int fn_ref, int args_ref, int node_ref, const char *name, int *result, int *exceeded);
/// A protected call of the host's own trusted Lua: its allocations are the host's (not capped)
/// and it has no time budget.
int loom_pcall_host(lua_State *L, int nargs, int nresults);
/// The sandbox's `freeze` of the value on top of the stack, replaced there by the result, as a
/// host call (loom_pcall_host): the status; on an error the value is left below the error.
/// For the host's own tables (trees: made from JSON, frozen tables set in), made without
/// `freeze`'s bookkeeping tables; any other value still comes out as `freeze` makes it.
int loom_freeze_top(lua_State *L, const char *name);
/// Loads a text chunk (never binary) in protected mode; on error pushes the message.
int loom_loadtext(lua_State *L, const char *buf, size_t len, const char *chunkname);

/// Swift host functions. The dispatcher is set once; each host function is identified by an
/// integer id. The dispatcher returns the number of results pushed, or -1 after pushing an
/// error message (the trampoline then raises it from C).
typedef int (*loom_host_dispatch_fn)(lua_State *L, int64_t id);
void loom_set_host_dispatch(loom_host_dispatch_fn fn);
void loom_push_host_function(lua_State *L, int64_t id);

/// Opens the sandbox's extra C functions (budgeted pattern matching, rep) into the table at the
/// top of the stack: find, match, gmatch, gsub, rep replace the string library's.
void loom_open_budgeted_strlib(lua_State *L);

/// Per-thread extra space (LUA_EXTRASPACE) holding the Swift state object.
void loom_set_extra(lua_State *L, void *p);
void *loom_get_extra(lua_State *L);

// Macro wrappers.
int loom_registry_index(void);
int loom_upvalue_index(int i);
void loom_pop(lua_State *L, int n);
const char *loom_tolstring(lua_State *L, int idx, size_t *len);
void loom_newtable(lua_State *L);
int loom_isnoneornil(lua_State *L, int idx);
int loom_isinteger(lua_State *L, int idx);
void loom_pushcopy(lua_State *L, int idx);
int loom_getglobal(lua_State *L, const char *name);
void loom_remove(lua_State *L, int idx);
void loom_insert(lua_State *L, int idx);
int loom_rawget_ref(lua_State *L, lua_Integer ref);
int loom_ref(lua_State *L);
void loom_unref(lua_State *L, int ref);
int loom_gc_count_kb(lua_State *L);
void loom_full_gc(lua_State *L);
/// Marks a table read-only by giving it a metatable whose __newindex raises and
/// whose __metatable hides it. (Pops nothing.)
void loom_set_readonly_mt(lua_State *L, int idx);

// ---------------------------------------------------------------------------------------------
// Read-only proxies (loom_proxy.c): immutable userdata whose metatable has __index = the real
// table (a plain VM lookup), __newindex raising "attempt to modify read-only table 'NAME'
// (field 'K')", __len, __pairs (an iterator over the real table, never the table itself),
// __tostring, __name = "table" and __metatable = false.

/// Pushes a new proxy of the table at `idx`, named `name` in error messages.
void loom_proxy_new(lua_State *L, int idx, const char *name);
/// Pushes a recording proxy of the table at `idx`: a read-only proxy like loom_proxy_new whose
/// reads are logged in the table at `record` (each string key read, in order; `true` when
/// anything else read it: a non-string key, rawget, next, pairs, #, tostring). For memoizing a
/// deterministic function by what it read (docs/populations.md).
void loom_proxy_new_recording(lua_State *L, int idx, int record, const char *name);
/// A recording proxy over the table behind the read-only view at registry reference `view_ref`,
/// named as that view, with a fresh read log: both as registry references (`*proxy_ref`,
/// `*log_ref`). 0 (nothing made) when `view_ref` is not such a view or the stack cannot grow.
int loom_recording_view(lua_State *L, int view_ref, int *proxy_ref, int *log_ref);
/// The same over the plain table at registry reference `table_ref` (a view's table made without
/// its view: loom_push_tree_target), named `name`. 0 (nothing made) when it is not a table.
int loom_recording_of_table(lua_State *L, int table_ref, const char *name, int *proxy_ref, int *log_ref);
/// Pushes a read-only view (loom_proxy_new) of the table at registry reference `table_ref`; 0
/// (nothing pushed) when it is not a table.
int loom_proxy_of_table(lua_State *L, int table_ref, const char *name);
/// Whether the value at `idx` is a proxy.
int loom_is_proxy(lua_State *L, int idx);

/// A JSON value for loom_push_frozen_tree, in prefix order: each member is a value (an object's
/// members with their keys), an array or an object with `i` children and `descendants` members
/// after it in all; bytes (keys, strings) are at offsets into one buffer.
enum { LOOM_TREE_NULL = 0, LOOM_TREE_FALSE = 1, LOOM_TREE_TRUE = 2, LOOM_TREE_INT = 3, LOOM_TREE_DOUBLE = 4, LOOM_TREE_STRING = 5,
       LOOM_TREE_ARRAY = 6, LOOM_TREE_OBJECT = 7 };
typedef struct {
    size_t key_offset, key_length;
    size_t value_offset, value_length;  // a string's bytes
    int64_t i;                          // an integer; an array's or object's children
    int64_t descendants;                // an array's or object's members after it, nested ones included
    double d;
    int32_t kind;
} loom_tree_member;
/// Pushes the object or array `members[0]` (its `count - 1` descendants following it) as what
/// pushing it value by value (an object with more than one non-null member remembering its key
/// order as a metatable { __keys = {…} }; null members not set), then the sandbox's `freeze`
/// (every table a read-only proxy named `name`) would make. `depth`: how deep it nests (1 for a
/// flat object); `bytes`: the buffer's length. Raw operations on new tables only. Returns 0
/// (pushing nothing) when `members` is not one such value within `depth` levels and the buffer,
/// or the stack cannot grow.
int loom_push_frozen_tree(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name);
/// loom_push_frozen_tree for `host eval`'s views made from the line (an object): the table behind
/// the view is kept, per state, for the next object of the same keys and size (at most 64 such
/// shapes), and set again member by member for it; each call makes a new view (a userdata) over
/// it. A view made so must be retired (loom_proxy_retire, as loom_reused_view_into does) before
/// the next object of its keys is pushed: a retired view raises an error when used, so that nothing reads a later object
/// through a view that was kept. 0 (nothing pushed) as loom_push_frozen_tree.
int loom_push_reused_view(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name);
/// `host eval`'s view of one user for one plugin, kept at registry reference `slot` (made by the
/// caller, holding anything but nil): first retires the views at the `nretire` references of
/// `retire` (loom_proxy_retire: the previous user's, which must be retired before this user's
/// are pushed), then stores at `slot` the view loom_push_reused_view makes of `members`, or
/// `false` when it makes none. `flat`: `members` are the `count` members of a flat object, with
/// no member for the object itself before them (depth must be 1); else as
/// loom_push_reused_view takes them. 1 when a view was stored, 0 when not, -1 when the stack
/// cannot grow (nothing retired, nothing stored).
int loom_reused_view_into(lua_State *L, const int *retire, int nretire, int slot, const char *base, size_t bytes,
                          const loom_tree_member *members, int count, int depth, int flat, const char *name);
/// Whether the Lua function at `idx` uses its first parameter only to read fields named by
/// string constants (`user.tier`): nothing else it runs can reach that value (loom_plain_view.c).
/// When so, pushes the list of the names it reads (each once) and returns their count; else
/// pushes nothing and returns -1 (a C function, another Lua version's bytecode, any other use).
int loom_rule_field_reads(lua_State *L, int idx);
/// Pushes a new plain view for the list of key names at `keys` (a userdata holding a table of
/// those keys, set by loom_plain_view_set): 1, or 0 (nothing pushed) when `keys` is no list of
/// strings, lists one twice, or lists more than 4,096.
int loom_plain_view_new(lua_State *L, int keys);
/// Sets the table of the plain view at registry reference `ref` to the flat object of `count`
/// members (loom_reused_view_into's flat members): each of its keys to the object's non-null
/// member of that key, or nil. 1, or 0 (nothing set) when a member is a container or lies outside
/// the `bytes` bytes at `base`, or `ref` holds no plain view.
int loom_plain_view_set(lua_State *L, int ref, const char *base, size_t bytes, const loom_tree_member *members, int count);
/// A new registry reference to the table of the plain view at registry reference `ref` (what a
/// rule is called with), or LUA_NOREF.
int loom_plain_view_table(lua_State *L, int ref);
/// Retires the view at `idx` when loom_push_reused_view made it (its every use then raises
/// "attempt to use a user view kept from an earlier user …"); any other value is left as it is.
void loom_proxy_retire(lua_State *L, int idx);
/// loom_push_frozen_tree without the value's own view: pushes its table, every nested table a
/// view (for a recording view made over it); 0 (nothing pushed) where that pushes nothing.
int loom_push_tree_target(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name);
/// When the value at `idx` is a proxy, pushes the real table behind it and returns 1; else
/// pushes nothing and returns 0. Raw access only: no metamethod runs.
int loom_proxy_push_target(lua_State *L, int idx);
/// Pushes a table of the sandbox's C helpers: freeze, proxy, is_proxy, target_copy, type, next,
/// rawget, rawset, rawlen, setmetatable, xpcall, limit_hit, coroutine_close, coroutine_wrap.
void loom_push_sandbox_lib(lua_State *L);

/// Opens the budgeted table functions (move, sort, insert, remove) into the table at the top of
/// the stack (loom_tablib.c).
void loom_open_budgeted_tablib(lua_State *L);

#ifdef __cplusplus
}
#endif
#endif
