// Plain views: `host eval`'s user view for rules that only read named fields of the user.
//
// A rule's function is read from its own bytecode (lua_dump, stripped): when its first parameter
// (register 0, the user) is used for nothing but `user.name` reads with constant names (Lua
// 5.4's OP_GETFIELD with that register as the table) — never written, copied, passed, compared,
// returned, captured by a closure, indexed by a computed key or iterated — nothing the rule runs
// can reach the view itself: only the values read from it. Such a rule cannot keep the view, nor
// tell a plain table from the read-only proxy every other rule gets, nor see keys it does not
// name. Its plugin's calls are then made with one plain table per plugin, made once and set again
// for each user to the values of the keys its plain rules read (a key the user lacks, or has as
// null, set to nil), where every other call gets a new read-only view of every member, retired
// when the next user comes (loom_frozen_tree.c). No proxy is indexed, no view made or retired, no
// member no rule reads is converted, and a value equal to the last user's is not set again.
//
// Written by hand because nothing else reads Lua 5.4 bytecode from C: the format is Lua's own
// (ldump.c, lopcodes.h; the same in every 5.4 release, checked against 5.4.0–5.4.8). The dump's
// buffer, header and primitives are the ones line coverage reads dumps with (loom_dump.c). Anything
// this reader does not recognise — another version's header, an opcode it does not list, a
// truncated dump — answers "not plain", and the rule keeps the proxy view.
#include "loom_internal.h"

#include <stdlib.h>
#include <string.h>

// ---- Reading a dump (the primitives: loom_dump.c) ------------------------------------------

// Constant tags (lobject.h's variant tags).
enum { K_NIL = 0, K_FALSE = 1, K_TRUE = 17, K_INT = 3, K_FLT = 19, K_SHRSTR = 4, K_LNGSTR = 20 };

typedef struct {
    int tag;
    const unsigned char *s;
    size_t len;
} dump_constant;

// The parts of a function the analysis reads.
typedef struct {
    int numparams;
    const unsigned char *code;
    size_t ncode;
    dump_constant *k;
    size_t nk;
    int child_captures_first;  // a nested function's upvalue is register 0 of this one
} dump_function;

#define DUMP_MAX_DEPTH 64

// Skips (or, with `f`, reads) a function: source, lines, numparams, is_vararg, maxstacksize, code,
// constants, upvalues, nested functions (each only checked for an upvalue that is `f`'s register 0),
// debug information.
static void dump_function_read(loom_dump_reader *r, dump_function *f, int depth, int *captures_parent_first) {
    if (depth > DUMP_MAX_DEPTH) {
        r->ok = 0;
        return;
    }
    size_t len;
    loom_dump_string(r, &len);  // source
    loom_dump_size(r);          // linedefined
    loom_dump_size(r);          // lastlinedefined
    unsigned numparams = loom_dump_byte(r);
    loom_dump_byte(r);  // is_vararg
    loom_dump_byte(r);  // maxstacksize
    size_t ncode = loom_dump_size(r);
    if (!r->ok || ncode > (size_t)(r->end - r->p) / 4) {
        r->ok = 0;
        return;
    }
    const unsigned char *code = r->p;
    loom_dump_skip(r, ncode * 4);
    size_t nk = loom_dump_size(r);
    if (!r->ok || nk > (size_t)(r->end - r->p)) {  // every constant takes at least its tag's byte
        r->ok = 0;
        return;
    }
    dump_constant *k = NULL;
    if (f && nk > 0 && (k = calloc(nk, sizeof *k)) == NULL) {
        r->ok = 0;
        return;
    }
    for (size_t i = 0; i < nk && r->ok; i++) {
        int tag = (int)loom_dump_byte(r);
        const unsigned char *s = NULL;
        size_t slen = 0;
        switch (tag) {
        case K_NIL: case K_FALSE: case K_TRUE: break;
        case K_INT: case K_FLT: loom_dump_skip(r, 8); break;
        case K_SHRSTR: case K_LNGSTR: s = loom_dump_string(r, &slen); break;
        default: r->ok = 0; break;
        }
        if (k) k[i] = (dump_constant){ tag, s, slen };
    }
    size_t nup = loom_dump_size(r);
    for (size_t i = 0; i < nup && r->ok; i++) {
        unsigned instack = loom_dump_byte(r), idx = loom_dump_byte(r);
        loom_dump_byte(r);  // kind
        if (captures_parent_first && instack == 1 && idx == 0) *captures_parent_first = 1;
    }
    size_t np = loom_dump_size(r);
    int child_captures = 0;
    for (size_t i = 0; i < np && r->ok; i++) dump_function_read(r, NULL, depth + 1, f ? &child_captures : NULL);
    // Debug information (empty in a stripped dump, skipped all the same).
    size_t n = loom_dump_size(r);
    loom_dump_skip(r, n);  // lineinfo
    n = loom_dump_size(r);
    for (size_t i = 0; i < n && r->ok; i++) {
        loom_dump_size(r);
        loom_dump_size(r);
    }
    n = loom_dump_size(r);
    for (size_t i = 0; i < n && r->ok; i++) {
        loom_dump_string(r, &len);
        loom_dump_size(r);
        loom_dump_size(r);
    }
    n = loom_dump_size(r);
    for (size_t i = 0; i < n && r->ok; i++) loom_dump_string(r, &len);
    if (f) {
        *f = (dump_function){ (int)numparams, code, ncode, k, nk, child_captures };
    } else {
        free(k);
    }
}

