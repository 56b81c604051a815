// A user's frozen view made in one call (loom_push_frozen_tree): what pushing a JSON value
// member by member through the C API from Swift (objects remembering their key order), then
// freezing it through the sandbox's `freeze`, makes. `host eval` and every resolution make one
// per user who needs a Lua rule called (PluginEngine.userView); made here, a view costs a
// fraction of the member-by-member path (docs/populations.md, "Speed: W1").
#include "loom_internal.h"
#include "loom_proxy_internal.h"

#include <stdlib.h>
#include <string.h>

static void push_node(lua_State *L, const char *base, const loom_tree_member *m, int *pos, const char *name);

// Key order metatables kept for reuse: a registry table from a hash of the keys to an entry
// { keys, metatable } (the metatable { __keys = keys }), with its count of entries at [1]. Views
// of users whose lines list the same keys share one (most of a population's lines list the same
// keys): at most KEY_ORDERS of them per state; a table whose keys hash to a slot taken by other
// keys gets a metatable of its own. Sharing cannot be observed: plugins reach neither the table
// behind a view nor its metatable (loom_proxy.c), and the host only reads `__keys`
// (`rememberedKeyOrder`); nothing changes a metatable or list once made. A hit is checked key by
// key against the list (so a hash collision is never taken for a match), and the list's strings
// are then the keys set: no key string is made again.
#define KEY_ORDER_CACHE "loom.keyorders"
#define KEY_ORDERS 64

// The hash of the non-null members' keys (each key's length, then its bytes; FNV-1a), as a
// registry-table key that is never 1 (the count's slot); *set: how many members are non-null.
static lua_Integer key_order_hash(const char *base, const loom_tree_member *members, int first, int count, int *set) {
    uint64_t h = 0xcbf29ce484222325ULL;
    int p = first, n = 0;
    for (int k = 0; k < count; k++) {
        const loom_tree_member *m = &members[p];
        if (m->kind != LOOM_TREE_NULL) {
            n++;
            h = (h ^ (uint64_t)m->key_length) * 0x100000001b3ULL;
            const unsigned char *b = (const unsigned char *)base + m->key_offset;
            for (size_t i = 0; i < m->key_length; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
        }
        p += 1 + (int)m->descendants;
    }
    *set = n;
    return (lua_Integer)((h >> 2) | ((uint64_t)1 << 61));
}

// Pushes the kept key list and metatable for these members' keys (returns the list's index, the
// metatable above it), or pushes nothing and returns 0 when none is kept for them.
static int kept_key_order(lua_State *L, const char *base, const loom_tree_member *members, int first, int count, lua_Integer h, int set) {
    int cache = loom_bounded_cache(L, KEY_ORDER_CACHE);
    if (lua_rawgeti(L, cache, h) != LUA_TTABLE) {
        lua_settop(L, cache - 1);
        return 0;
    }
    int entry = lua_gettop(L);
    if (lua_rawgeti(L, entry, 1) != LUA_TTABLE || lua_rawlen(L, -1) != (lua_Unsigned)set) {
        lua_settop(L, cache - 1);
        return 0;
    }
    int keys = lua_gettop(L);
    int p = first;
    lua_Integer listed = 0;
    for (int k = 0; k < count; k++) {
        const loom_tree_member *m = &members[p];
        if (m->kind != LOOM_TREE_NULL) {
            size_t len = 0;
            const char *s = lua_rawgeti(L, keys, ++listed) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
            int same = s && len == m->key_length && memcmp(s, base + m->key_offset, len) == 0;
            lua_pop(L, 1);
            if (!same) {
                lua_settop(L, cache - 1);
                return 0;
            }
        }
        p += 1 + (int)m->descendants;
    }
    if (lua_rawgeti(L, entry, 2) != LUA_TTABLE) {
        lua_settop(L, cache - 1);
        return 0;
    }
    // [cache, entry, keys, metatable] -> [keys, metatable]
    lua_remove(L, entry);
    lua_remove(L, cache);
    return cache;
}

// Pushes the list { k1, k2, … } of the keys of the `count` members starting at members[first]
// that are not null (`set` of them), in order.
static void push_key_list(lua_State *L, const char *base, const loom_tree_member *members, int first, int count, int set) {
    lua_createtable(L, set, 0);
    lua_Integer listed = 0;
    int p = first;
    for (int k = 0; k < count; k++) {
        const loom_tree_member *m = &members[p];
        if (m->kind != LOOM_TREE_NULL) {
            lua_pushlstring(L, base + m->key_offset, m->key_length);
            lua_rawseti(L, -2, ++listed);
        }
        p += 1 + (int)m->descendants;
    }
}

// Sets a new key order metatable { __keys = { k1, k2, … } } on the table at `t`, whose `count`
// members start at members[first] (null ones not set, so not listed), and keeps it under `h`
// while the cache has room and the slot is free.
static void set_key_order(lua_State *L, int t, const char *base, const loom_tree_member *members, int first, int count, lua_Integer h, int set) {
    lua_createtable(L, 0, 1);
    int mt = lua_gettop(L);
    push_key_list(L, base, members, first, count, set);
    int keys = lua_gettop(L);
    lua_pushliteral(L, "__keys");
    lua_pushvalue(L, keys);
    lua_rawset(L, mt);
    int cache = loom_bounded_cache(L, KEY_ORDER_CACHE);
    lua_rawgeti(L, cache, 1);
    lua_Integer kept = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (kept < KEY_ORDERS && lua_rawgeti(L, cache, h) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_createtable(L, 2, 0);
        lua_pushvalue(L, keys);
        lua_rawseti(L, -2, 1);
        lua_pushvalue(L, mt);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, cache, h);
        lua_pushinteger(L, kept + 1);
        lua_rawseti(L, cache, 1);
    } else if (kept < KEY_ORDERS) {
        lua_pop(L, 1);
    }
    lua_pushvalue(L, mt);
    lua_setmetatable(L, t);
    lua_settop(L, mt - 1);
}

