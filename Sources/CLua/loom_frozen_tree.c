// A user's frozen view made in one call (loom_push_frozen_tree): what pushing a JSON value
// member by member through the C API from Swift (objects remembering their key order), then
// freezing it through the sandbox's `freeze`, makes. `host eval` and every resolution make one
// per user who needs a Lua rule called (PluginEngine.userView); made here, a view costs a
// fraction of the member-by-member path (docs/populations.md, "Speed: W1").
#include "loom_proxy_internal.h"

#include <string.h>

static void push_node(lua_State *L, const char *base, const loom_tree_member *m, int *pos, const char *name);

// Key order metatables kept for reuse (`set_key_order`): a registry table from a signature of
// the keys to the metatable, with its count of entries at [1].
#define KEY_ORDER_CACHE "loom.keyorders"
#define KEY_ORDERS 64
#define KEY_ORDER_BYTES 1024

// Sets the key order metatable { __keys = { k1, k2, … } } on the table at `t`, whose `count`
// members start at members[first] (null ones not set, so not listed). Views of users whose lines
// list the same keys share one (most of a population's lines list the same keys): at most
// KEY_ORDERS of them per state, each for keys of at most KEY_ORDER_BYTES bytes in all (others
// get one of their own). Sharing cannot be observed: plugins reach neither the table behind a
// view nor its metatable (loom_proxy.c), and the host only reads `__keys`
// (`rememberedKeyOrder`); nothing changes a metatable or list once made. The signature is each
// key's length in two bytes, then its bytes (two key lists with equal signatures are equal).
static void set_key_order(lua_State *L, int t, const char *base, const loom_tree_member *members, int first, int count) {
    char sig[KEY_ORDER_BYTES];
    size_t n = 0;
    int fits = 1, set = 0;
    int p = first;
    for (int k = 0; k < count; k++) {
        const loom_tree_member *m = &members[p];
        if (m->kind != LOOM_TREE_NULL) {
            set++;
            if (fits && (m->key_length > 0xFFFF || m->key_length > sizeof sig - 2 - n)) fits = 0;
            if (fits) {
                sig[n++] = (char)(m->key_length & 0xFF);
                sig[n++] = (char)((m->key_length >> 8) & 0xFF);
                memcpy(sig + n, base + m->key_offset, m->key_length);
                n += m->key_length;
            }
        }
        p += 1 + (int)m->descendants;
    }
    int cache = 0;
    if (fits) {
        cache = loom_bounded_cache(L, KEY_ORDER_CACHE);
        lua_pushlstring(L, sig, n);
        if (lua_rawget(L, cache) == LUA_TTABLE) {
            lua_setmetatable(L, t);
            lua_pop(L, 1);  // the cache
            return;
        }
        lua_pop(L, 1);
    }
    lua_createtable(L, 0, 1);
    lua_createtable(L, set, 0);
    lua_Integer listed = 0;
    p = first;
    for (int k = 0; k < count; k++) {
        const loom_tree_member *m = &members[p];
        if (m->kind != LOOM_TREE_NULL) {
            lua_pushlstring(L, base + m->key_offset, m->key_length);
            lua_rawseti(L, -2, ++listed);
        }
        p += 1 + (int)m->descendants;
    }
    lua_pushliteral(L, "__keys");
    lua_insert(L, -2);
    lua_rawset(L, -3);
    if (cache) loom_bounded_cache_keep(L, cache, sig, n, KEY_ORDERS);
    lua_setmetatable(L, t);
    if (cache) lua_pop(L, 1);
}

// The table of the object or array member at *pos (its children follow it), each nested table
// made a proxy as it was set (push_table then makes the table itself one).
static void push_table_members(lua_State *L, const char *base, const loom_tree_member *members, int *pos, const char *name) {
    const loom_tree_member *head = &members[(*pos)++];
    int count = (int)head->i;
    if (head->kind == LOOM_TREE_ARRAY) {
        lua_createtable(L, count, 0);
        int t = lua_gettop(L);
        for (int k = 0; k < count; k++) {
            push_node(L, base, members, pos, name);
            lua_rawseti(L, t, k + 1);
        }
    } else {
        // Room for every member, null ones included (the same size as the member-by-member
        // path's, so the same layout and the same `next` order), then each non-null member.
        lua_createtable(L, 0, count);
        int t = lua_gettop(L);
        int first = *pos, set = 0;
        for (int k = 0; k < count; k++) {
            const loom_tree_member *m = &members[*pos];
            if (m->kind == LOOM_TREE_NULL) {
                (*pos)++;
                continue;
            }
            lua_pushlstring(L, base + m->key_offset, m->key_length);
            push_node(L, base, members, pos, name);
            lua_rawset(L, t);
            set++;
        }
        // The order of the keys (what `rememberedKeyOrder` reads back): a metatable
        // { __keys = { k1, k2, … } } when more than one member was set.
        if (set > 1) set_key_order(L, t, base, members, first, count);
    }
}