// ---- The analysis ----------------------------------------------------------------------------

// Lua 5.4's opcodes (lopcodes.h), by number, with which operands name registers: A, B, C
// (always), C when its k bit is clear (RK). GETFIELD is handled apart. An opcode not listed is
// not recognised (the function is then not plain).
enum { OPND_A = 1, OPND_B = 2, OPND_C = 4, OPND_RKC = 8, OPND_NONE = 16 };
static const unsigned char operands[83] = {
    [0] = OPND_A | OPND_B,              // MOVE
    [1] = OPND_A, [2] = OPND_A, [3] = OPND_A, [4] = OPND_A,  // LOADI, LOADF, LOADK, LOADKX
    [5] = OPND_A, [6] = OPND_A, [7] = OPND_A, [8] = OPND_A,  // LOADFALSE, LFALSESKIP, LOADTRUE, LOADNIL (A..A+B)
    [9] = OPND_A,                       // GETUPVAL
    [10] = OPND_A,                      // SETUPVAL: UpValue[B] := R[A]
    [11] = OPND_A,                      // GETTABUP
    [12] = OPND_A | OPND_B | OPND_C,    // GETTABLE
    [13] = OPND_A | OPND_B,             // GETI
    [14] = 0,                           // GETFIELD (apart)
    [15] = OPND_RKC,                    // SETTABUP: UpValue[A][K[B]] := RK(C)
    [16] = OPND_A | OPND_B | OPND_RKC,  // SETTABLE
    [17] = OPND_A | OPND_RKC,           // SETI
    [18] = OPND_A | OPND_RKC,           // SETFIELD
    [19] = OPND_A,                      // NEWTABLE
    [20] = OPND_A | OPND_B | OPND_RKC,  // SELF (A and A+1)
    [21] = OPND_A | OPND_B,             // ADDI
    [22] = OPND_A | OPND_B, [23] = OPND_A | OPND_B, [24] = OPND_A | OPND_B, [25] = OPND_A | OPND_B,  // ADDK SUBK MULK MODK
    [26] = OPND_A | OPND_B, [27] = OPND_A | OPND_B, [28] = OPND_A | OPND_B, [29] = OPND_A | OPND_B,  // POWK DIVK IDIVK BANDK
    [30] = OPND_A | OPND_B, [31] = OPND_A | OPND_B,                                                 // BORK BXORK
    [32] = OPND_A | OPND_B, [33] = OPND_A | OPND_B,                                                 // SHRI SHLI
    [34] = OPND_A | OPND_B | OPND_C, [35] = OPND_A | OPND_B | OPND_C, [36] = OPND_A | OPND_B | OPND_C,  // ADD SUB MUL
    [37] = OPND_A | OPND_B | OPND_C, [38] = OPND_A | OPND_B | OPND_C, [39] = OPND_A | OPND_B | OPND_C,  // MOD POW DIV
    [40] = OPND_A | OPND_B | OPND_C, [41] = OPND_A | OPND_B | OPND_C, [42] = OPND_A | OPND_B | OPND_C,  // IDIV BAND BOR
    [43] = OPND_A | OPND_B | OPND_C, [44] = OPND_A | OPND_B | OPND_C, [45] = OPND_A | OPND_B | OPND_C,  // BXOR SHL SHR
    [46] = OPND_A | OPND_B,             // MMBIN
    [47] = OPND_A, [48] = OPND_A,       // MMBINI, MMBINK
    [49] = OPND_A | OPND_B, [50] = OPND_A | OPND_B, [51] = OPND_A | OPND_B, [52] = OPND_A | OPND_B,  // UNM BNOT NOT LEN
    [53] = OPND_A,                      // CONCAT (A..A+B-1)
    [54] = OPND_A, [55] = OPND_A,       // CLOSE, TBC
    [56] = OPND_NONE,                   // JMP
    [57] = OPND_A | OPND_B, [58] = OPND_A | OPND_B, [59] = OPND_A | OPND_B,  // EQ LT LE
    [60] = OPND_A, [61] = OPND_A, [62] = OPND_A, [63] = OPND_A, [64] = OPND_A, [65] = OPND_A,  // EQK EQI LTI LEI GTI GEI
    [66] = OPND_A,                      // TEST
    [67] = OPND_A | OPND_B,             // TESTSET
    [68] = OPND_A, [69] = OPND_A, [70] = OPND_A,  // CALL, TAILCALL, RETURN (ranges from A)
    [71] = OPND_NONE,                   // RETURN0
    [72] = OPND_A,                      // RETURN1
    [73] = OPND_A, [74] = OPND_A, [75] = OPND_A, [76] = OPND_A, [77] = OPND_A,  // FORLOOP FORPREP TFORPREP TFORCALL TFORLOOP
    [78] = OPND_A,                      // SETLIST (A..)
    [79] = OPND_A,                      // CLOSURE
    [80] = OPND_A,                      // VARARG (A..)
    [81] = OPND_NONE,                   // VARARGPREP
    [82] = OPND_NONE,                   // EXTRAARG
};
#define OP_GETFIELD 14