// The table of the object whose `count` members start at members[*pos] (their descendants
// following each), each nested table made a proxy as it was set; moves *pos past them.
static void push_object_members(lua_State *L, const char *base, const loom_tree_member *members, int *pos, int count, const char *name) {
    // Room for every member, null ones included (the same size as the member-by-member path's,
    // so the same layout and the same `next` order), then each non-null member.
    lua_createtable(L, 0, count);
    int t = lua_gettop(L);
    int first = *pos, set = 0;
    lua_Integer h = key_order_hash(base, members, first, count, &set);
    // With more than one member set, the order of the keys (what `rememberedKeyOrder` reads
    // back): a metatable { __keys = { k1, k2, … } }, kept for tables of the same keys, whose
    // list then gives the key strings.
    int keys = set > 1 ? kept_key_order(L, base, members, first, count, h, set) : 0;
    lua_Integer listed = 0;
    for (int k = 0; k < count; k++) {
        const loom_tree_member *m = &members[*pos];
        if (m->kind == LOOM_TREE_NULL) {
            (*pos)++;
            continue;
        }
        if (keys) lua_rawgeti(L, keys, ++listed); else lua_pushlstring(L, base + m->key_offset, m->key_length);
        push_node(L, base, members, pos, name);
        lua_rawset(L, t);
    }
    if (keys) {
        lua_setmetatable(L, t);  // the kept metatable, above the list
        lua_pop(L, 1);
    } else if (set > 1) {
        set_key_order(L, t, base, members, first, count, h, set);
    }
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
        push_object_members(L, base, members, pos, count, name);
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

// Whether the `count` members are scalars (no array or object) whose keys and strings lie within
// the `bytes` bytes of the buffer: the members of a flat object.
static int flat_members_well_formed(const loom_tree_member *members, int count, size_t bytes) {
    for (int k = 0; k < count; k++) {
        const loom_tree_member *m = &members[k];
        if (m->kind < LOOM_TREE_NULL || m->kind > LOOM_TREE_STRING || m->descendants != 0) return 0;
        if (m->key_offset > bytes || m->key_length > bytes - m->key_offset) return 0;
        if (m->kind == LOOM_TREE_STRING && (m->value_offset > bytes || m->value_length > bytes - m->value_offset)) return 0;
    }
    return 1;
}

// well_formed over the whole list (one value, every member of it); a flat one (depth 1: no
// array or object below the top) in one pass, what well_formed checks of it.
static int tree_well_formed(const loom_tree_member *members, int count, size_t bytes, int depth) {
    if (count < 1) return 0;
    const loom_tree_member *r = &members[0];
    if (depth == 1 && (r->kind == LOOM_TREE_ARRAY || r->kind == LOOM_TREE_OBJECT)) {
        if (r->key_offset > bytes || r->key_length > bytes - r->key_offset) return 0;
        if (r->i != count - 1 || r->descendants != count - 1) return 0;
        return flat_members_well_formed(members + 1, count - 1, bytes);
    }
    int end = 0;
    return well_formed(members, count, bytes, &end, depth) && end == count;
}

int loom_push_frozen_tree(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name) {
    if (count < 1 || members[0].kind < LOOM_TREE_ARRAY || !tree_well_formed(members, count, bytes, depth)) return 0;
    // Each level holds its table, a key and a value; an object also its order list and metatable.
    if (!lua_checkstack(L, 6 * depth + 2)) return 0;
    int pos = 0;
    push_table(L, base, members, &pos, name);
    return 1;
}

// loom_push_frozen_tree without the value's own view: its table, every nested table a view (for
// a recording view made over it: loom_recording_of_table). The same checks.
int loom_push_tree_target(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name) {
    if (count < 1 || members[0].kind < LOOM_TREE_ARRAY || !tree_well_formed(members, count, bytes, depth)) return 0;
    if (!lua_checkstack(L, 6 * depth + 2)) return 0;
    int pos = 0;
    push_table_members(L, base, members, &pos, name);
    return 1;
}

// Views whose table is reused from user to user (loom_push_reused_view): a registry table from a
// hash of an object's keys and size to an entry { keys, table, metatable, size }, with its count
// of entries at [1]; at most REUSED_SHAPES entries per state.
#define REUSED_SHAPES 64
// The registry key of that table: this variable's address (a light userdata: found without
// looking a string up, as loom_bounded_cache's names are).
static const char reused_views_key = 0;

// Pushes the registry table of reused views (made on first use, its count of entries 0) and
// returns its index.
static int reused_views(lua_State *L) {
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &reused_views_key) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 1, 4);
        lua_pushinteger(L, 0);
        lua_rawseti(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &reused_views_key);
    }
    return lua_gettop(L);
}