// The table of the object or array member at *pos, frozen: each nested table was made a proxy
// as it was set, and the table itself becomes one here, as `freeze` leaves a tree of tables (a
// JSON value shares no table and has no table keys).
static void push_table(lua_State *L, const char *base, const loom_tree_member *members, int *pos, const char *name) {
    push_table_members(L, base, members, pos, name);
    int t = lua_gettop(L);
    loom_proxy_make(L, t, name, 0);
    lua_remove(L, t);
}

static void push_node(lua_State *L, const char *base, const loom_tree_member *m0, int *pos, const char *name) {
    const loom_tree_member *m = &m0[*pos];
    switch (m->kind) {
    case LOOM_TREE_NULL: lua_pushnil(L); (*pos)++; return;
    case LOOM_TREE_FALSE: lua_pushboolean(L, 0); (*pos)++; return;
    case LOOM_TREE_TRUE: lua_pushboolean(L, 1); (*pos)++; return;
    case LOOM_TREE_INT: lua_pushinteger(L, (lua_Integer)m->i); (*pos)++; return;
    case LOOM_TREE_DOUBLE: lua_pushnumber(L, (lua_Number)m->d); (*pos)++; return;
    case LOOM_TREE_STRING: lua_pushlstring(L, base + m->value_offset, m->value_length); (*pos)++; return;
    default: push_table(L, base, m0, pos, name); return;
    }
}

// Whether the member at *pos and what follows it form one value within `count` members, every
// array's and object's children and descendants as it says, no deeper than `depth`; moves *pos
// past it, every key and string within the `bytes` bytes of the buffer. (Checked before anything
// is pushed: a malformed list pushes nothing.)
static int well_formed(const loom_tree_member *members, int count, size_t bytes, int *pos, int depth) {
    if (*pos >= count) return 0;
    const loom_tree_member *m = &members[*pos];
    int at = (*pos)++;
    if (m->kind < LOOM_TREE_NULL || m->kind > LOOM_TREE_OBJECT) return 0;
    if (m->key_offset > bytes || m->key_length > bytes - m->key_offset) return 0;
    if (m->kind == LOOM_TREE_STRING && (m->value_offset > bytes || m->value_length > bytes - m->value_offset)) return 0;
    if (m->kind < LOOM_TREE_ARRAY) return m->descendants == 0;
    if (depth < 1 || m->i < 0 || m->i > count || m->descendants < 0 || m->descendants >= count) return 0;
    for (int64_t k = 0; k < m->i; k++)
        if (!well_formed(members, count, bytes, pos, depth - 1)) return 0;
    return *pos - at - 1 == m->descendants;
}

int loom_push_frozen_tree(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name) {
    int end = 0;
    if (count < 1 || members[0].kind < LOOM_TREE_ARRAY || !well_formed(members, count, bytes, &end, depth) || end != count) return 0;
    // Each level holds its table, a key and a value; an object also its order list and metatable.
    if (!lua_checkstack(L, 6 * depth + 2)) return 0;
    int pos = 0;
    push_table(L, base, members, &pos, name);
    return 1;
}

// loom_push_frozen_tree without the value's own view: its table, every nested table a view (for
// a recording view made over it: loom_recording_of_table). The same checks.
int loom_push_tree_target(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name) {
    int end = 0;
    if (count < 1 || members[0].kind < LOOM_TREE_ARRAY || !well_formed(members, count, bytes, &end, depth) || end != count) return 0;
    if (!lua_checkstack(L, 6 * depth + 2)) return 0;
    int pos = 0;
    push_table_members(L, base, members, &pos, name);
    return 1;
}