// Whether the function's code uses register 0 only as GETFIELD's table, each key a string
// constant; the keys read pushed into the table at `keys` (as a list, each once, in order of
// first read).
static int reads_only_fields(lua_State *L, const dump_function *f, int keys) {
    if (f->numparams < 1 || f->child_captures_first) return 0;
    for (size_t pc = 0; pc < f->ncode; pc++) {
        uint32_t i;
        memcpy(&i, f->code + 4 * pc, 4);
        unsigned op = i & 0x7f, a = (i >> 7) & 0xff, k = (i >> 15) & 1, b = (i >> 16) & 0xff, c = (i >> 24) & 0xff;
        if (op >= sizeof operands) return 0;
        if (op == OP_GETFIELD) {
            if (a == 0) return 0;
            if (b != 0) continue;
            if (c >= f->nk || f->k[c].tag != K_SHRSTR) return 0;
            const dump_constant *key = &f->k[c];
            // Listed once (a rule reads few keys: a linear look).
            lua_Integer n = (lua_Integer)lua_rawlen(L, keys), j;
            for (j = 1; j <= n; j++) {
                size_t len;
                lua_rawgeti(L, keys, j);
                const char *s = lua_tolstring(L, -1, &len);
                int same = s && len == key->len && memcmp(s, key->s, len) == 0;
                lua_pop(L, 1);
                if (same) break;
            }
            if (j > n) {
                lua_pushlstring(L, (const char *)key->s, key->len);
                lua_rawseti(L, keys, n + 1);
            }
            continue;
        }
        unsigned use = operands[op];
        if (use == 0) return 0;  // not recognised
        if ((use & OPND_A) && a == 0) return 0;
        if ((use & OPND_B) && b == 0) return 0;
        if ((use & OPND_C) && c == 0) return 0;
        if ((use & OPND_RKC) && !k && c == 0) return 0;
    }
    return 1;
}