// Sets the table of the kept entry at stack index `entry` to the object whose `size` members
// start at members[first]: every non-null member set again, its key checked against the entry's
// list before it is set. 1 when every member fitted: the same size (the table was made with room
// for every member, null ones included, as push_object_members makes it, so the same keys set in
// the same order give the same layout and the same `next` order) and the same non-null keys in
// the same order, all of the list's. The stack is left as it was. (A member that does not fit
// stops the setting: the table then holds some members of this object under its own keys, which
// no view shows, since the entry's views are retired, and the next object of its keys sets every
// one of them again.)
static int refill_entry(lua_State *L, int entry, const char *base, const loom_tree_member *members, int first, int size, const char *name) {
    lua_rawgeti(L, entry, 1);
    int keys = entry + 1;
    lua_rawgeti(L, entry, 2);
    int t = entry + 2;
    int fits = lua_type(L, keys) == LUA_TTABLE && lua_type(L, t) == LUA_TTABLE && lua_rawgeti(L, entry, 4) == LUA_TNUMBER &&
               lua_tointeger(L, -1) == size;
    lua_settop(L, t);
    lua_Integer listed = 0, n = fits ? (lua_Integer)lua_rawlen(L, keys) : 0;
    int pos = first;
    for (int k = 0; k < size && fits; k++) {
        const loom_tree_member *m = &members[pos];
        if (m->kind == LOOM_TREE_NULL) {
            pos++;
            continue;
        }
        size_t len = 0;
        const char *s = listed < n && lua_rawgeti(L, keys, ++listed) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
        if (!s || len != m->key_length || memcmp(s, base + m->key_offset, len) != 0) {
            fits = 0;
            break;
        }
        push_node(L, base, members, &pos, name);
        lua_rawset(L, t);
    }
    lua_settop(L, entry);
    return fits && listed == n;
}

// The kept entries flat views used last, by state (loom_limits.reuse_records), at most
// REUSE_RECORDS of them: each entry's registry reference (entries are never dropped, so it stays
// valid), its object's size and non-null keys (each a 4-byte length, then its bytes). The users
// of a file mostly list the same few sets of keys (a user without an optional attribute has one
// fewer), so the next flat object is first checked against these bytes in C, and its entry then
// refilled without a look-up or a key read back from Lua (push_reused_as_recorded): what
// refill_entry checks through the C API, key by key, once per user.
#define REUSE_RECORDS 16
struct loom_reuse_record {
    int entry_ref;
    int size;  // -1: no record
    size_t len, cap;
    unsigned char *keys;
};
struct loom_reuse_records {
    int next;  // the record the next new one replaces
    struct loom_reuse_record records[REUSE_RECORDS];
};