// A function larger than this is not analysed (not plain): its analysis stays cheap.
#define DUMP_LIMIT (1 << 20)

int loom_rule_field_reads(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (!lua_checkstack(L, 4) || lua_type(L, idx) != LUA_TFUNCTION || lua_iscfunction(L, idx)) return -1;
    loom_dump_buffer b = { NULL, 0, 0, DUMP_LIMIT };
    lua_pushvalue(L, idx);
    int failed = lua_dump(L, loom_dump_writer, &b, 1);
    lua_pop(L, 1);
    if (failed || b.bytes == NULL) {
        free(b.bytes);
        return -1;
    }
    loom_dump_reader r = { b.bytes, b.bytes + b.len, 1 };
    dump_function f = { 0 };
    int plain = loom_dump_header(&r);
    if (plain) {
        dump_function_read(&r, &f, 0, NULL);
        plain = r.ok && r.p == r.end;
    }
    int count = -1;
    if (plain) {
        lua_newtable(L);
        if (reads_only_fields(L, &f, lua_gettop(L))) {
            count = (int)lua_rawlen(L, -1);
        } else {
            lua_pop(L, 1);
        }
    }
    free(f.k);
    free(b.bytes);
    return count;
}

// ---- The plain table, set again for each user ------------------------------------------------

// What a plain view holds besides its table (a userdata, its user values the table and the list
// of its keys): per key, the last value set (to set only what changed), and an open-addressing
// hash of the keys (a member's key found in one look, whatever the user's key order).
#define PLAIN_VALUE_INLINE 40
typedef struct {
    uint32_t key_offset, key_length;
    int32_t kind;  // the value set last: a LOOM_TREE_ kind, -1 unknown (set whatever comes)
    uint32_t length;
    int64_t i;
    double d;
    char s[PLAIN_VALUE_INLINE];
    int32_t member;  // this user's member of the key, -1 none
} plain_slot;

typedef struct {
    int32_t count;   // keys
    int32_t hsize;   // buckets (a power of two, at least twice the keys)
    // then: plain_slot slots[count]; int32_t buckets[hsize] (a slot + 1, 0 empty); the keys' bytes
} plain_header;

static plain_slot *plain_slots(plain_header *h) { return (plain_slot *)(h + 1); }
static int32_t *plain_buckets(plain_header *h) { return (int32_t *)(plain_slots(h) + h->count); }
static const char *plain_key_bytes(plain_header *h) { return (const char *)(plain_buckets(h) + h->hsize); }

// A key's hash: its length and its first and last (up to) 8 bytes, mixed. Keys that share those
// only make longer probes among the read keys (at most twice as many buckets as keys): the cost
// of a member's look stays within the plugin's own keys, whatever the user's.
static uint32_t plain_hash(const char *s, size_t len) {
    uint64_t a = 0, b = 0;
    if (len >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + len - 8, 8);
    } else if (len >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + len - 4, 4);
        a = x;
        b = y;
    } else if (len > 0) {
        a = (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[len / 2] << 8 | (uint64_t)(unsigned char)s[len - 1] << 16;
    }
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)len) * 0xff51afd7ed558ccdULL;
    return (uint32_t)(h >> 32);
}