void loom_reuse_records_free(loom_limits *lim) {
    if (lim->reuse_records)
        for (int k = 0; k < REUSE_RECORDS; k++) free(lim->reuse_records->records[k].keys);
    free(lim->reuse_records);
    lim->reuse_records = NULL;
}

// Whether the `size` flat members starting at members[first] have the record's size and
// non-null keys.
static int same_as_record(const struct loom_reuse_record *r, const char *base, const loom_tree_member *members, int first, int size) {
    if (r->size != size) return 0;
    const unsigned char *p = r->keys, *end = r->keys + r->len;
    for (int k = first; k < first + size; k++) {
        const loom_tree_member *m = &members[k];
        if (m->kind == LOOM_TREE_NULL) continue;
        uint32_t len;
        if ((size_t)(end - p) < sizeof len) return 0;
        memcpy(&len, p, sizeof len);
        p += sizeof len;
        if (len != m->key_length || (size_t)(end - p) < len || memcmp(p, base + m->key_offset, len) != 0) return 0;
        p += len;
    }
    return p == end;
}

// The record of these flat members' size and keys, if any.
static const struct loom_reuse_record *record_of(const struct loom_reuse_records *last, const char *base, const loom_tree_member *members,
                                                  int first, int size) {
    if (last == NULL) return NULL;
    for (int k = 0; k < REUSE_RECORDS; k++)
        if (same_as_record(&last->records[k], base, members, first, size)) return &last->records[k];
    return NULL;
}

// Records the entry at stack index `entry` (just refilled or kept for these members, which no
// record holds) in place of the oldest record. Nothing is recorded when memory is short (the
// next views of these keys then look their entry up).
static void record_entry(lua_State *L, int entry, const char *base, const loom_tree_member *members, int first, int size) {
    loom_limits *lim = loom_limits_from(L);
    struct loom_reuse_records *last = lim->reuse_records;
    if (last == NULL) {
        if ((last = calloc(1, sizeof *last)) == NULL) return;
        for (int k = 0; k < REUSE_RECORDS; k++) last->records[k].size = -1;
        lim->reuse_records = last;
    }
    struct loom_reuse_record *r = &last->records[last->next];
    size_t need = 0;
    for (int k = first; k < first + size; k++)
        if (members[k].kind != LOOM_TREE_NULL) need += sizeof(uint32_t) + members[k].key_length;
    r->size = -1;  // no record while it is being made
    if (need > r->cap) {
        unsigned char *grown = realloc(r->keys, need);
        if (grown == NULL) return;
        r->keys = grown;
        r->cap = need;
    }
    // The entry's own reference, made once (at [5]; entries are never dropped).
    if (lua_rawgeti(L, entry, 5) != LUA_TNUMBER) {
        lua_pop(L, 1);
        lua_pushvalue(L, entry);
        int ref = luaL_ref(L, LUA_REGISTRYINDEX);
        if (ref == LUA_REFNIL || ref == LUA_NOREF) return;
        lua_pushinteger(L, ref);
        lua_rawseti(L, entry, 5);
        lua_rawgeti(L, entry, 5);
    }
    r->entry_ref = (int)lua_tointeger(L, -1);
    lua_pop(L, 1);
    unsigned char *p = r->keys;
    for (int k = first; k < first + size; k++) {
        const loom_tree_member *m = &members[k];
        if (m->kind == LOOM_TREE_NULL) continue;
        uint32_t len = (uint32_t)m->key_length;
        memcpy(p, &len, sizeof len);
        p += sizeof len;
        memcpy(p, base + m->key_offset, len);
        p += len;
    }
    r->len = need;
    r->size = size;
    last->next = (last->next + 1) % REUSE_RECORDS;
}

// Pushes a new view of the kept entry at stack index `entry`: a userdata with the entry's view
// metatable (its __index the entry's table), one per user, so that the previous user's can be
// retired alone.
static void push_entry_view(lua_State *L, int entry) {
    lua_newuserdatauv(L, 0, 0);
    lua_rawgeti(L, entry, 3);
    lua_setmetatable(L, -2);
}