int loom_plain_view_new(lua_State *L, int keys) {
    keys = lua_absindex(L, keys);
    if (!lua_checkstack(L, 6) || lua_type(L, keys) != LUA_TTABLE) return 0;
    lua_Integer n = (lua_Integer)lua_rawlen(L, keys);
    if (n > 4096) return 0;
    size_t key_bytes = 0;
    for (lua_Integer j = 1; j <= n; j++) {
        size_t len = 0;
        int t = lua_rawgeti(L, keys, j);
        if (t == LUA_TSTRING) lua_tolstring(L, -1, &len);
        lua_pop(L, 1);
        if (t != LUA_TSTRING || len > UINT32_MAX) return 0;
        key_bytes += len;
    }
    int32_t hsize = 4;
    while (hsize < 2 * n) hsize *= 2;
    size_t size = sizeof(plain_header) + (size_t)n * sizeof(plain_slot) + (size_t)hsize * sizeof(int32_t) + key_bytes;
    plain_header *h = lua_newuserdatauv(L, size, 2);
    int ud = lua_gettop(L);
    h->count = (int32_t)n;
    h->hsize = hsize;
    plain_slot *slots = plain_slots(h);
    int32_t *buckets = plain_buckets(h);
    memset(buckets, 0, (size_t)hsize * sizeof(int32_t));
    char *bytes = (char *)plain_key_bytes(h);
    size_t at = 0;
    lua_createtable(L, (int)n, 0);  // the key list, the view's own copy
    for (lua_Integer j = 1; j <= n; j++) {
        size_t len;
        lua_rawgeti(L, keys, j);
        const char *s = lua_tolstring(L, -1, &len);
        memcpy(bytes + at, s, len);
        slots[j - 1] = (plain_slot){ .key_offset = (uint32_t)at, .key_length = (uint32_t)len, .kind = -1, .member = -1 };
        uint32_t b = plain_hash(s, len) & (uint32_t)(hsize - 1);
        for (int32_t o; (o = buckets[b]) != 0; b = (b + 1) & (uint32_t)(hsize - 1)) {
            const plain_slot *x = &slots[o - 1];
            if (x->key_length == len && memcmp(bytes + x->key_offset, s, len) == 0) {
                // A key listed twice: its two slots would set one field (refused, not guessed).
                lua_settop(L, ud - 1);
                return 0;
            }
        }
        buckets[b] = (int32_t)j;
        at += len;
        lua_rawseti(L, -2, j);
    }
    lua_setiuservalue(L, ud, 2);
    lua_createtable(L, 0, (int)n);
    lua_setiuservalue(L, ud, 1);
    return 1;
}

// The slot of the key, -1 when no plain rule reads it.
static int plain_slot_of(plain_header *h, const char *key, size_t len) {
    const plain_slot *slots = plain_slots(h);
    const int32_t *buckets = plain_buckets(h);
    const char *bytes = plain_key_bytes(h);
    uint32_t mask = (uint32_t)(h->hsize - 1), b = plain_hash(key, len) & mask;
    for (int32_t s; (s = buckets[b]) != 0; b = (b + 1) & mask) {
        const plain_slot *x = &slots[s - 1];
        if (x->key_length == len && memcmp(bytes + x->key_offset, key, len) == 0) return s - 1;
    }
    return -1;
}

// Whether the slot already holds the member's value (the value set last for it, compared by kind
// and content: an integer and a float are different values here, as they are to math.type).
static int plain_holds(const plain_slot *x, const char *base, const loom_tree_member *m) {
    if (x->kind != m->kind) return 0;
    switch (m->kind) {
    case LOOM_TREE_FALSE: case LOOM_TREE_TRUE: return 1;
    case LOOM_TREE_INT: return x->i == m->i;
    case LOOM_TREE_DOUBLE: return memcmp(&x->d, &m->d, sizeof x->d) == 0;
    case LOOM_TREE_STRING:
        return m->value_length <= PLAIN_VALUE_INLINE && x->length == m->value_length && memcmp(x->s, base + m->value_offset, x->length) == 0;
    default: return 0;
    }
}