// push_reused for flat members whose size and keys are a recorded entry's (record_of): its
// table set to them and a new view of it pushed, as push_reused does after refill_entry.
static void push_reused_as_recorded(lua_State *L, const struct loom_reuse_record *r, const char *base, const loom_tree_member *members, int first,
                                int size, const char *name) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, r->entry_ref);
    int entry = lua_gettop(L);
    lua_rawgeti(L, entry, 1);
    int keys = entry + 1;
    lua_rawgeti(L, entry, 2);
    int t = entry + 2;
    lua_Integer listed = 0;
    int pos = first;
    for (int k = 0; k < size; k++) {
        if (members[pos].kind == LOOM_TREE_NULL) {
            pos++;
            continue;
        }
        lua_rawgeti(L, keys, ++listed);
        push_node(L, base, members, &pos, name);
        lua_rawset(L, t);
    }
    lua_settop(L, entry);
    push_entry_view(L, entry);
    lua_replace(L, entry);
}

// Pushes the view of the object whose `size` members start at members[first] (checked), its
// table the kept one for objects of the same keys and size (see loom_push_reused_view).
static void push_reused(lua_State *L, const char *base, const loom_tree_member *members, int first, int size, int flat, const char *name) {
    int cache = reused_views(L);
    int entry = cache + 1;
    int set = 0;
    lua_Integer h = key_order_hash(base, members, first, size, &set);
    h ^= (lua_Integer)(size & 0xFFFFF) << 40;  // bits 40-59: still never 1 (bit 61 stays set)
    if (lua_rawgeti(L, cache, h) == LUA_TTABLE && refill_entry(L, entry, base, members, first, size, name)) {
        if (flat) record_entry(L, entry, base, members, first, size);
        push_entry_view(L, entry);
        lua_replace(L, cache);
        lua_settop(L, cache);
        return;
    }
    lua_settop(L, cache);
    // Made as loom_push_frozen_tree makes it, and kept for the next object of these keys while
    // there is room and the slot is free.
    int pos = first;
    push_object_members(L, base, members, &pos, size, name);
    int t = lua_gettop(L);
    lua_rawgeti(L, cache, 1);
    lua_Integer kept = lua_tointeger(L, -1);
    lua_pop(L, 1);
    int keep = kept < REUSED_SHAPES && lua_rawgeti(L, cache, h) == LUA_TNIL;
    if (kept < REUSED_SHAPES) lua_pop(L, 1);
    if (keep) {
        loom_proxy_make_reused(L, t, name);
        int proxy = lua_gettop(L);
        lua_createtable(L, 4, 0);
        int made = lua_gettop(L);
        push_key_list(L, base, members, first, size, set);
        lua_rawseti(L, made, 1);
        lua_pushvalue(L, t);
        lua_rawseti(L, made, 2);
        lua_getmetatable(L, proxy);
        lua_rawseti(L, made, 3);
        lua_pushinteger(L, size);
        lua_rawseti(L, made, 4);
        if (flat) record_entry(L, made, base, members, first, size);
        lua_rawseti(L, cache, h);
        lua_pushinteger(L, kept + 1);
        lua_rawseti(L, cache, 1);
    } else {
        loom_proxy_make(L, t, name, 0);
    }
    lua_replace(L, cache);
    lua_settop(L, cache);
}

int loom_push_reused_view(lua_State *L, const char *base, size_t bytes, const loom_tree_member *members, int count, int depth, const char *name) {
    if (count < 1 || members[0].kind != LOOM_TREE_OBJECT || !tree_well_formed(members, count, bytes, depth)) return 0;
    if (!lua_checkstack(L, 6 * depth + 10)) return 0;
    push_reused(L, base, members, 1, (int)members[0].i, 0, name);
    return 1;
}

int loom_reused_view_into(lua_State *L, const int *retire, int nretire, int slot, const char *base, size_t bytes,
                          const loom_tree_member *members, int count, int depth, int flat, const char *name) {
    if (!lua_checkstack(L, 6 * depth + 16)) return -1;
    for (int k = 0; k < nretire; k++) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, retire[k]);
        loom_proxy_retire(L, -1);
        lua_pop(L, 1);
    }
    int pushed;
    if (flat) {
        pushed = count >= 0 && depth == 1 && flat_members_well_formed(members, count, bytes);
        if (pushed) {
            const struct loom_reuse_record *r = record_of(loom_limits_from(L)->reuse_records, base, members, 0, count);
            if (r) push_reused_as_recorded(L, r, base, members, 0, count, name);
            else push_reused(L, base, members, 0, count, 1, name);
        }
    } else {
        pushed = loom_push_reused_view(L, base, bytes, members, count, depth, name);
    }
    if (!pushed) lua_pushboolean(L, 0);
    lua_rawseti(L, LUA_REGISTRYINDEX, slot);
    return pushed;
}