int loom_plain_view_set(lua_State *L, int ref, const char *base, size_t bytes, const loom_tree_member *members, int count) {
    if (count < 0 || !lua_checkstack(L, 8)) return 0;
    // Checked before anything is set: a flat object of scalars within the bytes.
    for (int p = 0; p < count; p++) {
        const loom_tree_member *m = &members[p];
        if (m->kind < LOOM_TREE_NULL || m->kind > LOOM_TREE_STRING || m->key_offset > bytes || m->key_length > bytes - m->key_offset) return 0;
        if (m->kind == LOOM_TREE_STRING && (m->value_offset > bytes || m->value_length > bytes - m->value_offset)) return 0;
    }
    int top = lua_gettop(L);
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, ref) != LUA_TUSERDATA) {
        lua_settop(L, top);
        return 0;
    }
    plain_header *h = lua_touserdata(L, -1);
    int ud = lua_gettop(L);
    lua_getiuservalue(L, ud, 1);
    int t = ud + 1;
    lua_getiuservalue(L, ud, 2);
    int keys = ud + 2;
    plain_slot *slots = plain_slots(h);
    for (int32_t s = 0; s < h->count; s++) slots[s].member = -1;
    // Each read key's member (a null one as none; of keys listed twice, the last non-null one, as
    // a view's table holds them).
    for (int p = 0; p < count; p++) {
        const loom_tree_member *m = &members[p];
        if (m->kind == LOOM_TREE_NULL) continue;
        int s = plain_slot_of(h, base + m->key_offset, m->key_length);
        if (s >= 0) slots[s].member = p;
    }
    for (int32_t s = 0; s < h->count; s++) {
        plain_slot *x = &slots[s];
        if (x->member < 0) {
            if (x->kind == LOOM_TREE_NULL) continue;
            lua_rawgeti(L, keys, s + 1);
            lua_pushnil(L);
            lua_rawset(L, t);
            x->kind = LOOM_TREE_NULL;
            continue;
        }
        const loom_tree_member *m = &members[x->member];
        if (plain_holds(x, base, m)) continue;
        lua_rawgeti(L, keys, s + 1);
        switch (m->kind) {
        case LOOM_TREE_FALSE: lua_pushboolean(L, 0); break;
        case LOOM_TREE_TRUE: lua_pushboolean(L, 1); break;
        case LOOM_TREE_INT: lua_pushinteger(L, (lua_Integer)m->i); break;
        case LOOM_TREE_DOUBLE: lua_pushnumber(L, (lua_Number)m->d); break;
        default: lua_pushlstring(L, base + m->value_offset, m->value_length); break;
        }
        lua_rawset(L, t);
        x->kind = m->kind;
        x->i = m->i;
        x->d = m->d;
        if (m->kind == LOOM_TREE_STRING) {
            // Kept only when short enough to compare next time (a longer one is always set).
            x->length = (uint32_t)(m->value_length <= PLAIN_VALUE_INLINE ? m->value_length : 0);
            if (m->value_length <= PLAIN_VALUE_INLINE) memcpy(x->s, base + m->value_offset, m->value_length);
            else x->kind = -1;
        }
    }
    lua_settop(L, top);
    return 1;
}

int loom_plain_view_table(lua_State *L, int ref) {
    if (!lua_checkstack(L, 2)) return LUA_NOREF;
    if (lua_rawgeti(L, LUA_REGISTRYINDEX, ref) != LUA_TUSERDATA) {
        lua_pop(L, 1);
        return LUA_NOREF;
    }
    lua_getiuservalue(L, -1, 1);
    lua_remove(L, -2);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}
